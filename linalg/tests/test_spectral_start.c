/* Plane-wave start vectors of A(k, E) (the public include/hamlet/spectral.h) on fresh random k (the seed
 * is printed; HAMLET_TEST_SEED replays it), moved to the allowed grid of a periodic 5 x 4 x 3 TI:
 * the KPM moments summed over orbitals equal sum_b T_n(E_b~) of the analytic Bloch bands
 * +-sqrt((m - t sum cos k)^2 + t^2 sum sin^2 k) (each twice) to 1e-12, and do not change when the
 * orbital positions change (tau_o only adds a constant phase per column). With "cuda": the same
 * checks on the device, and the device's moments equal the CPU's to 1e-12 for bulk and layer
 * columns of an open-z slab. A from hm_spectral_reconstruct on the 2M Chebyshev nodes integrates
 * to the 4 orbitals (Gauss-Chebyshev quadrature, exact for these degrees) with either kernel. The
 * nearest allowed point (periodic, twisted, open) and bad inputs. Any rank count. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hamlet.h"
#include "testing.h"

enum { M = 40, K = 5 };
static const double t_hop = 1.0, mass = 2.0;
static const int64_t supercell[3] = {5, 4, 3};
static const double cubic[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* Moments summed over orbitals of K points (k cartesian, layer per point) on backend ctx. */
static void moments_of(hm_context *ctx, int open_z, const double *positions, const double *k, const int *layer,
                       double *mu, double *scale, double *shift) {
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = 5, p.ny = 4, p.nz = 3, p.t = t_hop, p.m = mass;
  if (open_z) p.boundary[2] = HM_BC_OPEN;
  hm_matrix *H;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = M;
  opt.vectors = 4 * K;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = -6.5, opt.emax = 6.1; /* |E| <= m + 3t = 5; off-centre: shift != 0 */
  hm_kpm *kpm;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  const hm_dist *dist;
  hm_mvec *V;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 4 * K, &V));
  HM_TEST_OK(hm_spectral_start_fill(V, supercell, 4, cubic, positions, K, k, layer));
  HM_TEST_OK(hm_kpm_set_start(kpm, V));
  HM_TEST_OK(hm_kpm_run(kpm));
  double mean[M], *per = malloc(sizeof(double) * M * 4 * K);
  HM_TEST_OK(hm_kpm_moments(kpm, mean, per));
  HM_TEST_OK(hm_kpm_info(kpm, NULL, NULL, NULL, scale, shift, NULL));
  for (int j = 0; j < K; j++)
    for (int n = 0; n < M; n++) {
      mu[j * M + n] = 0;
      for (int o = 0; o < 4; o++) mu[j * M + n] += per[(4 * j + o) * M + n];
    }
  free(per);
  hm_mvec_destroy(&V);
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
}

static double bloch_worst(const double *mu, const double *k, double scale, double shift) {
  double worst = 0;
  for (int j = 0; j < K; j++) {
    const double *q = k + 3 * j;
    const double c = mass - t_hop * (cos(q[0]) + cos(q[1]) + cos(q[2]));
    const double s2 = sin(q[0]) * sin(q[0]) + sin(q[1]) * sin(q[1]) + sin(q[2]) * sin(q[2]);
    const double e = sqrt(c * c + t_hop * t_hop * s2), x[2] = {scale * (e - shift), scale * (-e - shift)};
    for (int n = 0; n < M; n++) {
      const double ref = 2 * cos(n * acos(x[0])) + 2 * cos(n * acos(x[1]));
      worst = fmax(worst, fabs(mu[j * M + n] - ref));
    }
  }
  return worst;
}

static double lcg(uint64_t *s) { /* uniform in [-1, 1) */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * 0x1.0p-52 - 1.0;
}

