// The matrix-free lattice operator's fused KPM step W = 2 s (H V - b V) - W with its two dots, for
// cells of 4 orbitals, on the FP64 tensor cores: the stored block copy's warp-per-site product
// (block_cuda.cu, mma_f64.cuh) with the neighbour's rows found arithmetically (stencil_device.cuh)
// instead of read from an index, and the cell's blocks in shared memory.
//
// Why: the per-site kernel (stencil_cuda.cu) spends its issue slots on 448 scalar FMAs per site and
// column and reads the z neighbours' rows from DRAM again at large widths (1.83x the vectors-only
// floor at R = 32, bench/README.md); the tensor cores take the arithmetic, and the
// sites are walked as the TI builder walks its rows (physics/ti/ti_order.c): columns of tx x ty
// sites of the slab plane, each through all its slabs, so that a site's z neighbours were read a
// moment ago and are still in L2.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "column_sums.cuh"
#include "cuda_check.h"
#include "device_buffer.cuh"
#include "gpu_device.cuh"
#include "mma_f64.cuh"
#include "occupancy.cuh"
#include "stencil_device.cuh"
#include "stencil_mma_cuda.h"

namespace {

constexpr int kThreads = 256, kWarps = kThreads / 32, kMaxBlocks = 32;

hm_device_buffers scratch_buffer;  // per device
hm_per_device<int> compute_major; // 0: not asked yet

// Division of 32-bit numbers by a divisor fixed for a launch, by a multiply (Granlund and
// Montgomery): the walk's 64-bit divisions took more instructions than the site's products.
struct FastDiv {
  uint32_t d, mul, shift;
};

FastDiv fast_div(uint32_t d) {
  uint32_t l = 0;
  while (l < 32 && ((uint64_t)1 << l) < d) l++;
  const uint64_t mul = (((uint64_t)1 << 32) * (((uint64_t)1 << l) - d)) / d + 1;
  return {d, (uint32_t)mul, l};
}

__device__ inline uint32_t divide(uint32_t n, const FastDiv &f) {
  return (uint32_t)(((uint64_t)__umulhi(n, f.mul) + n) >> f.shift);
}

// The slab plane (px x py sites, padded to whole tiles) cut into columns of tx x ty sites, walked
// column by column, each through the list's `slabs` slabs; positions in the padding are skipped.
struct Walk {
  uint32_t px, py, slabs;
  FastDiv tile_row, tile_col, tile, tx; // positions per tile row, per tile, sites per tile plane, tx
  uint32_t tiles_x;
};

// Tile sizes as the TI builder cuts them (physics/ti/ti_order.c, measured): 16 x 16
// below a width of 32; from 32 on, a tile plane of at most 1152 sites and 2.25 MiB of rows. The
// tiles are evened out over the plane (200 x 100 at R = 32: 29 x 34), so the padding is small.
// Returns false where the walk's positions do not fit 32 bits.
bool walk_for(const hm_stencil_exec &E, int64_t slabs, int k, Walk *w) {
  const int64_t px = E.slow == 0 ? 1 : E.cells[0], py = E.slow == 2 ? E.cells[1] : 1;
  int64_t sites = 256;
  if (k >= 32) sites = std::min<int64_t>(1152, 2359296 / (64 * (int64_t)k));
  const int64_t side = std::max<int64_t>(1, (int64_t)std::sqrt((double)sites));
  const int64_t tiles_x = (px + side - 1) / side, tx = (px + tiles_x - 1) / tiles_x;
  const int64_t side_y = std::max<int64_t>(1, sites / tx);
  const int64_t tiles_y = (py + side_y - 1) / side_y, ty = (py + tiles_y - 1) / tiles_y;
  if (slabs < 1) slabs = 1; // (no divisor may be 0; a list without slabs is not launched)
  if (slabs * tiles_x * tx * tiles_y * ty >= ((int64_t)1 << 31)) return false;
  w->px = (uint32_t)px;
  w->py = (uint32_t)py;
  w->slabs = (uint32_t)slabs;
  w->tiles_x = (uint32_t)tiles_x;
  w->tile_row = fast_div((uint32_t)(slabs * ty * tiles_x * tx));
  w->tile_col = fast_div((uint32_t)(slabs * ty * tx));
  w->tile = fast_div((uint32_t)(tx * ty));
  w->tx = fast_div((uint32_t)tx);
  return true;
}

// Walk position g -> slab ordinal and plane coordinates; false in the padding.
__device__ inline bool walk_site(const Walk &W, uint32_t g, uint32_t *ordinal, uint32_t *x, uint32_t *y) {
  const uint32_t tile_row = divide(g, W.tile_row), r1 = g - tile_row * W.tile_row.d;
  const uint32_t tile_col = divide(r1, W.tile_col), r2 = r1 - tile_col * W.tile_col.d;
  *ordinal = divide(r2, W.tile);
  const uint32_t r3 = r2 - *ordinal * W.tile.d, yy = divide(r3, W.tx);
  *x = tile_col * W.tx.d + (r3 - yy * W.tx.d);
  *y = tile_row * (W.tile.d / W.tx.d) + yy;
  return *x < W.px && *y < W.py;
}

// One warp per site and 8 NT columns (blockIdx.y picks which); a persistent grid walks the sites.
template <int NT>
__global__ void __launch_bounds__(kThreads, 2)
    stencil_mma_kernel(hm_stencil_exec E, int list, int k, Walk walk, uint32_t positions, double s, double b,
                       const double *__restrict__ V, double *__restrict__ W, double *__restrict__ partials) {
  __shared__ double2 coef[kMaxBlocks * 32]; // block bb, lane L: the pair-0 and pair-1 coefficients
  __shared__ int64_t delta[kMaxBlocks];
  __shared__ double sums[kWarps][2][8 * NT];
  for (int e = threadIdx.x; e < E.nblocks * 32; e += blockDim.x) {
    const double *entries = E.block + 32 * (e / 32);
    coef[e] = make_double2(hm_mma_coefficient(entries, e % 32, 0), hm_mma_coefficient(entries, e % 32, 1));
  }
  for (int e = threadIdx.x; e < E.nblocks; e += blockDim.x) delta[e] = E.hop_delta[e];
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int m = lane >> 2, q = lane & 3, r = m & 3, part = m >> 2, jq = q >> 1;
  // after the product a lane holds whole complex entries of row r, column cl (see below)
  const int c0 = blockIdx.y * 8 * NT, cl = 2 * q + part;
  const bool interior = list == HM_STENCIL_INTERIOR;
  const double2 *V2 = reinterpret_cast<const double2 *>(V);
  double2 *W2 = reinterpret_cast<double2 *>(W);
  double vv[NT] = {}, wv[NT] = {};
  for (uint32_t g = blockIdx.x * kWarps + warp; g < positions; g += gridDim.x * kWarps) {
    uint32_t ordinal, x, y;
    if (!walk_site(walk, g, &ordinal, &x, &y)) continue; // the same for the whole warp: one site
    const int64_t l = slab_at(E, list, ordinal), slab = E.first_slab + l, qs = (int64_t)y * walk.px + x;
    int64_t c[3] = {x, y, 0};
    if (E.slow < 2) c[1] = 0;
    c[E.slow] = slab;
    const int64_t self = (l * E.slab_sites + qs) * 4, row = self + r;
#pragma unroll
    for (int t = 0; t < NT; t++) asm volatile("prefetch.global.L2 [%0];" ::"l"(W2 + (size_t)row * k + c0 + 8 * t + cl));
    double acc[NT][2];
#pragma unroll
    for (int t = 0; t < NT; t++) acc[t][0] = acc[t][1] = 0;
    for (int bb = 0; bb < E.nblocks; bb++) {
      int64_t wrap[3];
      double angle; // 0: no twists on this path
      const int64_t target = hop_target(E, bb, c, self, delta, interior, wrap, &angle);
      if (target < 0) continue; // the same for the whole warp: one site
      const double2 a = coef[32 * bb + lane];
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const double *xrow = V + ((size_t)(target + 2 * h + jq) * k + c0 + m) * 2 + (q & 1);
#pragma unroll
        for (int t = 0; t < NT; t++) mma_f64(acc[t][0], acc[t][1], h ? a.y : a.x, __ldg(xrow + 16 * t));
      }
    }
    const double d = hm_stencil_disorder(&E, slab * E.slab_sites + qs, r);
    // lanes m and m ^ 4 (lane ^ 16) hold the real and the imaginary parts of row r, columns 2 q and
    // 2 q + 1: they swap halves, so that each updates whole entries with 16-byte loads and stores
#pragma unroll
    for (int t = 0; t < NT; t++) {
      const double o0 = __shfl_xor_sync(0xffffffffu, acc[t][0], 16), o1 = __shfl_xor_sync(0xffffffffu, acc[t][1], 16);
      const double2 y = part ? make_double2(o1, acc[t][1]) : make_double2(acc[t][0], o0);
      const size_t at = (size_t)row * k + c0 + 8 * t + cl;
      const double2 v = __ldg(&V2[at]), w = W2[at];
      const double2 wn = make_double2(2.0 * s * (y.x + (d - b) * v.x) - w.x, 2.0 * s * (y.y + (d - b) * v.y) - w.y);
      W2[at] = wn;
      vv[t] += v.x * v.x + v.y * v.y;
      wv[t] += wn.x * v.x + wn.y * v.y;
    }
  }
  mma_block_dots<NT>(vv, wv, sums, kWarps, c0, k, 8 * NT, partials);
}

