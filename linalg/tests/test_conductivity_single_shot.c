/* Single-shot sigma_xx(E) (hm_conductivity_single_shot) on a 6 x 5 Qi-Wu-Zhang lattice (with an
 * intra-cell hop, periodic), M = 48, at 7 Fermi energies:
 *  (a) exact trace: equal to the Greenwood sum 2 pi^2 density sum_nm c_n(E) c_m(E) mu_nm over the
 *      exact-trace moments of hm_conductivity (c_n the damped delta coefficients, written here) to 1e-10;
 *  (b) random trace with the same seed and vectors: equal to the same sum over hm_conductivity's
 *      random moments to 1e-10 (the same start vectors), with an error bar;
 *  (c) the Kubo-Bastin sigma_xx of hm_conductivity_sigma at T = 0 within 2% (its energy quadrature);
 *  (d) real arithmetic: a real model (H real, V = i A with A real) given as real H and A equals the
 *      complex run of the same model to 1e-10 (exact trace), and with 32 random +-1 vectors the exact
 *      trace within 6 of its error bars (largest deviation over the energies); the same H and A as
 *      matrix-free real stencils (A anti-Hermitian) give the CSR's exact sigma to 1e-10 (where the
 *      ranks have a slab each);
 *  (e) bad inputs. Arguments: backend (cpu | cuda) [LX LY] (default 6 5). Run on 1 and 3 ranks (there 4 x 2:
 *  an exact trace is N sequential starts of 2M products, each with a halo exchange). */
#include "conductivity_testlib.h"

enum { M = 48, NE = 7 };
static const double density = 2.0;

/* 2 pi^2 density sum_nm c_n c_m mu_nm, c_n = scale (2 - delta_n0) g_n T_n(x) / (pi sqrt(1 - x^2)) */
static double greenwood(const double complex *mu, double scale, double shift, double E) {
  double g[M], c[M];
  hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 0, M, g);
  const double x = scale * (E - shift), th = acos(x);
  for (int n = 0; n < M; n++) c[n] = scale * (n ? 2 : 1) * g[n] * cos(n * th) / (M_PI * sqrt(1 - x * x));
  double complex acc = 0;
  for (int n = 0; n < M; n++)
    for (int m = 0; m < M; m++) acc += c[n] * c[m] * mu[n * M + m];
  return 2 * M_PI * M_PI * density * creal(acc);
}

/* A real two-orbital square lattice: u sz + t sx on site, hops (sz + sx) / 2 along x and (sz - 0.6 sx) / 2
 * along y, each -R block the transpose: block[b][i][j] as complex pairs with zero imaginary parts. */
static void real_blocks(double u, double t, double *blk) {
  const double hop[2][2][2] = {{{0.5, 0.5}, {0.5, -0.5}}, {{0.5, -0.3}, {-0.3, -0.5}}};
  memset(blk, 0, sizeof(double) * QWZ_BLOCKS * 8);
  const double onsite[2][2] = {{u, t}, {t, -u}};
  for (int b = 0; b < QWZ_BLOCKS; b++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) /* b = 1 + 2d: +e_d, 2 + 2d: -e_d (qwz_shift) */
        blk[2 * ((b * 2 + i) * 2 + j)] = b == 0 ? onsite[i][j] : hop[(b - 1) / 2][(b - 1) % 2 ? j : i][(b - 1) % 2 ? i : j];
}

