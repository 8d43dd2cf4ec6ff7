/* hm_ti_potential and parameter checks: disorder lies in [-W/2, W/2] with mean ~0 and variance
 * ~W^2/12, changes with the seed; dots sit where the cell geometry says (a hand-drawn map of one
 * cell), only in the top dot_depth layers; the built diagonal carries V + m G1; defaults are as
 * documented; bad parameters are refused with messages that name the field. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"

static hm_ti_params defaults(void) {
  hm_ti_params p;
  hm_ti_params_default(&p);
  return p;
}

static void check_defaults(void) {
  hm_ti_params p;
  memset(&p, 0x5a, sizeof p);
  HM_TEST_OK(hm_ti_params_default(&p));
  HM_TEST_ASSERT(p.nx == 8 && p.ny == 8 && p.nz == 8, "default size %lldx%lldx%lld, expected 8x8x8",
                 (long long)p.nx, (long long)p.ny, (long long)p.nz);
  HM_TEST_ASSERT(p.t == 1.0 && p.m == 2.0, "default t = %g, m = %g, expected 1, 2", p.t, p.m);
  for (int j = 0; j < 3; j++) HM_TEST_ASSERT(p.boundary[j] == HM_BC_PERIODIC, "default boundary %d is %d", j, p.boundary[j]);
  HM_TEST_ASSERT(p.dot_v0 == 0 && p.disorder_w == 0 && p.dot_depth == 0 && p.disorder_seed == 1,
                 "defaults must have no potential, dot_depth 0, seed 1");
  double v = 1;
  HM_TEST_OK(hm_ti_potential(&p, 3, 4, 5, &v));
  HM_TEST_ASSERT(v == 0, "default potential is %g, expected 0", v);
}

static void check_disorder(void) {
  hm_ti_params p = defaults();
  p.nx = 40; p.ny = 30; p.nz = 20;
  p.disorder_w = 2.0; p.disorder_seed = 7;
  const double W = p.disorder_w, count = (double)(p.nx * p.ny * p.nz);
  double lo = INFINITY, hi = -INFINITY, sum = 0, sum2 = 0;
  int64_t same_as_other_seed = 0;
  hm_ti_params q = p;
  q.disorder_seed = 8;
  for (int64_t z = 0; z < p.nz; z++)
    for (int64_t y = 0; y < p.ny; y++)
      for (int64_t x = 0; x < p.nx; x++) {
        double v = NAN, w = NAN;
        HM_TEST_OK(hm_ti_potential(&p, x, y, z, &v));
        HM_TEST_OK(hm_ti_potential(&q, x, y, z, &w));
        lo = fmin(lo, v); hi = fmax(hi, v);
        sum += v; sum2 += v * v;
        same_as_other_seed += v == w;
      }
  double mean = sum / count, var = sum2 / count - mean * mean;
  HM_TEST_ASSERT(lo >= -W / 2 && hi <= W / 2, "disorder range [%g, %g] is outside [-W/2, W/2] = [%g, %g]", lo, hi, -W / 2, W / 2);
  /* 24000 samples: the range nearly fills [-1, 1]; mean has sigma W/sqrt(12 N) = 0.0037. */
  HM_TEST_ASSERT(lo < -0.99 && hi > 0.99, "disorder range [%g, %g] should nearly fill [-1, 1]", lo, hi);
  HM_TEST_ASSERT(fabs(mean) < 0.02, "disorder mean %g, expected ~0 (|mean| < 0.02, 5 sigma)", mean);
  HM_TEST_ASSERT(fabs(var - W * W / 12) < 0.02, "disorder variance %g, expected W^2/12 = %g", var, W * W / 12);
  HM_TEST_ASSERT(same_as_other_seed < 3, "%lld sites have the same disorder with seeds 7 and 8", (long long)same_as_other_seed);
  /* Disorder adds to the dots. */
  hm_ti_params r = p;
  r.dot_v0 = 5; r.dot_period_x = 1; r.dot_period_y = 1; r.dot_radius = 1; /* every site is a dot */
  double v1 = NAN, v2 = NAN;
  HM_TEST_OK(hm_ti_potential(&p, 3, 2, 1, &v1));
  HM_TEST_OK(hm_ti_potential(&r, 3, 2, 1, &v2));
  HM_TEST_ASSERT(fabs(v2 - v1 - 5) < 1e-14, "dot + disorder %g should be disorder %g + 5", v2, v1);
}

/* One 5 x 4 cell with radius 1.6: cx in {-2, -1, 0, 1, 2}, cy in {-1.5, -.5, .5, 1.5};
 * inside when cx^2 + cy^2 < 2.56. */
