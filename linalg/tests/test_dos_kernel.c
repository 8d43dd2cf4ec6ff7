/* KPM kernel factors: Jackson and Lorentz against their analytic properties, and the
 * Jackson-damped series of a delta function delta(x - x0) (exact moments T_n(x0)) reconstructed by
 * hm_dos: peak at x0, unit weight, and the variance the Jackson kernel is known to give. */
#include <math.h>
#include <stdlib.h>
#include "testing.h"

static void check_jackson(int M) {
  double *g = malloc(sizeof *g * M);
  HM_TEST_OK(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 0.0, M, g));
  HM_TEST_ASSERT(fabs(g[0] - 1) < 1e-14, "Jackson M=%d: g_0 = %.17g, expected 1", M, g[0]);
  /* g_1 = cos(pi/(M+1)) follows from the formula by hand (sin a cot a = cos a). */
  HM_TEST_ASSERT(fabs(g[1] - cos(M_PI / (M + 1))) < 1e-14, "Jackson M=%d: g_1 = %.17g, expected cos(pi/(M+1))",
                 M, g[1]);
  for (int n = 0; n < M; n++) HM_TEST_ASSERT(g[n] > 0 && g[n] <= 1, "Jackson M=%d: g_%d = %g not in (0, 1]", M, n, g[n]);
  for (int n = 1; n < M; n++)
    HM_TEST_ASSERT(g[n] < g[n - 1], "Jackson M=%d: g_%d = %g >= g_%d = %g (must decrease)", M, n, g[n], n - 1, g[n - 1]);
  /* The last factor is 2 sin^2(pi/(M+1))/(M+1) (worked out by hand), i.e. of order (pi/M)^2 / M. */
  const double last = 2 * pow(sin(M_PI / (M + 1)), 2) / (M + 1);
  HM_TEST_ASSERT(fabs(g[M - 1] - last) < 1e-12 * last + 1e-16, "Jackson M=%d: g_{M-1} = %g, expected %g", M, g[M - 1],
                 last);
  free(g);
}

static void check_lorentz(int M, double lambda) {
  double *g = malloc(sizeof *g * M);
  HM_TEST_OK(hm_kpm_kernel_factors(HM_KERNEL_LORENTZ, lambda, M, g));
  HM_TEST_ASSERT(fabs(g[0] - 1) < 1e-14, "Lorentz M=%d: g_0 = %.17g, expected 1", M, g[0]);
  for (int n = 1; n < M; n++) HM_TEST_ASSERT(g[n] < g[n - 1] && g[n] > 0, "Lorentz M=%d: g_%d = %g", M, n, g[n]);
  /* g_M = 0: the last factor is sinh(lambda/M)/sinh(lambda) ~ (lambda/M)/sinh(lambda). */
  const double bound = 1.01 * (lambda / M) / sinh(lambda);
  HM_TEST_ASSERT(g[M - 1] < bound, "Lorentz M=%d lambda=%g: g_{M-1} = %g, not < %g", M, lambda, g[M - 1], bound);
  /* Far from n = M the factors are exp(-lambda n/M) to within exp(-2 lambda (1 - n/M)). */
  for (int n = 0; n < M / 2; n++) {
    const double e = exp(-lambda * n / M), tol = 2 * exp(-2 * lambda * (1.0 - (double)n / M));
    HM_TEST_ASSERT(fabs(g[n] - e) <= tol, "Lorentz M=%d: g_%d = %g, exp(-lambda n/M) = %g", M, n, g[n], e);
  }
  free(g);
}

