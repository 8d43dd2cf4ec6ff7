// The CUDA kernel table (see linalg/core/kernels.h). Block vectors are row-major with k columns,
// so thread (row group, column) pairs read a matrix entry once per row (a broadcast within the
// warp) and k adjacent vector entries (coalesced). The KPM step fuses the product, the update
// W = 2 s (A - b) V - W and both dot products: per-block partial sums in shared memory, then one
// tiny kernel adds the blocks in a fixed order (deterministic, no atomics on doubles).
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>
#include <cuda_runtime.h>
#include "gpu_state.h"
#include "gpu_device.cuh"
#include "async_upload.cuh"
#include "column_sums.cuh"
#include "cuda_check.h"
#include "device_buffer.cuh"
#include "device_memory_count.h"
#include "host_to_device.h"
#include "kernels.h"
#include "stencil_cuda.h"
#include "kernels_cuda_block.h"
#include "kernels_cuda_idr.h"
#include "kernels_cuda_peer.h"
#include "random.h"
#include "sell_cuda.h"

namespace {

constexpr int kThreads = 256;   // threads per block
constexpr int kMaxBlocks = 2048; // grid-stride beyond this

// Block shape for k columns: G lanes share one (row, column) pair's entries (narrow blocks, where
// one thread per pair would read the matrix uncoalesced), KC columns per block (a column chunk),
// RB rows (a power of two).
constexpr int kLanes = 8; // lanes per pair for k <= kNarrow
constexpr int kNarrow = 1; // measured: lanes help k = 1 (SpMV 852 -> 457 us) and hurt k = 4

struct Shape {
  int lanes, kc, rb, chunks, blocks;
  int group, iters; // product kernels: tiles of rb rows in groups of blocks (see tile_base)
};

// Traversal of the row list by the product kernels. The list is in the builder's cache-friendly
// order (a row's neighbours a few thousand positions away), so the blocks running at one time
// should work on nearby positions: `group` blocks (about the resident blocks) share a range of
// group * iters tiles, block j taking tiles j, j + group, ...; groups start in block order. A grid
// stride over the whole list (the old launch, 2048 blocks) spreads the running blocks over all of
// it. Measured on the H100, TI lattice, R = 32 (bench_kpm_gpu --traversal): 96.8 us per
// vector-step with these defaults, 116 with the old stride, 99-103 for other groups and tiles.
int traversal_group = 264, traversal_iters = 16;

// Lanes per pair for kernels that take row products (the others use one thread per pair).
int product_lanes(int k) { return k <= kNarrow ? kLanes : 1; }

Shape shape_for(int k, int32_t nrows, int lanes) {
  Shape s;
  s.lanes = lanes;
  const int pairs = kThreads / s.lanes;
  s.kc = k < pairs ? k : pairs;
  s.rb = 1;
  while (s.kc * s.rb * 2 <= pairs) s.rb *= 2;
  s.chunks = (k + s.kc - 1) / s.kc;
  int64_t need = ((int64_t)nrows + s.rb - 1) / s.rb;
  s.blocks = (int)(need < kMaxBlocks ? (need > 0 ? need : 1) : kMaxBlocks);
  s.group = s.iters = 0; // product_shape's
  return s;
}

// The shape of a product kernel: whole groups of blocks over the tiles (the last group may have
// idle blocks; they write zero partial sums).
Shape product_shape(int k, int32_t nrows, int lanes) {
  Shape s = shape_for(k, nrows, lanes);
  const int64_t tiles = ((int64_t)nrows + s.rb - 1) / s.rb;
  s.iters = traversal_iters;
  s.group = (int)(tiles < traversal_group ? (tiles > 0 ? tiles : 1) : traversal_group);
  const int64_t per_group = (int64_t)s.group * s.iters, groups = (tiles + per_group - 1) / per_group;
  s.blocks = (int)((groups > 0 ? groups : 1) * s.group);
  return s;
}

// First row-list position of this block's first tile; tile t starts group * rb positions later.
__device__ inline int64_t tile_base(int rb, int group, int iters) {
  const int64_t g = blockIdx.x / group, j = blockIdx.x % group;
  return (g * iters * group + j) * rb;
}

// Register cap of the complex one-thread-per-pair KPM kernel (hm_cuda_csr_min_blocks): 1 = none.
int csr_min_blocks = 4;

// Scratch device memory for partial sums and scalars, grown on demand, kept per device.
hm_device_buffers scratch_buffer;
double *scratch = nullptr;

int scratch_at_least(size_t n) {
  HM_CALL(hm_device_buffer_grow(&scratch_buffer, n));
  scratch = scratch_buffer.p;
  return HM_SUCCESS;
}

// Sum over the G lanes of a pair (all 32 threads of the warp take part: G divides 32).
template <int G>
__device__ inline double lane_sum(double v) {
#pragma unroll
  for (int off = G / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// A list position's row and its entries [begin, end).
struct RowEntries {
  int32_t row;
  int64_t begin, end;
};

__device__ inline RowEntries row_entries(int32_t q, const int32_t *rows, const int64_t *rowptr) {
  const int32_t i = rows[q];
  return {i, rowptr[i], rowptr[i + 1]};
}

// Row product of complex A with column c of V, sum_p a_p * V[col_p][c], lane `lane` of G taking
// every G-th entry; every lane gets the sum. Inactive pairs (active = false) still shuffle.
template <int G>
__device__ inline double2 row_product_c(const RowEntries &e, const int32_t *col, const double2 *val, const double2 *V,
                                        int k, int c, int lane, bool active) {
  double re = 0, im = 0;
  if (active) {
#pragma unroll 4
    for (int64_t p = e.begin + lane; p < e.end; p += G) {
      const double2 a = val[p];
      const double2 x = V[(size_t)col[p] * k + c];
      re = fma(a.x, x.x, fma(-a.y, x.y, re));
      im = fma(a.x, x.y, fma(a.y, x.x, im));
    }
  }
  return make_double2(lane_sum<G>(re), lane_sum<G>(im));
}

template <int G>
__device__ inline double row_product_r(const RowEntries &e, const int32_t *col, const double *val, const double *V,
                                       int k, int c, int lane, bool active) {
  double acc = 0;
  if (active) {
#pragma unroll 4
    for (int64_t p = e.begin + lane; p < e.end; p += G) acc = fma(val[p], V[(size_t)col[p] * k + c], acc);
  }
  return lane_sum<G>(acc);
}

// Tree-reduce the two sums of each pair over the rb rows of the block (lane 0 of each pair holds
// them), write one partial per column.
template <int G>
__device__ inline void block_partials(double vv, double wv, int kc, int rb, int k, int c, double *partials) {
  extern __shared__ double sh[];
  const int lane = threadIdx.x % G, t = threadIdx.x / G, n = blockDim.x / G, rl = t / kc;
  if (lane == 0) {
    sh[t] = vv;
    sh[n + t] = wv;
  }
  __syncthreads();
  for (int s = rb / 2; s > 0; s >>= 1) {
    if (lane == 0 && rl < s) {
      sh[t] += sh[t + s * kc];
      sh[n + t] += sh[n + t + s * kc];
    }
    __syncthreads();
  }
  if (lane == 0 && rl == 0 && c < k) {
    partials[(size_t)blockIdx.x * 2 * k + c] = sh[t];
    partials[(size_t)blockIdx.x * 2 * k + k + c] = sh[n + t];
  }
}

// Thread -> (lane, row in block, column): lanes innermost, then columns, then rows.
#define HM_PAIR_INDEX                                                          \
  const int lane = threadIdx.x % G, pair = threadIdx.x / G;                    \
  const int rl = pair / kc, c = blockIdx.y * kc + pair % kc

// __launch_bounds__(256, 1) leaves the compiler free to use more registers than the 64 it caps a
// kernel of unknown block size at: measured on the H100 (2026-11-23), R = 32 went 151.6 -> 107.9 us
// per vector-step. Since the traversal change it takes 68 registers uncapped (3 blocks per SM), and
// MinBlocks 4 caps it at 64 without spills: R = 32 114 -> 96.7 us (MinBlocks 8 spills: 190).
template <int G, bool Complex, int MinBlocks = 1>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    kpm_step_kernel(int32_t nrows, const int32_t *rows, const int64_t *rowptr,
                    const int32_t *col, const double *val, int k, int kc, int rb, int group, int iters, double s,
                    double b, const double *V, double *W, double *partials) {
  HM_PAIR_INDEX;
  double vv = 0, wv = 0;
  // The trip count is the same for the whole block, so every lane reaches every shuffle.
  const int64_t first = tile_base(rb, group, iters), step = (int64_t)group * rb;
  for (int t = 0; t < iters; t++) {
    const int64_t base = first + t * step;
    if (base >= nrows) break;
    const int32_t q = (int32_t)(base + rl);
    const bool active = q < nrows && c < k, owner = active && lane == 0;
    const RowEntries e = active ? row_entries(q, rows, rowptr) : RowEntries{0, 0, 0};
    const size_t at = (size_t)e.row * k + c;
    // The row's own V and W entries are loaded before the product, so that they are in flight
    // with its loads (measured on the H100: R = 32 107.8 -> 95.3 us per vector-step). Tried and
    // slower: the next tile's row and offsets loaded during this one (103), entries passed by
    // shuffles (107), 8 or 16 entries per unrolled pass (107-200), 3 blocks per SM (107).
    if (Complex) {
      double2 v = make_double2(0, 0), w = v;
      if (owner) {
        v = ((const double2 *)V)[at];
        w = ((const double2 *)W)[at];
      }
      const double2 acc = row_product_c<G>(e, col, (const double2 *)val, (const double2 *)V, k, c, lane, active);
      if (owner) {
        const double2 wn = make_double2(2.0 * s * (acc.x - b * v.x) - w.x, 2.0 * s * (acc.y - b * v.y) - w.y);
        ((double2 *)W)[at] = wn;
        vv += v.x * v.x + v.y * v.y;
        wv += wn.x * v.x + wn.y * v.y;
      }
    } else {
      double v = 0, w = 0;
      if (owner) {
        v = V[at];
        w = W[at];
      }
      const double acc = row_product_r<G>(e, col, val, V, k, c, lane, active);
      if (owner) {
        const double wn = 2.0 * s * (acc - b * v) - w;
        W[at] = wn;
        vv += v * v;
        wv += wn * v;
      }
    }
  }
  block_partials<G>(vv, wv, kc, rb, k, c, partials);
}

template <int G, bool Complex>
__global__ void __launch_bounds__(kThreads, 1)
    spmmv_kernel(int32_t nrows, const int32_t *rows, const int64_t *rowptr,
                 const int32_t *col, const double *val, int k, int kc, int rb, int group, int iters, const double *x,
                 double *y) {
  HM_PAIR_INDEX;
  const int64_t first = tile_base(rb, group, iters), step = (int64_t)group * rb;
  for (int t = 0; t < iters; t++) {
    const int64_t base = first + t * step;
    if (base >= nrows) break;
    const int32_t q = (int32_t)(base + rl);
    const bool active = q < nrows && c < k;
    const RowEntries e = active ? row_entries(q, rows, rowptr) : RowEntries{0, 0, 0};
    if (Complex) {
      const double2 acc = row_product_c<G>(e, col, (const double2 *)val, (const double2 *)x, k, c, lane, active);
      if (active && lane == 0) ((double2 *)y)[(size_t)e.row * k + c] = acc;
    } else {
      const double acc = row_product_r<G>(e, col, val, x, k, c, lane, active);
      if (active && lane == 0) y[(size_t)e.row * k + c] = acc;
    }
  }
}

// Column dots conj(x) y over n rows: the same block reduction, real and imaginary parts as the
// two sums (for real data the second is zero).
template <bool Complex>
__global__ void dot_kernel(int64_t n, int k, int kc, int rb, const double *x, const double *y, double *partials) {
  const int rl = threadIdx.x / kc, c = blockIdx.y * kc + threadIdx.x % kc;
  double re = 0, im = 0;
  if (c < k)
    for (int64_t i = blockIdx.x * (int64_t)rb + rl; i < n; i += (int64_t)gridDim.x * rb) {
      const size_t at = (size_t)i * k + c;
      if (Complex) {
        const double2 a = ((const double2 *)x)[at], bb = ((const double2 *)y)[at];
        re += a.x * bb.x + a.y * bb.y;
        im += a.x * bb.y - a.y * bb.x;
      } else {
        re += x[at] * y[at];
      }
    }
  block_partials<1>(re, im, kc, rb, k, c, partials);
}

template <bool Complex>
__global__ void axpby_kernel(int64_t n, int k, const double *alpha, const double *beta, const double *x, double *y) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * k; e += (int64_t)gridDim.x * blockDim.x) {
    const int j = (int)(e % k);
    if (Complex) {
      const double2 a = ((const double2 *)alpha)[j], bt = ((const double2 *)beta)[j];
      const double2 xv = ((const double2 *)x)[e], yv = ((double2 *)y)[e];
      const double2 by = bt.x != 0 || bt.y != 0 ? make_double2(bt.x * yv.x - bt.y * yv.y, bt.x * yv.y + bt.y * yv.x)
                                                 : make_double2(0, 0); // beta = 0: y is not read (BLAS)
      ((double2 *)y)[e] = make_double2(a.x * xv.x - a.y * xv.y + by.x, a.x * xv.y + a.y * xv.x + by.y);
    } else {
      y[e] = alpha[j] * x[e] + (beta[j] != 0 ? beta[j] * y[e] : 0);
    }
  }
}

// The random-phase block (hm_mvec_random_phase), entry by entry as on the host (random.h).
__global__ void random_phase_kernel(bool complex_, int64_t first, int64_t n, int k, int col0, uint64_t seed,
                                    double *data) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * k; e += (int64_t)gridDim.x * blockDim.x)
    hm_random_phase_entry(seed, (uint64_t)(col0 + e % k), (uint64_t)(first + e / k), complex_,
                          data + (complex_ ? 2 : 1) * e);
}

