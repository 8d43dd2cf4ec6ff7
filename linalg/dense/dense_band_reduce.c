/* Stage 1 of the distributed eigensolver (dense_distributed.h): A <- Q^H A Q panel by panel, Q = I -
 * V T V^H from the QR of the b columns below the band. With X = A V, Y = X T and M = T^H V^H Y
 * (Hermitian), Q^H A Q = A - V W^H - W V^H for W = Y - V M / 2: one product of the trailing columns
 * with V (summed over the ranks) and two rank-b updates of each rank's own columns. */
#include <string.h>
#include "dense_blas.h"
#include "dense_distributed.h"
#include "dense_internal.h"
#include "error_macros.h"

/* The panels: column block k for k = 0 .. panels - 1 has rows below the band. */
static int64_t panel_count(int64_t n, int b) { return n > b ? (n - 1) / b : 0; }

/* Copy the panel's reflectors (unit lower trapezoidal, m x kb) from the owner's array. */
static void pack_v(hm_scalar type, const double *panel, int64_t n, int64_t m, int64_t kb, double *v) {
  const int s = (int)type;
  memset(v, 0, sizeof(double) * (size_t)(s * m * kb));
  for (int64_t j = 0; j < kb; j++) {
    v[s * (j * m + j)] = 1;
    for (int64_t i = j + 1; i < m; i++)
      for (int q = 0; q < s; q++) v[s * (j * m + i) + q] = panel[s * (j * n + i) + q];
  }
}

/* The band entries of the owner's column block [c0, c0 + b): its diagonal block's lower triangle and,
 * below it, R of the panel's QR (kb rows; none for the last block). */
static void band_of_block(const hm_dense_columns *c, const double *aloc, int64_t c0, int64_t kb, double *band) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, l0 = hm_dense_local_of(c0, b, c->P), width = n - c0 < b ? n - c0 : b;
  for (int64_t q = 0; q < width; q++) {
    const int64_t col = c0 + q;
    const double *a = aloc + s * (l0 + q) * n;
    for (int64_t row = col; row < c0 + width; row++)
      for (int k = 0; k < s; k++) band[s * ((row - col) + (b + 1) * col) + k] = a[s * row + k];
    for (int64_t p = 0; p <= q && p < kb; p++) /* R(p, q) at row c0 + b + p */
      for (int k = 0; k < s; k++) band[s * ((b + p - q) + (b + 1) * col) + k] = a[s * (c0 + b + p) + k];
  }
}

