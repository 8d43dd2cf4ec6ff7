/* Column-major BLAS and LAPACK calls for real or complex double arrays, chosen by hm_scalar, so the
 * distributed eigensolver is written once: arrays are double *, a complex entry two doubles. trans is
 * 'N', or 'C' (conjugate transpose; the transpose for real arrays). */
#ifndef HAMLET_DENSE_BLAS_H
#define HAMLET_DENSE_BLAS_H
#include <cblas.h>
#include <complex.h>
#include <lapacke.h>
#include "hamlet/context.h"

static inline void hm_dense_gemm(hm_scalar type, char ta, char tb, int64_t m, int64_t n, int64_t k,
                                 double complex alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                                 double complex beta, double *C, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) { /* C = beta C, without BLAS (its leading-dimension checks refuse empty operands) */
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < m; i++)
        if (type == HM_REAL) C[j * ldc + i] = beta == 0 ? 0 : creal(beta) * C[j * ldc + i];
        else ((double complex *)C)[j * ldc + i] = beta == 0 ? 0 : beta * ((double complex *)C)[j * ldc + i];
    return;
  }
  if (type == HM_REAL) {
    cblas_dgemm(CblasColMajor, ta == 'N' ? CblasNoTrans : CblasTrans, tb == 'N' ? CblasNoTrans : CblasTrans, (int)m,
                (int)n, (int)k, creal(alpha), A, (int)lda, B, (int)ldb, creal(beta), C, (int)ldc);
  } else {
    cblas_zgemm(CblasColMajor, ta == 'N' ? CblasNoTrans : CblasConjTrans, tb == 'N' ? CblasNoTrans : CblasConjTrans,
                (int)m, (int)n, (int)k, &alpha, A, (int)lda, B, (int)ldb, &beta, C, (int)ldc);
  }
}

/* T (k x k, upper; its lower triangle zeroed, since the callers multiply by all of T) of the block
 * reflector I - V T V^H of k forward, column-wise reflectors. */
static inline int hm_dense_larft(hm_scalar type, int64_t m, int64_t k, const double *V, int64_t ldv,
                                 const double *tau, double *T, int64_t ldt) {
  for (int64_t j = 0; j < k; j++)
    for (int64_t i = j + 1; i < k; i++)
      for (int c = 0; c < (int)type; c++) T[(int)type * (j * ldt + i) + c] = 0;
  if (type == HM_REAL) return LAPACKE_dlarft(LAPACK_COL_MAJOR, 'F', 'C', (int)m, (int)k, V, (int)ldv, tau, T, (int)ldt);
  return LAPACKE_zlarft(LAPACK_COL_MAJOR, 'F', 'C', (int)m, (int)k, (const lapack_complex_double *)V, (int)ldv,
                        (const lapack_complex_double *)tau, (lapack_complex_double *)T, (int)ldt);
}

#endif
