/* hm_matrix: local CSR with halo columns renumbered after the local rows, interior/boundary
 * row lists, and the overlapped product y = A x. */
#include <complex.h>
#include <math.h>
#include <omp.h>
#include <string.h>
#include "error_macros.h"
#include "host_alloc.h"
#include "halo.h"
#include "matrix_hermitian.h"
#include "stencil_free.h"

typedef struct { int64_t col; double re, im; } entry;

static int cmp_entry(const void *a, const void *b) {
  int64_t x = ((const entry *)a)->col, y = ((const entry *)b)->col;
  return (x > y) - (x < y);
}
static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Index of g in the sorted array a[n] (present by construction). */
static int32_t find_sorted(const int64_t *a, int32_t n, int64_t g) {
  int32_t lo = 0, hi = n - 1;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < g) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* e[0 .. m) sorted by column, duplicates summed; returns the entries left. Rows are short as a rule
 * (an insertion sort); long ones take qsort. */
static int64_t sort_sum_row(entry *e, int64_t m) {
  if (m > 32) {
    qsort(e, (size_t)m, sizeof *e, cmp_entry);
  } else {
    for (int64_t a = 1; a < m; a++) {
      const entry x = e[a];
      int64_t b = a;
      for (; b > 0 && e[b - 1].col > x.col; b--) e[b] = e[b - 1];
      e[b] = x;
    }
  }
  int64_t left = 0;
  for (int64_t p = 0; p < m; p++) {
    if (left > 0 && e[p].col == e[left - 1].col) {
      e[left - 1].re += e[p].re;
      e[left - 1].im += e[p].im;
    } else {
      e[left++] = e[p];
    }
  }
  return left;
}

/* The rows' entries, each row sorted by column with duplicates summed where it lies (row i from
 * e + rowptr[i]), and rp[] the CSR row pointers of what is left. Parallel over rows: the build of
 * a large lattice is otherwise spent here and in the kernel's first touch of these pages. */
static int gather_rows(const struct hm_dist_s *d, hm_scalar type, const int64_t *rowptr, const int64_t *cols,
                       const double *values, entry **out, int64_t **out_rp) {
  const int64_t n = d->local, nnz = rowptr[n];
  for (int64_t i = 0; i < n; i++)
    HM_CHECK(rowptr[i + 1] >= rowptr[i], HM_ERR_ARGUMENT, "rowptr decreases at local row %lld", (long long)i);
  entry *e = hm_alloc_large(sizeof *e * (size_t)(nnz + 1));
  int64_t *rp = malloc(sizeof *rp * (size_t)(n + 1));
  if (!e || !rp) {
    free(e);
    free(rp);
    return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %lld matrix entries",
                          (long long)nnz);
  }
  int64_t bad = nnz; /* the first entry with a column outside the matrix */
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : bad)
  for (int64_t i = 0; i < n; i++) {
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
      if ((cols[p] < 0 || cols[p] >= d->n_global) && p < bad) bad = p;
      e[p] = (entry){cols[p], values[(size_t)type * (size_t)p], type == HM_COMPLEX ? values[2 * p + 1] : 0.0};
    }
    rp[i + 1] = sort_sum_row(e + rowptr[i], rowptr[i + 1] - rowptr[i]);
  }
  if (bad < nnz) {
    int64_t i = 0;
    while (rowptr[i + 1] <= bad) i++;
    free(e);
    free(rp);
    return hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__,
                          "column %lld of global row %lld is outside [0, %lld)", (long long)cols[bad],
                          (long long)(d->first + i), (long long)d->n_global);
  }
  rp[0] = 0;
  for (int64_t i = 0; i < n; i++) rp[i + 1] += rp[i];
  *out = e;
  *out_rp = rp;
  return HM_SUCCESS;
}

/* Copy of an array into the backend's memory. */
static int upload_copy(const hm_kernels *K, const void *src, size_t bytes, void **dst) {
  HM_CALL(K->alloc(bytes, dst));
  HM_CALL(K->upload(*dst, src, bytes));
  return HM_SUCCESS;
}

