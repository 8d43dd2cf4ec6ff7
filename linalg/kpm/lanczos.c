/* Lanczos bounds. Without reorthogonalisation: only the extreme Ritz values are used, and those
 * converge first; ghosts copies of them do not move the extremes. */
#include <math.h>
#include <lapacke.h>
#include "error_macros.h"
#include "halo.h"
#include "lanczos.h"

/* y = a x + b y for a one-column block (real a, b). */
static int axpby1(struct hm_mvec_s *y, double a, const struct hm_mvec_s *x, double b) {
  double alpha[2] = {a, 0}, beta[2] = {b, 0};
  return y->ctx->kernels->axpby(y->type, y->dist.local, 1, alpha, x->data, beta, y->data);
}

static int real_dot(const hm_mvec *x, const hm_mvec *y, double *d) {
  double dots[2] = {0, 0};
  HM_CALL(hm_mvec_dot(x, y, dots));
  *d = dots[0];
  return HM_SUCCESS;
}

int hm_lanczos_bounds(hm_matrix *H, int steps, uint64_t seed, double margin, double *emin, double *emax) {
  HM_CHECK(steps >= 2, HM_ERR_ARGUMENT, "lanczos_steps = %d, must be >= 2", steps);
  const hm_dist *dist;
  hm_scalar type;
  int64_t n;
  HM_CALL(hm_matrix_dist(H, &dist));
  HM_CALL(hm_matrix_info(H, &n, NULL, &type));
  if (steps > n) steps = (int)n;
  hm_mvec *v, *v_old, *w;
  HM_CALL(hm_mvec_create(H->ctx, dist, type, 1, &v));
  HM_CALL(hm_mvec_create(H->ctx, dist, type, 1, &v_old));
  HM_CALL(hm_mvec_create(H->ctx, dist, type, 1, &w));
  double *alpha, *beta, *z;
  HM_MALLOC(alpha, steps);
  HM_MALLOC(beta, steps);
  HM_MALLOC(z, (size_t)steps * (size_t)steps);
  HM_CALL(hm_mvec_random_phase(v, seed ^ 0x6c616e637a6f73ULL)); /* a stream of its own */
  double nrm2 = 0;
  HM_CALL(real_dot(v, v, &nrm2));
  HM_CALL(axpby1(v, 1.0 / sqrt(nrm2), v, 0.0));
  int m = 0;
  for (int j = 0; j < steps; j++) {
    HM_CALL(hm_matrix_apply(H, v, w)); /* w = H v_j - beta_{j-1} v_{j-1} - alpha_j v_j */
    if (j > 0) HM_CALL(axpby1(w, -beta[j - 1], v_old, 1.0));
    HM_CALL(real_dot(v, w, &alpha[j]));
    HM_CALL(axpby1(w, -alpha[j], v, 1.0));
    HM_CALL(real_dot(w, w, &nrm2));
    beta[j] = sqrt(nrm2);
    m = j + 1;
    if (beta[j] <= 1e-12 * fabs(alpha[j]) + 1e-300) break; /* invariant subspace: Ritz values exact */
    hm_mvec *t = v_old; v_old = v; v = t;                      /* v_{j+1} = w / beta_j */
    HM_CALL(axpby1(v, 1.0 / beta[j], w, 0.0));
  }
  double last_beta = beta[m - 1];
  lapack_int info = LAPACKE_dstev(LAPACK_COL_MAJOR, 'V', m, alpha, beta, z, m);
  HM_CHECK(info == 0, HM_ERR_LAPACK, "dstev on the %d x %d Lanczos matrix returned info = %d", m, m, (int)info);
  /* |beta_m * last component of the Ritz vector| bounds the distance to an eigenvalue. */
  double res_lo = fabs(last_beta * z[(size_t)0 * m + m - 1]), res_hi = fabs(last_beta * z[(size_t)(m - 1) * m + m - 1]);
  double lo = alpha[0] - res_lo, hi = alpha[m - 1] + res_hi, width = hi - lo;
  if (width <= 0) width = fmax(fabs(hi), 1.0);
  lo -= margin * width;
  hi += margin * width;
  double glo, ghi; /* Gershgorin is rigorous: never go beyond it */
  HM_CALL(hm_matrix_gershgorin(H, &glo, &ghi));
  *emin = fmax(lo, glo);
  *emax = fmin(hi, ghi);
  if (*emax <= *emin) { *emin = glo; *emax = ghi; }
  free(alpha); free(beta); free(z);
  hm_mvec_destroy(&v); hm_mvec_destroy(&v_old); hm_mvec_destroy(&w);
  return HM_SUCCESS;
}