// The Gaussian block (hm_mvec_random_gauss), entry by entry as on the host (random.h).
__global__ void random_gauss_kernel(bool complex_, int64_t first, int64_t n, int k, int col0, uint64_t seed,
                                    double *data) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * k; e += (int64_t)gridDim.x * blockDim.x)
    hm_random_gauss_entry(seed, (uint64_t)(col0 + e % k), (uint64_t)(first + e / k), complex_,
                          data + (complex_ ? 2 : 1) * e);
}

__global__ void pack_kernel(int64_t len, const int32_t *rows, int32_t n, const double *x, double *buf) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (int64_t)n * len;
       e += (int64_t)gridDim.x * blockDim.x)
    buf[e] = x[(size_t)rows[e / len] * len + e % len];
}

int grid_for(int64_t elements) {
  int64_t b = (elements + kThreads - 1) / kThreads;
  return (int)(b < kMaxBlocks ? (b > 0 ? b : 1) : kMaxBlocks);
}

// ---- the table's functions ----

int cuda_alloc(size_t bytes, void **p) {
  *p = nullptr;
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_b = 0, total = 0;
    cudaMemGetInfo(&free_b, &total);
    HM_RAISE(HM_ERR_MEMORY, "out of device memory: %zu bytes asked, %zu of %zu free", bytes, free_b, total);
  }
  HM_CALL_CUDA(e);
  hm_device_memory_count_alloc(*p, bytes);
  HM_CALL_CUDA(cudaMemset(*p, 0, bytes ? bytes : 1));
  return HM_SUCCESS;
}