static void check_nearest(void) {
  const int64_t cells[3] = {5, 4, 7};
  const int bc[3] = {HM_BC_PERIODIC, HM_BC_TWISTED, HM_BC_OPEN};
  const double twist[3] = {0, 1.0, 0}, f[3] = {0.33, 0.3, 0.123}, want1 = (1 + 1.0 / (2 * M_PI)) / 4;
  double g[3];
  HM_TEST_OK(hm_spectral_nearest_allowed(cells, bc, twist, f, g));
  HM_TEST_ASSERT(fabs(g[0] - 0.4) < 1e-15 && fabs(g[1] - want1) < 1e-15 && g[2] == 0.123,
                 "nearest allowed of (0.33, 0.3, 0.123): (%.17g %.17g %.17g), want (0.4, %.17g, 0.123)", g[0], g[1],
                 g[2], want1);
  double recip[9];
  const double hex[9] = {1, 0, 0, 0.5, sqrt(3) / 2, 0, 0, 0, 2};
  HM_TEST_OK(hm_spectral_reciprocal(hex, recip));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const double *b = recip + 3 * i, *a = hex + 3 * j, d = b[0] * a[0] + b[1] * a[1] + b[2] * a[2];
      HM_TEST_ASSERT(fabs(d - (i == j ? 2 * M_PI : 0)) < 1e-13, "b_%d . a_%d = %.17g", i, j, d);
    }
  const double flat[9] = {1, 0, 0, 2, 0, 0, 0, 0, 1};
  HM_TEST_FAILS(hm_spectral_reciprocal(flat, recip), HM_ERR_ARGUMENT, "span no volume");
  HM_TEST_FAILS(hm_spectral_reciprocal(NULL, recip), HM_ERR_ARGUMENT, "lattice or recip is NULL");
  const int bad_bc[3] = {HM_BC_PERIODIC, 3, HM_BC_OPEN};
  HM_TEST_FAILS(hm_spectral_nearest_allowed(cells, bad_bc, twist, f, g), HM_ERR_ARGUMENT,
                "boundary[1] = 3: allowed are 0 (periodic), 1 (open), 2 (twisted)");
  const int64_t no_cells[3] = {5, 0, 7};
  HM_TEST_FAILS(hm_spectral_nearest_allowed(no_cells, bc, twist, f, g), HM_ERR_ARGUMENT, "cells[1] = 0: must be >= 1");
  HM_TEST_FAILS(hm_spectral_nearest_allowed(cells, bc, NULL, f, g), HM_ERR_ARGUMENT, "twist, frac or allowed is NULL");
}

/* int A dE = orbitals for every point: on the P = 2M nodes x_p, int f(x) dx = (pi / P) sum_p f(x_p)
 * sqrt(1 - x_p^2) exactly for the Chebyshev series of degree < M that A sqrt(1 - x^2) is. */
static void check_reconstruct(const double *mu, double scale, double shift) {
  for (int kernel = HM_KERNEL_JACKSON; kernel <= HM_KERNEL_LORENTZ; kernel++) {
    hm_dos_options opt;
    HM_TEST_OK(hm_dos_options_default(&opt));
    opt.kernel = (hm_kpm_kernel)kernel;
    int P;
    HM_TEST_OK(hm_ldos_points(M, &opt, &P));
    HM_TEST_ASSERT(P == 2 * M, "hm_ldos_points: %d energies, want the %d nodes", P, 2 * M);
    double energy[2 * M], A[K * 2 * M];
    HM_TEST_OK(hm_spectral_reconstruct(M, K, 4, mu, scale, shift, &opt, energy, A));
    for (int j = 0; j < K; j++) {
      double integral = 0;
      for (int p = 0; p < P; p++) {
        const double x = scale * (energy[p] - shift);
        integral += M_PI / (P * scale) * A[j * P + p] * sqrt(1 - x * x);
      }
      HM_TEST_ASSERT(fabs(integral - 4) < 1e-12, "kernel %d, point %d: int A dE = %.15g, want 4", kernel, j, integral);
    }
    HM_TEST_FAILS(hm_spectral_reconstruct(1, K, 4, mu, scale, shift, &opt, energy, A), HM_ERR_ARGUMENT,
                  "moments = 1, count = 5, orbitals = 4: need moments >= 2");
    HM_TEST_FAILS(hm_spectral_reconstruct(M, K, 4, NULL, scale, shift, &opt, energy, A), HM_ERR_ARGUMENT,
                  "mu, opt, energy or A is NULL");
  }
}

