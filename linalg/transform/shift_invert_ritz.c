/* From LOBPCG's Ritz block on T back to the original pencil (shift_invert.h): a Rayleigh-Ritz of T
 * itself in the block (theta keeps its sign even where LOBPCG iterated on T^2), lambda = sigma +
 * 1/theta (more accurate than x^H A x for the tiny eigenvalues of an ill-conditioned A, whose
 * Rayleigh quotient rounds at eps ||A||), and the residuals of A x = lambda B x recomputed. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include <lapacke.h>
#include "error_macros.h"
#include "objects.h"
#include "shift_invert.h"

static double norm_estimate(const hm_matrix *M) {
  double lo = 0, hi = 0;
  if (!M || hm_matrix_gershgorin(M, &lo, &hi)) return 1.0;
  return fmax(fabs(lo), fabs(hi));
}

/* theta ascending and the G_B-orthonormal eigenvectors (columns of Z, row-major k x k). */
static int small_eigh(hm_scalar type, int k, double *GT, double *GB, double *theta) {
  const size_t t = (size_t)type;
  for (int a = 0; a < k; a++) /* Hermitian parts: the products round off asymmetrically */
    for (int b = a; b < k; b++)
      for (int part = 0; part < (int)t; part++) {
        double *G[2] = {GT, GB};
        for (int g = 0; g < 2; g++) {
          const double sign = part ? -1.0 : 1.0, x = G[g][t * (a * k + b) + part], y = G[g][t * (b * k + a) + part];
          const double mean = 0.5 * (x + sign * y);
          G[g][t * (a * k + b) + part] = mean;
          G[g][t * (b * k + a) + part] = sign * mean;
        }
      }
  lapack_int info = type == HM_COMPLEX
                        ? LAPACKE_zhegv(LAPACK_ROW_MAJOR, 1, 'V', 'L', k, (lapack_complex_double *)GT, k,
                                        (lapack_complex_double *)GB, k, theta)
                        : LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'L', k, GT, k, GB, k, theta);
  HM_CHECK(info == 0, HM_ERR_LAPACK, "the projected shift-and-invert problem (%d x %d) failed: ?sygv info %d", k, k,
           (int)info);
  return HM_SUCCESS;
}

