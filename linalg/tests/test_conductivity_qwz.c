/* sigma_xy of the Qi-Wu-Zhang Chern insulator H(k) = sin kx sx + sin ky sy + (u + cos kx + cos ky) sz
 * on a periodic L x L lattice: +-1 e^2/h (Chern number, opposite signs for u = 1 and u = -1) inside
 * the gap and 0 for the trivial u = 3, within 2%, at chemical potentials 0 and +-0.25 and T = 0.
 * Arguments: L, M, R, backend, tolerance (defaults 32, 256, 2, cpu, 0.05: about a minute here, where
 * the stochastic trace's error is about 3%; the 64 x 64, M = 512 case at 2% is the GPU variant,
 * test_conductivity_qwz_cuda). */
#include "conductivity_testlib.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int L = argc > 1 ? atoi(argv[1]) : 32, M = argc > 2 ? atoi(argv[2]) : 256, R = argc > 3 ? atoi(argv[3]) : 2;
  const int cuda = argc > 4 && !strcmp(argv[4], "cuda");
  const double tol = argc > 5 ? atof(argv[5]) : 0.05;
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  const double us[3] = {1, -1, 3}, lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, tau[6] = {0};
  const double mus[3] = {-0.25, 0, 0.25}, T0 = 0;
  double sxy[3][3];
  for (int k = 0; k < 3; k++) {
    double blk[QWZ_BLOCKS * 8], vx[QWZ_BLOCKS * 8], vy[QWZ_BLOCKS * 8];
    qwz_blocks(us[k], 0, blk);
    HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 0, vx));
    HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 1, vy));
    hm_matrix *H, *Vx, *Vy;
    HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, 2, QWZ_BLOCKS, qwz_shift, blk, &H));
    HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, 2, QWZ_BLOCKS, qwz_shift, vx, &Vx));
    HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, 2, QWZ_BLOCKS, qwz_shift, vy, &Vy));
    hm_conductivity_options opt;
    hm_conductivity_options_default(&opt);
    opt.moments = M;
    opt.vectors = R;
    opt.seed = 7;
    opt.bounds = HM_BOUNDS_GIVEN; /* |E| <= |d(k)| <= |u| + 2 */
    opt.emax = fabs(us[k]) + 2.1;
    opt.emin = -opt.emax;
    hm_conductivity *c;
    hm_matrix *left[1] = {Vx}, *right[1] = {Vy};
    HM_TEST_OK(hm_conductivity_create(H, 1, left, right, &opt, &c));
    double t0 = MPI_Wtime();
    HM_TEST_OK(hm_conductivity_run(c));
    double s, b, *mu = malloc(sizeof(double) * 2 * M * M);
    HM_TEST_OK(hm_conductivity_info(c, NULL, NULL, NULL, NULL, NULL, &s, &b, NULL));
    HM_TEST_OK(hm_conductivity_moments(c, mu, NULL));
    HM_TEST_OK(hm_conductivity_sigma(M, 1, mu, s, b, HM_KERNEL_JACKSON, 0, 2.0, 3, mus, 1, &T0, sxy[k]));
    printf("u = %g: sigma_xy(mu = -0.25, 0, 0.25) = %.5f %.5f %.5f e^2/h (%.1f s)\n", us[k], sxy[k][0], sxy[k][1],
           sxy[k][2], MPI_Wtime() - t0);
    free(mu);
    hm_conductivity_destroy(&c);
    hm_matrix_destroy(&H);
    hm_matrix_destroy(&Vx);
    hm_matrix_destroy(&Vy);
  }
  for (int e = 0; e < 3; e++) {
    HM_TEST_ASSERT(fabs(fabs(sxy[0][e]) - 1) < tol && fabs(fabs(sxy[1][e]) - 1) < tol,
                   "mu = %g: sigma_xy = %g (u = 1), %g (u = -1): want +-1 within %g", mus[e], sxy[0][e], sxy[1][e], tol);
    HM_TEST_ASSERT(sxy[0][e] * sxy[1][e] < 0, "mu = %g: sigma_xy of u = 1 and u = -1 (%g, %g) must differ in sign",
                   mus[e], sxy[0][e], sxy[1][e]);
    HM_TEST_ASSERT(fabs(sxy[2][e]) < tol, "mu = %g: sigma_xy of the trivial u = 3 is %g, want 0 within %g", mus[e],
                   sxy[2][e], tol);
  }
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