/* The backend's own format of the local matrix for the interior and boundary row lists (SELL-C-sigma
 * on CUDA), made again when the lists change; none where the backend reads the CSR directly. */
static int prepare_format(hm_matrix *M) {
  const hm_kernels *K = M->ctx->kernels;
  if (!K->prepare) return HM_SUCCESS;
  if (M->exec.format) K->unprepare((void *)M->exec.format);
  M->exec.format = NULL;
  const struct hm_csr_view host = {M->csr.nrows, M->csr.rowptr, M->csr.col, M->csr.val, NULL, NULL};
  const int32_t *rows[2] = {M->interior_rows, M->boundary_rows};
  const int32_t counts[2] = {M->n_interior, M->n_boundary};
  const int32_t *keys[2] = {M->exec_interior, M->exec_boundary};
  void *format = NULL;
  HM_CALL(K->prepare(M->type, &host, 2, rows, counts, keys, (int)M->format, M->sell_sigma, &format));
  M->exec.format = format;
  return HM_SUCCESS;
}

/* The arrays the kernels read, in the backend's memory; host aliases where that is the host. */
static int place_on_backend(hm_matrix *M) {
  const hm_kernels *K = M->ctx->kernels;
  hm_csr *c = &M->csr;
  M->exec = (struct hm_csr_view){c->nrows, c->rowptr, c->col, c->val, NULL, NULL};
  M->exec_interior = M->interior_rows;
  M->exec_boundary = M->boundary_rows;
  M->exec_send_rows = M->halo.send_rows;
  if (!K->device_memory) return HM_SUCCESS;
  const int64_t nnz = c->rowptr[c->nrows];
  void *p[6] = {NULL};
  HM_CALL(upload_copy(K, c->rowptr, sizeof(int64_t) * (size_t)(c->nrows + 1), &p[0]));
  M->exec.rowptr = p[0];
  HM_CALL(upload_copy(K, c->col, sizeof(int32_t) * (size_t)nnz, &p[1]));
  M->exec.col = p[1];
  HM_CALL(upload_copy(K, c->val, sizeof(double) * (size_t)M->type * (size_t)nnz, &p[2]));
  M->exec.val = p[2];
  HM_CALL(upload_copy(K, M->interior_rows, sizeof(int32_t) * (size_t)M->n_interior, &p[3]));
  M->exec_interior = p[3];
  HM_CALL(upload_copy(K, M->boundary_rows, sizeof(int32_t) * (size_t)M->n_boundary, &p[4]));
  M->exec_boundary = p[4];
  const int32_t nsend = M->halo.send_start ? M->halo.send_start[M->halo.nsend_ranks] : 0;
  HM_CALL(upload_copy(K, M->halo.send_rows, sizeof(int32_t) * (size_t)nsend, &p[5]));
  M->exec_send_rows = p[5];
  HM_CALL(prepare_format(M));
  return HM_SUCCESS;
}

/* Whether global column g lies outside the rows [first, first + n) this rank owns. */
static int is_remote(int64_t g, int64_t first, int64_t n) { return g < first || g >= first + n; }

/* M's local CSR from the caller's rows: local columns numbered from 0, remote ones after the local
 * rows in the order of *remote (sorted, unique: the halo slots), and the rows split into interior
 * and boundary (with remote entries) lists. Parallel over rows. */
