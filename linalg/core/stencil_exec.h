/* The matrix-free lattice operator's data as its kernels read it (CPU: kernels_cpu_stencil.c,
 * CUDA: gpu/stencil_cuda.cu), and the arithmetic both share: where a hop lands, its boundary
 * factor, its Peierls phase, the seeded disorder and vacancy mask. Nothing here is of size N:
 * the cell's blocks, a table of one entry per slab, and a handful of scalars.
 *
 * Rows: a rank owns whole slabs of the slowest direction with more than one cell (axis `slow`);
 * its halo is whole slabs of its neighbours. slab_row[g] is where global slab g starts in the
 * vector block (own slabs: (g - first_slab) * slab_rows; ghost slabs: the halo slot nlocal + ...
 * that the halo plan gives them, as the remote rows come in global order; -1: not here), so a
 * kernel finds a neighbour's row arithmetically. The interior / boundary "row lists" the solvers
 * pass are the two keys below; each stands for up to HM_STENCIL_RUNS ranges of local slabs. */
#ifndef HAMLET_STENCIL_EXEC_H
#define HAMLET_STENCIL_EXEC_H
#include <stdint.h>
#include "hamlet/stencil.h"
#include "random.h"

#ifdef __CUDACC__
#define HM_STENCIL_FN static inline __host__ __device__
#else
#define HM_STENCIL_FN static inline
#endif

enum { HM_STENCIL_RUNS = 4, HM_STENCIL_INTERIOR = 0, HM_STENCIL_BOUNDARY = 1 };

/* A non-zero entry of the cell's blocks: value, block, column orbital. */
typedef struct {
  double re, im;
  int32_t b, j;
} hm_stencil_hop;

typedef struct hm_stencil_exec {
  int orbitals, nblocks;
  int64_t cells[3];
  int slow;                 /* axis of the slabs (2 = z, 1 = y, 0 = x) */
  int64_t slab_sites;       /* sites per slab: the product of the cells of the faster axes */
  int64_t first_slab, local_slabs;
  int boundary[3];
  double twist[3];
  double disorder_w;
  uint64_t disorder_seed, disorder_stream;
  int disorder_per_site;
  double vacancy_p;
  uint64_t vacancy_seed, vacancy_stream;
  int has_peierls;
  int real;                 /* 1: real blocks, no twist, no phases: vectors of real columns */
  int kernel;               /* hm_stencil_kernel: the GPU kernel chosen (auto) or forced */
  /* Backend memory (device pointers on CUDA). */
  const int32_t *shift;     /* [nblocks][3] */
  const double *block;      /* [nblocks][orbitals][orbitals] complex */
  const double *peierls;    /* NULL or [nblocks][orbitals][orbitals][3] */
  const double *wrap_phase; /* NULL or [3][nblocks][orbitals][4] */
  const int64_t *slab_row;  /* [cells[slow]] */
  /* The blocks' non-zero entries grouped by row orbital i (hop_first[i] .. hop_first[i + 1]), inside by
   * block; and per block the offset of its target row from a cell's own where nothing wraps and the
   * target slab is local (the interior slabs): o (R_x + n_x (R_y + n_y R_z)). */
  const hm_stencil_hop *hops;
  const int32_t *hop_first; /* [orbitals + 1] */
  const int64_t *hop_delta; /* [nblocks] */
  int nhops;
  /* The row lists' stand-ins: rows == &key[l] selects list l; its local slab ranges [begin, end). */
  int32_t key[2];
  int nruns[2];
  int64_t run[2][HM_STENCIL_RUNS][2];
  /* 1: every block's shift is 0 or one unit step along one axis (the 6 face neighbours), which the
   * staged CUDA kernel requires (gpu/stencil_staged_cuda.h); set from the host's shifts. */
  int face_hops;
  /* Where face_hops holds with 4 orbitals: the blocks of each direction (0 the site itself, then -x, +x,
   * -y, +y, -z, +z) summed, each entry's kind in 2 bits at 2 (4 i + j): bit 0 its real part non-zero,
   * bit 1 its imaginary part. The staged CUDA kernel compiles the TI's kinds in (every entry real or
   * imaginary) and serves a cell whose kinds are among them. */
  uint32_t face_kinds[7];
  const double *face_sums; /* there: [7][4][4] complex, the summed blocks whose kinds face_kinds holds */
  /* Where the cell has 1 or 2 orbitals, every shift is within one cell along each axis and the slabs
   * are along z or y: the blocks summed per shift in the slab frame, direction d = (dx + 1) + 3 (dy + 1)
   * + 9 (dz + 1) with dz along the slab axis, dx along x and dy along y (0 where the slabs are along
   * y: z's one cell folded), [27][orbitals][orbitals] complex (entries past orbitals^2 zero); each
   * direction's entry kinds in 2 bits at 2 e (bit 0: real part non-zero, bit 1: imaginary), 0: no
   * hop. The box CUDA kernel's table (gpu/stencil_box_cuda.h); box_sums NULL: it does not serve. */
  uint32_t box_kinds[27];
  const double *box_sums;
} hm_stencil_exec;