static void check_bad_inputs(hm_context *ctx) {
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = 5, p.ny = 4, p.nz = 3;
  hm_matrix *H;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  const hm_dist *dist;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  const double tau[12] = {0}, k[6] = {0};
  const int layer[2] = {0, 3}, bulk[2] = {-1, -1};
  int64_t cells[3] = {5, 4, 3};
  hm_mvec *V, *R;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 8, &V));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 8, &R));
  HM_TEST_FAILS(hm_spectral_start_fill(V, cells, 4, cubic, tau, 2, k, layer), HM_ERR_ARGUMENT,
                "layer 3 is outside [0, 3)");
  HM_TEST_FAILS(hm_spectral_start_fill(V, cells, 4, cubic, tau, 1, k, bulk), HM_ERR_ARGUMENT,
                "1 points x 4 orbitals = 4 expected");
  HM_TEST_FAILS(hm_spectral_start_fill(R, cells, 4, cubic, tau, 2, k, bulk), HM_ERR_ARGUMENT, "must be complex");
  HM_TEST_FAILS(hm_spectral_start_fill(V, cells, 0, cubic, tau, 2, k, bulk), HM_ERR_ARGUMENT,
                "orbitals = 0, count = 2: both must be >= 1");
  HM_TEST_FAILS(hm_spectral_start_fill(V, cells, 4, NULL, tau, 2, k, bulk), HM_ERR_ARGUMENT,
                "lattice, positions, k or layer is NULL");
  cells[2] = -1;
  HM_TEST_FAILS(hm_spectral_start_fill(V, cells, 4, cubic, tau, 2, k, bulk), HM_ERR_ARGUMENT,
                "cells 5 x 4 x -1: each must be >= 1");
  cells[2] = 3, cells[0] = 6;
  HM_TEST_FAILS(hm_spectral_start_fill(V, cells, 4, cubic, tau, 2, k, bulk), HM_ERR_ARGUMENT,
                "rows; 72 cells x 4 orbitals");
  hm_mvec_destroy(&V);
  hm_mvec_destroy(&R);
  hm_matrix_destroy(&H);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && !strcmp(argv[1], "cuda");
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx, *cpu;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &cpu));
  uint64_t seed = hm_test_seed();
  const int64_t cells[3] = {5, 4, 3};
  const int bc[3] = {HM_BC_PERIODIC, HM_BC_PERIODIC, HM_BC_PERIODIC};
  const double twist[3] = {0, 0, 0};
  double k[3 * K], f[3], g[3];
  int bulk[K], layer[K];
  for (int j = 0; j < K; j++) { /* fresh random reduced points, moved to the grid; k = 2 pi f (cubic) */
    for (int a = 0; a < 3; a++) f[a] = lcg(&seed);
    HM_TEST_OK(hm_spectral_nearest_allowed(cells, bc, twist, f, g));
    for (int a = 0; a < 3; a++) k[3 * j + a] = 2 * M_PI * g[a];
    bulk[j] = -1;
    layer[j] = j % 3;
  }
  double tau0[12] = {0}, tau1[12], mu0[K * M], mu1[K * M], scale, shift;
  for (int i = 0; i < 12; i++) tau1[i] = 0.9 * lcg(&seed); /* any positions: the same A */
  moments_of(ctx, 0, tau0, k, bulk, mu0, &scale, &shift);
  double worst = bloch_worst(mu0, k, scale, shift);
  HM_TEST_ASSERT(worst <= 1e-12, "%s: |mu - sum_b T_n(E_b)| = %.3g, want <= 1e-12", cuda ? "cuda" : "cpu", worst);
  moments_of(ctx, 0, tau1, k, bulk, mu1, &scale, &shift);
  worst = 0;
  for (int i = 0; i < K * M; i++) worst = fmax(worst, fabs(mu1[i] - mu0[i]));
  HM_TEST_ASSERT(worst <= 1e-12, "moments change with the orbital positions by %.3g, want <= 1e-12", worst);
  if (cuda) { /* the device against the CPU: bulk and layer columns of an open-z slab */
    double ref[K * M];
    for (int slab = 0; slab < 2; slab++) {
      const int *which = slab ? layer : bulk;
      moments_of(ctx, 1, tau1, k, which, mu0, &scale, &shift);
      moments_of(cpu, 1, tau1, k, which, ref, &scale, &shift);
      worst = 0;
      for (int i = 0; i < K * M; i++) worst = fmax(worst, fabs(mu0[i] - ref[i]));
      HM_TEST_ASSERT(worst <= 1e-12, "%s columns: |mu_cuda - mu_cpu| = %.3g, want <= 1e-12", slab ? "layer" : "bulk",
                     worst);
    }
  }
  moments_of(ctx, 0, tau0, k, bulk, mu0, &scale, &shift);
  check_reconstruct(mu0, scale, shift);
  check_nearest();
  check_bad_inputs(ctx);
  hm_context_destroy(&cpu);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
