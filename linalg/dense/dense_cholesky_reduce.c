/* The generalized problem A z = lambda B z for the distributed eigensolver (dense_distributed.h), on
 * the same column blocks: B = L L^H by a right-looking blocked Cholesky (each block column factored on
 * its owner and broadcast, the trailing columns updated by GEMMs on every rank), C = L^-1 A L^-H as
 * L^-1 (L^-1 A)^H (two forward substitutions on each rank's columns, one distributed conjugate
 * transpose between them), and z = L^-H y by back substitution. The columns live on the ranks' sides
 * (dense_exec.h): potrf of each diagonal block on its owner's host, the triangular solves and GEMMs on
 * the GPU of a CUDA rank. */
#include <string.h>
#include "dense_blas.h"
#include "dense_distributed.h"
#include "dense_internal.h"
#include "error_macros.h"

/* Block k's columns [c0, c0 + kb) and rows c0.. of L, packed (n - c0) x kb on x's side, from its owner
 * (stage: host room for it where x is a GPU). */
static int share_panel(const hm_dense_columns *c, const double *bloc, int64_t c0, int64_t kb, double *panel,
                       double *stage) {
  const int s = (int)c->type, owner = hm_dense_owner_of(c0, c->b, c->P);
  const int64_t n = c->n, m = n - c0;
  int st = HM_SUCCESS;
  if (owner == c->rank) {
    const double *col = bloc + s * (hm_dense_local_of(c0, c->b, c->P) * n + c0);
    st = hm_dense_x_copy_block(&c->x, 'S', panel, s * m, col, s * n, s * m, kb);
  }
  HM_CALL_MPI(MPI_Bcast(&st, 1, MPI_INT, owner, c->comm));
  HM_CHECK(!st, st, "the Cholesky panel at column %lld failed on rank %d", (long long)c0, owner);
  return hm_dense_x_bcast(&c->x, c->comm, owner, panel, stage, s * m * kb);
}

/* The panel buffers of the Cholesky stages: panel and pl on x's side, stage and diag on the host. */
typedef struct {
  double *panel, *pl, *stage, *diag;
} cholesky_buffers;

static void cholesky_buffers_free(const hm_dense_exec *x, cholesky_buffers *p) {
  hm_dense_x_free(x, p->panel);
  hm_dense_x_free(x, p->pl);
  free(p->stage);
  free(p->diag);
}

static int cholesky_buffers_alloc(const hm_dense_columns *c, cholesky_buffers *p) {
  const int s = (int)c->type, b = c->b;
  int st = hm_dense_x_alloc(&c->x, &p->panel, s * c->n * b + 1);
  if (!st) st = hm_dense_x_alloc(&c->x, &p->pl, s * (c->nloc + 1) * b);
  p->stage = malloc(sizeof(double) * (size_t)(c->x.device >= 0 ? s * c->n * b + 1 : 1));
  p->diag = malloc(sizeof(double) * (size_t)(s * b * b));
  if (!st && (!p->stage || !p->diag))
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the Cholesky panels' host room");
  return hm_dense_agree(c->comm, st);
}

/* The owner's step on block column c0: L11 = chol(B11) on the host, L21 = B21 L11^-H on x's side.
 * Returns the status; *info: potrf's (the minor's global order where B is not positive definite). */
static int factor_block(const hm_dense_columns *c, double *bloc, int64_t c0, int64_t kb, double *diag, int *info) {
  const int s = (int)c->type;
  const int64_t n = c->n, m = n - c0 - kb;
  const hm_dense_exec *x = &c->x;
  double *d = bloc + s * (hm_dense_local_of(c0, c->b, c->P) * n + c0);
  HM_CALL(hm_dense_x_copy_block(x, 'D', diag, s * kb, d, s * n, s * kb, kb));
  *info = s == 1 ? LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (int)kb, diag, (int)kb)
                 : LAPACKE_zpotrf(LAPACK_COL_MAJOR, 'L', (int)kb, (lapack_complex_double *)diag, (int)kb);
  if (*info > 0) *info += (int)c0;
  if (*info) return HM_SUCCESS;
  HM_CALL(hm_dense_x_copy_block(x, 'U', d, s * n, diag, s * kb, s * kb, kb));
  return hm_dense_x_trsm(x, c->type, 'R', 'C', m, kb, d, n, d + s * kb, n);
}

