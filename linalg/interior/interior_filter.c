/* The ChebFD window filter: coefficients and their application through KPM's fused block step
 * (W = 2 s (H - b) V - W, the halo of V exchanged while the interior rows are done). */
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "halo.h"
#include "interior_filter.h"
#include "objects.h"

int hm_interior_filter_degree(double a, double b) {
  const double width = acos(fmax(a, -1.0)) - acos(fmin(b, 1.0)); /* in theta; > 0 for a < b */
  double n = 4.0 * M_PI / fmax(width, 1e-12);
  if (n < 16) n = 16;
  if (n > 1e6) n = 1e6;
  return (int)ceil(n);
}

/* The damping's power of the Lanczos sigma factors: measured against Jackson's factors and the powers 0, 0.25, 1,
 * 2 and 3 on four TI slabs and boxes (bench/README.md), 0.5 took the fewest vector-steps on all four. */
static const double SIGMA_POWER = 0.5;

int hm_interior_filter_coefficients(double a, double b, int N, double *c) {
  HM_CHECK(N >= 1 && c, HM_ERR_ARGUMENT, "filter degree %d must be >= 1", N);
  const double ta = acos(fmax(fmin(a, 1.0), -1.0)), tb = acos(fmax(fmin(b, 1.0), -1.0));
  c[0] = (ta - tb) / M_PI;
  for (int n = 1; n <= N; n++) {
    const double x = M_PI * n / (N + 1);
    c[n] = pow(sin(x) / x, SIGMA_POWER) * 2.0 * (sin(n * ta) - sin(n * tb)) / (n * M_PI);
  }
  return HM_SUCCESS;
}

/* y += c x for every column (the coefficient laid out for the block's type). */
static int accumulate(hm_mvec *y, double c, const hm_mvec *x, double *alpha, double *one) {
  const int t = y->type;
  for (int j = 0; j < y->k; j++) {
    alpha[j * t] = c;
    one[j * t] = 1;
  }
  return y->ctx->kernels->axpby(y->type, y->dist.local, y->k, alpha, x->data, one, y->data);
}

int hm_interior_filter_apply(hm_matrix *H, double scale, double shift, int N, const double *c, const hm_mvec *X,
                             hm_mvec *Y, hm_mvec *V0, hm_mvec *V1) {
  const hm_kernels *K = H->ctx->kernels;
  const int k = X->k, t = X->type;
  double *alpha = NULL, *beta = NULL, *dots = NULL;
  int st = HM_SUCCESS;
  alpha = calloc(2 * (size_t)k, sizeof *alpha);
  beta = calloc(2 * (size_t)k, sizeof *beta);
  if (!alpha || !beta) {
    free(alpha);
    free(beta);
    return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the filter's %d column scalars",
                          k);
  }
  /* The step accumulates <V|V> and <W|V> (not needed here) into a small backend buffer. */
  HM_CALL_GOTO(st, done, K->alloc(sizeof(double) * 2 * (size_t)k, (void **)&dots));
  HM_CALL_GOTO(st, done, hm_mvec_copy_columns(X, 0, V0, 0, k));
  HM_CALL_GOTO(st, done, hm_matrix_apply(H, V0, V1)); /* V1 = s (H - b) V0 */
  for (int j = 0; j < k; j++) {
    alpha[j * t] = -scale * shift;
    beta[j * t] = scale;
  }
  HM_CALL_GOTO(st, done, K->axpby(t, V0->dist.local, k, alpha, V0->data, beta, V1->data));
  for (int j = 0; j < k; j++) { /* Y = c0 V0 */
    alpha[j * t] = c[0];
    beta[j * t] = 0;
  }
  HM_CALL_GOTO(st, done, K->axpby(t, Y->dist.local, k, alpha, V0->data, beta, Y->data));
  HM_CALL_GOTO(st, done, accumulate(Y, c[1], V1, alpha, beta));
  hm_mvec *prev = V0, *curr = V1;
  for (int n = 2; n <= N; n++) { /* prev := T_n, and Y += c_n T_n in the same pass where the backend can */
    const double cn[2] = {c[n], 0};
    HM_CALL_GOTO(st, done, hm_matrix_chebyshev_step_sum(H, scale, shift, curr, prev, dots, cn, Y));
    hm_mvec *tmp = prev;
    prev = curr;
    curr = tmp;
  }
done:
  if (dots) K->release(dots);
  free(alpha);
  free(beta);
  return st;
}