template <int NT>
int launch(const hm_stencil_exec *E, int list, int k, double s, double b, const double *V, double *W, double *dots) {
  const int64_t slabs = hm_stencil_list_slabs(E, list);
  if (slabs == 0) return HM_SUCCESS;
  Walk walk;
  HM_CHECK(walk_for(*E, slabs, k, &walk), HM_ERR_INTERNAL, "the tensor-core walk does not fit 32 bits");
  const uint32_t positions = walk.tile_row.d * ((walk.py + walk.tile.d / walk.tx.d - 1) / (walk.tile.d / walk.tx.d));
  const int chunks = k / (8 * NT);
  int per_sm = 1, sms = 1;
  HM_CALL(resident_blocks((const void *)stencil_mma_kernel<NT>, kThreads, kCarveoutUnset, &per_sm, &sms));
  const int64_t need = ((int64_t)positions + kWarps - 1) / kWarps;
  const int grid = (int)std::max<int64_t>(1, std::min<int64_t>(need, (int64_t)per_sm * sms / chunks));
  HM_CALL(hm_device_buffer_grow(&scratch_buffer, (size_t)grid * 2 * k));
  stencil_mma_kernel<NT><<<dim3(grid, chunks), kThreads>>>(*E, list, k, walk, positions, s, b, V, W, scratch_buffer.p);
  HM_CHECK_LAUNCH("stencil kpm_step (tensor cores)");
  HM_CALL(column_sums(true, grid, 2 * k, scratch_buffer.p, dots));
  return HM_SUCCESS;
}

