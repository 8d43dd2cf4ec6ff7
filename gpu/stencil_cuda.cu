// CUDA products of the matrix-free lattice operator (linalg/core/stencil_exec.h): y = H x and the
// fused KPM step with its two dots, from the cell's blocks and the seeded per-site terms.
//
// Layout: consecutive threads take consecutive (orbital, column) entries of a site (column
// fastest), so the loads of a neighbour's row x[t + j, 0..R) are coalesced over the columns and
// shared (broadcast) by the threads of the site's other orbitals. A thread block owns a tile of
// consecutive sites of the slab plane and marches along the slabs of its chunk: the tiles that run
// at once cover a band of the plane, whose three slabs of vector rows (the slab and its
// neighbours) stay in L2 (50 MB), so every vector row is read from DRAM about once per step. The
// blocks and shifts of the cell sit in shared memory where they fit (the TI's 7 blocks: 1.8 KB).
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "column_sums.cuh"
#include "device_buffer.cuh"
#include "stencil_cuda.h"

namespace {

constexpr int kThreads = 256;
constexpr size_t kSharedLimit = 40 * 1024; // blocks in shared memory up to this size
constexpr int64_t kWantBlocks = 4096;      // thread blocks per launch (balance; L2 band)

hm_device_buffer scratch_buffer;

struct Launch {
  int64_t tile_sites, ntiles, zchunk, nzchunks, slabs;
  int chunks; // thread blocks per tile across the (orbital, column) entries
};

Launch plan(const hm_stencil_exec &E, int list, int k) {
  Launch L;
  L.slabs = 0;
  for (int r = 0; r < E.nruns[list]; r++) L.slabs += E.run[list][r][1] - E.run[list][r][0];
  const int64_t entries = (int64_t)E.orbitals * k;
  L.tile_sites = entries <= kThreads ? kThreads / entries : 1;
  if (L.tile_sites > E.slab_sites) L.tile_sites = E.slab_sites;
  L.chunks = entries <= kThreads ? 1 : (int)((entries + kThreads - 1) / kThreads);
  L.ntiles = (E.slab_sites + L.tile_sites - 1) / L.tile_sites;
  int64_t nz = (kWantBlocks + L.ntiles - 1) / L.ntiles;
  if (nz > L.slabs) nz = L.slabs;
  if (nz < 1) nz = 1;
  L.zchunk = (L.slabs + nz - 1) / nz;
  if (L.zchunk < 1) L.zchunk = 1;
  L.nzchunks = L.slabs ? (L.slabs + L.zchunk - 1) / L.zchunk : 0;
  return L;
}

__device__ inline int64_t slab_at(const hm_stencil_exec &E, int list, int64_t p) {
  for (int r = 0; r < E.nruns[list]; r++) {
    const int64_t len = E.run[list][r][1] - E.run[list][r][0];
    if (p < len) return E.run[list][r][0] + p;
    p -= len;
  }
  return -1;
}

// Cell of plane index q in global slab g (cheap 32-bit arithmetic where the plane allows it).
__device__ inline void cell_of(const hm_stencil_exec &E, int64_t g, int64_t q, int64_t c[3]) {
  c[0] = c[1] = c[2] = 0;
  c[E.slow] = g;
  if (E.slow == 2) {
    const int64_t nx = E.cells[0];
    c[0] = q % nx;
    c[1] = q / nx;
  } else if (E.slow == 1) {
    c[0] = q;
  }
}

// One launch: every thread computes one (site, orbital, column) entry per slab it marches over.
// Kpm: W = 2 s (H V - b V) - W and the per-column dots into partial[block][2k]; else y = H x.
template <bool Kpm>
__global__ void __launch_bounds__(kThreads) stencil_kernel(hm_stencil_exec E, int list, int k, int64_t tile_sites,
                                                           int64_t nzchunks, int64_t zchunk, int64_t slabs,
                                                           int shared_blocks, double s, double bshift,
                                                           const double *__restrict__ x, double *__restrict__ y,
                                                           double *partial) {
  extern __shared__ double sh[];
  const int o = E.orbitals;
  const int nblock_entries = E.nblocks * o * o;
  const double *blocks = E.block;
  if (shared_blocks) {
    for (int e = threadIdx.x; e < 2 * nblock_entries; e += blockDim.x) sh[e] = E.block[e];
    __syncthreads();
    blocks = sh;
  }
  const int64_t tile = blockIdx.x / nzchunks, zc = blockIdx.x % nzchunks;
  const int64_t entries = (int64_t)o * k;
  const int64_t e_in_tile = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
  const int64_t q = tile * tile_sites + e_in_tile / entries;
  const int e = (int)(e_in_tile % entries), i = e / k, col = e % k;
  const bool active = e_in_tile < tile_sites * entries && q < E.slab_sites && (blockIdx.y == 0 || tile_sites == 1);
  double vv = 0, wv = 0;
  const int64_t p1 = (zc + 1) * zchunk < slabs ? (zc + 1) * zchunk : slabs;
  for (int64_t p = zc * zchunk; active && p < p1; p++) {
    const int64_t l = slab_at(E, list, p), g = E.first_slab + l;
    int64_t c[3];
    cell_of(E, g, q, c);
    const int64_t site = g * E.slab_sites + q, self = (l * E.slab_sites + q) * o;
    double ar = 0, ai = 0; // (H x)[self + i, col]
    if (!hm_stencil_vacant(&E, site)) {
      for (int b = 0; b < E.nblocks; b++) {
        int64_t w[3];
        double angle;
        const int64_t t = hm_stencil_target(&E, E.shift + 3 * b, c, w, &angle);
        if (t < 0) continue;
        if (E.vacancy_p > 0) {
          int64_t u[3];
          for (int a = 0; a < 3; a++) u[a] = c[a] + E.shift[3 * b + a] - w[a] * E.cells[a];
          if (hm_stencil_vacant(&E, u[0] + E.cells[0] * (u[1] + E.cells[1] * u[2]))) continue;
        }
        double fr = 1, fi = 0;
        if (angle != 0) sincos(angle, &fi, &fr);
        const double *blk = blocks + 2 * ((size_t)nblock_entries / E.nblocks * b + (size_t)i * o);
        const double2 *xr = reinterpret_cast<const double2 *>(x) + (size_t)t * k + col;
        for (int j = 0; j < o; j++) {
          double br = blk[2 * j] * fr - blk[2 * j + 1] * fi, bi = blk[2 * j] * fi + blk[2 * j + 1] * fr;
          if (E.has_peierls) {
            double ps, pc;
            sincospi(2 * hm_stencil_peierls_turns(&E, b, i, j, c, w), &ps, &pc);
            const double r2 = br * pc - bi * ps;
            bi = br * ps + bi * pc;
            br = r2;
          }
          const double2 xv = xr[(size_t)j * k];
          ar += br * xv.x - bi * xv.y;
          ai += br * xv.y + bi * xv.x;
        }
      }
      const double d = hm_stencil_disorder(&E, site, i);
      if (d != 0) {
        const double2 xv = reinterpret_cast<const double2 *>(x)[(size_t)(self + i) * k + col];
        ar += d * xv.x;
        ai += d * xv.y;
      }
    }
    double2 *out = reinterpret_cast<double2 *>(y) + (size_t)(self + i) * k + col;
    if (!Kpm) {
      *out = make_double2(ar, ai);
      continue;
    }
    const double2 v = reinterpret_cast<const double2 *>(x)[(size_t)(self + i) * k + col];
    const double2 old = *out;
    const double wr = 2.0 * s * (ar - bshift * v.x) - old.x, wm = 2.0 * s * (ai - bshift * v.y) - old.y;
    *out = make_double2(wr, wm);
    vv += v.x * v.x + v.y * v.y;
    wv += wr * v.x + wm * v.y;
  }
  if (!Kpm) return;
  // Per-column sums of the block, in a fixed order: thread c < k adds the threads of column c.
  __syncthreads();
  double *red = sh; // reused: the blocks are no longer read
  red[2 * threadIdx.x] = active ? vv : 0;
  red[2 * threadIdx.x + 1] = active ? wv : 0;
  __syncthreads();
  const int64_t block_id = (int64_t)blockIdx.y * gridDim.x + blockIdx.x;
  for (int c = threadIdx.x; c < k; c += blockDim.x) {
    double sv = 0, sw = 0;
    for (int t = 0; t < (int)blockDim.x; t++) {
      const int64_t et = (int64_t)blockIdx.y * blockDim.x + t;
      if (et % k == c) {
        sv += red[2 * t];
        sw += red[2 * t + 1];
      }
    }
    partial[block_id * 2 * k + c] = sv;
    partial[block_id * 2 * k + k + c] = sw;
  }
}

int list_of(const hm_stencil_exec *E, const int32_t *rows) {
  if (rows == &E->key[HM_STENCIL_INTERIOR]) return HM_STENCIL_INTERIOR;
  if (rows == &E->key[HM_STENCIL_BOUNDARY]) return HM_STENCIL_BOUNDARY;
  return -1;
}

int stencil_run(bool kpm, hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, double s, double b,
                const double *x, double *y, double *dots) {
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "the matrix-free lattice operator is complex; the block is real");
  const int list = list_of(E, rows);
  HM_CHECK(list >= 0, HM_ERR_ARGUMENT,
           "a matrix-free product was given a row list; it takes only the matrix's interior or boundary slabs");
  const Launch L = plan(*E, list, k);
  if (L.slabs == 0) return HM_SUCCESS;
  const size_t block_bytes = sizeof(double) * 2 * (size_t)E->nblocks * E->orbitals * E->orbitals;
  const int shared_blocks = block_bytes <= kSharedLimit;
  size_t shared = shared_blocks ? block_bytes : 0;
  if (kpm && shared < sizeof(double) * 2 * kThreads) shared = sizeof(double) * 2 * kThreads;
  HM_CHECK(L.ntiles * L.nzchunks < INT32_MAX, HM_ERR_ARGUMENT, "a slab plane of %lld sites is too large for one launch",
           (long long)E->slab_sites);
  dim3 grid((unsigned)(L.ntiles * L.nzchunks), (unsigned)L.chunks);
  if (kpm) {
    const size_t nparts = (size_t)grid.x * grid.y;
    HM_CALL(hm_device_buffer_grow(&scratch_buffer, nparts * 2 * k));
    stencil_kernel<true><<<grid, kThreads, shared>>>(*E, list, k, L.tile_sites, L.nzchunks, L.zchunk, L.slabs,
                                                     shared_blocks, s, b, x, y, scratch_buffer.p);
    HM_CHECK_LAUNCH("stencil kpm_step");
    HM_CALL(column_sums(true, (int)nparts, 2 * k, scratch_buffer.p, dots));
  } else {
    stencil_kernel<false><<<grid, kThreads, shared>>>(*E, list, k, L.tile_sites, L.nzchunks, L.zchunk, L.slabs,
                                                      shared_blocks, 0, 0, x, y, nullptr);
    HM_CHECK_LAUNCH("stencil spmmv");
  }
  return HM_SUCCESS;
}

} // namespace

int hm_cuda_stencil_spmmv(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, const double *x,
                          double *y) {
  HM_CALL(stencil_run(false, type, E, k, rows, 0, 0, x, y, nullptr));
  return HM_SUCCESS;
}

int hm_cuda_stencil_kpm_step(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, double s,
                             double b, const double *V, double *W, double *dots) {
  HM_CALL(stencil_run(true, type, E, k, rows, s, b, V, W, dots));
  return HM_SUCCESS;
}

void hm_stencil_cuda_release_state() { hm_device_buffer_free(&scratch_buffer); }