int hm_dense_cholesky_columns(const hm_dense_columns *c, double *bloc) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n;
  cholesky_buffers p = {0};
  int st = cholesky_buffers_alloc(c, &p);
  for (int64_t c0 = 0; c0 < n && !st; c0 += b) {
    const int64_t kb = n - c0 < b ? n - c0 : b, r0 = c0 + kb, m = n - r0;
    const int owner = hm_dense_owner_of(c0, b, c->P);
    int state[2] = {HM_SUCCESS, 0}; /* the owner's status and potrf's info, for every rank */
    if (owner == c->rank) state[0] = factor_block(c, bloc, c0, kb, p.diag, &state[1]);
    HM_CALL_MPI(MPI_Bcast(state, 2, MPI_INT, owner, c->comm));
    if (state[0]) {
      st = owner == c->rank ? state[0] : hm_error_raise(state[0], __FILE__, __LINE__, __func__, "failed on rank %d", owner);
      break;
    }
    if (state[1] > 0)
      st = hm_error_raise(HM_ERR_NUMERIC, __FILE__, __LINE__, __func__,
                          "B is not positive definite: its leading minor of order %d is not (%spotrf)", state[1],
                          s == 1 ? "d" : "z");
    else if (state[1] < 0)
      st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__, "potrf: illegal argument %d", -state[1]);
    if (st || !m) break;
    HM_CALL_GOTO(st, done, share_panel(c, bloc, c0, kb, p.panel, p.stage));
    /* B22 -= L21 L21^H on this rank's trailing columns. */
    const int64_t l0 = hm_dense_first_local_at(c, r0), nlt = c->nloc - l0;
    HM_CALL_GOTO(st, done, hm_dense_x_rows_at_columns(&c->x, c->type, b, c->rank, c->P, l0, nlt, p.panel, n - c0, c0, kb, p.pl));
    HM_CALL_GOTO(st, done, hm_dense_x_gemm(&c->x, c->type, 'N', 'C', m, nlt, kb, -1, p.panel + s * kb, n - c0, p.pl, nlt, 1,
                                           bloc + s * (l0 * n + r0), n));
  }
done:
  cholesky_buffers_free(&c->x, &p);
  return st;
}

int hm_dense_cholesky_solve(const hm_dense_columns *c, const double *bloc, char trans, int64_t ncols, double *x) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, blocks = (n + b - 1) / b;
  const hm_dense_exec *side = &c->x;
  cholesky_buffers p = {0};
  int st = cholesky_buffers_alloc(c, &p);
  for (int64_t k = 0; k < blocks && !st; k++) {
    const int64_t c0 = (trans == 'N' ? k : blocks - 1 - k) * b, kb = n - c0 < b ? n - c0 : b, m = n - c0 - kb;
    HM_CALL_GOTO(st, done, share_panel(c, bloc, c0, kb, p.panel, p.stage));
    if (!ncols) continue;
    double *top = x + s * c0, *below = x + s * (c0 + kb);
    const double *l21 = p.panel + s * kb;
    if (trans == 'N') { /* X1 = L11^-1 X1, X2 -= L21 X1 */
      st = hm_dense_x_trsm(side, c->type, 'L', 'N', kb, ncols, p.panel, n - c0, top, n);
      if (!st) st = hm_dense_x_gemm(side, c->type, 'N', 'N', m, ncols, kb, -1, l21, n - c0, top, n, 1, below, n);
    } else { /* X1 -= L21^H X2, X1 = L11^-H X1 */
      st = hm_dense_x_gemm(side, c->type, 'C', 'N', kb, ncols, m, -1, l21, n - c0, below, n, 1, top, n);
      if (!st) st = hm_dense_x_trsm(side, c->type, 'L', 'C', kb, ncols, p.panel, n - c0, top, n);
    }
  }