int hm_dense_band_reduce(const hm_dense_columns *c, double *aloc, double **tpanels, double *band) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, panels = panel_count(n, b);
  memset(band, 0, sizeof(double) * (size_t)(s * (b + 1) * n));
  double *t = NULL, *vt = NULL, *x = NULL, *y = NULL, *w = NULL, *vl = NULL, *wl = NULL, *small = NULL, *tau = NULL;
  HM_MALLOC(t, s * b * b * (panels / c->P + 1) + 1);
  *tpanels = t;
  const int64_t mmax = n - b > 0 ? n - b : 1;
  HM_MALLOC(vt, s * (mmax * b + b * b));
  HM_MALLOC(x, s * mmax * b);
  HM_MALLOC(y, s * mmax * b);
  HM_MALLOC(w, s * mmax * b);
  HM_MALLOC(vl, s * (c->nloc + 1) * b);
  HM_MALLOC(wl, s * (c->nloc + 1) * b);
  HM_MALLOC(small, s * 2 * b * b);
  HM_MALLOC(tau, s * b);
  int st = HM_SUCCESS;
  for (int64_t k = 0; k < panels && !st; k++) {
    const int64_t c0 = k * b, r0 = c0 + b, m = n - r0, kb = m < b ? m : b;
    const int owner = hm_dense_owner_of(c0, b, c->P);
    double *v = vt, *tk = vt + s * m * kb;
    int info = 0;
    if (owner == c->rank) {
      double *panel = aloc + s * hm_dense_local_of(c0, b, c->P) * n;
      info = c->type == HM_REAL
                     ? LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (int)m, b, panel + r0, (int)n, tau)
                     : LAPACKE_zgeqrf(LAPACK_COL_MAJOR, (int)m, b, (lapack_complex_double *)panel + r0, (int)n,
                                      (lapack_complex_double *)tau);
      if (!info) info = hm_dense_larft(c->type, m, kb, panel + s * r0, n, tau, tk, kb);
      pack_v(c->type, panel + s * r0, n, m, kb, v);
      band_of_block(c, aloc, c0, kb, band);
      memcpy(t + s * b * b * (k / c->P), tk, sizeof(double) * (size_t)(s * kb * kb));
    }
    HM_CALL_MPI(MPI_Bcast(&info, 1, MPI_INT, owner, c->comm)); /* every rank stops alike */
    if (info) {
      st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__, "QR of panel %lld: info %d", (long long)k, info);
      break;
    }
    HM_CALL_MPI(MPI_Bcast(vt, (int)(s * (m * kb + kb * kb)), MPI_DOUBLE, owner, c->comm));
    /* X = A V over the trailing columns, each rank its own, summed. */
    const int64_t l0 = hm_dense_first_local_at(c, r0), nlt = c->nloc - l0;
    hm_dense_rows_at_columns(c, l0, nlt, v, m, r0, kb, vl);
    memset(x, 0, sizeof(double) * (size_t)(s * m * kb));
    double *a22 = aloc + s * (l0 * n + r0);
    hm_dense_gemm(c->type, 'N', 'N', m, kb, nlt, 1, a22, n, vl, nlt, 0, x, m);
    HM_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, x, (int)(s * m * kb), MPI_DOUBLE, MPI_SUM, c->comm));
    /* Y = X T, M = T^H (V^H Y), W = Y - V M / 2: small, on every rank alike. */
    hm_dense_gemm(c->type, 'N', 'N', m, kb, kb, 1, x, m, tk, kb, 0, y, m);
    hm_dense_gemm(c->type, 'C', 'N', kb, kb, m, 1, v, m, y, m, 0, small, kb);
    hm_dense_gemm(c->type, 'C', 'N', kb, kb, kb, 1, tk, kb, small, kb, 0, small + s * kb * kb, kb);
    memcpy(w, y, sizeof(double) * (size_t)(s * m * kb));
    hm_dense_gemm(c->type, 'N', 'N', m, kb, kb, -0.5, v, m, small + s * kb * kb, kb, 1, w, m);
    hm_dense_rows_at_columns(c, l0, nlt, w, m, r0, kb, wl);
    /* A22 -= V Wl^H + W Vl^H on this rank's trailing columns. */
    hm_dense_gemm(c->type, 'N', 'C', m, nlt, kb, -1, v, m, wl, nlt, 1, a22, n);
    hm_dense_gemm(c->type, 'N', 'C', m, nlt, kb, -1, w, m, vl, nlt, 1, a22, n);
  }
  const int64_t last = panels * b; /* the last diagonal block has no panel below it */
  if (!st && n > 0 && hm_dense_owner_of(last, b, c->P) == c->rank) band_of_block(c, aloc, last, 0, band);
  if (!st && MPI_Allreduce(MPI_IN_PLACE, band, (int)(s * (b + 1) * n), MPI_DOUBLE, MPI_SUM, c->comm) != MPI_SUCCESS)
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Allreduce of the band failed");
  free(vt); free(x); free(y); free(w); free(vl); free(wl); free(small); free(tau);
  return st;
}

int hm_dense_band_back(const hm_dense_columns *c, const double *aloc, const double *tpanels, int64_t ncols, double *z) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, panels = panel_count(n, b);
  if (!panels) return HM_SUCCESS;
  double *vt = NULL, *work = NULL, *work2 = NULL;
  HM_MALLOC(vt, s * ((n - b) * b + b * b));
  HM_MALLOC(work, s * b * (ncols + 1));
  HM_MALLOC(work2, s * b * (ncols + 1));
  for (int64_t k = panels - 1; k >= 0; k--) {
    const int64_t c0 = k * b, r0 = c0 + b, m = n - r0, kb = m < b ? m : b;
    const int owner = hm_dense_owner_of(c0, b, c->P);
    double *v = vt, *tk = vt + s * m * kb;
    if (owner == c->rank) {
      pack_v(c->type, aloc + s * (hm_dense_local_of(c0, b, c->P) * n + r0), n, m, kb, v);
      memcpy(tk, tpanels + s * b * b * (k / c->P), sizeof(double) * (size_t)(s * kb * kb));
    }
    HM_CALL_MPI(MPI_Bcast(vt, (int)(s * (m * kb + kb * kb)), MPI_DOUBLE, owner, c->comm));
    if (ncols) hm_dense_apply_block_reflector(c->type, 'N', m, ncols, kb, v, m, tk, kb, z + s * r0, n, work, work2);
  }
  free(vt); free(work); free(work2);
  return HM_SUCCESS;
}
