/* TI row traversal by tile columns: the tile chosen for a block width of 32 or more has at most
 * 2.25 MiB of vector rows (64 R bytes per site) and at most 1152 sites per plane, and, among all
 * tiles that do, the fewest face rows (checked against every tile shape); narrower widths keep
 * 16 x 16 (or the lattice, where smaller). The built
 * traversal lists are a permutation of the rank's rows in the tile columns' order, and the product
 * H x is bit for bit the one of the 16 x 16 traversal (1 and 3 ranks). */
#include <stdlib.h>
#include <string.h>
#include "halo.h"
#include "objects.h"
#include "testing.h"
#include "ti_internal.h"

static int64_t cuts(int64_t n, int64_t t, int boundary) {
  const int64_t c = (n + t - 1) / t;
  return c - 1 + (boundary == HM_BC_PERIODIC && c > 1);
}

/* Face count of a tx x ty tile (cuts in x per x row plus cuts in y per y column, times nx ny). */
static int64_t faces(const hm_ti_params *p, int64_t tx, int64_t ty) {
  return cuts(p->nx, tx, p->boundary[0]) * p->ny + cuts(p->ny, ty, p->boundary[1]) * p->nx;
}

static void check_tile(int64_t nx, int64_t ny, int open_x, int width) {
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = nx;
  p.ny = ny;
  p.boundary[0] = open_x ? HM_BC_OPEN : HM_BC_PERIODIC;
  p.block_width = width;
  int64_t tx, ty;
  hm_ti_tile(&p, &tx, &ty);
  HM_TEST_ASSERT(tx >= 1 && tx <= nx && ty >= 1 && ty <= ny, "%lld x %lld, width %d: tile %lld x %lld outside the lattice",
                 (long long)nx, (long long)ny, width, (long long)tx, (long long)ty);
  if (width < 32) {
    HM_TEST_ASSERT(tx == (nx < 16 ? nx : 16) && ty == (ny < 16 ? ny : 16), "%lld x %lld, width %d: tile %lld x %lld, not 16 x 16",
                   (long long)nx, (long long)ny, width, (long long)tx, (long long)ty);
    return;
  }
  int64_t bound = 2359296 / (64 * (int64_t)width);
  bound = bound > 1152 ? 1152 : bound < 1 ? 1 : bound;
  HM_TEST_ASSERT(tx * ty <= bound, "%lld x %lld, width %d: tile %lld x %lld holds more than %lld sites", (long long)nx,
                 (long long)ny, width, (long long)tx, (long long)ty, (long long)bound);
  int64_t best = -1;
  for (int64_t a = 1; a <= nx; a++)
    for (int64_t b = 1; b <= ny && a * b <= bound; b++)
      if (best < 0 || faces(&p, a, b) < best) best = faces(&p, a, b);
  HM_TEST_ASSERT(faces(&p, tx, ty) == best, "%lld x %lld, width %d: tile %lld x %lld has %lld faces, %lld x %lld sites can have %lld",
                 (long long)nx, (long long)ny, width, (long long)tx, (long long)ty, (long long)faces(&p, tx, ty),
                 (long long)nx, (long long)ny, (long long)best);
}

/* The traversal key of row r, written out independently of the builder's. */
static int64_t tile_key(const hm_ti_params *p, int64_t tx, int64_t ty, int64_t row) {
  const int64_t s = row / 4, x = s % p->nx, y = (s / p->nx) % p->ny, z = s / (p->nx * p->ny);
  const int64_t tile_x = x / tx, tile_y = y / ty, tiles_x = (p->nx + tx - 1) / tx;
  int64_t k = tile_y * tiles_x + tile_x;
  k = k * p->nz + z;
  k = k * ty + (y - tile_y * ty);
  k = k * tx + (x - tile_x * tx);
  return 4 * k + row % 4;
}