static int assemble_rows(hm_matrix *M, const int64_t *rowptr, const int64_t *cols, const double *values,
                         int64_t **remote_out, int32_t *nremote_out) {
  const int64_t n = M->dist.local, first = M->dist.first;
  const hm_scalar type = M->type;
  entry *e = NULL;
  int64_t *rp = NULL, *nrem = NULL, *remote = NULL;
  int st;
  HM_CALL_GOTO(st, done, gather_rows(&M->dist, type, rowptr, cols, values, &e, &rp));
  hm_csr *c = &M->csr;
  c->rowptr = rp;
  const int64_t nnz = rp[n];
  nrem = malloc(sizeof *nrem * (size_t)(n + 1)); /* remote entries of rows before i, then of row i */
  c->col = hm_alloc_large(sizeof *c->col * (size_t)(nnz + 1));
  c->val = hm_alloc_large(sizeof *c->val * ((size_t)type * (size_t)nnz + 1));
  M->interior_rows = malloc(sizeof(int32_t) * (size_t)(n + 1));
  M->boundary_rows = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (!nrem || !c->col || !c->val || !M->interior_rows || !M->boundary_rows) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate a matrix of %lld entries",
                        (long long)nnz);
    goto done;
  }
  nrem[0] = 0;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const entry *ei = e + rowptr[i];
    int64_t count = 0;
    for (int64_t q = 0; q < rp[i + 1] - rp[i]; q++) count += is_remote(ei[q].col, first, n);
    nrem[i + 1] = count;
  }
  for (int64_t i = 0; i < n; i++) nrem[i + 1] += nrem[i];
  remote = malloc(sizeof *remote * (size_t)(nrem[n] + 1));
  if (!remote) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %lld remote columns",
                        (long long)nrem[n]);
    goto done;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const entry *ei = e + rowptr[i];
    int64_t *to = remote + nrem[i];
    for (int64_t q = 0; q < rp[i + 1] - rp[i]; q++)
      if (is_remote(ei[q].col, first, n)) *to++ = ei[q].col;
  }
  qsort(remote, (size_t)nrem[n], sizeof(int64_t), cmp_i64);
  int64_t u = 0;
  for (int64_t r = 0; r < nrem[n]; r++)
    if (r == 0 || remote[r] != remote[u - 1]) remote[u++] = remote[r];
  if (n + u >= INT32_MAX) {
    st = hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__,
                        "%lld local rows plus %lld halo columns exceed 32-bit indices", (long long)n, (long long)u);
    goto done;
  }
  c->nrows = (int32_t)n;
  c->ncols = (int32_t)(n + u);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const entry *ei = e + rowptr[i];
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
      const entry *x = ei + (p - rp[i]);
      const int local = !is_remote(x->col, first, n);
      c->col[p] = local ? (int32_t)(x->col - first) : (int32_t)(n + find_sorted(remote, (int32_t)u, x->col));
      c->val[(size_t)type * (size_t)p] = x->re;
      if (type == HM_COMPLEX) c->val[2 * p + 1] = x->im;
    }
  }
  for (int64_t i = 0; i < n; i++) {
    if (nrem[i + 1] > nrem[i]) M->boundary_rows[M->n_boundary++] = (int32_t)i;
    else M->interior_rows[M->n_interior++] = (int32_t)i;
  }
  *remote_out = remote;
  *nremote_out = (int32_t)u;
  remote = NULL;
done:
  free(e);
  free(nrem);
  free(remote);
  return st;
}

typedef struct { int64_t key; int32_t row; } keyed_row;

static int cmp_keyed(const void *a, const void *b) {
  const keyed_row *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->row > y->row) - (x->row < y->row);
}

/* Merges the sorted runs a[lo, mid) and a[mid, hi) into b[lo, hi). */
static void merge_runs(const keyed_row *a, keyed_row *b, int64_t lo, int64_t mid, int64_t hi) {
  int64_t i = lo, j = mid, o = lo;
  while (i < mid && j < hi) b[o++] = cmp_keyed(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
  while (i < mid) b[o++] = a[i++];
  while (j < hi) b[o++] = a[j++];
}

/* rows in ascending key[row] (ties by row): runs sorted on the threads, then merged pairwise. */
static int sort_rows(int32_t *rows, int32_t n, const int64_t *key) {
  keyed_row *a, *b;
  HM_MALLOC(a, n + 1);
  b = malloc(sizeof *b * ((size_t)n + 1));
  if (!b) {
    free(a);
    return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %d keyed rows", n);
  }
  const int64_t run = n / (4 * (int64_t)omp_get_max_threads()) + 1;
#pragma omp parallel for schedule(static)
  for (int64_t lo = 0; lo < n; lo += run) {
    const int64_t hi = lo + run < n ? lo + run : n;
    for (int64_t i = lo; i < hi; i++) a[i] = (keyed_row){key[rows[i]], rows[i]};
    qsort(a + lo, (size_t)(hi - lo), sizeof *a, cmp_keyed);
  }
  for (int64_t width = run; width < n; width *= 2) {
#pragma omp parallel for schedule(static)
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      merge_runs(a, b, lo, mid, hi);
    }
    keyed_row *t = a;
    a = b;
    b = t;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) rows[i] = a[i].row;
  free(a);
  free(b);
  return HM_SUCCESS;
}

