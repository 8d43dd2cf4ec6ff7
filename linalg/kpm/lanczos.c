/* Lanczos bounds. Without reorthogonalisation: only the extreme Ritz values are used, and those
 * converge first; ghost copies of them do not move the extremes. A random-sign start vector can be
 * exactly orthogonal to an eigenvector (the staggered mode of a small periodic lattice: probability
 * about 1/5 for 16 sites), so the start is Gaussian. */
#include <math.h>
#include <lapacke.h>
#include "error_macros.h"
#include "halo.h"
#include "lanczos.h"
#include "mvec_block.h"

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

int hm_lanczos_bounds_from(hm_matrix *H, int steps, const hm_mvec *v0, double margin, double *emin, double *emax,
                           int *invariant) {
  HM_CHECK(H && v0 && emin && emax, HM_ERR_ARGUMENT, "H, v0, emin or emax is NULL");
  HM_CHECK(steps >= 2, HM_ERR_ARGUMENT, "lanczos_steps = %d, must be >= 2", steps);
  const hm_dist *dist;
  hm_scalar type;
  int64_t n;
  HM_CALL(hm_matrix_dist(H, &dist));
  HM_CALL(hm_matrix_info(H, &n, NULL, &type));
  HM_CHECK(v0->k == 1 && v0->type == type && v0->dist.local == dist->local, HM_ERR_ARGUMENT,
           "the start vector must be one column of H's type over H's rows");
  if (steps > n) steps = (int)n;
  double glo, ghi; /* Gershgorin is rigorous: never go beyond it, and its radius scales the breakdown test */
  HM_CALL(hm_matrix_gershgorin(H, &glo, &ghi));
  hm_mvec *v, *v_old, *w;
  HM_CALL(hm_mvec_create(H->ctx, dist, type, 1, &v));
  HM_CALL(hm_mvec_create(H->ctx, dist, type, 1, &v_old));
  HM_CALL(hm_mvec_create(H->ctx, dist, type, 1, &w));
  double *alpha, *beta, *z;
  HM_MALLOC(alpha, steps);
  HM_MALLOC(beta, steps);
  HM_MALLOC(z, (size_t)steps * (size_t)steps);
  HM_CALL(hm_mvec_copy_columns(v0, 0, v, 0, 1));
  double nrm2 = 0;
  HM_CALL(real_dot(v, v, &nrm2));
  HM_CHECK(nrm2 > 0 && isfinite(nrm2), HM_ERR_ARGUMENT, "the Lanczos start vector has norm %g", sqrt(nrm2));
  HM_CALL(axpby1(v, 1.0 / sqrt(nrm2), v, 0.0));
  /* beta_j at rounding level of ||H|| (not of alpha_j, which is 0 on bipartite lattices) */
  const double breakdown = 1e-10 * fmax(fmax(fabs(glo), fabs(ghi)), 1e-300);
  int m = 0, broke = 0;
  for (int j = 0; j < steps; j++) {
    HM_CALL(hm_matrix_apply(H, v, w)); /* w = H v_j - beta_{j-1} v_{j-1} - alpha_j v_j */
    if (j > 0) HM_CALL(axpby1(w, -beta[j - 1], v_old, 1.0));
    HM_CALL(real_dot(v, w, &alpha[j]));
    HM_CALL(axpby1(w, -alpha[j], v, 1.0));
    HM_CALL(real_dot(w, w, &nrm2));
    beta[j] = sqrt(nrm2);
    m = j + 1;
    if (beta[j] <= breakdown) { broke = 1; break; } /* invariant subspace: Ritz values exact, but only its own */
    hm_mvec *t = v_old; v_old = v; v = t;          /* v_{j+1} = w / beta_j */
    HM_CALL(axpby1(v, 1.0 / beta[j], w, 0.0));
  }
  double last_beta = beta[m - 1];
  lapack_int info = LAPACKE_dstev(LAPACK_COL_MAJOR, 'V', m, alpha, beta, z, m);
  HM_CHECK(info == 0, HM_ERR_LAPACK, "dstev on the %d x %d Lanczos matrix returned info = %d", m, m, (int)info);
  /* |beta_m * last component of the Ritz vector| bounds the distance of the Ritz value to SOME
   * eigenvalue, not to the extreme one: the Ritz values lie inside the spectrum, so the widened
   * interval is an estimate that the Gershgorin clip and KPM's moment check back up. */
  double res_lo = fabs(last_beta * z[(size_t)0 * m + m - 1]), res_hi = fabs(last_beta * z[(size_t)(m - 1) * m + m - 1]);
  /* the enclosure clipped to Gershgorin, then widened by the margin (which keeps the spectrum off the
   * interval's ends, where the Chebyshev series resolves least); the whole Gershgorin interval where
   * the start vector saw only part of the spectrum (e.g. a symmetric one on a small lattice) */
  double lo = fmax(alpha[0] - res_lo, glo), hi = fmin(alpha[m - 1] + res_hi, ghi);
  if (broke && m < n) lo = glo, hi = ghi;
  if (!(hi > lo)) lo = glo, hi = ghi;
  double width = hi - lo;
  if (width <= 0) width = fmax(fabs(hi), 1.0);
  *emin = lo - margin * width;
  *emax = hi + margin * width;
  if (invariant) *invariant = broke && m < n;
  free(alpha); free(beta); free(z);
  hm_mvec_destroy(&v); hm_mvec_destroy(&v_old); hm_mvec_destroy(&w);
  return HM_SUCCESS;
}

int hm_lanczos_bounds(hm_matrix *H, int steps, uint64_t seed, double margin, double *emin, double *emax) {
  HM_CHECK(H && emin && emax, HM_ERR_ARGUMENT, "H, emin or emax is NULL");
  const hm_dist *dist;
  hm_scalar type;
  HM_CALL(hm_matrix_dist(H, &dist));
  HM_CALL(hm_matrix_info(H, NULL, NULL, &type));
  hm_mvec *v0;
  HM_CALL(hm_mvec_create(H->ctx, dist, type, 1, &v0));
  int st = hm_mvec_random_gauss(v0, seed ^ 0x6c616e637a6f73ULL); /* a stream of its own */
  if (!st) st = hm_lanczos_bounds_from(H, steps, v0, margin, emin, emax, NULL);
  hm_mvec_destroy(&v0);
  HM_CALL(st);
  return HM_SUCCESS;
}