// The operator's kernel choice: site or small (never this path), mma (at every width it serves),
// else auto.
int kernel_choice(const hm_stencil_exec *E) {
  return E->kernel == HM_STENCIL_KERNEL_SITE || E->kernel == HM_STENCIL_KERNEL_SMALL ? 0
         : E->kernel == HM_STENCIL_KERNEL_MMA                                     ? 2
                                                                                  : 1;
}

} // namespace

bool hm_cuda_stencil_mma_applies(const hm_stencil_exec *E, int k) {
  const int choice = kernel_choice(E);
  if (choice == 0 || E->real || E->orbitals != 4 || /* complex vectors only */ E->has_peierls || E->vacancy_p > 0 || E->nblocks > kMaxBlocks || k % 8)
    return false;
  for (int a = 0; a < 3; a++)
    if (E->boundary[a] == 2) return false; // twisted: a phase on the neighbour's values
  // measured on the H200 (bench/README.md): 19-25% faster than the per-site kernel at
  // R = 32 and 64, slower at 8 and 16
  if (choice == 1 && k % 32) return false;
  Walk walk;
  if (!walk_for(*E, E->local_slabs, k, &walk)) return false; // more sites than 32-bit positions hold
  int &major = compute_major.here();
  if (major == 0) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
      major = -1;
  }
  return major >= 8;
}

int hm_cuda_stencil_mma_kpm_step(const hm_stencil_exec *E, int list, int k, double s, double b, const double *V,
                                 double *W, double *dots) {
  if (k % 32 == 0) return launch<4>(E, list, k, s, b, V, W, dots);
  if (k % 16 == 0) return launch<2>(E, list, k, s, b, V, W, dots);
  return launch<1>(E, list, k, s, b, V, W, dots);
}

void hm_stencil_mma_cuda_release_state() { hm_device_buffer_free(&scratch_buffer); }