/* Both of M's row lists (interior, boundary) in ascending key[row]. */
static int sort_row_lists(hm_matrix *M, const int64_t *key) {
  HM_CALL(sort_rows(M->interior_rows, M->n_interior, key));
  HM_CALL(sort_rows(M->boundary_rows, M->n_boundary, key));
  return HM_SUCCESS;
}

int hm_matrix_create_csr(hm_context *ctx, const hm_dist *dist, hm_scalar type, const int64_t *rowptr,
                         const int64_t *cols, const void *values, hm_matrix **A) {
  HM_CALL(hm_matrix_create_csr_keyed(ctx, dist, type, rowptr, cols, values, NULL, A));
  return HM_SUCCESS;
}

int hm_matrix_create_csr_keyed(hm_context *ctx, const hm_dist *dist, hm_scalar type, const int64_t *rowptr,
                               const int64_t *cols, const void *values, const int64_t *key, hm_matrix **A) {
  HM_CHECK(ctx && dist && rowptr && A, HM_ERR_ARGUMENT, "ctx, dist, rowptr or A is NULL");
  *A = NULL;
  HM_CHECK(type == HM_REAL || type == HM_COMPLEX, HM_ERR_ARGUMENT, "type %d is not HM_REAL (1) or HM_COMPLEX (2)", (int)type);
  HM_CHECK(rowptr[0] == 0, HM_ERR_ARGUMENT, "rowptr[0] = %lld, must be 0", (long long)rowptr[0]);
  HM_CHECK(rowptr[dist->local] == 0 || (cols && values), HM_ERR_ARGUMENT, "cols or values is NULL");
  hm_matrix *M;
  HM_MALLOC(M, 1);
  M->ctx = ctx;
  M->type = type;
  int64_t *remote = NULL;
  int32_t nremote = 0;
  int st = hm_dist_copy(dist, &M->dist);
  if (!st) st = assemble_rows(M, rowptr, cols, (const double *)values, &remote, &nremote);
  if (!st) st = hm_halo_plan(M, remote, nremote);
  if (!st) st = hm_matrix_measure_hermitian(M, remote);
  free(remote);
  if (!st && key) st = sort_row_lists(M, key);
  if (!st) st = place_on_backend(M);
  if (st) { hm_matrix_destroy(&M); return hm_error_trace(st, __FILE__, __LINE__, __func__); }
  int64_t nnz_local = M->csr.rowptr[M->csr.nrows];
  HM_CALL_MPI(MPI_Allreduce(&nnz_local, &M->nnz_global, 1, MPI_INT64_T, MPI_SUM, ctx->comm));
  *A = M;
  return HM_SUCCESS;
}

int hm_matrix_order_rows(hm_matrix *A, const int64_t *key) {
  HM_CHECK(A && key, HM_ERR_ARGUMENT, "A or key is NULL");
  HM_CHECK(!A->stencil, HM_ERR_ARGUMENT, "a matrix-free lattice has no row lists to order (storage = assembled has)");
  HM_CALL(sort_row_lists(A, key));
  const hm_kernels *K = A->ctx->kernels;
  if (K->device_memory) {
    HM_CALL(K->upload((void *)A->exec_interior, A->interior_rows, sizeof(int32_t) * (size_t)A->n_interior));
    HM_CALL(K->upload((void *)A->exec_boundary, A->boundary_rows, sizeof(int32_t) * (size_t)A->n_boundary));
    HM_CALL(prepare_format(A));
  }
  return HM_SUCCESS;
}

