/* TI builder against an independent serial reference: the dense matrix written straight from the
 * formula H = -t sum_{n,j} (Psi+_{n+e_j} T_j Psi_n + h.c.) + sum_n Psi+_n (V_n G0 + m G1) Psi_n,
 * T_j = (G1 - i G_{j+1})/2, with the Gamma matrices built as Kronecker products of Pauli matrices
 * and V_n from the dot and disorder formulas. Run on 1, 2 and 3 ranks (and 1 and 2 threads), it
 * shows that the distributed matrix does not depend on the rank or thread count. Also checks
 * hm_ti_potential against the same reference potential. */
#include <omp.h>
#include <stdlib.h>
#include "testing.h"
#include "random.h"
#include "ti_test_util.h"

typedef double complex mat4[4][4];

/* kron(a, b) of 2x2 matrices: (a (x) b)[2i+k][2j+l] = a[i][j] b[k][l] (a acts on the outer index). */
static void kron2(const double complex a[2][2], const double complex b[2][2], mat4 out) {
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 0; k < 2; k++)
        for (int l = 0; l < 2; l++) out[2 * i + k][2 * j + l] = a[i][j] * b[k][l];
}

/* gamma[0..4] = G0 = I4, G1 = tz(x)s0, G2 = tx(x)sx, G3 = tx(x)sy, G4 = tx(x)sz. */
static void gammas(mat4 gamma[5]) {
  static const double complex s0[2][2] = {{1, 0}, {0, 1}}, sx[2][2] = {{0, 1}, {1, 0}};
  static const double complex sy[2][2] = {{0, -I}, {I, 0}}, sz[2][2] = {{1, 0}, {0, -1}};
  kron2(s0, s0, gamma[0]);
  kron2(sz, s0, gamma[1]);
  kron2(sx, sx, gamma[2]);
  kron2(sx, sy, gamma[3]);
  kron2(sx, sz, gamma[4]);
}

/* V of site (x, y, z) written from the formulas, not through the library. */
static double reference_potential(const hm_ti_params *p, int64_t x, int64_t y, int64_t z) {
  double v = 0;
  if (p->dot_v0 != 0) {
    double cx = (double)(x % p->dot_period_x) + 0.5 - p->dot_period_x / 2.0;
    double cy = (double)(y % p->dot_period_y) + 0.5 - p->dot_period_y / 2.0;
    int layer_ok = p->dot_depth == 0 || z >= p->nz - p->dot_depth;
    if (cx * cx + cy * cy < p->dot_radius * p->dot_radius && layer_ok) v += p->dot_v0;
  }
  if (p->disorder_w != 0)
    v += p->disorder_w * (hm_random_uniform(p->disorder_seed, 0x7469, (uint64_t)(x + p->nx * (y + p->ny * z))) - 0.5);
  return v;
}

/* Dense column-major reference (n = 4 * sites). */
static double complex *reference_dense(const hm_ti_params *p, int64_t *n_out) {
  const int64_t dims[3] = {p->nx, p->ny, p->nz}, n = 4 * p->nx * p->ny * p->nz;
  double complex *h = calloc((size_t)(n * n), sizeof *h);
  mat4 g[5];
  gammas(g);
  for (int64_t z = 0; z < p->nz; z++)
    for (int64_t y = 0; y < p->ny; y++)
      for (int64_t x = 0; x < p->nx; x++) {
        int64_t site = x + p->nx * (y + p->ny * z);
        double v = reference_potential(p, x, y, z);
        for (int a = 0; a < 4; a++)
          for (int b = 0; b < 4; b++) h[(4 * site + b) * n + 4 * site + a] += v * g[0][a][b] + p->m * g[1][a][b];
        for (int j = 0; j < 3; j++) {
          int64_t c[3] = {x, y, z};
          c[j] += 1;
          if (c[j] == dims[j]) {
            if (p->boundary[j] == HM_BC_OPEN) continue;
            c[j] = 0;
          }
          int64_t nb = c[0] + p->nx * (c[1] + p->ny * c[2]);
          mat4 T;
          for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) T[a][b] = (g[1][a][b] - I * g[j + 2][a][b]) / 2;
          for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
              h[(4 * site + b) * n + 4 * nb + a] += -p->t * T[a][b];         /* Psi+_{n+e_j} T Psi_n */
              h[(4 * nb + b) * n + 4 * site + a] += -p->t * conj(T[b][a]);   /* its Hermitian conjugate */
            }
        }
      }
  *n_out = n;
  return h;
}