void cuda_release(void *p) {
  if (!p) return;
  hm_device_memory_count_release(p);
  cudaFree(p);
}

int cuda_upload(void *dst, const void *src, size_t bytes) {
  HM_CALL(hm_cuda_upload_bytes(dst, src, bytes));
  return HM_SUCCESS;
}

int cuda_download(void *dst, const void *src, size_t bytes) {
  if (bytes) HM_CALL_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  return HM_SUCCESS;
}

int cuda_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) HM_CALL_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  return HM_SUCCESS;
}

int cuda_host_alloc(size_t bytes, void **p) {
  *p = nullptr;
  HM_CALL_CUDA(cudaMallocHost(p, bytes ? bytes : 1));
  memset(*p, 0, bytes ? bytes : 1);
  return HM_SUCCESS;
}

void cuda_host_release(void *p) { cudaFreeHost(p); }

int cuda_spmmv(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
               const double *x, double *y) {
  if (A->stencil) return hm_cuda_stencil_spmmv(type, A->stencil, k, rows, x, y);
  if (nrows == 0) return HM_SUCCESS;
  if (A->format) { // the SELL copy of this row list, where prepare made one
    int done = 0;
    HM_CALL(hm_cuda_sell_spmmv(A->format, type, k, rows, nrows, x, y, &done));
    if (done) return HM_SUCCESS;
  }
  Shape s = product_shape(k, nrows, product_lanes(k));
  dim3 grid(s.blocks, s.chunks);
  const int threads = s.lanes * s.kc * s.rb;
#define HM_LAUNCH(G, C)                                                                                  \
  spmmv_kernel<G, C><<<grid, threads>>>(nrows, rows, A->rowptr, A->col, A->val, k, s.kc, s.rb, s.group, \
                                        s.iters, x, y)
  if (s.lanes == kLanes) {
    if (type == HM_COMPLEX) HM_LAUNCH(kLanes, true); else HM_LAUNCH(kLanes, false);
  } else {
    if (type == HM_COMPLEX) HM_LAUNCH(1, true); else HM_LAUNCH(1, false);
  }
#undef HM_LAUNCH
  HM_CHECK_LAUNCH("spmmv");
  return HM_SUCCESS;
}