int hm_shift_invert_residuals(hm_shift_invert *si, hm_mvec *Y, const double *lambda, double *rel, double *nrm,
                              double *norms) {
  HM_CHECK(si && Y && lambda && rel && nrm && norms, HM_ERR_ARGUMENT, "a required pointer is NULL");
  hm_matrix *A, *B;
  double sigma; /* (not needed here) */
  HM_CALL(hm_shift_invert_problem(si, &A, &B, &sigma));
  const int nev = Y->k;
  const size_t t = (size_t)Y->type;
  hm_mvec *AY = NULL, *BY = NULL;
  double *alpha = calloc(t * nev, sizeof(double)), *beta = calloc(t * nev, sizeof(double));
  double *nr = calloc((size_t)nev, sizeof(double)), *nb = calloc((size_t)nev, sizeof(double));
  double *nx = calloc((size_t)nev, sizeof(double));
  int st = alpha && beta && nr && nb && nx ? HM_SUCCESS : HM_ERR_MEMORY;
  if (st) {
    hm_error_raise(st, __FILE__, __LINE__, __func__, "could not allocate the residuals of %d pairs", nev);
    goto done;
  }
  for (int m = 0; m < nev; m++) alpha[t * m] = -lambda[m], beta[t * m] = 1.0;
  HM_CALL_GOTO(st, done, hm_mvec_create(Y->ctx, &Y->dist, Y->type, nev, &AY));
  HM_CALL_GOTO(st, done, hm_mvec_create(Y->ctx, &Y->dist, Y->type, nev, &BY));
  HM_CALL_GOTO(st, done, hm_matrix_apply(A, Y, AY));
  if (B) HM_CALL_GOTO(st, done, hm_matrix_apply(B, Y, BY));
  else HM_CALL_GOTO(st, done, hm_mvec_copy_columns(Y, 0, BY, 0, nev));
  HM_CALL_GOTO(st, done, hm_mvec_norms(BY, nb));
  HM_CALL_GOTO(st, done, hm_mvec_norms(Y, nx));
  HM_CALL_GOTO(st, done, hm_mvec_axpby(AY, alpha, BY, beta)); /* AY = A y - lambda B y */
  HM_CALL_GOTO(st, done, hm_mvec_norms(AY, nr));
  norms[0] = norm_estimate(A);
  norms[1] = B ? norm_estimate(B) : 1.0;
  for (int m = 0; m < nev; m++) {
    rel[m] = nr[m] / ((lambda[m] != 0.0 ? fabs(lambda[m]) : 1.0) * nb[m]);
    nrm[m] = nr[m] / ((norms[0] + fabs(lambda[m]) * norms[1]) * nx[m]);
  }
done:
  hm_mvec_destroy(&AY), hm_mvec_destroy(&BY);
  free(alpha), free(beta), free(nr), free(nb), free(nx);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

int hm_shift_invert_ritz(hm_shift_invert *si, hm_mvec *X, int nev, double *values, double *rel, double *nrm,
                         double *norms, hm_mvec *V) {
  HM_CHECK(si && X && values && rel && nrm && norms, HM_ERR_ARGUMENT, "a required pointer is NULL");
  const int k = X->k;
  HM_CHECK(nev >= 1 && nev <= k, HM_ERR_ARGUMENT, "nev = %d must lie in [1, %d] (the block)", nev, k);
  hm_matrix *A, *B;
  double sigma;
  HM_CALL(hm_shift_invert_problem(si, &A, &B, &sigma));
  const size_t t = (size_t)X->type;
  hm_mvec *BX = NULL, *W = NULL, *Y = NULL;
  double *GT = calloc(t * k * k, sizeof(double)), *GB = calloc(t * k * k, sizeof(double));
  double *theta = calloc((size_t)k, sizeof(double)), *C = calloc(t * k * nev, sizeof(double));
  double *lambda = calloc((size_t)nev, sizeof(double));
  int *pick = calloc((size_t)k, sizeof(int));
  int st = GT && GB && theta && C && lambda && pick ? HM_SUCCESS : HM_ERR_MEMORY;
  if (st) {
    hm_error_raise(st, __FILE__, __LINE__, __func__, "could not allocate the projected problem (k = %d)", k);
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_mvec_create(X->ctx, &X->dist, X->type, k, &BX));
  HM_CALL_GOTO(st, done, hm_mvec_create(X->ctx, &X->dist, X->type, k, &W));
  if (B) HM_CALL_GOTO(st, done, hm_matrix_apply(B, X, BX));
  else HM_CALL_GOTO(st, done, hm_mvec_copy_columns(X, 0, BX, 0, k));
  HM_CALL_GOTO(st, done, hm_shift_invert_solve(si, BX, W)); /* W = T X */
  HM_CALL_GOTO(st, done, hm_mvec_gram(BX, W, GT));           /* X^H B T X */
  HM_CALL_GOTO(st, done, hm_mvec_gram(X, BX, GB));           /* X^H B X */
  HM_CALL_GOTO(st, done, small_eigh(X->type, k, GT, GB, theta));
  /* the nev largest |theta| (nearest sigma), then ascending in lambda */
  for (int i = 0; i < k; i++) pick[i] = i;
  for (int i = 0; i < nev; i++)
    for (int j = i + 1; j < k; j++)
      if (fabs(theta[pick[j]]) > fabs(theta[pick[i]])) { int s = pick[i]; pick[i] = pick[j]; pick[j] = s; }
  for (int i = 0; i < nev; i++)
    for (int j = i + 1; j < nev; j++)
      if (sigma + 1.0 / theta[pick[j]] < sigma + 1.0 / theta[pick[i]]) { int s = pick[i]; pick[i] = pick[j]; pick[j] = s; }
  for (int m = 0; m < nev; m++) {
    lambda[m] = sigma + 1.0 / theta[pick[m]];
    for (int a = 0; a < k; a++) memcpy(C + t * (a * nev + m), GT + t * (a * k + pick[m]), t * sizeof(double));
  }
  const double zero[2] = {0, 0};
  HM_CALL_GOTO(st, done, hm_mvec_create(X->ctx, &X->dist, X->type, nev, &Y));
  HM_CALL_GOTO(st, done, hm_mvec_update(Y, zero, X, C));
  HM_CALL_GOTO(st, done, hm_shift_invert_residuals(si, Y, lambda, rel, nrm, norms));
  memcpy(values, lambda, sizeof(double) * (size_t)nev);
  if (V) HM_CALL_GOTO(st, done, hm_mvec_copy_columns(Y, 0, V, 0, nev));
done:
  hm_mvec_destroy(&BX), hm_mvec_destroy(&W), hm_mvec_destroy(&Y);
  free(GT), free(GB), free(theta), free(C), free(lambda), free(pick);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}
