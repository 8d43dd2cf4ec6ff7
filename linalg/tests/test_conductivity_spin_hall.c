/* The spin Hall conductivity of the Kane-Mele model (honeycomb, orbitals A up, A down, B up, B down;
 * t = 1, intrinsic spin-orbit lambda, sublattice mass m): the Kubo-Bastin tensor of the spin current
 * J^S_x = {S_z, v_x} / 2 (hm_current_blocks, S_z = +-1 on up / down) against v_y.
 *  (a) exact-trace moments of a small disordered, twisted lattice equal the dense eigenpair formula with
 *      J^S built densely from S_z and v_x (1e-10);
 *  (b) in the quantum spin Hall phase (lambda = 0.1, m = 0) |sigma^S_xy| = 2 e^2/h within 2% at mid-gap
 *      (spin-up and spin-down Chern numbers of opposite sign; H_SO = i lambda sum nu_ij c+_i s_z c_j with
 *      nu_ij = +1 for a left turn from j to i, Kane and Mele's form, and lambda > 0 give -2 in the sign
 *      convention of the DC tensor, whose spin-up sigma_xy is then -1), the charge sigma_xy vanishes
 *      (within the random vectors' error: four standard errors of the R single-vector estimates), and
 *      in the trivial phase (m = 1.5 > 3 sqrt(3) lambda) sigma^S_xy = 0. L = 24, M = 512: the Bastin
 *      series' truncation leaves about 1.2% (3% at M = 256); R = 6 random vectors keep the stochastic
 *      error near 0.01 (R = 2 gave up to 0.06 in sigma_xy, 0.06 in sigma^S_xy).
 * Arguments: L M R [cuda] of (b); R = 0 takes the exact trace. */
#include "conductivity_testlib.h"

enum { KM_BLOCKS = 7, KM_ORB = 4 };
static const int32_t km_shift[KM_BLOCKS * 3] = {0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, -1, 1, 0, 1, -1, 0};
static const double km_spin[KM_ORB] = {1, -1, 1, -1};

static void set(double *blk, int b, int i, int j, double complex v) {
  blk[2 * ((b * KM_ORB + i) * KM_ORB + j)] += creal(v);
  blk[2 * ((b * KM_ORB + i) * KM_ORB + j) + 1] += cimag(v);
}

/* H = -t sum_<ij> + i lambda sum_<<ij>> nu_ij s_z + m (A: +, B: -); blocks [b][i][j] couple orbital i
 * of cell c to orbital j of cell c + shift_b. */
static void kane_mele_blocks(double lambda, double m, double *blk) {
  memset(blk, 0, sizeof(double) * 2 * KM_BLOCKS * KM_ORB * KM_ORB);
  for (int s = 0; s < 2; s++) {
    const int A = s, B = 2 + s;
    const double sz = km_spin[s];
    set(blk, 0, A, A, m);
    set(blk, 0, B, B, -m);
    set(blk, 0, A, B, -1); /* nearest neighbours: B(c), B(c - a1), B(c - a2) of A(c) */
    set(blk, 0, B, A, -1);
    set(blk, 1, B, A, -1), set(blk, 2, A, B, -1);
    set(blk, 3, B, A, -1), set(blk, 4, A, B, -1);
    /* next-nearest along d1 = a1 (block 1), d2 = a2 - a1 (block 5), d3 = -a2 (block 4); nu = +1 on A, -1 on B */
    const int fwd[3] = {1, 5, 4}, back[3] = {2, 6, 3};
    for (int k = 0; k < 3; k++)
      for (int x = 0; x < 2; x++) {
        const int o = x ? B : A;
        const double nu = x ? -1 : 1;
        set(blk, fwd[k], o, o, I * lambda * nu * sz);
        set(blk, back[k], o, o, -I * lambda * nu * sz);
      }
  }
}

static const double km_lattice[9] = {1, 0, 0, 0.5, 0.86602540378443865, 0, 0, 0, 1};
static const double km_tau[12] = {0, 0, 0, 0, 0, 0, 0.5, 0.28867513459481287, 0, 0.5, 0.28867513459481287, 0};

/* sigma^S_xy (and the charge sigma_xy) at E = 0 of an L x L periodic lattice from R random vectors,
 * with their standard errors from the spread of the R single-vector estimates (0 for R = 0). */