int hm_matrix_set_format(hm_matrix *A, hm_format format, int sigma) {
  HM_CHECK(A, HM_ERR_ARGUMENT, "A is NULL");
  HM_CHECK(format == HM_FORMAT_AUTO || format == HM_FORMAT_CSR || format == HM_FORMAT_SELL, HM_ERR_ARGUMENT,
           "format %d is not HM_FORMAT_AUTO (0), HM_FORMAT_CSR (1) or HM_FORMAT_SELL (2)", (int)format);
  HM_CHECK(sigma >= 0, HM_ERR_ARGUMENT, "sigma = %d; allowed: 0 (chosen per matrix) or a window of >= 1 rows", sigma);
  HM_CHECK(sigma == 0 || format == HM_FORMAT_SELL, HM_ERR_ARGUMENT,
           "sigma = %d is given for format %d; a sorting window applies only to HM_FORMAT_SELL (2)", sigma, (int)format);
  HM_CHECK(!A->stencil || format != HM_FORMAT_SELL, HM_ERR_ARGUMENT,
           "matrix-free: a lattice operator has no SELL copy; use storage = assembled for HM_FORMAT_SELL");
  if (A->stencil) return HM_SUCCESS; /* AUTO and CSR: nothing to copy */
  if (format == A->format && sigma == A->sell_sigma) return HM_SUCCESS; /* the copy there is the one asked for */
  A->format = format;
  A->sell_sigma = sigma;
  if (A->ctx->kernels->device_memory) HM_CALL(prepare_format(A));
  return HM_SUCCESS;
}

int hm_matrix_format_info(const hm_matrix *A, hm_format *format, int *chunk, int *sigma, double *fill) {
  HM_CHECK(A, HM_ERR_ARGUMENT, "A is NULL");
  const hm_kernels *K = A->ctx->kernels;
  hm_format f = HM_FORMAT_CSR;
  int c = 0, s = 0;
  double fl = 1;
  if (A->exec.format && K->format_info) {
    HM_CALL(K->format_info(A->exec.format, 0, &c, &s, &fl));
    f = A->format; /* a copy exists only for AUTO and SELL */
  }
  if (format) *format = f;
  if (chunk) *chunk = c;
  if (sigma) *sigma = s;
  if (fill) *fill = fl;
  return HM_SUCCESS;
}

int hm_matrix_block_info(const hm_matrix *A, int *made, double *reads, double *distinct) {
  HM_CHECK(A, HM_ERR_ARGUMENT, "A is NULL");
  const hm_kernels *K = A->ctx->kernels;
  int m = 0;
  double rd = 0, ds = 1;
  if (A->exec.format && K->block_info) HM_CALL(K->block_info(A->exec.format, 0, &m, &rd, &ds));
  if (made) *made = m;
  if (reads) *reads = rd;
  if (distinct) *distinct = ds;
  return HM_SUCCESS;
}

int hm_matrix_destroy(hm_matrix **A) {
  if (!A || !*A) return HM_SUCCESS;
  hm_matrix *M = *A;
  const hm_kernels *K = M->ctx->kernels;
  if (K->unprepare && M->exec.format) K->unprepare((void *)M->exec.format);
  hm_stencil_part_release(M);
  if (K->device_memory) { /* only what place_on_backend made */
    if (M->exec.rowptr != M->csr.rowptr) K->release((void *)M->exec.rowptr);
    if (M->exec.col != M->csr.col) K->release((void *)M->exec.col);
    if (M->exec.val != M->csr.val) K->release((void *)M->exec.val);
    if (M->exec_interior != M->interior_rows) K->release((void *)M->exec_interior);
    if (M->exec_boundary != M->boundary_rows) K->release((void *)M->exec_boundary);
    if (M->exec_send_rows != M->halo.send_rows) K->release((void *)M->exec_send_rows);
  }
  free(M->csr.rowptr); free(M->csr.col); free(M->csr.val);
  free(M->interior_rows); free(M->boundary_rows);
  hm_halo_free(&M->halo, K);
  hm_dist_free(&M->dist);
  free(M);
  *A = NULL;
  return HM_SUCCESS;
}

