/* KPM against exact diagonalization of the same matrix (LAPACK zheevd):
 * 1. stochastic moments within 6 standard deviations of the exact ones, mu_n = (1/N) sum_i T_n(x_i);
 *    for random-phase vectors Var <v|A|v>/N <= ||A||_F^2 / N^2 <= 1/N, so sigma <= 1/sqrt(N R);
 * 2. the KPM DOS within 6 of its own error bars (+ 1e-3 of its peak) of the exact spectrum
 *    broadened with the same kernel (the DOS of the exact moments), for Jackson and Lorentz;
 * 3. the exact-moment DOS has the exact number of states in an energy window, up to broadening. */
#include <math.h>
#include <stdlib.h>
#include "testing.h"

enum { M = 96, R = 48 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_matrix *H;
  HM_TEST_OK(hm_test_ti_slab(ctx, 6, 6, 6, 1.0, NULL, &H));
  double complex *dense;
  int64_t n;
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  double *w = malloc(sizeof(double) * n);
  HM_TEST_ASSERT(hm_test_eigh(n, dense, w, NULL) == 0, "zheevd failed");

  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = M;
  opt.vectors = R;
  opt.seed = 2026;
  hm_kpm *kpm;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  HM_TEST_OK(hm_kpm_run(kpm));
  double s, b, emin, emax, mu[M], *mu_vec = malloc(sizeof(double) * R * M), exact[M];
  hm_kpm_info(kpm, NULL, NULL, NULL, &s, &b, NULL);
  hm_kpm_interval(kpm, &emin, &emax);
  HM_TEST_ASSERT(emin <= w[0] && emax >= w[n - 1], "interval [%g, %g] misses the spectrum [%g, %g]", emin, emax, w[0], w[n - 1]);
  HM_TEST_ASSERT(emax - emin < 1.2 * (w[n - 1] - w[0]), "interval [%g, %g] much wider than the spectrum [%g, %g]", emin, emax, w[0], w[n - 1]);
  HM_TEST_OK(hm_kpm_moments(kpm, mu, mu_vec));
  for (int m = 0; m < M; m++) {
    exact[m] = 0;
    for (int64_t i = 0; i < n; i++) exact[m] += cos(m * acos(s * (w[i] - b)));
    exact[m] /= (double)n;
  }
  double sigma = 1.0 / sqrt((double)n * R), worst = 0;
  for (int m = 0; m < M; m++) worst = fmax(worst, fabs(mu[m] - exact[m]));
  HM_TEST_ASSERT(worst < 6 * sigma, "moments off the exact ones by %g > 6 sigma = %g", worst, 6 * sigma);
  HM_TEST_ASSERT(worst > 1e-6, "stochastic moments equal the exact ones to %g: estimator not stochastic?", worst);

  for (int kernel = 0; kernel < 2; kernel++) {
    hm_dos_options dopt;
    hm_dos_options_default(&dopt);
    dopt.kernel = (hm_kpm_kernel)kernel;
    hm_dos *dos, *ref;
    HM_TEST_OK(hm_dos_create(M, R, mu_vec, s, b, n, &dopt, &dos));
    HM_TEST_OK(hm_dos_create(M, 1, exact, s, b, n, &dopt, &ref));
    int P;
    hm_dos_size(dos, &P);
    double *E = malloc(sizeof(double) * P), *rho = malloc(sizeof(double) * P), *err = malloc(sizeof(double) * P);
    double *E2 = malloc(sizeof(double) * P), *rho2 = malloc(sizeof(double) * P);
    hm_dos_get(dos, E, rho, err);
    hm_dos_get(ref, E2, rho2, NULL);
    double peak = 0, bad = 0;
    for (int i = 0; i < P; i++) peak = fmax(peak, rho2[i]);
    int outside = 0;
    for (int i = 0; i < P; i++) {
      double d = fabs(rho[i] - rho2[i]);
      if (d > 6 * err[i] + 1e-3 * peak) { outside++; bad = fmax(bad, d); }
    }
    HM_TEST_ASSERT(outside == 0, "kernel %d: %d of %d DOS points beyond 6 error bars (worst %g, peak %g)", kernel, outside, P, bad, peak);
    /* States below E = 0 in the exact-moment DOS vs counted eigenvalues (the TI spectrum is
     * symmetric-ish, the window edge sits in a region of smooth DOS). */
    double below = 0;
    for (int i = 1; i < P; i++)
      if (E2[i] <= 0) below += 0.5 * (rho2[i] + rho2[i - 1]) * (E2[i] - E2[i - 1]);
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) count += w[i] <= 0;
    HM_TEST_ASSERT(fabs(below - count) < 0.03 * n, "kernel %d: integral below 0 = %g, exact count %lld", kernel, below, (long long)count);
    free(E); free(rho); free(err); free(E2); free(rho2);
    hm_dos_destroy(&dos);
    hm_dos_destroy(&ref);
  }
  free(mu_vec); free(w); free(dense);
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
