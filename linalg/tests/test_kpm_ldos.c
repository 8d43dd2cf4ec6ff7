/* KPM LDOS against exact diagonalization (LAPACK zheevd eigenvectors) on a 4x4x6 TI lattice open in z:
 * 1. the moments of the unit start vectors e_(site, orbital) equal the exact ones,
 *    mu_n = sum_k |psi_k(site, orbital)|^2 T_n(scale (E_k - shift)), to 1e-10 (no stochastic error:
 *    the start vectors are the exact local states, only rounding separates the two);
 * 2. hm_ldos_compute of those moments equals the Chebyshev series of the exact moments summed
 *    directly (no DCT) on the Chebyshev nodes, Jackson and Lorentz kernels, to 1e-10 of the peak, and
 *    on a uniform grid (cubic interpolation between oversampled nodes) to 1e-4 of the peak;
 *    a site's LDOS holds its 4 states;
 * 3. set_start with the random-phase block itself gives the moments of the default start;
 * 4. bad inputs of hm_kpm_set_start and hm_ldos_compute give clear errors. */
#include <math.h>
#include <stdlib.h>
#include "kpm_ldos_testlib.h"

enum { M = 128, NS = 2 };

/* rho(E) of one site from its 4 orbitals' moments by the direct Chebyshev sum. */
static double direct_ldos(const double *mu4, const double *g, double scale, double shift, double E) {
  const double x = scale * (E - shift);
  if (!(x > -1 && x < 1)) return 0;
  const double th = acos(x);
  double sum = 0;
  for (int o = 0; o < 4; o++) {
    double f = g[0] * mu4[o * M];
    for (int n = 1; n < M; n++) f += 2 * g[n] * mu4[o * M + n] * cos(n * th);
    sum += f;
  }
  return scale * sum / (M_PI * sqrt(1 - x * x));
}

static void check_reconstruction(const double *exact, double scale, double shift, int kernel, int points) {
  hm_dos_options dopt;
  hm_dos_options_default(&dopt);
  dopt.kernel = (hm_kpm_kernel)kernel;
  dopt.points = points;
  if (points) { dopt.emin = shift - 0.9 / scale; dopt.emax = shift + 0.9 / scale; }
  int P;
  HM_TEST_OK(hm_ldos_points(M, &dopt, &P));
  HM_TEST_ASSERT(P == (points ? points : 2 * M), "hm_ldos_points = %d", P);
  double *E = malloc(sizeof(double) * P), *rho = malloc(sizeof(double) * P * NS), g[M];
  HM_TEST_OK(hm_ldos_compute(M, NS, 4, exact, scale, shift, &dopt, E, rho));
  HM_TEST_OK(hm_kpm_kernel_factors(dopt.kernel, dopt.lorentz_lambda, M, g));
  for (int s = 0; s < NS; s++) {
    double peak = 0, worst = 0, integral = 0;
    for (int j = 0; j < P; j++) {
      double ref = direct_ldos(exact + (size_t)4 * s * M, g, scale, shift, E[j]);
      peak = fmax(peak, fabs(ref));
      worst = fmax(worst, fabs(rho[j * NS + s] - ref));
      if (j) integral += 0.5 * (rho[j * NS + s] + rho[(j - 1) * NS + s]) * (E[j] - E[j - 1]);
    }
    double tol = points ? 1e-4 : 1e-10;
    HM_TEST_ASSERT(worst <= tol * peak, "kernel %d, points %d, site %d: LDOS off the direct sum by %g (peak %g)",
                   kernel, points, s, worst, peak);
    if (!points) /* the nodes leave a sliver at the interval's ends: 3% */
      HM_TEST_ASSERT(fabs(integral - 4) < 0.12, "kernel %d, site %d: LDOS integrates to %g, not 4", kernel, s,
                     integral);
  }
  free(E);
  free(rho);
}

static void check_errors(hm_context *ctx, hm_matrix *H, const hm_ti_params *p, const int64_t (*sites)[3]) {
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = 8;
  opt.vectors = 4 * NS;
  hm_kpm *kpm;
  hm_mvec *B, *narrow, *real;
  const hm_dist *dist;
  int64_t local;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  HM_TEST_OK(hm_dist_range(dist, NULL, &local, NULL));
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  HM_TEST_OK(ldos_test_start(ctx, H, p, NS, sites, &B));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 3, &narrow));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 4 * NS, &real));
  HM_TEST_FAILS(hm_kpm_set_start(NULL, B), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_kpm_set_start(kpm, NULL), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_kpm_set_start(kpm, narrow), HM_ERR_ARGUMENT, "3 columns");
  HM_TEST_FAILS(hm_kpm_set_start(kpm, real), HM_ERR_ARGUMENT, "must be of H's type");
  /* column 5 all zero: site 1, orbital 1 missing */
  double complex *e = calloc((size_t)(local * 4 * NS) + 1, sizeof(double complex));
  HM_TEST_OK(hm_mvec_get(B, e));
  for (int64_t i = 0; i < local; i++) e[i * 4 * NS + 5] = 0;
  hm_mvec *holed;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 4 * NS, &holed));
  HM_TEST_OK(hm_mvec_set(holed, e));
  HM_TEST_FAILS(hm_kpm_set_start(kpm, holed), HM_ERR_ARGUMENT, "start vector 5 has norm 0");
  HM_TEST_OK(hm_kpm_set_start(kpm, B)); /* a failed call leaves the kpm usable */
  HM_TEST_OK(hm_kpm_run(kpm));
  HM_TEST_FAILS(hm_kpm_set_start(kpm, B), HM_ERR_ARGUMENT, "before hm_kpm_run");
  double mu[8], mu_vec[8 * 4 * NS];
  HM_TEST_OK(hm_kpm_moments(kpm, mu, mu_vec));
  hm_dos_options dopt;
  hm_dos_options_default(&dopt);
  double E[16], rho[16 * NS];
  HM_TEST_OK(hm_ldos_compute(8, NS, 4, mu_vec, 0.2, 0, &dopt, E, rho));
  HM_TEST_FAILS(hm_ldos_compute(8, 0, 4, mu_vec, 0.2, 0, &dopt, E, rho), HM_ERR_ARGUMENT, "sites = 0");
  HM_TEST_FAILS(hm_ldos_compute(8, NS, 4, mu_vec, 0.2, 0, &dopt, NULL, rho), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_ldos_compute(8, NS, 4, mu_vec, 0.2, 0, NULL, E, rho), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_ldos_compute(8, NS, 4, mu_vec, -1, 0, &dopt, E, rho), HM_ERR_ARGUMENT, "scale");
  mu_vec[6 * 8] = 2;
  HM_TEST_FAILS(hm_ldos_compute(8, NS, 4, mu_vec, 0.2, 0, &dopt, E, rho), HM_ERR_ARGUMENT, "site 1, orbital 2");
  HM_TEST_FAILS(hm_ldos_points(8, NULL, NULL), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_ldos_points(1, &dopt, (int[1]){0}), HM_ERR_ARGUMENT, "moments = 1");
  free(e);
  hm_mvec_destroy(&holed);
  hm_mvec_destroy(&B);
  hm_mvec_destroy(&narrow);
  hm_mvec_destroy(&real);
  hm_kpm_destroy(&kpm);
}

