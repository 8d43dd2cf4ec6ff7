/* KPM LDOS with the Lorentz kernel against the Green's-function LDOS -Im sum_o G_(io,io)(E + i eta)/pi
 * solved with IDR(s) (batched: the 4 orbitals of both sites per energy) on a 4x4x6 TI lattice open
 * in z, at the matching eta = lambda / (M scale).
 * Why they agree only to a tolerance: the Lorentz kernel g_n = sinh(lambda (1 - n/M)) / sinh(lambda)
 * broadens each level by a Poisson kernel in theta = acos(x) of width lambda/M, i.e. a Lorentzian in
 * E of width eta sqrt(1 - x^2) (narrower away from the band centre x = 0), with further relative
 * corrections O((lambda/M)^2) near the peak, a different far tail, and O(exp(-2 lambda)) from the
 * sinh. Inside |E| <= 1.5 (|x| <= 0.3: the width is within 5% of eta) the two LDOS agree to 10% of
 * the local value plus 1% of the largest value in the window; the Green's-function LDOS itself
 * agrees with the exact Lorentzian sum over the eigenpairs (LAPACK) to 1e-6. */
#include <math.h>
#include <stdlib.h>
#include "kpm_ldos_testlib.h"

enum { M = 256, NS = 2, NE = 13 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_ti_params p;
  hm_matrix *H;
  HM_TEST_OK(hm_test_ti_slab(ctx, 4, 4, 6, 0.5, &p, &H));
  const int64_t sites[NS][3] = {{1, 2, 0}, {2, 1, 3}};
  const double lambda = 4, emin = -1.5, emax = 1.5;

  double *mu_vec = malloc(sizeof(double) * 4 * NS * M), scale, shift;
  HM_TEST_OK(ldos_test_moments(ctx, H, &p, NS, sites, M, mu_vec, &scale, &shift));
  hm_dos_options dopt;
  hm_dos_options_default(&dopt);
  dopt.kernel = HM_KERNEL_LORENTZ;
  dopt.lorentz_lambda = lambda;
  dopt.points = NE;
  dopt.emin = emin;
  dopt.emax = emax;
  double E[NE], kpm[NE * NS];
  HM_TEST_OK(hm_ldos_compute(M, NS, 4, mu_vec, scale, shift, &dopt, E, kpm));
  const double eta = lambda / (M * scale);

  /* The Green's functions: one batch of 4 NS systems (z - H) x = e_(site, orbital) per energy. */
  hm_mvec *B, *X;
  const hm_dist *dist;
  int64_t local;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  HM_TEST_OK(hm_dist_range(dist, NULL, &local, NULL));
  HM_TEST_OK(ldos_test_start(ctx, H, &p, NS, sites, &B));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 4 * NS, &X));
  double complex *zeros = calloc((size_t)(local * 4 * NS) + 1, sizeof(double complex)), G[4 * NS];
  double green[NE * NS] = {0};
  for (int e = 0; e < NE; e++) {
    double complex z = CMPLX(E[e], eta);
    hm_operator *A;
    hm_idr *idr;
    hm_idr_options opt;
    hm_idr_options_default(&opt);
    opt.tol = 1e-10;
    HM_TEST_OK(hm_operator_create_shifted(H, 1, &z, &A));
    HM_TEST_OK(hm_idr_create(A, &opt, &idr));
    HM_TEST_OK(hm_mvec_set(X, zeros));
    HM_TEST_OK(hm_idr_solve(idr, B, X));
    HM_TEST_OK(hm_mvec_dot(B, X, G));
    for (int j = 0; j < 4 * NS; j++) green[e * NS + j / 4] -= cimag(G[j]) / M_PI;
    hm_idr_destroy(&idr);
    hm_operator_destroy(&A);
  }

  /* The exact Lorentzian LDOS from the eigenpairs. */
  double complex *dense, *vec;
  int64_t n;
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  double *w = malloc(sizeof(double) * n);
  vec = malloc(sizeof(double complex) * n * n);
  HM_TEST_ASSERT(hm_test_eigh(n, dense, w, vec) == 0, "zheevd failed");
  double worst_green = 0, worst_kpm = 0, peak = 0;
  for (int e = 0; e < NE; e++)
    for (int s = 0; s < NS; s++) {
      double exact = 0;
      for (int o = 0; o < 4; o++) {
        const int64_t row = ldos_test_row(&p, sites[s], o);
        for (int64_t k = 0; k < n; k++)
          exact += creal(vec[row + n * k] * conj(vec[row + n * k])) * eta / M_PI /
                   ((E[e] - w[k]) * (E[e] - w[k]) + eta * eta);
      }
      worst_green = fmax(worst_green, fabs(green[e * NS + s] - exact) / exact);
      peak = fmax(peak, green[e * NS + s]);
    }
  HM_TEST_ASSERT(worst_green < 1e-6, "IDR LDOS off the exact Lorentzian sum by %g (relative)", worst_green);
  int bad = 0;
  for (int e = 0; e < NE; e++)
    for (int s = 0; s < NS; s++) {
      const double d = fabs(kpm[e * NS + s] - green[e * NS + s]), tol = 0.10 * green[e * NS + s] + 0.01 * peak;
      worst_kpm = fmax(worst_kpm, d / green[e * NS + s]);
      if (d > tol) {
        bad++;
        fprintf(stderr, "E = %g site %d: KPM (Lorentz) %g, IDR %g\n", E[e], s, kpm[e * NS + s], green[e * NS + s]);
      }
    }
  HM_TEST_ASSERT(bad == 0, "%d of %d LDOS values beyond 10%% + 1%% of the peak (eta = %g)", bad, NE * NS, eta);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("eta = %g: KPM (Lorentz) vs IDR LDOS at most %.3g relative; IDR vs exact %.2g\n", eta, worst_kpm,
           worst_green);

  free(mu_vec); free(zeros); free(w); free(vec); free(dense);
  hm_mvec_destroy(&B);
  hm_mvec_destroy(&X);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