int cuda_kpm_step(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
                  double scale, double shift, const double *V, double *W, double *dots) {
  if (A->stencil) return hm_cuda_stencil_kpm_step(type, A->stencil, k, rows, scale, shift, V, W, dots);
  if (nrows == 0) return HM_SUCCESS;
  if (A->format) {
    int done = 0;
    HM_CALL(hm_cuda_sell_kpm_step(A->format, type, k, rows, nrows, scale, shift, V, W, dots, &done));
    if (done) return HM_SUCCESS;
  }
  Shape s = product_shape(k, nrows, product_lanes(k));
  HM_CALL(scratch_at_least((size_t)s.blocks * 2 * k));
  dim3 grid(s.blocks, s.chunks);
  const int threads = s.lanes * s.kc * s.rb;
  const size_t shared = 2 * sizeof(double) * s.kc * s.rb;
#define HM_LAUNCH(G, C, MB)                                                                                      \
  kpm_step_kernel<G, C, MB><<<grid, threads, shared>>>(nrows, rows, A->rowptr, A->col, A->val, k, s.kc, s.rb, \
                                                       s.group, s.iters, scale, shift, V, W, scratch)
  if (s.lanes == 1 && type == HM_COMPLEX && csr_min_blocks >= 4) {
    if (csr_min_blocks >= 8) HM_LAUNCH(1, true, 8); else HM_LAUNCH(1, true, 4);
  } else if (s.lanes == kLanes) {
    if (type == HM_COMPLEX) HM_LAUNCH(kLanes, true, 1); else HM_LAUNCH(kLanes, false, 1);
  } else {
    if (type == HM_COMPLEX) HM_LAUNCH(1, true, 1); else HM_LAUNCH(1, false, 1);
  }
#undef HM_LAUNCH
  HM_CHECK_LAUNCH("kpm_step");
  HM_CALL(column_sums(true, s.blocks, 2 * k, scratch, dots));
  return HM_SUCCESS;
}

