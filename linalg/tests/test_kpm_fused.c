/* The fused, blocked KPM step (doubling trick, dots inside the sweep) gives the same moments as a
 * plain reference written here: the three-term recurrence with separate products and
 * mu_n = <v_0|v_n> / N for every n, on a TI lattice with disorder (complex) and its real
 * counterpart (a real symmetric random matrix). Also: bounds too tight are detected. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"

/* Plain KPM: v_{n+1} = 2 s (H - b) v_n - v_{n-1}, mu_n = <v_0|v_n>/N, averaged over columns. */
static void plain_moments(hm_context *ctx, hm_matrix *H, int M, int R, uint64_t seed, double s, double b, double *mu) {
  const hm_dist *dist;
  hm_scalar type;
  int64_t n, local;
  hm_matrix_dist(H, &dist);
  hm_matrix_info(H, &n, NULL, &type);
  hm_dist_range(dist, NULL, &local, NULL);
  hm_mvec *v0, *va, *vb, *hv;
  hm_mvec_create(ctx, dist, type, R, &v0);
  hm_mvec_create(ctx, dist, type, R, &va);
  hm_mvec_create(ctx, dist, type, R, &vb);
  hm_mvec_create(ctx, dist, type, R, &hv);
  hm_mvec_random_phase(v0, seed);
  size_t len = (size_t)local * R * type;
  double *x0 = malloc(len * sizeof(double) + 8), *xa = malloc(len * sizeof(double) + 8),
         *xb = malloc(len * sizeof(double) + 8), *xh = malloc(len * sizeof(double) + 8);
  double *dots = malloc(sizeof(double) * 2 * R);
  hm_mvec_get(v0, x0);
  memcpy(xa, x0, len * sizeof(double)); /* v_{n-1} */
  hm_mvec_set(va, xa);
  HM_TEST_OK(hm_matrix_apply(H, va, hv));
  hm_mvec_get(hv, xh);
  for (size_t i = 0; i < len; i++) xb[i] = s * (xh[i] - b * xa[i]); /* v_1 */
  for (int m = 0; m < M; m++) {
    hm_mvec_set(vb, m == 0 ? xa : xb);
    HM_TEST_OK(hm_mvec_dot(v0, vb, dots));
    double sum = 0;
    for (int r = 0; r < R; r++) sum += dots[r * type];
    mu[m] = sum / R / (double)n;
    if (m == 0) continue;
    HM_TEST_OK(hm_matrix_apply(H, vb, hv));
    hm_mvec_get(hv, xh);
    for (size_t i = 0; i < len; i++) {
      double next = 2 * s * (xh[i] - b * xb[i]) - xa[i];
      xa[i] = xb[i];
      xb[i] = next;
    }
  }
  free(x0); free(xa); free(xb); free(xh); free(dots);
  hm_mvec_destroy(&v0); hm_mvec_destroy(&va); hm_mvec_destroy(&vb); hm_mvec_destroy(&hv);
}

static void compare(hm_context *ctx, hm_matrix *H, int M, int R, const char *what) {
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = M;
  opt.vectors = R;
  opt.seed = 99;
  hm_kpm *kpm;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  HM_TEST_OK(hm_kpm_run(kpm));
  double s, b, *mu = malloc(sizeof(double) * M), *ref = malloc(sizeof(double) * M);
  hm_kpm_info(kpm, NULL, NULL, NULL, &s, &b, NULL);
  HM_TEST_OK(hm_kpm_moments(kpm, mu, NULL));
  plain_moments(ctx, H, M, R, opt.seed, s, b, ref);
  double worst = 0;
  for (int n = 0; n < M; n++) worst = fmax(worst, fabs(mu[n] - ref[n]));
  HM_TEST_ASSERT(worst < 1e-11, "%s R=%d: fused and plain moments differ by %g", what, R, worst);
  HM_TEST_ASSERT(fabs(mu[0] - 1) < 1e-14, "%s: mu_0 = %.17g, must be 1", what, mu[0]);
  free(mu); free(ref);
  hm_kpm_destroy(&kpm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_matrix *H;
  HM_TEST_OK(hm_test_ti_slab(ctx, 6, 5, 4, 1.5, NULL, &H));
  int widths[] = {1, 3, 8, 32};
  for (int i = 0; i < 4; i++) compare(ctx, H, 64, widths[i], "ti");

  /* Real symmetric tridiagonal-plus-random matrix (the real kernels). */
  const hm_dist *dist;
  hm_dist *d;
  HM_TEST_OK(hm_dist_create(ctx, 300, 1, 1.0, &d));
  int64_t first, local;
  hm_dist_range(d, &first, &local, NULL);
  int64_t *rp = calloc(local + 1, sizeof *rp), *cols = malloc(sizeof *cols * 3 * local + 8);
  double *vals = malloc(sizeof *vals * 3 * local + 8);
  for (int64_t i = 0; i < local; i++) {
    int64_t g = first + i, q = 3 * i;
    cols[q] = g; vals[q] = sin(0.7 * g);
    cols[q + 1] = (g + 1) % 300; vals[q + 1] = 1.0;
    cols[q + 2] = (g + 299) % 300; vals[q + 2] = 1.0;
    rp[i + 1] = q + 3;
  }
  hm_matrix *S;
  HM_TEST_OK(hm_matrix_create_csr(ctx, d, HM_REAL, rp, cols, vals, &S));
  (void)dist;
  for (int i = 0; i < 4; i++) compare(ctx, S, 48, widths[i], "real");

  /* An interval that misses part of the spectrum must be reported, not returned as a DOS. */
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = 200;
  opt.vectors = 2;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = -1.0;
  opt.emax = 1.0;
  hm_kpm *kpm;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  HM_TEST_FAILS(hm_kpm_run(kpm), HM_ERR_NUMERIC, "does not contain the spectrum");
  hm_kpm_destroy(&kpm);
  opt.moments = 7;
  HM_TEST_FAILS(hm_kpm_create(H, &opt, &kpm), HM_ERR_ARGUMENT, "must be even");
  free(rp); free(cols); free(vals);
  hm_matrix_destroy(&S); hm_dist_destroy(&d); hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
