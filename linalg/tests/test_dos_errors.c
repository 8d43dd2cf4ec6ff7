/* Error bars and argument checks of hm_dos. R vectors whose moments are exact + independent
 * Gaussian noise of known sigma: the reported error must match the standard deviation of the mean
 * predicted from sigma and the kernel (fixed seed; bounds many chi-square sigmas wide). R identical
 * vectors give error exactly 0. Bad arguments give HM_ERR_ARGUMENT naming the argument. */
#include <math.h>
#include <stdlib.h>
#include "testing.h"
#include "random.h"

enum { M = 64, R = 64, NSTATES = 1000 };
static const double SCALE = 2.0, SHIFT = 0.5, SIGMA = 0.01;

static double gaussian(uint64_t stream, uint64_t counter) {
  const double u = 1.0 - hm_random_uniform(77, stream, 2 * counter), v = hm_random_uniform(77, stream, 2 * counter + 1);
  return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void exact_moments(double *mu) { /* a semicircle-like smooth spectrum: mu_n = J-like decay */
  mu[0] = 1;
  for (int n = 1; n < M; n++) mu[n] = (n % 2 == 0 ? 1 : -0.3) * exp(-0.1 * n);
}

static void check_error_bars(void) {
  double exact[M], *mu = malloc(sizeof *mu * R * M), g[M];
  exact_moments(exact);
  for (int r = 0; r < R; r++)
    for (int n = 0; n < M; n++) mu[r * M + n] = exact[n] + (n ? SIGMA * gaussian(r, n) : 0);
  hm_dos_options opt;
  hm_dos_options_default(&opt);
  HM_TEST_OK(hm_kpm_kernel_factors(opt.kernel, opt.lorentz_lambda, M, g));
  hm_dos *dos = NULL, *one = NULL;
  HM_TEST_OK(hm_dos_create(M, R, mu, SCALE, SHIFT, NSTATES, &opt, &dos));
  HM_TEST_OK(hm_dos_create(M, 1, exact, SCALE, SHIFT, NSTATES, &opt, &one));
  int P;
  HM_TEST_OK(hm_dos_size(dos, &P));
  double *E = malloc(sizeof *E * P), *rho = malloc(sizeof *rho * P), *err = malloc(sizeof *err * P);
  double *rho0 = malloc(sizeof *rho0 * P);
  HM_TEST_OK(hm_dos_get(dos, E, rho, err));
  HM_TEST_OK(hm_dos_get(one, NULL, rho0, NULL));
  double lo = INFINITY, hi = 0, mean_ratio = 0, worst_z = 0;
  for (int j = 0; j < P; j++) {
    /* Var rho_r(x) = (scale N / (pi s))^2 4 sigma^2 sum_{n>=1} g_n^2 T_n(x)^2; the mean divides by R. */
    const double x = SCALE * (E[j] - SHIFT), s = sqrt(1 - x * x), th = acos(x);
    double sum = 0;
    for (int n = 1; n < M; n++) sum += pow(g[n] * cos(n * th), 2);
    const double expect = SCALE * NSTATES / (M_PI * s) * 2 * SIGMA * sqrt(sum) / sqrt((double)R);
    const double ratio = err[j] / expect;
    lo = fmin(lo, ratio), hi = fmax(hi, ratio), mean_ratio += ratio / P;
    worst_z = fmax(worst_z, fabs(rho[j] - rho0[j]) / expect);
  }
  printf("error / expected: min %.3f max %.3f mean %.3f; worst |rho - exact| / expected error %.2f\n", lo, hi,
         mean_ratio, worst_z);
  /* s^2/sigma^2 ~ chi2(63)/63: 0.6 and 1.5 are both beyond 5 standard deviations of it. */
  HM_TEST_ASSERT(lo > 0.6 && hi < 1.5, "error / expected in [%.3f, %.3f], allowed (0.6, 1.5)", lo, hi);
  HM_TEST_ASSERT(fabs(mean_ratio - 1) < 0.15, "mean error / expected = %.3f, allowed 1 +- 0.15", mean_ratio);
  HM_TEST_ASSERT(worst_z < 6, "the mean is %.2f expected errors from the exact DOS (allowed < 6)", worst_z);

  /* R identical vectors: the same DOS as one vector and exactly zero error. */
  for (int r = 0; r < R; r++)
    for (int n = 0; n < M; n++) mu[r * M + n] = exact[n];
  hm_dos_destroy(&dos);
  HM_TEST_OK(hm_dos_create(M, R, mu, SCALE, SHIFT, NSTATES, &opt, &dos));
  HM_TEST_OK(hm_dos_get(dos, NULL, rho, err));
  for (int j = 0; j < P; j++) {
    HM_TEST_ASSERT(err[j] == 0, "identical vectors: error[%d] = %g, expected 0", j, err[j]);
    HM_TEST_ASSERT(rho[j] == rho0[j], "identical vectors: rho[%d] = %.17g, one vector gives %.17g", j, rho[j], rho0[j]);
  }
  hm_dos_destroy(&dos);
  hm_dos_destroy(&one);
  free(mu), free(E), free(rho), free(err), free(rho0);
}

static void check_bad_arguments(void) {
  double mu[2 * M];
  exact_moments(mu);
  exact_moments(mu + M);
  hm_dos_options opt, o;
  HM_TEST_OK(hm_dos_options_default(&opt));
  HM_TEST_ASSERT(opt.kernel == HM_KERNEL_JACKSON && opt.lorentz_lambda == 4 && opt.points == 0 && opt.emin == 0 &&
                     opt.emax == 0 && opt.norm == HM_NORM_STATES,
                 "unexpected defaults");
  hm_dos *dos = NULL;
  HM_TEST_FAILS(hm_dos_create(1, 1, mu, 1, 0, 10, &opt, &dos), HM_ERR_ARGUMENT, "moments");
  HM_TEST_FAILS(hm_dos_create(M, 0, mu, 1, 0, 10, &opt, &dos), HM_ERR_ARGUMENT, "vectors");
  HM_TEST_FAILS(hm_dos_create(M, 1, NULL, 1, 0, 10, &opt, &dos), HM_ERR_ARGUMENT, "mu_vec");
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 0, 0, 10, &opt, &dos), HM_ERR_ARGUMENT, "scale");
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, -1, 0, 10, &opt, &dos), HM_ERR_ARGUMENT, "scale");
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, INFINITY, 0, 10, &opt, &dos), HM_ERR_ARGUMENT, "scale");
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, NAN, 10, &opt, &dos), HM_ERR_ARGUMENT, "shift");
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 0, &opt, &dos), HM_ERR_ARGUMENT, "n_global");
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 10, NULL, &dos), HM_ERR_ARGUMENT, "opt");
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 10, &opt, NULL), HM_ERR_ARGUMENT, "dos");
  o = opt, o.points = -3;
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 10, &o, &dos), HM_ERR_ARGUMENT, "points");
  o = opt, o.points = 10, o.emin = 1, o.emax = 1;
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 10, &o, &dos), HM_ERR_ARGUMENT, "emin");
  o = opt, o.points = 10, o.emin = 2, o.emax = -1;
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 10, &o, &dos), HM_ERR_ARGUMENT, "emax");
  o = opt, o.kernel = (hm_kpm_kernel)5;
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 10, &o, &dos), HM_ERR_ARGUMENT, "kernel");
  o = opt, o.kernel = HM_KERNEL_LORENTZ, o.lorentz_lambda = -1;
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 10, &o, &dos), HM_ERR_ARGUMENT, "lorentz_lambda");
  o = opt, o.norm = (hm_dos_norm)9;
  HM_TEST_FAILS(hm_dos_create(M, 1, mu, 1, 0, 10, &o, &dos), HM_ERR_ARGUMENT, "norm");
  mu[M] = 1000; /* second vector not normalised */
  HM_TEST_FAILS(hm_dos_create(M, 2, mu, 1, 0, 10, &opt, &dos), HM_ERR_ARGUMENT, "mu_0 = 1");
  mu[M] = 1, mu[M + 5] = NAN;
  HM_TEST_FAILS(hm_dos_create(M, 2, mu, 1, 0, 10, &opt, &dos), HM_ERR_ARGUMENT, "finite");
  HM_TEST_ASSERT(dos == NULL, "a failed create must leave no handle");
  int P;
  HM_TEST_FAILS(hm_dos_size(NULL, &P), HM_ERR_ARGUMENT, "dos");
  HM_TEST_FAILS(hm_dos_get(NULL, NULL, NULL, NULL), HM_ERR_ARGUMENT, "dos");
  HM_TEST_FAILS(hm_dos_options_default(NULL), HM_ERR_ARGUMENT, "opt");
  HM_TEST_OK(hm_dos_destroy(&dos));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  check_error_bars();
  check_bad_arguments();
  return hm_test_finish();
}