static void check_dots(void) {
  static const char *map[4] = {/* y = 0 .. 3, x = 0 .. 4 */
                               "..#..",
                               ".###.",
                               ".###.",
                               "..#.."};
  hm_ti_params p = defaults();
  p.nx = 10; p.ny = 8; p.nz = 5;
  p.dot_v0 = -0.75; p.dot_period_x = 5; p.dot_period_y = 4; p.dot_radius = 1.6; p.dot_depth = 2;
  int wrong = 0;
  for (int64_t z = 0; z < p.nz; z++)
    for (int64_t y = 0; y < p.ny; y++)
      for (int64_t x = 0; x < p.nx; x++) {
        double v = NAN;
        HM_TEST_OK(hm_ti_potential(&p, x, y, z, &v));
        int inside = map[y % 4][x % 5] == '#' && z >= 3; /* top 2 of 5 layers */
        if (v != (inside ? -0.75 : 0.0)) {
          if (wrong++ < 5) fprintf(stderr, "site (%lld, %lld, %lld): V = %g, expected %g\n", (long long)x,
                                   (long long)y, (long long)z, v, inside ? -0.75 : 0.0);
        }
      }
  HM_TEST_ASSERT(wrong == 0, "%d sites have the wrong dot potential", wrong);
  /* dot_depth 0: every layer; a radius below 0.5 with an odd period catches only the centre. */
  p.dot_depth = 0; p.dot_radius = 0.4; p.dot_period_y = 3;
  double v = NAN;
  HM_TEST_OK(hm_ti_potential(&p, 7, 4, 0, &v));
  HM_TEST_ASSERT(v == -0.75, "cell centre (7, 4, 0) of period 5x3 must be in a dot, V = %g", v);
  HM_TEST_OK(hm_ti_potential(&p, 7, 5, 0, &v));
  HM_TEST_ASSERT(v == 0, "(7, 5, 0) is off the centre of its 5x3 cell, V = %g", v);
  /* The rim is outside (strict <): period 4x3, radius 1.5; site (0, 1): (cx, cy) = (-1.5, 0), exactly
   * on the rim; site (1, 0): (-0.5, -1), inside. */
  p.dot_period_x = 4; p.dot_radius = 1.5;
  HM_TEST_OK(hm_ti_potential(&p, 4, 1, 2, &v));
  HM_TEST_ASSERT(v == 0, "(4, 1, 2) lies on the rim of its dot (distance 1.5 = radius): must be outside, V = %g", v);
  HM_TEST_OK(hm_ti_potential(&p, 5, 3, 2, &v));
  HM_TEST_ASSERT(v == -0.75, "(5, 3, 2) is at distance sqrt(1.25) < 1.5 from its dot centre, V = %g", v);
}

/* The built matrix's diagonal carries V_n + m G1 (clean hoppings elsewhere are tested in test_ti_bloch). */
static void check_diagonal(hm_context *ctx) {
  hm_ti_params p = defaults();
  p.nx = 4; p.ny = 3; p.nz = 2; p.m = 1.25;
  p.dot_v0 = 0.5; p.dot_period_x = 2; p.dot_period_y = 3; p.dot_radius = 1.0;
  p.disorder_w = 1.5; p.disorder_seed = 3;
  hm_matrix *H = NULL;
  double complex *d = NULL;
  int64_t n = 0;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  if (H) HM_TEST_OK(hm_test_dense(H, &d, &n));
  double worst = 0;
  for (int64_t s = 0; d && s < n / 4; s++) {
    double v = NAN;
    HM_TEST_OK(hm_ti_potential(&p, s % 4, (s / 4) % 3, s / 12, &v));
    for (int o = 0; o < 4; o++) worst = fmax(worst, cabs(d[(4 * s + o) * n + 4 * s + o] - (v + (o < 2 ? 1 : -1) * p.m)));
  }
  HM_TEST_ASSERT(d && worst <= 1e-14, "diagonal differs from V + m G1 by %g", worst);
  free(d);
  hm_matrix_destroy(&H);
}

static void check_refusals(hm_context *ctx) {
  hm_matrix *H = (hm_matrix *)&H;
  double v;
  hm_ti_params p = defaults();
  p.ny = 0;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "must be >= 1");
  HM_TEST_ASSERT(H == NULL, "a refused build must leave *H = NULL");
  HM_TEST_FAILS(hm_ti_potential(&p, 0, 0, 0, &v), HM_ERR_ARGUMENT, "ny = 0");
  p = defaults(); p.nx = -3;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "nx = -3");
  p = defaults(); p.nx = p.ny = p.nz = (int64_t)1 << 17; /* 2^53 rows */
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "below 2^50");
  p = defaults(); p.nx = INT64_MAX; p.ny = INT64_MAX;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "too large");
  p = defaults(); p.boundary[2] = 2;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "boundary in z is 2: allowed are periodic (0) and open (1)");
  p = defaults(); p.t = NAN;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "hopping t");
  p = defaults(); p.m = INFINITY;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "mass m");
  p = defaults(); p.dot_v0 = 1; p.dot_period_x = 0;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "dot_period_x = 0");
  p = defaults(); p.dot_v0 = 1; p.dot_radius = 0;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "dot_radius");
  p = defaults(); p.dot_v0 = 1; p.dot_depth = -1;
  HM_TEST_FAILS(hm_ti_potential(&p, 0, 0, 0, &v), HM_ERR_ARGUMENT, "dot_depth = -1");
  p = defaults(); p.dot_v0 = NAN;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "dot_v0");
  p = defaults(); p.disorder_w = -0.5;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "disorder_w = -0.5 must be finite and >= 0");
  /* Dot geometry is ignored while dots are off. */
  p = defaults(); p.dot_period_x = 0; p.dot_radius = -1; p.nx = p.ny = p.nz = 2;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  hm_matrix_destroy(&H);
  p = defaults();
  HM_TEST_FAILS(hm_ti_potential(&p, 8, 0, 0, &v), HM_ERR_ARGUMENT, "outside the 8 x 8 x 8 lattice");
  HM_TEST_FAILS(hm_ti_potential(&p, 0, 0, -1, &v), HM_ERR_ARGUMENT, "outside");
  HM_TEST_FAILS(hm_ti_potential(NULL, 0, 0, 0, &v), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_ti_potential(&p, 0, 0, 0, NULL), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_ti_build(ctx, NULL, &H), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_ti_build(ctx, &p, NULL), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_ti_params_default(NULL), HM_ERR_ARGUMENT, "NULL");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  check_defaults();
  check_disorder();
  check_dots();
  check_diagonal(ctx);
  check_refusals(ctx);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