done:
  cholesky_buffers_free(side, &p);
  return st;
}

/* y <- x^H with both on the host. */
static int transpose_host(const hm_dense_columns *c, const double *x, double *y) {
  const int s = (int)c->type, P = c->P, b = c->b;
  const int64_t n = c->n, nloc = c->nloc;
  MPI_Count *sc = NULL, *rc = NULL;
  MPI_Aint *sd = NULL, *rd = NULL;
  double *sbuf = NULL, *rbuf = NULL;
  HM_MALLOC(sc, P); HM_MALLOC(rc, P); HM_MALLOC(sd, P + 1); HM_MALLOC(rd, P + 1);
  HM_MALLOC(sbuf, s * n * nloc + 1);
  HM_MALLOC(rbuf, s * n * nloc + 1);
  /* To rank r: the rows that are r's columns, of each of my columns (my column order, r's row order). */
  MPI_Aint at = 0;
  for (int r = 0; r < P; r++) {
    const int64_t nr = hm_dense_numroc(n, b, r, P);
    sd[r] = at;
    for (int64_t l = 0; l < nloc; l++)
      for (int64_t i = 0; i < nr; i++) {
        const double *e = x + s * (l * n + hm_dense_global_of(i, b, r, P));
        sbuf[at++] = e[0];
        if (s == 2) sbuf[at++] = e[1];
      }
    sc[r] = (MPI_Count)(at - sd[r]);
  }
  for (int r = 0; r < P; r++) {
    rc[r] = (MPI_Count)(s * nloc * hm_dense_numroc(n, b, r, P));
    rd[r + 1] = rd[r] + (MPI_Aint)rc[r];
  }
  int st = MPI_Alltoallv_c(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, c->comm);
  if (st == MPI_SUCCESS) /* from rank r: its columns' entries in my rows; y(j, i) = conj x(i, j) */
    for (int r = 0; r < P; r++) {
      const int64_t nr = hm_dense_numroc(n, b, r, P);
      const double *src = rbuf + rd[r];
      for (int64_t l = 0; l < nr; l++) {
        const int64_t row = hm_dense_global_of(l, b, r, P);
        for (int64_t i = 0; i < nloc; i++, src += s) {
          double *e = y + s * (i * n + row);
          e[0] = src[0];
          if (s == 2) e[1] = -src[1];
        }
      }
    }
  free(sc); free(rc); free(sd); free(rd); free(sbuf); free(rbuf);
  HM_CHECK(st == MPI_SUCCESS, HM_ERR_MPI, "MPI_Alltoallv_c of the conjugate transpose failed");
  return HM_SUCCESS;
}

int hm_dense_conjugate_transpose(const hm_dense_columns *c, const double *x, double *y) {
  if (c->x.device < 0) return transpose_host(c, x, y);
  /* GPU ranks: through the host (an all-to-all of n x nloc entries either way) */
  const int64_t count = (int64_t)c->type * c->n * c->nloc;
  double *xh = malloc(sizeof(double) * (size_t)(count + 1)), *yh = malloc(sizeof(double) * (size_t)(count + 1));
  int st = xh && yh ? hm_dense_x_copy(&c->x, 'D', xh, x, count)
                    : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the transpose's host room");
  st = hm_dense_agree(c->comm, st);
  if (!st) st = transpose_host(c, xh, yh);
  if (!st) st = hm_dense_x_copy(&c->x, 'U', y, yh, count);
  free(xh);
  free(yh);
  return st;
}