/* (d): single shot of a real model in complex and in real arithmetic. */
static void real_arithmetic(hm_context *ctx, int64_t LX, int64_t LY, const double *energies, int rank) {
  double blk[QWZ_BLOCKS * 8], v[QWZ_BLOCKS * 8], a[QWZ_BLOCKS * 8];
  real_blocks(0.7, 0.4, blk);
  const double lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, tau[6] = {0, 0, 0, 0.3, 0.2, 0};
  HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 0, v));
  for (int i = 0; i < QWZ_BLOCKS * 4; i++) a[2 * i] = v[2 * i + 1], a[2 * i + 1] = -v[2 * i]; /* A = -i v */
  hm_matrix *Hc, *Vc, *Hr, *Ar;
  HM_TEST_OK(stencil_matrix_periodic(ctx, LX, LY, 2, QWZ_BLOCKS, qwz_shift, blk, &Hc));
  HM_TEST_OK(stencil_matrix_periodic(ctx, LX, LY, 2, QWZ_BLOCKS, qwz_shift, v, &Vc));
  HM_TEST_OK(stencil_matrix_periodic_typed(ctx, LX, LY, 2, QWZ_BLOCKS, qwz_shift, blk, HM_REAL, &Hr));
  HM_TEST_OK(stencil_matrix_periodic_typed(ctx, LX, LY, 2, QWZ_BLOCKS, qwz_shift, a, HM_REAL, &Ar));
  hm_conductivity_options opt;
  hm_conductivity_options_default(&opt);
  opt.moments = M;
  opt.trace = HM_TRACE_EXACT;
  opt.bounds = HM_BOUNDS_GERSHGORIN; /* the same interval in both arithmetics */
  double complex_[NE], real_[NE], random_[NE], error[NE], largest = 0, worst = 0, worst_random = 0;
  HM_TEST_OK(hm_conductivity_single_shot(Hc, Vc, &opt, HM_KERNEL_JACKSON, 0, density, NE, energies, complex_, NULL, NULL));
  HM_TEST_OK(hm_conductivity_single_shot(Hr, Ar, &opt, HM_KERNEL_JACKSON, 0, density, NE, energies, real_, NULL, NULL));
  opt.trace = HM_TRACE_RANDOM;
  opt.vectors = 32;
  opt.seed = hm_test_seed();
  HM_TEST_OK(hm_conductivity_single_shot(Hr, Ar, &opt, HM_KERNEL_JACKSON, 0, density, NE, energies, random_, error, NULL));
  for (int e = 0; e < NE; e++) largest = fmax(largest, fabs(complex_[e]));
  for (int e = 0; e < NE; e++) {
    worst = fmax(worst, fabs(real_[e] - complex_[e]) / largest);
    worst_random = fmax(worst_random, fabs(random_[e] - complex_[e]) / fmax(error[e], 1e-3 * largest));
    if (rank == 0)
      printf("real model E = %5.2f: complex %.10f, real %.10f, real random %.6f +- %.2g\n", energies[e], complex_[e],
             real_[e], random_[e], error[e]);
  }
  HM_TEST_ASSERT(largest > 0.05, "the real model's sigma_xx vanishes everywhere (%g): no test", largest);
  HM_TEST_ASSERT(worst < 1e-10, "real arithmetic off the complex run by %.2g of the largest sigma", worst);
  HM_TEST_ASSERT(worst_random < 6, "real random vectors off the exact trace by %.2g error bars", worst_random);
  int ranks;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks <= LY) { /* the matrix-free operator: whole y slabs per rank */
    hm_stencil st;
    HM_TEST_OK(hm_stencil_init(&st));
    st.cells[0] = LX, st.cells[1] = LY, st.orbitals = 2, st.nblocks = QWZ_BLOCKS, st.shift = qwz_shift;
    hm_matrix *Hs, *As;
    st.block = blk;
    HM_TEST_OK(hm_matrix_create_stencil(ctx, &st, HM_STENCIL_MATRIX_FREE_REAL, &Hs));
    st.block = a, st.antihermitian = 1;
    HM_TEST_OK(hm_matrix_create_stencil(ctx, &st, HM_STENCIL_MATRIX_FREE_REAL, &As));
    double stencil_[NE], worst_stencil = 0;
    opt.trace = HM_TRACE_EXACT;
    HM_TEST_OK(hm_conductivity_single_shot(Hs, As, &opt, HM_KERNEL_JACKSON, 0, density, NE, energies, stencil_, NULL,
                                           NULL));
    for (int e = 0; e < NE; e++) worst_stencil = fmax(worst_stencil, fabs(stencil_[e] - real_[e]) / largest);
    HM_TEST_ASSERT(worst_stencil < 1e-10, "matrix-free real stencils off the CSR by %.2g", worst_stencil);
    hm_matrix_destroy(&Hs);
    hm_matrix_destroy(&As);
  }
  double s[1];
  HM_TEST_FAILS(hm_conductivity_single_shot(Hr, Vc, &opt, HM_KERNEL_JACKSON, 0, density, 1, energies, s, NULL, NULL),
                HM_ERR_ARGUMENT, "both complex, or both real");
  hm_matrix_destroy(&Hc);
  hm_matrix_destroy(&Vc);
  hm_matrix_destroy(&Hr);
  hm_matrix_destroy(&Ar);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && !strcmp(argv[1], "cuda");
  const int64_t LX = argc > 3 ? atoi(argv[2]) : 6, LY = argc > 3 ? atoi(argv[3]) : 5;
  if (cuda) HM_TEST_NEED_GPU();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  double blk[QWZ_BLOCKS * 8], vx[QWZ_BLOCKS * 8];
  qwz_blocks(-1.2, 0.3, blk);
  const double lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, tau[6] = {0, 0, 0, 0.3, 0.2, 0};
  HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 0, vx));
  hm_matrix *H, *V;
  HM_TEST_OK(stencil_matrix_periodic(ctx, LX, LY, 2, QWZ_BLOCKS, qwz_shift, blk, &H));
  HM_TEST_OK(stencil_matrix_periodic(ctx, LX, LY, 2, QWZ_BLOCKS, qwz_shift, vx, &V));
  double energies[NE];
  for (int e = 0; e < NE; e++) energies[e] = -2.4 + 0.8 * e;
  for (int random = 0; random <= 1; random++) {
    hm_conductivity_options opt;
    hm_conductivity_options_default(&opt);
    opt.moments = M;
    opt.trace = random ? HM_TRACE_RANDOM : HM_TRACE_EXACT;
    opt.vectors = 3;
    opt.seed = hm_test_seed();
    opt.bounds = HM_BOUNDS_GERSHGORIN;
    hm_conductivity *c;
    HM_TEST_OK(hm_conductivity_create(H, 1, &V, &V, &opt, &c));
    HM_TEST_OK(hm_conductivity_run(c));
    double complex *mu = malloc(sizeof(double complex) * M * M);
    double scale, shift, sigma[NE], error[NE], bastin[NE], bounds[2];
    HM_TEST_OK(hm_conductivity_moments(c, (double *)mu, NULL));
    HM_TEST_OK(hm_conductivity_info(c, NULL, NULL, NULL, NULL, NULL, &scale, &shift, NULL));
    HM_TEST_OK(hm_conductivity_single_shot(H, V, &opt, HM_KERNEL_JACKSON, 0, density, NE, energies, sigma, error, bounds));
    HM_TEST_ASSERT(fabs(2 / (bounds[1] - bounds[0]) - scale) < 1e-14 * scale, "single shot's interval differs");
    const double zero = 0;
    HM_TEST_OK(hm_conductivity_sigma(M, 1, (double *)mu, scale, shift, HM_KERNEL_JACKSON, 0, density, NE, energies, 1,
                                     &zero, bastin));
    double worst = 0, worst_bastin = 0, largest = 0;
    for (int e = 0; e < NE; e++) largest = fmax(largest, fabs(greenwood(mu, scale, shift, energies[e])));
    for (int e = 0; e < NE; e++) {
      const double ref = greenwood(mu, scale, shift, energies[e]);
      worst = fmax(worst, fabs(sigma[e] - ref) / largest);
      worst_bastin = fmax(worst_bastin, fabs(sigma[e] - bastin[e]) / largest);
      if (rank == 0)
        printf("%s E = %5.2f: single shot %.10f +- %.2g, Greenwood over moments %.10f, Bastin %.6f\n",
                  random ? "random" : "exact ", energies[e], sigma[e], error[e], ref, bastin[e]);
    }
    HM_TEST_ASSERT(largest > 0.05, "sigma_xx vanishes everywhere (%g): no test", largest);
    HM_TEST_ASSERT(worst < 1e-10, "%s trace: single shot off the moments' Greenwood sum by %.2g", random ? "random" : "exact",
                   worst);
    HM_TEST_ASSERT(worst_bastin < 0.02, "single shot off the Kubo-Bastin sigma_xx by %.2g of its largest", worst_bastin);
    if (random) {
      int any = 0;
      for (int e = 0; e < NE; e++) any |= error[e] > 0;
      HM_TEST_ASSERT(any, "three random vectors give no error bar");
    }
    free(mu);
    hm_conductivity_destroy(&c);
  }
  real_arithmetic(ctx, LX, LY, energies, rank);
  /* bad inputs */
  hm_conductivity_options opt;
  hm_conductivity_options_default(&opt);
  opt.moments = M;
  double s[1];
  HM_TEST_FAILS(hm_conductivity_single_shot(H, V, &opt, HM_KERNEL_JACKSON, 0, density, 0, energies, s, NULL, NULL),
                HM_ERR_ARGUMENT, "nenergy >= 1");
  opt.moments = 1;
  HM_TEST_FAILS(hm_conductivity_single_shot(H, V, &opt, HM_KERNEL_JACKSON, 0, density, 1, energies, s, NULL, NULL),
                HM_ERR_ARGUMENT, "moments = 1 (>= 2)");
  hm_matrix_destroy(&H);
  hm_matrix_destroy(&V);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
