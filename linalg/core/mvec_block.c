/* Block operations on hm_mvec: Gram blocks with one reduction, block updates with a small
 * factor, column copies and row scaling, each a call into the backend's kernel table; and the
 * solvers' internal fused ones (mvec_block.h). */
#include <complex.h>
#include <math.h>
#include "error_macros.h"
#include "mpi_large.h"
#include "mvec_block.h"
#include "hamlet/mvec.h"

/* x and y must be blocks over the same rows with the same scalar type. */
static int check_pair(const hm_mvec *x, const hm_mvec *y, const char *xn, const char *yn) {
  HM_CHECK(x && y, HM_ERR_ARGUMENT, "%s or %s is NULL", xn, yn);
  HM_CHECK(x->type == y->type, HM_ERR_ARGUMENT, "%s and %s differ in scalar type (%d, %d)", xn, yn, (int)x->type,
           (int)y->type);
  HM_CHECK(x->dist.local == y->dist.local && x->dist.first == y->dist.first && x->dist.n_global == y->dist.n_global,
           HM_ERR_ARGUMENT, "%s and %s have different row distributions (local rows %lld, %lld)", xn, yn,
           (long long)x->dist.local, (long long)y->dist.local);
  return HM_SUCCESS;
}

int hm_mvec_dist(const hm_mvec *v, const hm_dist **dist) {
  HM_CHECK(v && dist, HM_ERR_ARGUMENT, "v or dist is NULL");
  *dist = &v->dist;
  return HM_SUCCESS;
}

int hm_mvec_context(const hm_mvec *v, hm_context **ctx) {
  HM_CHECK(v && ctx, HM_ERR_ARGUMENT, "v or ctx is NULL");
  *ctx = v->ctx;
  return HM_SUCCESS;
}

int hm_mvec_type(const hm_mvec *v, hm_scalar *type) {
  HM_CHECK(v && type, HM_ERR_ARGUMENT, "v or type is NULL");
  *type = v->type;
  return HM_SUCCESS;
}

/* G = the local Gram block (X->k x ny scalars from the backend, with its status) summed over ranks;
 * local is freed. */
