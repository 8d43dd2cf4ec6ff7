/* The few-orbital stencil kernel's index arithmetic (gpu/stencil_small_cuda.cu), in plain C that
 * the host runs too: the launch shape, which plane site, slab chunk and column a thread takes, the
 * cell's reach, and which (site, slab) pairs take the offset-only fast path. The kernel calls
 * these functions; linalg/tests/test_stencil_small_plan.c replays every thread of every launch on
 * the CPU and checks each neighbour row it would read against hm_stencil_target (stencil_exec.h)
 * and that every local (site, column) is written exactly once. */
#ifndef HAMLET_STENCIL_SMALL_PLAN_H
#define HAMLET_STENCIL_SMALL_PLAN_H
#include <stddef.h>
#include "stencil_exec.h"

enum { HM_SMALL_THREADS = 256, HM_SMALL_WANT_BLOCKS = 4096, HM_SMALL_MAX_TABLE_BYTES = 40 * 1024 };
/* The operator's kernel choice (hm_matrix_set_stencil_kernel) as this kernel reads it: never (site,
 * mma), automatic (auto: 1 and 2 orbitals), forced (small: also 4). */
enum { HM_SMALL_NEVER = 0, HM_SMALL_AUTO = 1, HM_SMALL_FORCED = 2 };

/* Shared memory of the cell's tables: blocks [nblocks][O][O] complex, row offsets [nblocks] (int64),
 * masks [nblocks] (uint32), reach [6] (int32). */
HM_STENCIL_FN size_t hm_small_table_bytes(int nblocks, int orbitals) {
  return 2 * sizeof(double) * (size_t)nblocks * orbitals * orbitals + (sizeof(int64_t) + sizeof(uint32_t)) * (size_t)nblocks +
         6 * sizeof(int32_t);
}

/* Whether the kernel serves E at width k (else the per-site kernel does), where the box kernel
 * (stencil_box_cuda.h: hops within one cell, a multiple of 8 vectors) does not: chosen automatically for
 * 1 and 2 orbitals (graphene 1.29x and wannier30 1.26x faster than the per-site kernel at R = 32,
 * H200), for 4 only where forced (kernel = small: the TI's per-site and
 * tensor-core kernels are faster); no field, k dividing the block size, the tables within
 * HM_SMALL_MAX_TABLE_BYTES. Any slab split: a rank's halo slabs are found through slab_row (the
 * 2-rank GPU runs that timed out were 2 x 16 OpenMP threads on 16 cores, not the
 * kernel: 4 s with 8 threads each). */
HM_STENCIL_FN int hm_small_serves(const hm_stencil_exec *E, int k, int choice) {
  const int o = E->orbitals;
  if (choice == HM_SMALL_NEVER || E->has_peierls || k < 1 || HM_SMALL_THREADS % k) return 0;
  if (!(o == 1 || o == 2 || (o == 4 && choice == HM_SMALL_FORCED))) return 0;
  return hm_small_table_bytes(E->nblocks, o) <= HM_SMALL_MAX_TABLE_BYTES;
}

/* The launch: tiles of tx x ty plane sites (ty = 1 and consecutive plane sites where not planar),
 * ntx tiles across x, kc columns per thread block (k / kc blocks across the columns), chunks of
 * zchunk positions of the row list's slabs; grid (ntiles * nzchunks, k / kc), HM_SMALL_THREADS. */
typedef struct {
  int kc, tx, ty, planar;
  int64_t ntx, ntiles, zchunk, nzchunks, slabs;
} hm_small_shape;

/* linear: the per-site kernel's tiles (consecutive plane sites, up to 32 columns per block). k
 * divides HM_SMALL_THREADS. */