/* set_start with the very block hm_kpm_create starts from reproduces the default moments. */
static void check_random_start(hm_context *ctx, hm_matrix *H) {
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = 32;
  opt.vectors = 3;
  opt.seed = 77;
  hm_kpm *a, *b;
  hm_mvec *V;
  const hm_dist *dist;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  HM_TEST_OK(hm_kpm_create(H, &opt, &a));
  HM_TEST_OK(hm_kpm_create(H, &opt, &b));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 3, &V));
  HM_TEST_OK(hm_mvec_random_phase(V, opt.seed));
  HM_TEST_OK(hm_kpm_set_start(b, V));
  HM_TEST_OK(hm_kpm_run(a));
  HM_TEST_OK(hm_kpm_run(b));
  double mua[32], mub[32], va[96], vb[96], worst = 0;
  HM_TEST_OK(hm_kpm_moments(a, mua, va));
  HM_TEST_OK(hm_kpm_moments(b, mub, vb));
  for (int i = 0; i < 96; i++) worst = fmax(worst, fabs(va[i] - vb[i]));
  HM_TEST_ASSERT(worst < 1e-13, "random-phase block through set_start: moments differ by %g", worst);
  hm_mvec_destroy(&V);
  hm_kpm_destroy(&a);
  hm_kpm_destroy(&b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_ti_params p;
  hm_matrix *H;
  /* Disorder 0.5 breaks the lattice symmetries, so sites and orbitals differ. */
  HM_TEST_OK(hm_test_ti_slab(ctx, 4, 4, 6, 0.5, &p, &H));
  const int64_t sites[NS][3] = {{1, 2, 0}, {2, 1, 3}}; /* surface, centre (on the second rank for 2) */

  double *mu_vec = malloc(sizeof(double) * 4 * NS * M), scale, shift;
  HM_TEST_OK(ldos_test_moments(ctx, H, &p, NS, sites, M, mu_vec, &scale, &shift));

  double complex *dense, *vec;
  int64_t n;
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  double *w = malloc(sizeof(double) * n), *exact = calloc((size_t)4 * NS * M, sizeof(double));
  vec = malloc(sizeof(double complex) * n * n);
  HM_TEST_ASSERT(hm_test_eigh(n, dense, w, vec) == 0, "zheevd failed");
  for (int s = 0; s < NS; s++)
    for (int o = 0; o < 4; o++) {
      const int64_t row = ldos_test_row(&p, sites[s], o);
      double *m = exact + (size_t)(4 * s + o) * M;
      for (int64_t k = 0; k < n; k++) {
        const double weight = creal(vec[row + n * k] * conj(vec[row + n * k])), x = scale * (w[k] - shift);
        double t0 = 1, t1 = x;
        m[0] += weight;
        m[1] += weight * x;
        for (int q = 2; q < M; q++) {
          double t2 = 2 * x * t1 - t0;
          m[q] += weight * t2;
          t0 = t1;
          t1 = t2;
        }
      }
    }
  double worst = 0;
  for (int i = 0; i < 4 * NS * M; i++) worst = fmax(worst, fabs(mu_vec[i] - exact[i]));
  HM_TEST_ASSERT(worst < 1e-10, "KPM LDOS moments off the exact ones by %g", worst);
  /* orbitals 0 and 2 (tau_z = +1, -1) differ, so a swapped orbital would be seen (0 and 1 are
   * Kramers partners with equal moments) */
  double spread = 0;
  for (int q = 1; q < M; q++) spread = fmax(spread, fabs(exact[q] - exact[2 * M + q]));
  HM_TEST_ASSERT(spread > 1e-3, "orbitals 0 and 2 of site 0 have equal moments (%g): weak test", spread);

  for (int kernel = 0; kernel < 2; kernel++) {
    check_reconstruction(exact, scale, shift, kernel, 0);
    check_reconstruction(exact, scale, shift, kernel, 301);
  }
  check_random_start(ctx, H);
  check_errors(ctx, H, &p, sites);

  free(mu_vec); free(exact); free(w); free(vec); free(dense);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