static void check_list(const hm_ti_params *p, int64_t first, int64_t local, const int32_t *rows, int32_t n, char *seen,
                       const char *what) {
  int64_t tx, ty;
  hm_ti_tile(p, &tx, &ty);
  for (int32_t i = 0; i < n; i++) {
    HM_TEST_ASSERT(rows[i] >= 0 && rows[i] < local && !seen[rows[i]], "width %d, %s rows: entry %d (%d) is out of range or repeated",
                   p->block_width, what, i, rows[i]);
    if (rows[i] < 0 || rows[i] >= local) return;
    seen[rows[i]] = 1;
    if (i > 0)
      HM_TEST_ASSERT(tile_key(p, tx, ty, first + rows[i - 1]) < tile_key(p, tx, ty, first + rows[i]),
                     "width %d, %s rows %d and %d are not in the order of %lld x %lld tile columns", p->block_width, what,
                     i - 1, i, (long long)tx, (long long)ty);
  }
}

/* Builds p with width, checks its traversal and returns y = H x for the random x of seed 5. */
static double complex *product(hm_context *ctx, hm_ti_params p, int width, int64_t *local_rows) {
  p.block_width = width;
  hm_matrix *H = NULL;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  const hm_dist *dist;
  int64_t first, local;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  HM_TEST_OK(hm_dist_range(dist, &first, &local, NULL));
  *local_rows = local;
  char *seen = calloc((size_t)local + 1, 1);
  check_list(&p, first, local, H->interior_rows, H->n_interior, seen, "interior");
  check_list(&p, first, local, H->boundary_rows, H->n_boundary, seen, "boundary");
  HM_TEST_ASSERT(H->n_interior + H->n_boundary == local, "width %d: %d + %d traversed rows, the rank has %lld", width,
                 H->n_interior, H->n_boundary, (long long)local);
  free(seen);
  hm_mvec *x, *y;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 3, &x));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 3, &y));
  HM_TEST_OK(hm_mvec_random_phase(x, 5));
  HM_TEST_OK(hm_matrix_apply(H, x, y));
  double complex *out = malloc(sizeof *out * 3 * (size_t)local + 1);
  HM_TEST_OK(hm_mvec_get(y, out));
  hm_mvec_destroy(&x);
  hm_mvec_destroy(&y);
  hm_matrix_destroy(&H);
  return out;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  static const int widths[] = {0, 1, 8, 16, 31, 32, 64, 100, 4096, 1 << 20};
  for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
    check_tile(200, 100, 0, widths[w]);
    check_tile(336, 200, 0, widths[w]);
    check_tile(37, 11, 1, widths[w]);
    check_tile(5, 3, 0, widths[w]);
    check_tile(1200, 7, 1, widths[w]);
  }
  /* the benchmark's lattice at R = 32: fewer face rows than 16 x 16 tiles, which leave partial tiles */
  hm_ti_params big;
  hm_ti_params_default(&big);
  big.nx = 200;
  big.ny = 100;
  big.block_width = 32;
  int64_t tx, ty;
  hm_ti_tile(&big, &tx, &ty);
  HM_TEST_ASSERT(2 * faces(&big, tx, ty) < faces(&big, 16, 16), "200 x 100 at R = 32: tile %lld x %lld has %lld faces, 16 x 16 %lld",
                 (long long)tx, (long long)ty, (long long)faces(&big, tx, ty), (long long)faces(&big, 16, 16));

  /* traversal and product, open in x: at width 32 one tile holds a whole plane, at 4096 and 65536
   * tiles of at most 9 sites and of 1 */
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = 37;
  p.ny = 20;
  p.nz = 3;
  p.boundary[0] = HM_BC_OPEN;
  p.disorder_w = 1.0;
  int64_t local = 0;
  double complex *ref = product(ctx, p, 0, &local);
  static const int built[] = {32, 4096, 65536};
  for (size_t w = 0; w < sizeof built / sizeof *built; w++) {
    double complex *y = product(ctx, p, built[w], &local);
    HM_TEST_ASSERT(!memcmp(y, ref, sizeof *y * 3 * (size_t)local), "width %d: H x differs from the 16 x 16 traversal's",
                   built[w]);
    free(y);
  }
  free(ref);

  p.block_width = -1;
  hm_matrix *H = NULL;
  HM_TEST_FAILS(hm_ti_build(ctx, &p, &H), HM_ERR_ARGUMENT, "block_width = -1 must be >= 0");
  HM_TEST_ASSERT(H == NULL, "a failed build must leave H NULL");
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
