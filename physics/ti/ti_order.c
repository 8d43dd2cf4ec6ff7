/* The TI matrix's row traversal: columns of tx x ty sites in x-y, each walked through all z.
 * A row couples to its site's x, y and z neighbours; in row order the z neighbours are a whole
 * plane away (the block vectors of three planes outgrow the caches at large widths), in this
 * order they were visited a moment ago. Rows on a tile column's faces are read again when the
 * neighbouring column comes, long after, so larger tiles read fewer rows twice, as long as the
 * rows of a tile plane stay cached until the plane above has used them. */
#include <stdlib.h>
#include "error_macros.h"
#include "matrix_keyed.h"
#include "ti_internal.h"

/* Measured on the H100 (bench/README.md): the z reuse held in L2 with 1250 sites per
 * tile plane at R = 32 (64 R bytes per site: 2.56 MB) and was lost with 1360, so a plane's vector
 * rows get at most 2.25 MiB; no larger tile paid at R = 32 either. The larger tiles paid 3 to 4%
 * at R = 32 and 64; at R = 8 and 16 they took 0.3 and 0.7% longer (a 16 x 16 tile column's
 * faces are then read again within what L2 holds), so narrower widths keep 16 x 16. */
enum { TILE_PLANE_BYTES = 2359296, TILE_MAX_SITES = 1152, TILE_MIN_WIDTH = 32, TILE_DEFAULT = 16 };

/* Tile cuts in one direction with c tiles; a periodic ring's wrap is a cut too unless one tile
 * holds the whole ring. */
static int64_t cuts(int64_t c, int boundary) { return c - 1 + (boundary == HM_BC_PERIODIC && c > 1); }

void hm_ti_tile(const hm_ti_params *p, int64_t *tx, int64_t *ty) {
  *tx = TILE_DEFAULT < p->nx ? TILE_DEFAULT : p->nx;
  *ty = TILE_DEFAULT < p->ny ? TILE_DEFAULT : p->ny;
  if (p->block_width < TILE_MIN_WIDTH) return;
  int64_t max_sites = TILE_PLANE_BYTES / (64 * (int64_t)p->block_width);
  if (max_sites > TILE_MAX_SITES) max_sites = TILE_MAX_SITES;
  if (max_sites < 1) max_sites = 1;
  /* fewest face rows: cuts in x per x row plus cuts in y per y column, with the smallest tiles
   * that give those cuts (the same faces, less to cache) */
  int64_t best = -1, best_sites = 0;
  for (int64_t w = 1; w <= p->nx && w <= max_sites; w++) {
    const int64_t cx = (p->nx + w - 1) / w, x = (p->nx + cx - 1) / cx;
    const int64_t h_max = max_sites / x < p->ny ? max_sites / x : p->ny;
    const int64_t cy = (p->ny + h_max - 1) / h_max, y = (p->ny + cy - 1) / cy;
    const int64_t faces = cuts(cx, p->boundary[0]) * p->ny + cuts(cy, p->boundary[1]) * p->nx; /* x nx ny */
    if (best < 0 || faces < best || (faces == best && x * y < best_sites)) {
      best = faces;
      best_sites = x * y;
      *tx = x;
      *ty = y;
    }
  }
}

void hm_ti_row_keys(const hm_ti_params *p, int64_t first, int64_t local, int64_t *key) {
  int64_t tx, ty;
  hm_ti_tile(p, &tx, &ty);
  const int64_t tiles_x = (p->nx + tx - 1) / tx;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < local; r++) {
    const int64_t row = first + r, s = row / 4;
    const int64_t x = s % p->nx, y = (s / p->nx) % p->ny, z = s / (p->nx * p->ny);
    const int64_t tile = (y / ty) * tiles_x + x / tx;
    key[r] = (((tile * p->nz + z) * ty + y % ty) * tx + x % tx) * 4 + row % 4;
  }
}

int hm_ti_order_rows(const hm_ti_params *p, int64_t first, hm_matrix *H) {
  const hm_dist *dist;
  int64_t local;
  HM_CALL(hm_matrix_dist(H, &dist));
  HM_CALL(hm_dist_range(dist, NULL, &local, NULL));
  int64_t *key;
  HM_MALLOC(key, local + 1);
  hm_ti_row_keys(p, first, local, key);
  int st = hm_matrix_order_rows(H, key);
  free(key);
  HM_CALL(st);
  return HM_SUCCESS;
}
