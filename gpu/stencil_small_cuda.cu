// The matrix-free lattice operator's y = H x and fused KPM step for cells of few orbitals (O = 1, 2
// or 4), in complex or real arithmetic (E.real: real blocks and columns, half the traffic):
// graphene-like lattices (sparse blocks, few shifts) and Wannier-like models (dense blocks on many
// shifts). Chosen for 1 and 2 orbitals (hm_small_serves, stencil_small_plan.h) where the box kernel
// (stencil_box_cuda.cu: hops within one cell, a multiple of 8 vectors) does not serve. One thread
// per (site, column) for all O orbitals of the site, the launch shape of the per-site kernel
// (stencil_launch.cuh). What it does differently, each for a measured cost of that kernel on these
// models (bench/README.md):
//  - a site's in-plane cell coordinates are found once, not once per slab (a 64-bit division);
//  - one test per site and slab decides that no hop of the cell wraps or leaves the local slabs
//    (the cell's reach per axis, from its shifts); such sites (all but the faces) add each block's
//    precomputed row offset, with no per-block wrap tests; the faces, vacancies and twists take the
//    general arithmetic of stencil_exec.h exactly as the per-site kernel does;
//  - a block's zero columns are not loaded and its zero entries not multiplied (graphene's five
//    2 x 2 blocks hold 6 non-zero entries of 20), from bit masks made once per thread block;
//  - the next block's neighbour row is loaded before the current block is multiplied;
//  - a thread block owns a tile of the plane (8 x 4 sites at 8 or more columns; rows of 32 and
//    more sites in the plane of a 2D lattice) and a chunk of at most 8 columns (one 128-byte line
//    of a row), and marches along its slabs: the rows its neighbours' hops read (the tile's halo in
//    the plane, the slabs before and after) are mostly its own recent loads, in L1, where the
//    per-site kernel's tiles (8 sites of one x row, all columns) re-read every y and z neighbour's
//    row from L2 (Wannier models: 16 of 19 blocks). HAMLET_STENCIL_TILE=linear keeps the per-site
//    kernel's tiles (all columns, consecutive sites) for comparison. The output block streams past
//    L1 (__ldcs / __stcs), which then holds the rows of x.
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "column_sums.cuh"
#include "device_buffer.cuh"
#include "stencil_device.cuh"
#include "stencil_launch.cuh"
#include "stencil_small_cuda.h"
#include "tuning.cuh"
#include "stencil_small_plan.h"