int cuda_dot(hm_scalar type, int64_t n, int k, const double *x, const double *y, double *dots) {
  Shape s = shape_for(k, (int32_t)(n < INT32_MAX ? n : INT32_MAX), 1);
  HM_CALL(scratch_at_least((size_t)s.blocks * 2 * k + 2 * (size_t)k));
  double *sums = scratch + (size_t)s.blocks * 2 * k;
  dim3 grid(s.blocks, s.chunks);
  const int threads = s.kc * s.rb;
  const size_t shared = 2 * sizeof(double) * threads;
  if (type == HM_COMPLEX) dot_kernel<true><<<grid, threads, shared>>>(n, k, s.kc, s.rb, x, y, scratch);
  else dot_kernel<false><<<grid, threads, shared>>>(n, k, s.kc, s.rb, x, y, scratch);
  HM_CHECK_LAUNCH("dot");
  HM_CALL(column_sums(false, s.blocks, 2 * k, scratch, sums));
  double *host = new double[2 * (size_t)k];
  cudaError_t e = cudaMemcpy(host, sums, 2 * sizeof(double) * k, cudaMemcpyDeviceToHost);
  for (int j = 0; j < k && e == cudaSuccess; j++) { // (re parts, im parts) -> the scalars' layout
    if (type == HM_COMPLEX) {
      dots[2 * j] = host[j];
      dots[2 * j + 1] = host[k + j];
    } else {
      dots[j] = host[j];
    }
  }
  delete[] host;
  HM_CALL_CUDA(e);
  return HM_SUCCESS;
}

