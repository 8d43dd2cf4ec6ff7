/* The distributed eigensolver's driver (dense_distributed.h): the matrix's entries go to a 1 x P grid
 * of column blocks, the two stages reduce it to a tridiagonal, LAPACK's divide and conquer solves
 * that on every rank (each keeps its columns), and the two back-transformations and the way back to
 * row blocks give each rank its rows of the eigenvectors. */
#include <string.h>
#include "dense_blas.h"
#include "dense_distributed.h"
#include "dense_internal.h"
#include "error_macros.h"

int hm_dense_distributed_columns(const hm_dense_columns *c, double *aloc, double *w, double *z) {
  const int s = (int)c->type;
  const int64_t n = c->n;
  double *band = NULL, *tpanels = NULL, *e = NULL, *zt = NULL;
  hm_dense_chase *q = NULL;
  int st = HM_SUCCESS;
  HM_MALLOC(band, s * (c->b + 1) * n);
  HM_MALLOC(e, n);
  HM_CALL_GOTO(st, done, hm_dense_band_reduce(c, aloc, &tpanels, band));
  HM_CALL_GOTO(st, done, hm_dense_chase_run(c, band, w, e, &q));
  free(band);
  band = NULL;
  int info = 0;
  if (!z) {
    info = LAPACKE_dsterf((int)n, w, e);
  } else {
    zt = malloc(sizeof(double) * (size_t)(n * n) + 8);
    if (!zt) { st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the tridiagonal's %lld^2 eigenvectors", (long long)n); goto done; }
    info = LAPACKE_dstedc(LAPACK_COL_MAJOR, 'I', (int)n, w, e, zt, (int)n);
  }
  if (info) { st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__, "the tridiagonal eigensolver (%s) returned info = %d", z ? "dstedc" : "dsterf", info); goto done; }
  if (z) {
    memset(z, 0, sizeof(double) * (size_t)(s * n * c->nloc));
    for (int64_t l = 0; l < c->nloc; l++) {
      const double *col = zt + n * hm_dense_global_of(l, c->b, c->rank, c->P);
      for (int64_t i = 0; i < n; i++) z[s * (l * n + i)] = col[i];
    }
    free(zt);
    zt = NULL;
    HM_CALL_GOTO(st, done, hm_dense_chase_back(c, q, z));
    HM_CALL_GOTO(st, done, hm_dense_band_back(c, aloc, tpanels, z));
  }
done:
  hm_dense_chase_free(&q);
  free(band); free(tpanels); free(e); free(zt);
  return st;
}

/* The band width: 64 where every rank holds several column blocks, smaller for small matrices. */
static int block_of(int64_t n, int P) {
  int64_t b = n / (4 * (int64_t)P);
  return b > 64 ? 64 : b < 4 ? 4 : (int)b;
}

int hm_dense_distributed(struct hm_matrix_s *A, struct hm_matrix_s *B, int vectors, int block, double *w,
                         struct hm_mvec_s *Z) {
  hm_context *ctx = A->ctx;
  const int64_t n = A->dist.n_global;
  hm_dense_columns c = {ctx->comm, ctx->rank, ctx->size, A->type, n, 0, block > 0 ? block : block_of(n, ctx->size)};
  c.nloc = hm_dense_numroc(n, c.b, c.rank, c.P);
  const int s = (int)c.type;
  hm_dense_grid g = {.ctxt = -1, .sys = -1, .nprow = 1, .npcol = c.P, .myrow = 0, .mycol = c.rank, .n = (int)n,
                     .nb = c.b, .mloc = (int)n, .nloc = (int)c.nloc, .lld = (int)(n > 1 ? n : 1)};
  hm_dense_transfer t = {0}, tb = {0};
  double *aloc = NULL, *zloc = NULL, *bloc = NULL, *tmp = NULL;
  int st = HM_SUCCESS;
  HM_MALLOC(g.pnum, c.P);
  for (int r = 0; r < c.P; r++) g.pnum[r] = r;
  HM_CALL_GOTO(st, done, hm_dense_transfer_plan(A, &g, 1, &t));
  if (B) HM_CALL_GOTO(st, done, hm_dense_transfer_plan(B, &g, 1, &tb));
  const size_t cols = (size_t)(s * n * c.nloc) + 1;
  aloc = calloc(cols, sizeof(double));
  if (vectors) zloc = calloc(cols, sizeof(double));
  if (B) bloc = calloc(cols, sizeof(double)), tmp = calloc(cols, sizeof(double));
  int ok = aloc && (!vectors || zloc) && (!B || (bloc && tmp)), all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c.comm);
  if (!all_ok) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the local columns on some rank");
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_dense_transfer_run(A, &g, &t, aloc));
  if (B) { /* C = L^-1 (L^-1 A)^H */
    HM_CALL_GOTO(st, done, hm_dense_transfer_run(B, &g, &tb, bloc));
    HM_CALL_GOTO(st, done, hm_dense_cholesky_columns(&c, bloc));
    HM_CALL_GOTO(st, done, hm_dense_cholesky_solve(&c, bloc, 'N', aloc));
    HM_CALL_GOTO(st, done, hm_dense_conjugate_transpose(&c, aloc, tmp));
    HM_CALL_GOTO(st, done, hm_dense_cholesky_solve(&c, bloc, 'N', tmp));
    double *swap = aloc;
    aloc = tmp, tmp = swap;
    free(tmp);
    tmp = NULL;
  }
  HM_CALL_GOTO(st, done, hm_dense_distributed_columns(&c, aloc, w, zloc));
  if (B && vectors) HM_CALL_GOTO(st, done, hm_dense_cholesky_solve(&c, bloc, 'C', zloc)); /* z = L^-H y */
  free(aloc);
  aloc = NULL;
  if (vectors) HM_CALL_GOTO(st, done, hm_dense_vectors_to_rows(A, &g, zloc, Z));
done:
  hm_dense_transfer_free(&t);
  hm_dense_transfer_free(&tb);
  free(g.pnum); free(aloc); free(zloc); free(bloc); free(tmp);
  return st;
}
