/* hm_dos against a direct evaluation of the KPM series for a known spectrum: 300 eigenvalues with
 * x = scale*(E - shift) random in (-0.9, 0.9), exact moments mu_n = (1/N) sum_i T_n(x_i), and
 *   rho(E) = scale N / (pi sqrt(1 - x^2)) [g_0 mu_0 + 2 sum_n g_n mu_n T_n(x)]
 * summed term by term here. At the Chebyshev nodes the DCT must agree to 1e-10; on a uniform grid
 * (cubic interpolation) to 5e-6 of the peak value. Also: the normalisation integrals. */
#include <math.h>
#include <stdlib.h>
#include "testing.h"
#include "random.h"

enum { N = 300, M = 128 };
static const double SCALE = 0.37, SHIFT = -1.25;

static double mu[M];

/* Kernel factors written out here, apart from the library's. */
static void factors(hm_kpm_kernel kernel, double lambda, double *g) {
  for (int n = 0; n < M; n++) {
    const double a = M_PI / (M + 1);
    g[n] = kernel == HM_KERNEL_JACKSON ? ((M - n + 1) * cos(a * n) + sin(a * n) / tan(a)) / (M + 1)
                                       : sinh(lambda * (1 - (double)n / M)) / sinh(lambda);
  }
}

static double reference(double E, const double *g, double norm) {
  const double x = SCALE * (E - SHIFT);
  if (fabs(x) >= 1) return 0;
  double t0 = 1, t1 = x, sum = g[0] * mu[0] + 2 * g[1] * mu[1] * x;
  for (int n = 2; n < M; n++) {
    const double t2 = 2 * x * t1 - t0;
    sum += 2 * g[n] * mu[n] * t2;
    t0 = t1, t1 = t2;
  }
  return SCALE * norm * sum / (M_PI * sqrt(1 - x * x));
}

static void make_dos(hm_dos_options *opt, int *P, double **E, double **rho, double **err) {
  hm_dos *dos = NULL;
  HM_TEST_OK(hm_dos_create(M, 1, mu, SCALE, SHIFT, N, opt, &dos));
  HM_TEST_OK(hm_dos_size(dos, P));
  *E = malloc(sizeof(double) * *P), *rho = malloc(sizeof(double) * *P), *err = malloc(sizeof(double) * *P);
  HM_TEST_OK(hm_dos_get(dos, *E, *rho, *err));
  HM_TEST_OK(hm_dos_destroy(&dos));
}

static void check_nodes(hm_kpm_kernel kernel) {
  double g[M];
  factors(kernel, 4.0, g);
  hm_dos_options opt;
  hm_dos_options_default(&opt);
  opt.kernel = kernel;
  int P;
  double *E, *rho, *err, peak = 0, worst = 0;
  make_dos(&opt, &P, &E, &rho, &err);
  HM_TEST_ASSERT(P == 2 * M, "points = %d, expected 2M = %d", P, 2 * M);
  for (int j = 0; j < P; j++) peak = fmax(peak, reference(E[j], g, N));
  for (int j = 0; j < P; j++) {
    const double x = -cos(M_PI * (j + 0.5) / P); /* ascending nodes */
    HM_TEST_ASSERT(fabs(E[j] - (SHIFT + x / SCALE)) < 1e-12, "kernel %d node %d: energy %.15f, expected %.15f",
                   kernel, j, E[j], SHIFT + x / SCALE);
    const double ref = reference(E[j], g, N);
    const double rel = fabs(rho[j] - ref) / fmax(fabs(ref), 1e-8 * peak);
    worst = fmax(worst, rel);
    HM_TEST_ASSERT(err[j] == 0, "one vector: error[%d] = %g, expected 0", j, err[j]);
  }
  HM_TEST_ASSERT(worst < 1e-10, "kernel %d at the nodes: worst relative difference %.3g > 1e-10", kernel, worst);
  free(E), free(rho), free(err);
}