HM_STENCIL_FN hm_small_shape hm_small_shape_for(const hm_stencil_exec *E, int list, int k, int linear) {
  hm_small_shape S;
  const int cap = linear ? 32 : 8; /* columns per thread block: a divisor of 32 (the dot sums) */
  S.kc = k < cap ? k : cap;
  S.planar = !linear && E->slow == 2;
  const int sites = HM_SMALL_THREADS / S.kc;
  if (S.planar) {
    S.ty = sites <= 128 ? 4 : 8;
    S.tx = sites / S.ty;
    S.ntx = (E->cells[0] + S.tx - 1) / S.tx;
    S.ntiles = S.ntx * ((E->cells[1] + S.ty - 1) / S.ty);
  } else {
    S.ty = 1;
    S.tx = (int)(sites < E->slab_sites ? sites : E->slab_sites);
    S.ntx = (E->slab_sites + S.tx - 1) / S.tx;
    S.ntiles = S.ntx;
  }
  S.slabs = hm_stencil_list_slabs(E, list);
  hm_stencil_zchunks(S.slabs, S.ntiles * (k / S.kc), HM_SMALL_WANT_BLOCKS, &S.zchunk, &S.nzchunks);
  return S;
}

/* Thread `thread` of block (bx, by): its plane site q, column col and slab chunk zc; 0 where the
 * thread has no site (past the plane's edge in a partial tile). */
HM_STENCIL_FN int hm_small_thread_site(const hm_small_shape *S, const hm_stencil_exec *E, int64_t bx, int64_t by,
                                       int thread, int64_t *q, int *col, int64_t *zc) {
  const int64_t tile = bx / S->nzchunks;
  const int in_tile = thread / S->kc, lx = in_tile % S->tx, ly = in_tile / S->tx;
  *zc = bx % S->nzchunks;
  *col = (int)(by * S->kc) + thread % S->kc;
  const int64_t px = (tile % S->ntx) * S->tx + lx, py = (tile / S->ntx) * S->ty + ly;
  *q = S->planar ? py * E->cells[0] + px : px;
  if (ly >= S->ty) return 0;
  return S->planar ? px < E->cells[0] && py < E->cells[1] : px < E->slab_sites;
}

/* The cell of plane site q with slab coordinate 0 (x, y of a 3D lattice's slab; x of a 2D one). */
HM_STENCIL_FN void hm_small_plane_cell(const hm_stencil_exec *E, int64_t q, int64_t c[3]) {
  c[0] = c[1] = c[2] = 0;
  if (E->slow == 2) {
    c[0] = q % E->cells[0];
    c[1] = q / E->cells[0];
  } else if (E->slow == 1) {
    c[0] = q;
  }
}

/* The cell's reach per axis: reach[a] = -(most negative shift), reach[3 + a] = most positive. */
HM_STENCIL_FN void hm_small_reach(const int32_t *shift, int nblocks, int32_t reach[6]) {
  for (int a = 0; a < 6; a++) reach[a] = 0;
  for (int b = 0; b < nblocks; b++)
    for (int a = 0; a < 3; a++) {
      const int32_t r = shift[3 * b + a];
      if (-r > reach[a]) reach[a] = -r;
      if (r > reach[3 + a]) reach[3 + a] = r;
    }
}

/* Whether every hop from the in-plane cell c stays inside the box along the plane's axes (c's
 * slab coordinate is not read). Vacancies never take the fast path. */
HM_STENCIL_FN int hm_small_plane_inner(const hm_stencil_exec *E, const int32_t reach[6], const int64_t c[3]) {
  if (E->vacancy_p > 0) return 0;
  for (int a = 0; a < 3; a++)
    if (a != E->slow && (c[a] < reach[a] || c[a] + reach[3 + a] >= E->cells[a])) return 0;
  return 1;
}

/* Global slabs [*lo, *hi) whose hops along the slab axis all land in this rank's own slabs
 * without wrapping: with plane_inner, every block's row is the site's own plus hop_delta[b]. */
HM_STENCIL_FN void hm_small_fast_slabs(const hm_stencil_exec *E, const int32_t reach[6], int64_t *lo, int64_t *hi) {
  *lo = E->first_slab + reach[E->slow];
  *hi = E->first_slab + E->local_slabs - reach[3 + E->slow];
}
#endif