namespace {

constexpr int kThreads = kStencilThreads;
static_assert(kThreads == HM_SMALL_THREADS, "the plan (stencil_small_plan.h) and the launch agree on the block size");

hm_device_buffers scratch_buffer; // per device

using Shape = hm_small_shape;

Shape shape_for(const hm_stencil_exec &E, int list, int k) {
  const char *v = hm_tuning_variable("HAMLET_STENCIL_TILE");
  return hm_small_shape_for(&E, list, k, v && !strcmp(v, "linear"));
}

// Per-column sums of a thread block's dots in a fixed order into partial[blockIdx.x][2k], its
// columns blockIdx.y kc .. + kc (the other chunks' blocks write the others). Thread t holds
// column t % kc of the chunk, kc divides 32: a butterfly over the lanes of equal column, then the
// warps in order. red: 2 * blockDim doubles of shared memory no longer in use.
__device__ inline void chunk_column_sums(double vv, double wv, int kc, int k, double *red, double *partial) {
  __syncthreads();
  for (int off = 16; off >= kc; off >>= 1) {
    vv += __shfl_xor_sync(0xffffffffu, vv, off);
    wv += __shfl_xor_sync(0xffffffffu, wv, off);
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
  if (lane < kc) {
    red[2 * (warp * kc + lane)] = vv;
    red[2 * (warp * kc + lane) + 1] = wv;
  }
  __syncthreads();
  if ((int)threadIdx.x < kc) {
    double sv = 0, sw = 0;
    for (int w = 0; w < nwarps; w++) {
      sv += red[2 * (w * kc + threadIdx.x)];
      sw += red[2 * (w * kc + threadIdx.x) + 1];
    }
    const int64_t base = (int64_t)blockIdx.x * 2 * k + (int64_t)blockIdx.y * kc + threadIdx.x;
    partial[base] = sv;
    partial[base + k] = sw;
  }
}

// A neighbour row's O values of column col where the block's mask needs them (others 0).
template <bool Cplx, int O>
__device__ inline void load_row(const double *__restrict__ x, int64_t t, int k, int col, uint32_t m, double2 *xj) {
#pragma unroll
  for (int j = 0; j < O; j++)
    xj[j] = (m & (1u << (16 + j))) ? load_entry<Cplx>(x, (size_t)(t + j) * k + col) : make_double2(0, 0);
}

// acc += block (its non-zero entries) times the neighbour's values; a real operator's blocks are
// real (their imaginary parts zero) and its columns real.
template <bool Cplx, int O>
__device__ inline void add_block(const double2 *blk, uint32_t m, const double2 *xj, double2 *acc) {
#pragma unroll
  for (int i = 0; i < O; i++)
#pragma unroll
    for (int j = 0; j < O; j++) {
      if (!(m & (1u << (i * O + j)))) continue;
      const double2 a = blk[i * O + j];
      acc[i].x += a.x * xj[j].x;
      if constexpr (Cplx) {
        acc[i].x -= a.y * xj[j].y;
        acc[i].y += a.x * xj[j].y + a.y * xj[j].x;
      }
    }
}

// Kpm: the fused step, else y = H x; Cplx: complex columns, else real ones (E.real).
template <bool Kpm, bool Cplx, int O>
__global__ void __launch_bounds__(kThreads) stencil_small_kernel(hm_stencil_exec E, int list, int k, Shape S,
                                                                 double s, double bshift,
                                                                 const double *__restrict__ x,
                                                                 double *__restrict__ y, double *partial) {
  extern __shared__ double sh[];
  const int nb = E.nblocks;
  double2 *blocks = reinterpret_cast<double2 *>(sh);
  int64_t *delta = reinterpret_cast<int64_t *>(blocks + nb * O * O);
  uint32_t *mask = reinterpret_cast<uint32_t *>(delta + nb);
  int32_t *reach = reinterpret_cast<int32_t *>(mask + nb); // lo[3] (-min shift), hi[3] (max shift)
  const double2 *gblock = reinterpret_cast<const double2 *>(E.block);
  for (int e = threadIdx.x; e < nb * O * O; e += blockDim.x) blocks[e] = gblock[e];
  for (int b = threadIdx.x; b < nb; b += blockDim.x) {
    delta[b] = E.hop_delta[b];
    uint32_t m = 0;
    for (int i = 0; i < O; i++)
      for (int j = 0; j < O; j++) {
        const double2 a = gblock[(b * O + i) * O + j];
        if (a.x != 0 || a.y != 0) m |= (1u << (i * O + j)) | (1u << (16 + j));
      }
    mask[b] = m;
  }
  if (threadIdx.x == 0) hm_small_reach(E.shift, nb, reach);
  __syncthreads();
  int64_t q, zc;
  int col;
  const bool active = hm_small_thread_site(&S, &E, blockIdx.x, blockIdx.y, threadIdx.x, &q, &col, &zc);
  // The site's in-plane cell, and whether every hop from it stays inside the box in the plane.
  int64_t c[3];
  hm_small_plane_cell(&E, q, c);
  const bool plane_inner = hm_small_plane_inner(&E, reach, c);
  // Slabs whose hops along the slow axis all land in local slabs without wrapping: [fast_lo, fast_hi).
  int64_t fast_lo, fast_hi;
  hm_small_fast_slabs(&E, reach, &fast_lo, &fast_hi);
  double vv = 0, wv = 0;
  const int64_t p1 = (zc + 1) * S.zchunk < S.slabs ? (zc + 1) * S.zchunk : S.slabs;
  for (int64_t p = zc * S.zchunk; active && p < p1; p++) {
    const int64_t l = hm_stencil_slab_at(&E, list, p), g = E.first_slab + l;
    const int64_t site = g * E.slab_sites + q, self = (l * E.slab_sites + q) * O;
    double2 acc[O];
#pragma unroll
    for (int i = 0; i < O; i++) acc[i] = make_double2(0, 0);
    const bool fast = plane_inner && g >= fast_lo && g < fast_hi;
    const bool vacant = !fast && hm_stencil_vacant(&E, site);
    if (fast) {
      double2 cur[O], next[O];
#pragma unroll
      for (int j = 0; j < O; j++) next[j] = make_double2(0, 0);
      load_row<Cplx, O>(x, self + delta[0], k, col, mask[0], cur);
      for (int b = 0; b < nb; b++) {
        if (b + 1 < nb) load_row<Cplx, O>(x, self + delta[b + 1], k, col, mask[b + 1], next);
        add_block<Cplx, O>(blocks + b * O * O, mask[b], cur, acc);
#pragma unroll
        for (int j = 0; j < O; j++) cur[j] = next[j];
      }
    } else if (!vacant) {
      c[E.slow] = g; // the face sites' general arithmetic needs the whole cell
      for (int b = 0; b < nb; b++) {
        int64_t w[3];
        double angle;
        const int64_t t = hop_target(E, b, c, self, delta, false, w, &angle);
        if (t < 0 || hm_stencil_hop_vacant(&E, b, c, w)) continue;
        double2 xj[O];
        load_row<Cplx, O>(x, t, k, col, mask[b], xj);
        if (Cplx && angle != 0) { // twisted boundary (complex only): the factor multiplies the neighbour's values
          double fs, fc;
          sincos(angle, &fs, &fc);
#pragma unroll
          for (int j = 0; j < O; j++) xj[j] = make_double2(fc * xj[j].x - fs * xj[j].y, fc * xj[j].y + fs * xj[j].x);
        }
        add_block<Cplx, O>(blocks + b * O * O, mask[b], xj, acc);
      }
    }
    if (!vacant) {
#pragma unroll
      for (int i = 0; i < O; i++) {
        const double d = hm_stencil_disorder(&E, site, i);
        if (d != 0) {
          const double2 xs = load_entry<Cplx>(x, (size_t)(self + i) * k + col);
          acc[i].x += d * xs.x;
          acc[i].y += d * xs.y;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < O; i++) {
      // the output streams past L1 (evict first), which keeps the neighbours' rows of x
      const size_t out = (size_t)(self + i) * k + col;
      if (!Kpm) {
        store_streaming<Cplx>(y, out, acc[i]);
        continue;
      }
      const double2 v = load_entry<Cplx>(x, out);
      const double2 old = load_streaming<Cplx>(y, out);
      const double wr = 2.0 * s * (acc[i].x - bshift * v.x) - old.x, wm = 2.0 * s * (acc[i].y - bshift * v.y) - old.y;
      store_streaming<Cplx>(y, out, make_double2(wr, wm));
      vv += v.x * v.x + v.y * v.y;
      wv += wr * v.x + wm * v.y;
    }
  }
  if (!Kpm) return;
  if (!active) vv = wv = 0;
  chunk_column_sums(vv, wv, S.kc, k, sh, partial);
}

template <bool Cplx, int O>
int launch(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b, const double *x, double *y,
           double *dots) {
  const Shape S = shape_for(*E, list, k);
  if (S.slabs == 0) return HM_SUCCESS;
  size_t shared = hm_small_table_bytes(E->nblocks, O);
  if (kpm && shared < sizeof(double) * 2 * kThreads) shared = sizeof(double) * 2 * kThreads;
  HM_CHECK(S.ntiles * S.nzchunks < INT32_MAX, HM_ERR_ARGUMENT,
           "a slab plane of %lld sites is too large for one launch", (long long)E->slab_sites);
  const dim3 grid((unsigned)(S.ntiles * S.nzchunks), (unsigned)(k / S.kc));
  // little shared memory per block: the rest of the multiprocessor's 256 KB stays L1 for the rows
  const void *kernel =
      kpm ? (const void *)stencil_small_kernel<true, Cplx, O> : (const void *)stencil_small_kernel<false, Cplx, O>;
  HM_CALL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 25));
  if (kpm) {
    HM_CALL(hm_device_buffer_grow(&scratch_buffer, (size_t)grid.x * 2 * k));
    stencil_small_kernel<true, Cplx, O><<<grid, kThreads, shared>>>(*E, list, k, S, s, b, x, y, scratch_buffer.p);
    HM_CHECK_LAUNCH("stencil kpm_step (few orbitals)");
    HM_CALL(column_sums(true, (int)grid.x, 2 * k, scratch_buffer.p, dots));
  } else {
    stencil_small_kernel<false, Cplx, O><<<grid, kThreads, shared>>>(*E, list, k, S, 0, 0, x, y, nullptr);
    HM_CHECK_LAUNCH("stencil spmmv (few orbitals)");
  }
  return HM_SUCCESS;
}

// The operator's kernel choice: small (this kernel wherever it can serve), site or mma (never), else
// auto (1 and 2 orbitals: hm_small_serves).
int kernel_choice(const hm_stencil_exec *E) {
  if (E->kernel == HM_STENCIL_KERNEL_SMALL) return HM_SMALL_FORCED;
  if (E->kernel == HM_STENCIL_KERNEL_SITE || E->kernel == HM_STENCIL_KERNEL_MMA) return HM_SMALL_NEVER;
  return HM_SMALL_AUTO;
}

} // namespace

// A real operator takes this kernel only where forced (kernel = small): the automatic choice rests on
// measurements in complex arithmetic, and the real per-site kernel is the default until the real
// variant is measured against it (bench/README.md, single-shot-gpu).
bool hm_cuda_stencil_small_applies(const hm_stencil_exec *E, int k) {
  const int choice = kernel_choice(E);
  if (E->real && choice != HM_SMALL_FORCED) return false;
  return hm_small_serves(E, k, choice);
}

template <bool Cplx>
int run_orbitals(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b, const double *x, double *y,
                 double *dots) {
  HM_CHECK(E->orbitals == 1 || E->orbitals == 2 || E->orbitals == 4, HM_ERR_ARGUMENT,
           "the few-orbital stencil kernel serves 1, 2 or 4 orbitals; the cell has %d", E->orbitals);
  switch (E->orbitals) {
    case 1: return launch<Cplx, 1>(kpm, E, list, k, s, b, x, y, dots);
    case 2: return launch<Cplx, 2>(kpm, E, list, k, s, b, x, y, dots);
    default: return launch<Cplx, 4>(kpm, E, list, k, s, b, x, y, dots);
  }
}

int hm_cuda_stencil_small_run(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b,
                              const double *x, double *y, double *dots) {
  HM_CHECK(list == HM_STENCIL_INTERIOR || list == HM_STENCIL_BOUNDARY, HM_ERR_ARGUMENT,
           "row list %d: the few-orbital stencil kernel takes only the interior (0) or boundary (1) slabs", list);
  return E->real ? run_orbitals<false>(kpm, E, list, k, s, b, x, y, dots)
                 : run_orbitals<true>(kpm, E, list, k, s, b, x, y, dots);
}

void hm_stencil_small_cuda_release_state() { hm_device_buffer_free(&scratch_buffer); }
