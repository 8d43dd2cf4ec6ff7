// The launch shape and the dot sums the matrix-free lattice operator's per-site kernels share
// (stencil_cuda.cu, stencil_small_cuda.cu): a thread block owns a tile of consecutive sites of the
// slab plane and marches along a chunk of slabs; the KPM step's per-column dots of a block in a
// fixed order.
#ifndef HAMLET_STENCIL_LAUNCH_CUH
#define HAMLET_STENCIL_LAUNCH_CUH
#include "stencil_exec.h"

namespace {

constexpr int kStencilThreads = 256;
constexpr int64_t kStencilWantBlocks = 4096; // thread blocks per launch (balance; L2 band)

struct StencilLaunch {
  int64_t tile_sites, ntiles, zchunk, nzchunks, slabs;
  int chunks; // thread blocks per tile across the (orbital, column) entries
};

// Threads take `per_site_orbitals` times k entries of a site: the orbitals times k (one thread per
// entry) or k (one thread per site and column).
inline StencilLaunch stencil_plan(const hm_stencil_exec &E, int list, int k, int per_site_orbitals) {
  StencilLaunch L;
  L.slabs = hm_stencil_list_slabs(&E, list);
  const int64_t entries = (int64_t)per_site_orbitals * k;
  L.tile_sites = entries <= kStencilThreads ? kStencilThreads / entries : 1;
  if (L.tile_sites > E.slab_sites) L.tile_sites = E.slab_sites;
  L.chunks = entries <= kStencilThreads ? 1 : (int)((entries + kStencilThreads - 1) / kStencilThreads);
  L.ntiles = (E.slab_sites + L.tile_sites - 1) / L.tile_sites;
  hm_stencil_zchunks(L.slabs, L.ntiles, kStencilWantBlocks, &L.zchunk, &L.nzchunks);
  return L;
}

// Per-column sums of a thread block's dots in a fixed order into partial[block][2k]. Thread t holds
// column (blockIdx.y * blockDim + t) % k; where k divides 32 that is t % k, and a butterfly over the
// lanes of equal column leaves each warp's sums in lanes 0..k-1. red: 2 * blockDim doubles of
// shared memory no longer in use.
__device__ inline void block_column_sums(double vv, double wv, int k, double *red, double *partial) {
  __syncthreads();
  const int block_id = blockIdx.y * gridDim.x + blockIdx.x;
  if (32 % k == 0) {
    for (int off = 16; off >= k; off >>= 1) {
      vv += __shfl_xor_sync(0xffffffffu, vv, off);
      wv += __shfl_xor_sync(0xffffffffu, wv, off);
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    if (lane < k) {
      red[2 * (warp * k + lane)] = vv;
      red[2 * (warp * k + lane) + 1] = wv;
    }
    __syncthreads();
    if ((int)threadIdx.x < k) {
      double sv = 0, sw = 0;
      for (int v = 0; v < nwarps; v++) {
        sv += red[2 * (v * k + threadIdx.x)];
        sw += red[2 * (v * k + threadIdx.x) + 1];
      }
      partial[(int64_t)block_id * 2 * k + threadIdx.x] = sv;
      partial[(int64_t)block_id * 2 * k + k + threadIdx.x] = sw;
    }
    return;
  }
  red[2 * threadIdx.x] = vv;
  red[2 * threadIdx.x + 1] = wv;
  __syncthreads();
  for (int c = threadIdx.x; c < k; c += blockDim.x) {
    double sv = 0, sw = 0;
    for (int t = 0; t < (int)blockDim.x; t++) {
      if ((blockIdx.y * (int)blockDim.x + t) % k == c) {
        sv += red[2 * t];
        sw += red[2 * t + 1];
      }
    }
    partial[(int64_t)block_id * 2 * k + c] = sv;
    partial[(int64_t)block_id * 2 * k + k + c] = sw;
  }
}

} // namespace
#endif
