/* The generalized problem A z = lambda B z for the distributed eigensolver (dense_distributed.h), on
 * the same column blocks: B = L L^H by a right-looking blocked Cholesky (each block column factored on
 * its owner and broadcast, the trailing columns updated by GEMMs on every rank), C = L^-1 A L^-H as
 * L^-1 (L^-1 A)^H (two forward substitutions on each rank's columns, one distributed conjugate
 * transpose between them), and z = L^-H y by back substitution. */
#include <string.h>
#include "dense_blas.h"
#include "dense_distributed.h"
#include "dense_internal.h"
#include "error_macros.h"

/* Block k's columns [c0, c0 + kb) and rows c0.. of L, packed (n - c0) x kb, from its owner. */
static int share_panel(const hm_dense_columns *c, const double *bloc, int64_t c0, int64_t kb, double *panel) {
  const int s = (int)c->type, owner = hm_dense_owner_of(c0, c->b, c->P);
  const int64_t n = c->n, m = n - c0;
  if (owner == c->rank) {
    const double *col = bloc + s * hm_dense_local_of(c0, c->b, c->P) * n;
    for (int64_t j = 0; j < kb; j++) memcpy(panel + s * j * m, col + s * (j * n + c0), sizeof(double) * (size_t)(s * m));
  }
  HM_CALL_MPI(MPI_Bcast(panel, (int)(s * m * kb), MPI_DOUBLE, owner, c->comm));
  return HM_SUCCESS;
}

static void trsm_lower(hm_scalar type, char trans, int64_t m, int64_t n, const double *L, int64_t ldl, double *X, int64_t ldx) {
  if (m <= 0 || n <= 0) return;
  const CBLAS_TRANSPOSE t = trans == 'N' ? CblasNoTrans : type == HM_REAL ? CblasTrans : CblasConjTrans;
  if (type == HM_REAL) cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, t, CblasNonUnit, (int)m, (int)n, 1, L, (int)ldl, X, (int)ldx);
  else {
    const double complex one = 1;
    cblas_ztrsm(CblasColMajor, CblasLeft, CblasLower, t, CblasNonUnit, (int)m, (int)n, &one, L, (int)ldl, X, (int)ldx);
  }
}

int hm_dense_cholesky_columns(const hm_dense_columns *c, double *bloc) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n;
  double *panel = NULL, *pl = NULL;
  HM_MALLOC(panel, s * n * b + 1);
  HM_MALLOC(pl, s * (c->nloc + 1) * b);
  for (int64_t c0 = 0; c0 < n; c0 += b) {
    const int64_t kb = n - c0 < b ? n - c0 : b, r0 = c0 + kb, m = n - r0;
    int info = 0;
    if (hm_dense_owner_of(c0, b, c->P) == c->rank) {
      double *diag = bloc + s * (hm_dense_local_of(c0, b, c->P) * n + c0);
      info = s == 1 ? LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (int)kb, diag, (int)n)
                    : LAPACKE_zpotrf(LAPACK_COL_MAJOR, 'L', (int)kb, (lapack_complex_double *)diag, (int)n);
      if (info > 0) info += (int)c0;
      if (!info && m > 0) { /* L21 = B21 L11^-H */
        if (s == 1) cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)m, (int)kb, 1, diag, (int)n, diag + kb, (int)n);
        else {
          const double complex one = 1;
          cblas_ztrsm(CblasColMajor, CblasRight, CblasLower, CblasConjTrans, CblasNonUnit, (int)m, (int)kb, &one, diag, (int)n, diag + s * kb, (int)n);
        }
      }
    }
    HM_CALL_MPI(MPI_Bcast(&info, 1, MPI_INT, hm_dense_owner_of(c0, b, c->P), c->comm));
    if (info) { free(panel); free(pl); }
    HM_CHECK(info <= 0, HM_ERR_NUMERIC, "B is not positive definite: its leading minor of order %d is not (%spotrf)", info,
             s == 1 ? "d" : "z");
    HM_CHECK(info == 0, HM_ERR_LAPACK, "potrf: illegal argument %d", -info);
    if (!m) break;
    HM_CALL(share_panel(c, bloc, c0, kb, panel));
    /* B22 -= L21 L21^H on this rank's trailing columns. */
    const int64_t l0 = hm_dense_first_local_at(c, r0), nlt = c->nloc - l0;
    hm_dense_x_rows_at_columns(NULL, c->type, c->b, c->rank, c->P, l0, nlt, panel, n - c0, c0, kb, pl);
    hm_dense_gemm(c->type, 'N', 'C', m, nlt, kb, -1, panel + s * kb, n - c0, pl, nlt, 1, bloc + s * (l0 * n + r0), n);
  }
  free(panel); free(pl);
  return HM_SUCCESS;
}

int hm_dense_cholesky_solve(const hm_dense_columns *c, const double *bloc, char trans, int64_t ncols, double *x) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, blocks = (n + b - 1) / b;
  double *panel = NULL;
  HM_MALLOC(panel, s * n * b + 1);
  for (int64_t k = 0; k < blocks; k++) {
    const int64_t c0 = (trans == 'N' ? k : blocks - 1 - k) * b, kb = n - c0 < b ? n - c0 : b, m = n - c0 - kb;
    HM_CALL(share_panel(c, bloc, c0, kb, panel));
    if (!ncols) continue;
    double *top = x + s * c0, *below = x + s * (c0 + kb);
    const double *l21 = panel + s * kb;
    if (trans == 'N') { /* X1 = L11^-1 X1, X2 -= L21 X1 */
      trsm_lower(c->type, 'N', kb, ncols, panel, n - c0, top, n);
      hm_dense_gemm(c->type, 'N', 'N', m, ncols, kb, -1, l21, n - c0, top, n, 1, below, n);
    } else { /* X1 -= L21^H X2, X1 = L11^-H X1 */
      hm_dense_gemm(c->type, 'C', 'N', kb, ncols, m, -1, l21, n - c0, below, n, 1, top, n);
      trsm_lower(c->type, 'C', kb, ncols, panel, n - c0, top, n);
    }
  }
  free(panel);
  return HM_SUCCESS;
}

int hm_dense_conjugate_transpose(const hm_dense_columns *c, const double *x, double *y) {
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