static int gram_reduce(const hm_mvec *X, int ny, void *G, int local_status, double *local) {
  /* k x ny x 2 passes INT_MAX from about 32768 columns: size_t count, reduced in pieces. */
  const size_t len = (size_t)X->k * (size_t)ny * (size_t)X->type;
  int st = local_status;
  if (!st) st = hm_mpi_allreduce_large(local, G, len, MPI_DOUBLE, MPI_SUM, X->ctx->comm);
  free(local);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_mvec_gram(const hm_mvec *X, const hm_mvec *Y, void *G) {
  HM_CALL(check_pair(X, Y, "X", "Y"));
  HM_CHECK(G, HM_ERR_ARGUMENT, "G is NULL");
  double *local;
  HM_MALLOC(local, X->k * Y->k * (int)X->type);
  int st = X->ctx->kernels->gram(X->type, X->dist.local, X->k, X->data, Y->k, Y->data, local);
  HM_CALL(gram_reduce(X, Y->k, G, st, local));
  return HM_SUCCESS;
}

int hm_mvec_update(hm_mvec *Y, const void *beta, const hm_mvec *X, const void *C) {
  HM_CALL(check_pair(X, Y, "X", "Y"));
  HM_CHECK(beta && C, HM_ERR_ARGUMENT, "beta or C is NULL");
  HM_CHECK(X != Y, HM_ERR_ARGUMENT, "X and Y must be distinct blocks (Y = beta Y + X C)");
  HM_CALL(X->ctx->kernels->block_update(X->type, X->dist.local, X->k, X->data, Y->k, C, beta, Y->data));
  return HM_SUCCESS;
}

int hm_mvec_axpby(hm_mvec *y, const void *alpha, const hm_mvec *x, const void *beta) {
  HM_CALL(check_pair(x, y, "x", "y"));
  HM_CHECK(alpha && beta, HM_ERR_ARGUMENT, "alpha or beta is NULL");
  HM_CHECK(x->k == y->k, HM_ERR_ARGUMENT, "x and y have %d and %d columns; they must be equal", x->k, y->k);
  HM_CALL(x->ctx->kernels->axpby(x->type, x->dist.local, x->k, alpha, x->data, beta, y->data));
  return HM_SUCCESS;
}

int hm_mvec_norms(const hm_mvec *x, double *norms) {
  HM_CHECK(x && norms, HM_ERR_ARGUMENT, "x or norms is NULL");
  double *dots;
  HM_MALLOC(dots, x->k * (int)x->type);
  int st = hm_mvec_dot(x, x, dots);
  for (int j = 0; j < x->k && !st; j++) norms[j] = sqrt(fmax(dots[(size_t)x->type * j], 0.0));
  free(dots);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_mvec_copy_columns(const hm_mvec *src, int s0, hm_mvec *dst, int d0, int count) {
  HM_CALL(check_pair(src, dst, "src", "dst"));
  HM_CHECK(count >= 0 && s0 >= 0 && d0 >= 0 && s0 + count <= src->k && d0 + count <= dst->k, HM_ERR_ARGUMENT,
           "columns [%d, %d) of a %d-column block to [%d, %d) of a %d-column block: out of range", s0, s0 + count,
           src->k, d0, d0 + count, dst->k);
  HM_CHECK(src != dst || s0 + count <= d0 || d0 + count <= s0 || s0 == d0, HM_ERR_ARGUMENT,
           "overlapping column ranges [%d, %d) and [%d, %d) within one block", s0, s0 + count, d0, d0 + count);
  if (count == 0 || (src == dst && s0 == d0)) return HM_SUCCESS;
  HM_CALL(src->ctx->kernels->copy_columns(src->type, src->dist.local, src->k, src->data, s0, dst->k, dst->data, d0,
                                          count));
  return HM_SUCCESS;
}

int hm_mvec_scale_rows(hm_mvec *y, const hm_mvec *d, const hm_mvec *x) {
  HM_CALL(check_pair(x, y, "x", "y"));
  HM_CALL(check_pair(d, y, "d", "y"));
  HM_CHECK(d->k == 1, HM_ERR_ARGUMENT, "d has %d columns; it must have 1", d->k);
  HM_CHECK(x->k == y->k, HM_ERR_ARGUMENT, "x and y have %d and %d columns; they must be equal", x->k, y->k);
  HM_CALL(x->ctx->kernels->scale_rows(x->type, x->dist.local, x->k, d->data, x->data, y->data));
  return HM_SUCCESS;
}

int hm_mvec_ritz_residual(const hm_mvec *AX, const hm_mvec *BX, const double *lambda, hm_mvec *R, double *rnorm,
                          double *bnorm) {
  HM_CALL(check_pair(AX, R, "AX", "R"));
  HM_CALL(check_pair(BX, R, "BX", "R"));
  HM_CHECK(lambda && rnorm && bnorm, HM_ERR_ARGUMENT, "lambda, rnorm or bnorm is NULL");
  const int m = R->k;
  HM_CHECK(AX->k >= m && BX->k >= m, HM_ERR_ARGUMENT,
           "AX and BX have %d and %d columns; both need at least R's %d", AX->k, BX->k, m);
  HM_CHECK(R != AX && R != BX && R->data != AX->data && R->data != BX->data, HM_ERR_ARGUMENT,
           "R must be distinct from AX and BX (R = AX - BX diag(lambda))");
  double *sums;
  HM_MALLOC(sums, 4 * (size_t)m + 1); /* local, then global */
  int st = R->ctx->kernels->ritz_residual(R->type, R->dist.local, AX->k, AX->data, BX->k, BX->data, m, lambda,
                                          R->data, sums);
  if (!st) { /* |R|^2 and |BX|^2 of every column in one reduction (2m < INT_MAX: m columns of a block that holds 2m doubles a row) */
    int mst = MPI_Allreduce(sums, sums + 2 * m, 2 * m, MPI_DOUBLE, MPI_SUM, R->ctx->comm);
    if (mst != MPI_SUCCESS) st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Allreduce of %d residual norms failed", m);
  }
  for (int j = 0; j < m && !st; j++) {
    rnorm[j] = sqrt(fmax(sums[2 * m + j], 0.0));
    bnorm[j] = sqrt(fmax(sums[3 * m + j], 0.0));
  }
  free(sums);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_mvec_gram_columns(const hm_mvec *X, const hm_mvec *Y, int y0, int ny, void *G) {
  HM_CALL(check_pair(X, Y, "X", "Y"));
  HM_CHECK(G, HM_ERR_ARGUMENT, "G is NULL");
  HM_CHECK(y0 >= 0 && ny >= 0 && y0 + ny <= Y->k, HM_ERR_ARGUMENT,
           "columns [%d, %d) of Y: out of range for its %d columns", y0, y0 + ny, Y->k);
  double *local;
  HM_MALLOC(local, X->k * ny * (int)X->type);
  int st = X->ctx->kernels->gram_columns(X->type, X->dist.local, X->k, X->data, Y->k, Y->data, y0, ny, local);
  HM_CALL(gram_reduce(X, ny, G, st, local));
  return HM_SUCCESS;
}

/* Rows per piece of the in-place operations below: `asked` where > 0, else about 64 MiB of work
 * space whatever the width; at most the local rows. */
static int64_t piece_rows(const hm_mvec *Y, int64_t asked) {
  const int64_t row = (int64_t)Y->k * Y->type * (int64_t)sizeof(double);
  int64_t rows = asked > 0 ? asked : ((int64_t)64 << 20) / (row > 0 ? row : 1);
  if (rows > Y->dist.local) rows = Y->dist.local;
  return rows < 1 ? 1 : rows;
}

int hm_mvec_multiply_in_place(hm_mvec *Y, const void *C, int64_t piece) {
  HM_CHECK(Y && C, HM_ERR_ARGUMENT, "Y or C is NULL");
  const hm_kernels *K = Y->ctx->kernels;
  const int t = Y->type, k = Y->k;
  const int64_t n = Y->dist.local, rows = piece_rows(Y, piece), stride = (int64_t)k * t;
  if (n == 0 || k == 0) return HM_SUCCESS;
  double *work = NULL, zero[2] = {0, 0};
  HM_CALL(K->alloc(sizeof(double) * (size_t)(rows * stride), (void **)&work));
  int st = HM_SUCCESS;
  /* Rows are contiguous (row-major): each piece is multiplied into the work space and copied back. */
  for (int64_t r = 0; r < n && !st; r += rows) {
    const int64_t nr = n - r < rows ? n - r : rows;
    st = K->block_update(Y->type, nr, k, Y->data + r * stride, k, C, zero, work);
    if (!st) st = K->copy(Y->data + r * stride, work, sizeof(double) * (size_t)(nr * stride));
  }
  K->release(work);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_mvec_keep_columns(hm_mvec *Y, const int *keep, int64_t piece) {
  HM_CHECK(Y && (keep || Y->k == 0), HM_ERR_ARGUMENT, "Y or keep is NULL");
  HM_CHECK(Y->halo_capacity == 0, HM_ERR_ARGUMENT, "a block with halo rows cannot be narrowed in place");
  const hm_kernels *K = Y->ctx->kernels;
  const int t = Y->type, k = Y->k;
  int kept = 0;
  for (int j = 0; j < k; j++) kept += keep[j] != 0;
  if (kept == k) return HM_SUCCESS;
  const int64_t n = Y->dist.local, rows = piece_rows(Y, piece), stride = (int64_t)k * t, narrow = (int64_t)kept * t;
  double *work = NULL;
  if (n > 0 && kept > 0) HM_CALL(K->alloc(sizeof(double) * (size_t)(rows * stride), (void **)&work));
  int st = HM_SUCCESS;
  /* Piece by piece from the first row: a piece's narrow rows land at or before its wide rows, so
   * they overwrite only rows already moved (its own are in the work space first). */
  for (int64_t r = 0; r < n && kept > 0 && !st; r += rows) {
    const int64_t nr = n - r < rows ? n - r : rows;
    st = K->copy(work, Y->data + r * stride, sizeof(double) * (size_t)(nr * stride));
    for (int j = 0, d = 0; j < k && !st;) {
      if (!keep[j]) {
        j++;
        continue;
      }
      int run = 1;
      while (j + run < k && keep[j + run]) run++;
      st = K->copy_columns(Y->type, nr, k, work, j, kept, Y->data + r * narrow, d, run);
      j += run;
      d += run;
    }
  }
  if (work) K->release(work);
  HM_CALL(st);
  Y->k = kept; /* the allocation keeps its size until the block is destroyed */
  return HM_SUCCESS;
}

int hm_mvec_series_accumulate(hm_mvec *acc, int m, hm_mvec *const *X, const void *C) {
  HM_CHECK(acc && (X || m == 0) && (C || m == 0), HM_ERR_ARGUMENT, "acc, X or C is NULL");
  HM_CHECK(m >= 0 && m <= 16, HM_ERR_ARGUMENT, "%d series terms at once: allowed 0 to 16", m);
  if (m == 0) return HM_SUCCESS;
  const int w = X[0]->k;
  HM_CHECK(w >= 1 && acc->k % w == 0, HM_ERR_ARGUMENT,
           "the accumulators' %d columns are not a multiple of the terms' %d columns", acc->k, w);
  const double *data[16];
  for (int j = 0; j < m; j++) {
    HM_CALL(check_pair(X[j], acc, "X[j]", "acc"));
    HM_CHECK(X[j]->k == w, HM_ERR_ARGUMENT, "term %d has %d columns, term 0 has %d", j, X[j]->k, w);
    data[j] = X[j]->data;
  }
  HM_CALL(acc->ctx->kernels->series_accumulate(acc->type, acc->dist.local, w, m, data, acc->k / w, C, acc->data));
  return HM_SUCCESS;
}