static void plateau(hm_context *ctx, int L, int M, int R, double lambda, double m, double sigma[2], double error[2]) {
  double blk[KM_BLOCKS * KM_ORB * KM_ORB * 2], vx[sizeof blk / sizeof(double)], vy[sizeof blk / sizeof(double)];
  double jx[sizeof blk / sizeof(double)];
  kane_mele_blocks(lambda, m, blk);
  HM_TEST_OK(hm_velocity_blocks(KM_ORB, KM_BLOCKS, km_shift, blk, km_lattice, km_tau, 0, vx));
  HM_TEST_OK(hm_velocity_blocks(KM_ORB, KM_BLOCKS, km_shift, blk, km_lattice, km_tau, 1, vy));
  HM_TEST_OK(hm_current_blocks(KM_ORB, KM_BLOCKS, vx, km_spin, jx));
  hm_matrix *H, *Vx, *Vy, *Jx;
  HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, KM_ORB, KM_BLOCKS, km_shift, blk, &H));
  HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, KM_ORB, KM_BLOCKS, km_shift, vx, &Vx));
  HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, KM_ORB, KM_BLOCKS, km_shift, vy, &Vy));
  HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, KM_ORB, KM_BLOCKS, km_shift, jx, &Jx));
  hm_matrix *left[2] = {Jx, Vx}, *right[2] = {Vy, Vy};
  hm_conductivity_options opt;
  hm_conductivity_options_default(&opt);
  opt.moments = M;
  opt.vectors = R > 0 ? R : 1;
  opt.trace = R > 0 ? HM_TRACE_RANDOM : HM_TRACE_EXACT; /* R = 0: every unit vector, no stochastic error */
  if (R > 0) opt.seed = hm_test_seed();
  opt.bounds = HM_BOUNDS_GERSHGORIN;
  hm_conductivity *c;
  HM_TEST_OK(hm_conductivity_create(H, 2, left, right, &opt, &c));
  HM_TEST_OK(hm_conductivity_run(c));
  const size_t per = (size_t)2 * 2 * M * M;
  double s, b, *mu = malloc(sizeof(double) * per * (size_t)(R > 0 ? R + 1 : 1));
  HM_TEST_OK(hm_conductivity_info(c, NULL, NULL, NULL, NULL, NULL, &s, &b, NULL));
  HM_TEST_OK(hm_conductivity_moments(c, mu, R > 0 ? mu + per : NULL));
  const double zero = 0, density = KM_ORB / (sqrt(3) / 2);
  HM_TEST_OK(hm_conductivity_sigma(M, 2, mu, s, b, HM_KERNEL_JACKSON, 0, density, 1, &zero, 1, &zero, sigma));
  double square[2] = {0, 0};
  for (int r = 0; r < R; r++) { /* sigma is linear in mu: the mean of the single-vector sigmas is sigma */
    double one[2];
    HM_TEST_OK(hm_conductivity_sigma(M, 2, mu + per * (size_t)(r + 1), s, b, HM_KERNEL_JACKSON, 0, density, 1, &zero, 1,
                                     &zero, one));
    for (int k = 0; k < 2; k++) square[k] += (one[k] - sigma[k]) * (one[k] - sigma[k]);
  }
  for (int k = 0; k < 2; k++) error[k] = R > 1 ? sqrt(square[k] / (R - 1) / R) : 0;
  hm_conductivity_destroy(&c);
  hm_matrix_destroy(&H), hm_matrix_destroy(&Vx), hm_matrix_destroy(&Vy), hm_matrix_destroy(&Jx);
  free(mu);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int L = argc > 1 ? atoi(argv[1]) : 24, M = argc > 2 ? atoi(argv[2]) : 512, R = argc > 3 ? atoi(argv[3]) : 6;
  const int cuda = argc > 4 && !strcmp(argv[4], "cuda");
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));

  /* (a) 3 x 2 cells, twisted along x, fixed on-site disorder, Rashba-free but with a mass */
  enum { MA = 16 };
  const int64_t cells[3] = {3, 2, 1}, n = 24;
  const int bc[3] = {HM_BC_TWISTED, HM_BC_PERIODIC, HM_BC_OPEN};
  const double twist[3] = {0.41, 0, 0};
  double blk[KM_BLOCKS * KM_ORB * KM_ORB * 2], vx[sizeof blk / sizeof(double)], vy[sizeof blk / sizeof(double)];
  double jx[sizeof blk / sizeof(double)];
  kane_mele_blocks(0.2, 0.15, blk);
  HM_TEST_OK(hm_velocity_blocks(KM_ORB, KM_BLOCKS, km_shift, blk, km_lattice, km_tau, 0, vx));
  HM_TEST_OK(hm_velocity_blocks(KM_ORB, KM_BLOCKS, km_shift, blk, km_lattice, km_tau, 1, vy));
  HM_TEST_OK(hm_current_blocks(KM_ORB, KM_BLOCKS, vx, km_spin, jx));
  double complex *Hd = malloc(sizeof(double complex) * n * n), *Vxd = malloc(sizeof(double complex) * n * n);
  double complex *Vyd = malloc(sizeof(double complex) * n * n), *Jd = malloc(sizeof(double complex) * n * n);
  stencil_dense(cells, KM_ORB, KM_BLOCKS, km_shift, blk, bc, twist, Hd);
  for (int i = 0; i < n; i++) Hd[i * n + i] += 0.7 * sin(5.3 * i); /* fixed "disorder" */
  stencil_dense(cells, KM_ORB, KM_BLOCKS, km_shift, vx, bc, twist, Vxd);
  stencil_dense(cells, KM_ORB, KM_BLOCKS, km_shift, vy, bc, twist, Vyd);
  for (int64_t i = 0; i < n; i++) /* J = (S v + v S) / 2, S = diag(+-1) (column-major) */
    for (int64_t j = 0; j < n; j++) Jd[j * n + i] = 0.5 * (km_spin[i % KM_ORB] + km_spin[j % KM_ORB]) * Vxd[j * n + i];
  hm_matrix *H, *J, *V;
  HM_TEST_OK(matrix_from_dense(ctx, n, KM_ORB, Hd, &H));
  hm_matrix *Jm;
  /* the current from the blocks (hm_current_blocks), as a stencil would be assembled: densely here */
  double complex *Jb = malloc(sizeof(double complex) * n * n);
  stencil_dense(cells, KM_ORB, KM_BLOCKS, km_shift, jx, bc, twist, Jb);
  double worst = 0;
  for (int64_t i = 0; i < n * n; i++) worst = fmax(worst, cabs(Jb[i] - Jd[i]));
  HM_TEST_ASSERT(worst < 1e-14, "current blocks differ from {S, v} / 2 by %g", worst);
  HM_TEST_OK(matrix_from_dense(ctx, n, KM_ORB, Jb, &Jm));
  HM_TEST_OK(matrix_from_dense(ctx, n, KM_ORB, Vyd, &V));
  J = Jm;
  hm_conductivity_options opt;
  hm_conductivity_options_default(&opt);
  opt.moments = MA;
  opt.trace = HM_TRACE_EXACT;
  hm_conductivity *c;
  HM_TEST_OK(hm_conductivity_create(H, 1, &J, &V, &opt, &c));
  HM_TEST_OK(hm_conductivity_run(c));
  double s, b, mu[2 * MA * MA];
  double complex ref[MA * MA];
  HM_TEST_OK(hm_conductivity_info(c, NULL, NULL, NULL, NULL, NULL, &s, &b, NULL));
  HM_TEST_OK(hm_conductivity_moments(c, mu, NULL));
  exact_moments(n, Hd, Jd, Vyd, s, b, MA, ref);
  double largest = 0;
  worst = 0;
  for (int i = 0; i < MA * MA; i++) {
    worst = fmax(worst, cabs(mu[2 * i] + I * mu[2 * i + 1] - ref[i]));
    largest = fmax(largest, cabs(ref[i]));
  }
  printf("(a) spin-current moments: largest %.4g, off the dense formula by %.3g\n", largest, worst);
  HM_TEST_ASSERT(worst < 1e-10 * fmax(1, largest) && largest > 0.01, "spin-current moments off by %g (largest %g)", worst,
                 largest);
  hm_conductivity_destroy(&c);
  hm_matrix_destroy(&H), hm_matrix_destroy(&J), hm_matrix_destroy(&V);
  free(Hd), free(Vxd), free(Vyd), free(Jd), free(Jb);
  const double bad_weight[4] = {1, NAN, 1, -1};
  HM_TEST_FAILS(hm_current_blocks(KM_ORB, KM_BLOCKS, vx, bad_weight, jx), HM_ERR_ARGUMENT, "must be finite");

  /* (b) the plateau: within the series' truncation (0.025) plus four standard errors of the R vectors */
  double sigma[2], error[2];
  plateau(ctx, L, M, R, 0.1, 0, sigma, error);
  printf("(b) quantum spin Hall phase, L = %d, M = %d, R = %d: sigma^S_xy = %.5f +- %.5f, sigma_xy = %.5f +- %.5f e^2/h\n",
         L, M, R, sigma[0], error[0], sigma[1], error[1]);
  HM_TEST_ASSERT(fabs(sigma[0] + 2) < 0.025 + 4 * error[0] && fabs(sigma[1]) < 0.025 + 4 * error[1],
                 "QSH phase: sigma^S_xy = %g +- %g (want -2), sigma_xy = %g +- %g (want 0)", sigma[0], error[0], sigma[1],
                 error[1]);
  HM_TEST_ASSERT(error[0] < 0.05 && error[1] < 0.1, "QSH phase: standard errors %g, %g too large to test anything",
                 error[0], error[1]);
  plateau(ctx, L, M, R, 0.1, 1.5, sigma, error);
  printf("(b) trivial phase: sigma^S_xy = %.5f +- %.5f, sigma_xy = %.5f +- %.5f e^2/h\n", sigma[0], error[0], sigma[1],
         error[1]);
  HM_TEST_ASSERT(fabs(sigma[0]) < 0.025 + 4 * error[0] && fabs(sigma[1]) < 0.025 + 4 * error[1],
                 "trivial phase: sigma^S_xy = %g +- %g, sigma_xy = %g +- %g (want 0)", sigma[0], error[0], sigma[1], error[1]);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