/* Jackson-damped delta(x - x0): peak position, weight, variance (scale 1, shift 0, unit norm). */
static void check_delta(int M, double x0) {
  double *mu = malloc(sizeof *mu * M);
  for (int n = 0; n < M; n++) mu[n] = cos(n * acos(x0));
  hm_dos_options opt;
  HM_TEST_OK(hm_dos_options_default(&opt));
  opt.norm = HM_NORM_UNIT;
  opt.points = 8001;
  /* Stay clear of x = +-1, where the 1/sqrt(1 - x^2) weight makes the trapezoid rule overweight
   * the last interval; the tail beyond carries < 1e-8 of the weight. */
  opt.emin = -0.999, opt.emax = 0.999;
  hm_dos *dos = NULL;
  HM_TEST_OK(hm_dos_create(M, 1, mu, 1.0, 0.0, 1, &opt, &dos));
  int P = 0;
  HM_TEST_OK(hm_dos_size(dos, &P));
  HM_TEST_ASSERT(P == opt.points, "size %d, expected %d", P, opt.points);
  double *x = malloc(sizeof *x * P), *rho = malloc(sizeof *rho * P);
  HM_TEST_OK(hm_dos_get(dos, x, rho, NULL));
  int peak = 0;
  double w = 0, mean = 0, var = 0;
  for (int j = 0; j < P; j++) {
    if (rho[j] > rho[peak]) peak = j;
    if (j > 0) {
      const double h = x[j] - x[j - 1], a = rho[j - 1], b = rho[j];
      w += 0.5 * h * (a + b);
      mean += 0.5 * h * (a * x[j - 1] + b * x[j]);
      var += 0.5 * h * (a * pow(x[j - 1] - x0, 2) + b * pow(x[j] - x0, 2));
    }
  }
  const double dx = x[1] - x[0], width = M_PI / M;
  HM_TEST_ASSERT(fabs(x[peak] - x0) <= dx + 0.05 * width, "delta at %g, M=%d: peak at %g (grid step %g)", x0, M,
                 x[peak], dx);
  HM_TEST_ASSERT(fabs(w - 1) < 1e-3, "delta at %g, M=%d: integral %.8f, expected 1", x0, M, w);
  /* Exact: <x> = g_1 x0 and <x^2> = (1 + g_2 T_2(x0))/2 by Chebyshev orthogonality. */
  double *g = malloc(sizeof *g * M);
  HM_TEST_OK(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 0, M, g));
  const double var_exact = 0.5 * (1 + g[2] * (2 * x0 * x0 - 1)) - 2 * x0 * x0 * g[1] + x0 * x0;
  const double var_rough = width * width * (1 - x0 * x0);
  HM_TEST_ASSERT(fabs(mean - g[1] * x0) < 1e-4 * width, "delta at %g: mean %.10f, exact %.10f", x0, mean, g[1] * x0);
  HM_TEST_ASSERT(fabs(var / var_exact - 1) < 1e-3, "delta at %g, M=%d: variance %g, exact %g", x0, M, var, var_exact);
  HM_TEST_ASSERT(fabs(var / var_rough - 1) < 0.05, "delta at %g, M=%d: variance %g, (pi/M)^2 (1 - x0^2) = %g", x0, M,
                 var, var_rough);
  free(g);
  free(x);
  free(rho);
  free(mu);
  hm_dos_destroy(&dos);
  HM_TEST_ASSERT(dos == NULL, "hm_dos_destroy must null the handle");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  check_jackson(2);
  check_jackson(64);
  check_jackson(1000);
  check_lorentz(64, 4.0);
  check_lorentz(500, 3.0);
  check_delta(256, 0.3);
  check_delta(200, -0.55);
  check_delta(512, 0.0);
  double g[8];
  HM_TEST_FAILS(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 4, 1, g), HM_ERR_ARGUMENT, "moments");
  HM_TEST_FAILS(hm_kpm_kernel_factors(HM_KERNEL_LORENTZ, 0, 8, g), HM_ERR_ARGUMENT, "lorentz_lambda");
  HM_TEST_FAILS(hm_kpm_kernel_factors(HM_KERNEL_LORENTZ, NAN, 8, g), HM_ERR_ARGUMENT, "lorentz_lambda");
  HM_TEST_FAILS(hm_kpm_kernel_factors((hm_kpm_kernel)7, 4, 8, g), HM_ERR_ARGUMENT, "kernel");
  HM_TEST_FAILS(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 4, 8, NULL), HM_ERR_ARGUMENT, "g is NULL");
  return hm_test_finish();
}