static void compare(hm_context *ctx, const hm_ti_params *p, const char *what) {
  int64_t nref, n;
  double complex *ref = reference_dense(p, &nref), *d = NULL;
  for (int threads = 1; threads <= 2; threads++) {
    omp_set_num_threads(threads);
    hm_matrix *H = NULL;
    HM_TEST_OK(hm_ti_build(ctx, p, &H));
    if (!H) continue;
    HM_TEST_OK(hm_test_dense(H, &d, &n));
    HM_TEST_ASSERT(n == nref, "%s: %lld rows, reference %lld", what, (long long)n, (long long)nref);
    double worst = 0;
    for (int64_t i = 0; n == nref && i < n * n; i++) worst = fmax(worst, cabs(d[i] - ref[i]));
    HM_TEST_ASSERT(worst <= 1e-14, "%s, %d thread(s): max |H - H_ref| = %g, expected <= 1e-14", what, threads, worst);
    free(d);
    hm_matrix_destroy(&H);
  }
  omp_set_num_threads(1);
  double worst = 0;
  for (int64_t z = 0; z < p->nz; z++)
    for (int64_t y = 0; y < p->ny; y++)
      for (int64_t x = 0; x < p->nx; x++) {
        double v = NAN;
        HM_TEST_OK(hm_ti_potential(p, x, y, z, &v));
        worst = fmax(worst, fabs(v - reference_potential(p, x, y, z)));
      }
  HM_TEST_ASSERT(worst == 0, "%s: hm_ti_potential differs from the reference by %g", what, worst);
  free(ref);
}

static hm_ti_params base(int64_t nx, int64_t ny, int64_t nz, int bx, int by, int bz, double t, double m) {
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = nx; p.ny = ny; p.nz = nz;
  p.boundary[0] = bx; p.boundary[1] = by; p.boundary[2] = bz;
  p.t = t; p.m = m;
  return p;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));

  /* Mixed boundaries with dots in the top layers and disorder (odd sizes: uneven rank splits). */
  hm_ti_params p = base(5, 4, 3, HM_BC_PERIODIC, HM_BC_OPEN, HM_BC_PERIODIC, 0.8, 1.7);
  p.dot_v0 = 0.7; p.dot_period_x = 3; p.dot_period_y = 2; p.dot_radius = 1.1; p.dot_depth = 1;
  p.disorder_w = 1.3; p.disorder_seed = 99;
  compare(ctx, &p, "5x4x3 periodic/open/periodic, dots depth 1, disorder");
  /* Open x, dots through all layers, disorder only. */
  p = base(3, 2, 4, HM_BC_OPEN, HM_BC_PERIODIC, HM_BC_OPEN, 1.1, -0.6);
  p.dot_v0 = -0.4; p.dot_period_x = 2; p.dot_period_y = 2; p.dot_radius = 0.8;
  p.disorder_w = 3.0; p.disorder_seed = 12345;
  compare(ctx, &p, "3x2x4 open/periodic/open, dots all layers, disorder");
  /* Small periodic rings (hoppings onto repeated columns), clean. */
  p = base(2, 1, 3, HM_BC_PERIODIC, HM_BC_PERIODIC, HM_BC_PERIODIC, 1.0, 2.0);
  compare(ctx, &p, "2x1x3 periodic, clean");
  p = base(2, 1, 3, HM_BC_OPEN, HM_BC_OPEN, HM_BC_PERIODIC, 0.5, 1.0);
  p.disorder_w = 0.5;
  compare(ctx, &p, "2x1x3 open/open/periodic, disorder");
  /* One site: ranks beyond the first own no rows. */
  p = base(1, 1, 1, HM_BC_PERIODIC, HM_BC_PERIODIC, HM_BC_PERIODIC, 1.0, 2.0);
  p.disorder_w = 1.0;
  compare(ctx, &p, "1x1x1 periodic, disorder");

  hm_context_destroy(&ctx);
  return hm_test_finish();
}