int cuda_axpby(hm_scalar type, int64_t n, int k, const double *alpha, const double *x, const double *beta, double *y) {
  const size_t m = (size_t)k * type;
  HM_CALL(scratch_at_least(2 * m));
  HM_CALL(upload_async(scratch, alpha, m, beta, m));
  if (type == HM_COMPLEX) axpby_kernel<true><<<grid_for(n * k), kThreads>>>(n, k, scratch, scratch + m, x, y);
  else axpby_kernel<false><<<grid_for(n * k), kThreads>>>(n, k, scratch, scratch + m, x, y);
  HM_CHECK_LAUNCH("axpby");
  return HM_SUCCESS;
}

int cuda_random_phase(hm_scalar type, int64_t first, int64_t n, int k, int col0, uint64_t seed, double *data) {
  if (n == 0 || k == 0) return HM_SUCCESS;
  random_phase_kernel<<<grid_for(n * k), kThreads>>>(type == HM_COMPLEX, first, n, k, col0, seed, data);
  HM_CHECK_LAUNCH("random_phase");
  return HM_SUCCESS;
}

int cuda_random_gauss(hm_scalar type, int64_t first, int64_t n, int k, int col0, uint64_t seed, double *data) {
  if (n == 0 || k == 0) return HM_SUCCESS;
  random_gauss_kernel<<<grid_for(n * k), kThreads>>>(type == HM_COMPLEX, first, n, k, col0, seed, data);
  HM_CHECK_LAUNCH("random_gauss");
  return HM_SUCCESS;
}

int cuda_pack_rows(hm_scalar type, int k, const int32_t *rows, int32_t n, const double *x, double *buf) {
  if (n == 0) return HM_SUCCESS;
  const int64_t len = (int64_t)k * type;
  pack_kernel<<<grid_for(n * len), kThreads>>>(len, rows, n, x, buf);
  HM_CHECK_LAUNCH("pack_rows");
  return HM_SUCCESS;
}

// F called on device D: the entry of device D's table (one integer compare when D is current).
template <int D, auto F> struct OnDevice;
template <int D, class R, class... A, R (*F)(A...)> struct OnDevice<D, F> {
  static R call(A... a) {
    if constexpr (std::is_void_v<R>) {
      if (hm_gpu_enter_device(D) == HM_SUCCESS) F(a...);
    } else {
      const int st = hm_gpu_enter_device(D);
      if (st != HM_SUCCESS) return st;
      return F(a...);
    }
  }
};