/* A uniform grid reaching outside the interval: zeros there, interpolation error inside. */
static void check_grid(hm_kpm_kernel kernel, double lambda, int points) {
  double g[M];
  factors(kernel, lambda, g);
  hm_dos_options opt;
  hm_dos_options_default(&opt);
  opt.kernel = kernel;
  opt.lorentz_lambda = lambda;
  opt.points = points;
  opt.emin = SHIFT - 1.2 / SCALE;
  opt.emax = SHIFT + 1.1 / SCALE;
  int P;
  double *E, *rho, *err, peak = 0, worst = 0;
  make_dos(&opt, &P, &E, &rho, &err);
  HM_TEST_ASSERT(P == points, "points = %d, expected %d", P, points);
  HM_TEST_ASSERT(E[0] == opt.emin && E[P - 1] == opt.emax, "grid ends %.17g %.17g, expected %.17g %.17g", E[0],
                 E[P - 1], opt.emin, opt.emax);
  for (int j = 0; j < P; j++) peak = fmax(peak, reference(E[j], g, N));
  for (int j = 0; j < P; j++) {
    const double h = (opt.emax - opt.emin) / (P - 1);
    HM_TEST_ASSERT(fabs(E[j] - (opt.emin + j * h)) < 1e-12, "grid energy %d: %.15f", j, E[j]);
    const double x = SCALE * (E[j] - SHIFT);
    if (fabs(x) >= 1) {
      HM_TEST_ASSERT(rho[j] == 0, "outside the interval (x = %g): rho = %g, expected 0", x, rho[j]);
      continue;
    }
    worst = fmax(worst, fabs(rho[j] - reference(E[j], g, N)) / peak);
  }
  HM_TEST_ASSERT(worst < 5e-6, "kernel %d on %d points: worst interpolation error %.3g of the peak > 5e-6", kernel,
                 points, worst);
  printf("kernel %d, %d points: interpolation error %.2g of the peak\n", kernel, points, worst);
  free(E), free(rho), free(err);
}

/* Trapezoid integral over the default grid: N states, or 1. */
static void check_norm(hm_dos_norm norm, double expect) {
  hm_dos_options opt;
  hm_dos_options_default(&opt);
  opt.norm = norm;
  opt.points = 20001;
  int P;
  double *E, *rho, *err, sum = 0;
  make_dos(&opt, &P, &E, &rho, &err);
  const double x0 = SCALE * (E[0] - SHIFT), x1 = SCALE * (E[P - 1] - SHIFT);
  HM_TEST_ASSERT(x0 > -1 && x0 < -0.999999 && x1 < 1 && x1 > 0.999999,
                 "default grid spans x = %.9f .. %.9f, expected just inside (-1, 1)", x0, x1);
  for (int j = 1; j < P; j++) sum += 0.5 * (E[j] - E[j - 1]) * (rho[j] + rho[j - 1]);
  HM_TEST_ASSERT(fabs(sum / expect - 1) < 1e-4, "norm %d: integral %.8g, expected %g", norm, sum, expect);
  free(E), free(rho), free(err);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double x[N];
  for (int i = 0; i < N; i++) x[i] = -0.9 + 1.8 * hm_random_uniform(2024, 1, i);
  for (int n = 0; n < M; n++) mu[n] = 0;
  for (int i = 0; i < N; i++) { /* T_n by the recurrence */
    double t0 = 1, t1 = x[i];
    mu[0] += t0, mu[1] += t1;
    for (int n = 2; n < M; n++) {
      const double t2 = 2 * x[i] * t1 - t0;
      mu[n] += t2;
      t0 = t1, t1 = t2;
    }
  }
  for (int n = 0; n < M; n++) mu[n] /= N;
  check_nodes(HM_KERNEL_JACKSON);
  check_nodes(HM_KERNEL_LORENTZ);
  check_grid(HM_KERNEL_JACKSON, 4.0, 500);
  check_grid(HM_KERNEL_LORENTZ, 4.0, 500);
  check_grid(HM_KERNEL_LORENTZ, 2.5, 3000);
  check_norm(HM_NORM_STATES, N);
  check_norm(HM_NORM_UNIT, 1);
  return hm_test_finish();
}