int hm_matrix_info(const hm_matrix *A, int64_t *n_global, int64_t *nnz_global, hm_scalar *type) {
  HM_CHECK(A, HM_ERR_ARGUMENT, "A is NULL");
  if (n_global) *n_global = A->dist.n_global;
  if (nnz_global) *nnz_global = A->nnz_global;
  if (type) *type = A->type;
  return HM_SUCCESS;
}

int hm_matrix_dist(const hm_matrix *A, const hm_dist **dist) {
  HM_CHECK(A && dist, HM_ERR_ARGUMENT, "A or dist is NULL");
  *dist = &A->dist;
  return HM_SUCCESS;
}

int hm_matrix_context(const hm_matrix *A, hm_context **ctx) {
  HM_CHECK(A && ctx, HM_ERR_ARGUMENT, "A or ctx is NULL");
  *ctx = A->ctx;
  return HM_SUCCESS;
}

struct hm_csr_view hm_matrix_view(const hm_matrix *A) { return A->exec; }

int hm_matrix_check_block(const hm_matrix *A, const hm_mvec *x, const char *name) {
  HM_CHECK(x, HM_ERR_ARGUMENT, "%s is NULL", name);
  HM_CHECK(x->type == A->type, HM_ERR_ARGUMENT, "%s is %s, the matrix %s", name,
           x->type == HM_REAL ? "real" : "complex", A->type == HM_REAL ? "real" : "complex");
  HM_CHECK(x->dist.n_global == A->dist.n_global && x->dist.first == A->dist.first &&
               x->dist.local == A->dist.local, HM_ERR_ARGUMENT,
           "%s is distributed differently from the matrix (rows %lld+%lld of %lld, matrix %lld+%lld of %lld)",
           name, (long long)x->dist.first, (long long)x->dist.local, (long long)x->dist.n_global,
           (long long)A->dist.first, (long long)A->dist.local, (long long)A->dist.n_global);
  return HM_SUCCESS;
}

int hm_matrix_apply(hm_matrix *A, hm_mvec *x, hm_mvec *y) {
  HM_CHECK(A, HM_ERR_ARGUMENT, "A is NULL");
  HM_CALL(hm_matrix_check_block(A, x, "x"));
  HM_CALL(hm_matrix_check_block(A, y, "y"));
  HM_CHECK(x->k == y->k && x != y, HM_ERR_ARGUMENT, "x and y must be distinct blocks of equal width (%d, %d)", x->k, y->k);
  const hm_kernels *K = A->ctx->kernels;
  struct hm_csr_view v = hm_matrix_view(A);
  HM_CALL(hm_halo_begin(A, x));
  HM_CALL(K->spmmv(A->type, &v, x->k, A->exec_interior, A->n_interior, x->data, y->data));
  HM_CALL(hm_halo_end(A));
  HM_CALL(K->spmmv(A->type, &v, x->k, A->exec_boundary, A->n_boundary, x->data, y->data));
  return HM_SUCCESS;
}

int hm_matrix_chebyshev_step(hm_matrix *A, double scale, double shift, hm_mvec *V, hm_mvec *W, double *dots) {
  const hm_kernels *K = A->ctx->kernels;
  struct hm_csr_view v = hm_matrix_view(A);
  HM_CALL(hm_halo_begin(A, V));
  HM_CALL(K->kpm_step(A->type, &v, V->k, A->exec_interior, A->n_interior, scale, shift, V->data, W->data, dots));
  HM_CALL(hm_halo_end(A));
  HM_CALL(K->kpm_step(A->type, &v, V->k, A->exec_boundary, A->n_boundary, scale, shift, V->data, W->data, dots));
  return HM_SUCCESS;
}