/* floor(t / n) for n > 0. */
HM_STENCIL_FN int64_t hm_stencil_floor_div(int64_t t, int64_t n) { return t >= 0 ? t / n : -((-t + n - 1) / n); }

/* Where block b's hop from cell c lands: the vector row of its orbital 0 (>= 0), the wraps w[3]
 * and the twist angle; -1 where an open boundary drops the term (or the slab is not here, which a
 * correct halo never leaves). shift is the block's R (3 integers). */
HM_STENCIL_FN int64_t hm_stencil_target(const hm_stencil_exec *E, const int32_t *shift, const int64_t c[3],
                                        int64_t w[3], double *angle) {
  int64_t t[3];
  *angle = 0;
  w[0] = w[1] = w[2] = 0;
  for (int a = 0; a < 3; a++) {
    const int64_t n = E->cells[a];
    const int64_t u = c[a] + shift[a];
    w[a] = (u >= 0 && u < n) ? 0 : hm_stencil_floor_div(u, n);
    t[a] = u - w[a] * n;
    if (w[a] != 0) {
      if (E->boundary[a] == 1) return -1; /* HM_BC_OPEN */
      if (E->boundary[a] == 2) *angle += E->twist[a] * (double)w[a];
    }
  }
  const int64_t base = E->slab_row[t[E->slow]];
  if (base < 0) return -1;
  const int64_t s = t[0] + E->cells[0] * (t[1] + E->cells[1] * t[2]);
  return base + (int64_t)E->orbitals * (s - t[E->slow] * E->slab_sites);
}

/* The Peierls phase (turns) of block b, orbitals (i, j), from cell c with wraps w. */
HM_STENCIL_FN double hm_stencil_peierls_turns(const hm_stencil_exec *E, int b, int i, int j, const int64_t c[3],
                                              const int64_t w[3]) {
  const int o = E->orbitals;
  const double *g = E->peierls + (((size_t)b * o + i) * o + j) * 3;
  double turns = g[0] * (double)c[0] + g[1] * (double)c[1] + g[2] * (double)c[2];
  for (int a = 0; a < 3; a++) {
    if (w[a] == 0) continue;
    const double *v = E->wrap_phase + (((size_t)a * E->nblocks + b) * o + j) * 4;
    turns += (double)w[a] * (v[0] * (double)c[0] + v[1] * (double)c[1] + v[2] * (double)c[2]) + v[3];
  }
  return turns;
}

HM_STENCIL_FN int hm_stencil_vacant(const hm_stencil_exec *E, int64_t site) {
  return E->vacancy_p > 0 && hm_random_uniform(E->vacancy_seed, E->vacancy_stream, (uint64_t)site) < E->vacancy_p;
}