// Filled by name, so that entries added to hm_kernels elsewhere start as NULL here. Each entry of
// device D's table makes D current before it runs.
template <int D> hm_kernels make_table() {
#define ON(f) OnDevice<D, f>::call
  hm_kernels t = {};
  t.name = "cuda";
  t.device_memory = 1;
  t.alloc = ON(cuda_alloc);
  t.release = ON(cuda_release);
  t.upload = ON(cuda_upload);
  t.download = ON(cuda_download);
  t.copy = ON(cuda_copy);
  t.host_alloc = ON(cuda_host_alloc);
  t.host_release = ON(cuda_host_release);
  t.spmmv = ON(cuda_spmmv);
  t.kpm_step = ON(cuda_kpm_step);
  t.dot = ON(cuda_dot);
  t.axpby = ON(cuda_axpby);
  t.pack_rows = ON(cuda_pack_rows);
  t.gram = ON(hm_cuda_gram); // kernels_cuda_block.cu
  t.block_update = ON(hm_cuda_block_update);
  t.copy_columns = ON(hm_cuda_copy_columns);
  t.scale_rows = ON(hm_cuda_scale_rows);
  t.ritz_residual = ON(hm_cuda_ritz_residual);
  t.gram_columns = ON(hm_cuda_gram_columns);
  t.series_accumulate = ON(hm_cuda_series_accumulate);
  t.prepare = ON(hm_cuda_prepare); // sell_cuda.cu
  t.unprepare = ON(hm_cuda_unprepare);
  t.format_info = ON(hm_cuda_sell_info);
  t.block_info = ON(hm_cuda_sell_block_info);
  t.idr_combine = ON(hm_cuda_idr_combine); // kernels_cuda_idr.cu
  t.idr_update = ON(hm_cuda_idr_update);
  t.idr_multidot = ON(hm_cuda_idr_multidot);
  t.idr_shift_update = ON(hm_cuda_idr_shift_update);
  t.peer_export = ON(hm_cuda_peer_export); // peer_cuda.cu
  t.peer_open = ON(hm_cuda_peer_open);
  t.peer_close = ON(hm_cuda_peer_close);
  t.peer_read = ON(hm_cuda_peer_read);
  t.synchronize = ON(hm_cuda_synchronize);
  t.random_phase = ON(cuda_random_phase);
  t.random_gauss = ON(cuda_random_gauss);
  return t;
#undef ON
}

template <size_t... D> std::array<hm_kernels, sizeof...(D)> make_tables(std::index_sequence<D...>) {
  return {make_table<(int)D>()...};
}

const std::array<hm_kernels, kGpuMaxDevices> tables = make_tables(std::make_index_sequence<kGpuMaxDevices>());

}  // namespace

extern "C" const hm_kernels *hm_kernels_cuda(void) { return &tables[hm_gpu_current_device()]; }

extern "C" const hm_kernels *hm_kernels_cuda_on(int device) {
  return device >= 0 && device < kGpuMaxDevices ? &tables[device] : nullptr;
}

extern "C" void hm_cuda_csr_traversal(int set_group, int set_iters, int *group, int *iters) {
  if (group) *group = traversal_group;
  if (iters) *iters = traversal_iters;
  if (set_group > 0) traversal_group = set_group;
  if (set_iters > 0) traversal_iters = set_iters;
}

extern "C" void hm_cuda_csr_min_blocks(int set, int *get) {
  if (get) *get = csr_min_blocks;
  if (set > 0) csr_min_blocks = set >= 8 ? 8 : set >= 4 ? 4 : 1;
}

void hm_kernels_cuda_release_state() {
  hm_device_buffer_free(&scratch_buffer);
  scratch = nullptr;
  upload_slots_release();
}