int hm_matrix_chebyshev_step_sum(hm_matrix *A, double scale, double shift, hm_mvec *V, hm_mvec *W, double *dots,
                                 const double c[2], hm_mvec *acc) {
  const hm_kernels *K = A->ctx->kernels;
  HM_CHECK(acc->k == W->k && acc->type == W->type, HM_ERR_ARGUMENT, "the sum block must be shaped as W");
  HM_CHECK(A->type == HM_COMPLEX || W->k % 2 == 0 || c[1] == 0, HM_ERR_ARGUMENT,
           "a complex c on a real block of %d columns: want (re, im) pairs", W->k);
  if (!K->kpm_step_sum || A->stencil) { /* two passes: the step, then the sum */
    HM_CALL(hm_matrix_chebyshev_step(A, scale, shift, V, W, dots));
    const int pairs = A->type == HM_COMPLEX || c[1] != 0; /* a real c: any real block, column by column */
    const int kc = pairs && A->type == HM_REAL ? W->k / 2 : W->k;
    const hm_scalar view = pairs ? HM_COMPLEX : HM_REAL;
    double alpha[2 * kc + 2], beta[2 * kc + 2];
    for (int j = 0; j < kc; j++) {
      alpha[(int)view * j] = c[0], beta[(int)view * j] = 1;
      if (view == HM_COMPLEX) alpha[2 * j + 1] = c[1], beta[2 * j + 1] = 0;
    }
    return K->axpby(view, W->dist.local, kc, alpha, W->data, beta, acc->data);
  }
  struct hm_csr_view v = hm_matrix_view(A);
  HM_CALL(hm_halo_begin(A, V));
  HM_CALL(K->kpm_step_sum(A->type, &v, V->k, A->exec_interior, A->n_interior, scale, shift, V->data, W->data, dots,
                          c, acc->data));
  HM_CALL(hm_halo_end(A));
  HM_CALL(K->kpm_step_sum(A->type, &v, V->k, A->exec_boundary, A->n_boundary, scale, shift, V->data, W->data, dots,
                          c, acc->data));
  return HM_SUCCESS;
}

int hm_matrix_gershgorin(const hm_matrix *A, double *emin, double *emax) {
  HM_CHECK(A && emin && emax, HM_ERR_ARGUMENT, "A, emin or emax is NULL");
  if (A->stencil) return hm_stencil_gershgorin(A, emin, emax);
  double lo = INFINITY, hi = -INFINITY;
  const hm_csr *c = &A->csr;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi)
  for (int32_t i = 0; i < c->nrows; i++) {
    double centre = 0, radius = 0;
    for (int64_t p = c->rowptr[i]; p < c->rowptr[i + 1]; p++) {
      double re = c->val[(size_t)A->type * (size_t)p], im = A->type == HM_COMPLEX ? c->val[2 * p + 1] : 0;
      if (c->col[p] == i) centre = re;
      else radius += hypot(re, im);
    }
    lo = fmin(lo, centre - radius);
    hi = fmax(hi, centre + radius);
  }
  HM_CALL_MPI(MPI_Allreduce(&lo, emin, 1, MPI_DOUBLE, MPI_MIN, A->ctx->comm));
  HM_CALL_MPI(MPI_Allreduce(&hi, emax, 1, MPI_DOUBLE, MPI_MAX, A->ctx->comm));
  return HM_SUCCESS;
}

int hm_matrix_diagonal(const hm_matrix *A, hm_mvec *d) {
  HM_CHECK(A && d, HM_ERR_ARGUMENT, "A or d is NULL");
  HM_CALL(hm_matrix_check_block(A, d, "d"));
  HM_CHECK(d->k == 1, HM_ERR_ARGUMENT, "d has %d columns; it must have 1", d->k);
  const hm_csr *c = &A->csr;
  const size_t t = (size_t)A->type;
  double *diag;
  HM_MALLOC(diag, t * (size_t)A->dist.local + 1);
  if (A->stencil) { /* from the blocks and the disorder */
    hm_stencil_diagonal(A, diag);
  } else {
    for (int32_t i = 0; i < c->nrows; i++)
      for (int64_t p = c->rowptr[i]; p < c->rowptr[i + 1]; p++)
        if (c->col[p] == i) memcpy(diag + t * i, c->val + t * p, t * sizeof(double));
  }
  int st = hm_mvec_set(d, diag);
  free(diag);
  HM_CALL(st);
  return HM_SUCCESS;
}