/* Whether block b's hop from cell c, with the wraps w hm_stencil_target gave it, lands on a vacant
 * site (its row and column are zero). */
HM_STENCIL_FN int hm_stencil_hop_vacant(const hm_stencil_exec *E, int b, const int64_t c[3], const int64_t w[3]) {
  if (E->vacancy_p <= 0) return 0;
  int64_t t[3];
  for (int a = 0; a < 3; a++) t[a] = c[a] + E->shift[3 * b + a] - w[a] * E->cells[a];
  return hm_stencil_vacant(E, t[0] + E->cells[0] * (t[1] + E->cells[1] * t[2]));
}

/* The disorder's seed and stream mixed once (hm_random_u64's first two rounds), and the draw for a
 * counter from it: a kernel that draws per site keeps the key and pays one round per draw. */
HM_STENCIL_FN uint64_t hm_stencil_disorder_key(const hm_stencil_exec *E) {
  return hm_mix64(hm_mix64(E->disorder_seed) ^ E->disorder_stream);
}
HM_STENCIL_FN double hm_stencil_disorder_draw(const hm_stencil_exec *E, uint64_t key, uint64_t counter) {
  return E->disorder_w * ((double)(hm_mix64(key ^ counter) >> 11) * 0x1.0p-53 - 0.5);
}

/* The disorder d(c, i) of global site `site`, orbital i. */
HM_STENCIL_FN double hm_stencil_disorder(const hm_stencil_exec *E, int64_t site, int i) {
  if (E->disorder_w == 0) return 0;
  const uint64_t counter = E->disorder_per_site ? (uint64_t)site : (uint64_t)(site * E->orbitals + i);
  return E->disorder_w * (hm_random_uniform(E->disorder_seed, E->disorder_stream, counter) - 0.5);
}

/* The local slab at position p of row list `list` (its runs in order); -1 past the end. */
HM_STENCIL_FN int64_t hm_stencil_slab_at(const hm_stencil_exec *E, int list, int64_t p) {
  for (int r = 0; r < E->nruns[list]; r++) {
    const int64_t len = E->run[list][r][1] - E->run[list][r][0];
    if (p < len) return E->run[list][r][0] + p;
    p -= len;
  }
  return -1;
}

/* The local slabs of row list `list`: its runs' lengths together. */
HM_STENCIL_FN int64_t hm_stencil_list_slabs(const hm_stencil_exec *E, int list) {
  int64_t slabs = 0;
  for (int r = 0; r < E->nruns[list]; r++) slabs += E->run[list][r][1] - E->run[list][r][0];
  return slabs;
}

/* A list's `slabs` cut into chunks that thread blocks march along, so that about `want` blocks run
 * where `across` blocks cover one slab: *zchunk slabs per chunk, *nzchunks chunks (0 without slabs). */
HM_STENCIL_FN void hm_stencil_zchunks(int64_t slabs, int64_t across, int64_t want, int64_t *zchunk, int64_t *nzchunks) {
  int64_t nz = (want + across - 1) / across;
  if (nz > slabs) nz = slabs;
  if (nz < 1) nz = 1;
  *zchunk = (slabs + nz - 1) / nz;
  if (*zchunk < 1) *zchunk = 1;
  *nzchunks = slabs ? (slabs + *zchunk - 1) / *zchunk : 0;
}

/* Cell coordinates of local slab l's site q (q < slab_sites) and its global site number. */
HM_STENCIL_FN int64_t hm_stencil_cell(const hm_stencil_exec *E, int64_t l, int64_t q, int64_t c[3]) {
  const int64_t site = (E->first_slab + l) * E->slab_sites + q;
  c[0] = site % E->cells[0];
  c[1] = (site / E->cells[0]) % E->cells[1];
  c[2] = site / (E->cells[0] * E->cells[1]);
  return site;
}
#endif
