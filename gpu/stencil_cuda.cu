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
// Both kernels take the arithmetic as a template argument: Cplx (columns of re, im pairs) or real
// (E.real: real blocks, no twist, no phases; columns of one double, half the traffic).
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "column_sums.cuh"
#include "device_buffer.cuh"
#include "stencil_cuda.h"
#include "stencil_device.cuh"
#include "stencil_launch.cuh"
#include "stencil_small_cuda.h"
#include "stencil_mma_cuda.h"
#include "stencil_box_cuda.h"
#include "stencil_kernel_count.h"
#include "stencil_staged_cuda.h"

namespace {

constexpr int kThreads = kStencilThreads;
using Launch = StencilLaunch;

hm_device_buffers scratch_buffer; // per device

// One launch: every thread computes one (site, orbital, column) entry per slab it marches over.
// Kpm: W = 2 s (H V - b V) - W and the per-column dots into partial[block][2k]; else y = H x.
template <bool Kpm, bool Cplx>
__global__ void __launch_bounds__(kThreads) stencil_kernel(hm_stencil_exec E, int list, int k, int64_t tile_sites,
                                                           int64_t nzchunks, int64_t zchunk, int64_t slabs,
                                                           double s, double bshift,
                                                           const double *__restrict__ x, double *__restrict__ y,
                                                           double *partial) {
  extern __shared__ double sh[];
  const int o = E.orbitals;
  // Shared: the hops, the per-orbital starts, the blocks' local offsets; then the reduction.
  hm_stencil_hop *hops = reinterpret_cast<hm_stencil_hop *>(sh);
  int64_t *delta = reinterpret_cast<int64_t *>(hops + E.nhops);
  int32_t *first = reinterpret_cast<int32_t *>(delta + E.nblocks);
  for (int e = threadIdx.x; e < E.nhops; e += blockDim.x) hops[e] = E.hops[e];
  for (int e = threadIdx.x; e < E.nblocks; e += blockDim.x) delta[e] = E.hop_delta[e];
  for (int e = threadIdx.x; e <= o; e += blockDim.x) first[e] = E.hop_first[e];
  __syncthreads();
  const int64_t tile = blockIdx.x / nzchunks, zc = blockIdx.x % nzchunks;
  const int entries = o * k;
  const int e_in_tile = blockIdx.y * blockDim.x + threadIdx.x;
  const int64_t q = tile * tile_sites + e_in_tile / entries;
  const int e = e_in_tile % entries, i = e / k, col = e % k;
  const bool active = e_in_tile < tile_sites * entries && q < E.slab_sites && (blockIdx.y == 0 || tile_sites == 1);
  const bool interior = list == HM_STENCIL_INTERIOR && E.vacancy_p == 0 && !E.has_peierls;
  double vv = 0, wv = 0;
  const int64_t p1 = (zc + 1) * zchunk < slabs ? (zc + 1) * zchunk : slabs;
  for (int64_t p = zc * zchunk; active && p < p1; p++) {
    const int64_t l = slab_at(E, list, p), g = E.first_slab + l;
    int64_t c[3];
    cell_of(E, g, q, c);
    const int64_t site = g * E.slab_sites + q, self = (l * E.slab_sites + q) * o;
    double ar = 0, ai = 0; // (H x)[self + i, col]
    if (!hm_stencil_vacant(&E, site)) {
      int64_t t = -1, w[3] = {0, 0, 0};
      double fr = 1, fi = 0;
      int b_now = -1;
      for (int h = first[i]; h < first[i + 1]; h++) {
        const hm_stencil_hop hp = hops[h];
        if (hp.b != b_now) { // the hops of one block share their target cell
          b_now = hp.b;
          double angle;
          t = hop_target(E, hp.b, c, self, delta, interior, w, &angle);
          if (t >= 0 && hm_stencil_hop_vacant(&E, hp.b, c, w)) t = -1;
          fr = 1, fi = 0;
          if (angle != 0) sincos(angle, &fi, &fr);
        }
        if (t < 0) continue;
        if constexpr (!Cplx) { // real hop, no factor, no phase
          ar += hp.re * x[(size_t)(t + hp.j) * k + col];
        } else {
          double br = hp.re * fr - hp.im * fi, bi = hp.re * fi + hp.im * fr;
          if (E.has_peierls) {
            double ps, pc;
            sincospi(2 * hm_stencil_peierls_turns(&E, hp.b, i, hp.j, c, w), &ps, &pc);
            const double r2 = br * pc - bi * ps;
            bi = br * ps + bi * pc;
            br = r2;
          }
          const double2 xv = load_entry<Cplx>(x, (size_t)(t + hp.j) * k + col);
          ar += br * xv.x - bi * xv.y;
          ai += br * xv.y + bi * xv.x;
        }
      }
      const double d = hm_stencil_disorder(&E, site, i);
      if (d != 0) {
        const double2 xv = load_entry<Cplx>(x, (size_t)(self + i) * k + col);
        ar += d * xv.x;
        ai += d * xv.y;
      }
    }
    const size_t out = (size_t)(self + i) * k + col;
    if (!Kpm) {
      store_entry<Cplx>(y, out, make_double2(ar, ai));
      continue;
    }
    const double2 v = load_entry<Cplx>(x, out);
    const double2 old = load_entry<Cplx>(y, out);
    const double wr = 2.0 * s * (ar - bshift * v.x) - old.x, wm = 2.0 * s * (ai - bshift * v.y) - old.y;
    store_entry<Cplx>(y, out, make_double2(wr, wm));
    vv += v.x * v.x + v.y * v.y;
    wv += wr * v.x + wm * v.y;
  }
  if (!Kpm) return;
  if (!active) vv = wv = 0;
  block_column_sums(vv, wv, k, sh, partial);
}

// The same products with one thread per (site, column) for every orbital of the site (O of them,
// no field): a neighbour's row is loaded once per block for all O orbitals (the per-entry kernel
// loads it once per orbital), and its target is found once per site. Blocks in shared memory.
template <bool Kpm, bool Cplx, int O>
__global__ void __launch_bounds__(kThreads) stencil_site_kernel(hm_stencil_exec E, int list, int k, int64_t tile_sites,
                                                                int64_t nzchunks, int64_t zchunk, int64_t slabs,
                                                                double s, double bshift, const double *__restrict__ x,
                                                                double *__restrict__ y, double *partial) {
  extern __shared__ double sh[];
  double2 *blocks = reinterpret_cast<double2 *>(sh); // [nblocks][O][O]
  int64_t *delta = reinterpret_cast<int64_t *>(blocks + E.nblocks * O * O);
  for (int e = threadIdx.x; e < E.nblocks * O * O; e += blockDim.x)
    blocks[e] = reinterpret_cast<const double2 *>(E.block)[e];
  for (int e = threadIdx.x; e < E.nblocks; e += blockDim.x) delta[e] = E.hop_delta[e];
  __syncthreads();
  const int64_t tile = blockIdx.x / nzchunks, zc = blockIdx.x % nzchunks;
  const int64_t q = tile * tile_sites + threadIdx.x / k;
  const int col = threadIdx.x % k;
  const bool active = (int64_t)(threadIdx.x / k) < tile_sites && q < E.slab_sites;
  const bool interior = list == HM_STENCIL_INTERIOR && E.vacancy_p == 0;
  double vv = 0, wv = 0;
  const int64_t p1 = (zc + 1) * zchunk < slabs ? (zc + 1) * zchunk : slabs;
  for (int64_t p = zc * zchunk; active && p < p1; p++) {
    const int64_t l = slab_at(E, list, p), g = E.first_slab + l;
    int64_t c[3];
    cell_of(E, g, q, c);
    const int64_t site = g * E.slab_sites + q, self = (l * E.slab_sites + q) * O;
    double2 acc[O];
    for (int i = 0; i < O; i++) acc[i] = make_double2(0, 0);
    if (!hm_stencil_vacant(&E, site)) {
      for (int b = 0; b < E.nblocks; b++) {
        int64_t w[3];
        double angle;
        const int64_t t = hop_target(E, b, c, self, delta, interior, w, &angle);
        if (t < 0 || hm_stencil_hop_vacant(&E, b, c, w)) continue;
        double2 xj[O];
        for (int j = 0; j < O; j++) xj[j] = load_entry<Cplx>(x, (size_t)(t + j) * k + col);
        if (angle != 0) { // twisted boundary: the factor multiplies the neighbour's values
          double fs, fc;
          sincos(angle, &fs, &fc);
          for (int j = 0; j < O; j++) xj[j] = make_double2(fc * xj[j].x - fs * xj[j].y, fc * xj[j].y + fs * xj[j].x);
        }
        const double2 *blk = blocks + b * O * O;
        if constexpr (!Cplx) { // real blocks: the real parts times real columns
          for (int i = 0; i < O; i++)
            for (int j = 0; j < O; j++) acc[i].x += blk[i * O + j].x * xj[j].x;
        } else {
          for (int i = 0; i < O; i++)
            for (int j = 0; j < O; j++) {
              const double2 a = blk[i * O + j];
              acc[i].x += a.x * xj[j].x - a.y * xj[j].y;
              acc[i].y += a.x * xj[j].y + a.y * xj[j].x;
            }
        }
      }
      for (int i = 0; i < O; i++) {
        const double d = hm_stencil_disorder(&E, site, i);
        if (d != 0) {
          const double2 xs = load_entry<Cplx>(x, (size_t)(self + i) * k + col);
          acc[i].x += d * xs.x;
          acc[i].y += d * xs.y;
        }
      }
    }
    for (int i = 0; i < O; i++) {
      const size_t out = (size_t)(self + i) * k + col;
      if (!Kpm) {
        store_entry<Cplx>(y, out, acc[i]);
        continue;
      }
      const double2 v = load_entry<Cplx>(x, out);
      const double2 old = load_entry<Cplx>(y, out);
      const double wr = 2.0 * s * (acc[i].x - bshift * v.x) - old.x, wm = 2.0 * s * (acc[i].y - bshift * v.y) - old.y;
      store_entry<Cplx>(y, out, make_double2(wr, wm));
      vv += v.x * v.x + v.y * v.y;
      wv += wr * v.x + wm * v.y;
    }
  }
  if (!Kpm) return;
  if (!active) vv = wv = 0;
  block_column_sums(vv, wv, k, sh, partial);
}

int list_of(const hm_stencil_exec *E, const int32_t *rows) {
  if (rows == &E->key[HM_STENCIL_INTERIOR]) return HM_STENCIL_INTERIOR;
  if (rows == &E->key[HM_STENCIL_BOUNDARY]) return HM_STENCIL_BOUNDARY;
  return -1;
}

// The per-site kernel for O orbitals (stencil_site_kernel) in the operator's arithmetic.
template <bool Cplx, int O>
int launch_per_site(bool kpm, const hm_stencil_exec *E, int list, int k, const Launch &L, size_t shared, double s,
                    double b, const double *x, double *y, double *dots) {
  dim3 grid((unsigned)(L.ntiles * L.nzchunks), 1);
  if (kpm) {
    HM_CALL(hm_device_buffer_grow(&scratch_buffer, (size_t)grid.x * 2 * k));
    stencil_site_kernel<true, Cplx, O><<<grid, kThreads, shared>>>(*E, list, k, L.tile_sites, L.nzchunks, L.zchunk, L.slabs,
                                                                   s, b, x, y, scratch_buffer.p);
    HM_CHECK_LAUNCH("stencil kpm_step (per site)");
    HM_CALL(column_sums(true, (int)grid.x, 2 * k, scratch_buffer.p, dots));
  } else {
    stencil_site_kernel<false, Cplx, O><<<grid, kThreads, shared>>>(*E, list, k, L.tile_sites, L.nzchunks, L.zchunk,
                                                                    L.slabs, 0, 0, x, y, nullptr);
    HM_CHECK_LAUNCH("stencil spmmv (per site)");
  }
  return HM_SUCCESS;
}

int run_per_site(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b, const double *x, double *y,
                 double *dots, size_t shared) {
  const Launch L = stencil_plan(*E, list, k, 1);
  if (L.slabs == 0) return HM_SUCCESS;
  if (shared < sizeof(double) * 2 * kThreads) shared = sizeof(double) * 2 * kThreads;
  HM_CHECK(L.ntiles * L.nzchunks < INT32_MAX, HM_ERR_ARGUMENT, "a slab plane of %lld sites is too large for one launch",
           (long long)E->slab_sites);
  if (E->real) switch (E->orbitals) {
      case 1: return launch_per_site<false, 1>(kpm, E, list, k, L, shared, s, b, x, y, dots);
      case 2: return launch_per_site<false, 2>(kpm, E, list, k, L, shared, s, b, x, y, dots);
      case 4: return launch_per_site<false, 4>(kpm, E, list, k, L, shared, s, b, x, y, dots);
      default: return launch_per_site<false, 8>(kpm, E, list, k, L, shared, s, b, x, y, dots);
    }
  switch (E->orbitals) {
    case 1: return launch_per_site<true, 1>(kpm, E, list, k, L, shared, s, b, x, y, dots);
    case 2: return launch_per_site<true, 2>(kpm, E, list, k, L, shared, s, b, x, y, dots);
    case 4: return launch_per_site<true, 4>(kpm, E, list, k, L, shared, s, b, x, y, dots);
    default: return launch_per_site<true, 8>(kpm, E, list, k, L, shared, s, b, x, y, dots);
  }
}

int stencil_run(bool kpm, hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, double s, double b,
                const double *x, double *y, double *dots) {
  const hm_scalar mine = E->real ? HM_REAL : HM_COMPLEX;
  HM_CHECK(type == mine, HM_ERR_ARGUMENT, "the matrix-free lattice operator is %s; the block is %s",
           mine == HM_REAL ? "real" : "complex", type == HM_REAL ? "real" : "complex");
  const int list = list_of(E, rows);
  HM_CHECK(list >= 0, HM_ERR_ARGUMENT,
           "a matrix-free product was given a row list; it takes only the matrix's interior or boundary slabs");
  if (hm_cuda_stencil_staged_applies(E, k, x, y)) { // 2 and 4 vectors, or HAMLET_STENCIL_KERNEL=staged
    HM_CALL(hm_cuda_stencil_staged_run(kpm, E, list, k, s, b, x, y, dots));
    hm_stencil_kernel_served(HM_STENCIL_KERNEL_STAGED);
    return HM_SUCCESS;
  }
  if (hm_cuda_stencil_box_applies(E, k, x, y)) { // 1 and 2 orbitals, hops within one cell, 8 k vectors
    HM_CALL(hm_cuda_stencil_box_run(kpm, E, list, k, s, b, x, y, dots));
    hm_stencil_kernel_served(HM_STENCIL_KERNEL_BOX);
    return HM_SUCCESS;
  }
  if (kpm && hm_cuda_stencil_mma_applies(E, k)) {
    HM_CALL(hm_cuda_stencil_mma_kpm_step(E, list, k, s, b, x, y, dots));
    hm_stencil_kernel_served(HM_STENCIL_KERNEL_MMA);
    return HM_SUCCESS;
  }
  if (hm_cuda_stencil_small_applies(E, k)) { // forced, one rank (stencil_small_cuda.h)
    HM_CALL(hm_cuda_stencil_small_run(kpm, E, list, k, s, b, x, y, dots));
    hm_stencil_kernel_served(HM_STENCIL_KERNEL_SMALL);
    return HM_SUCCESS;
  }
  const int o = E->orbitals;
  const size_t site_shared = sizeof(double) * 2 * E->nblocks * o * o + sizeof(int64_t) * E->nblocks;
  if (!E->has_peierls && (o == 1 || o == 2 || o == 4 || o == 8) && kThreads % k == 0 && site_shared <= 40 * 1024) {
    HM_CALL(run_per_site(kpm, E, list, k, s, b, x, y, dots, site_shared));
    hm_stencil_kernel_served(HM_STENCIL_KERNEL_SITE);
    return HM_SUCCESS;
  }
  const Launch L = stencil_plan(*E, list, k, o);
  if (L.slabs == 0) return HM_SUCCESS;
  hm_stencil_kernel_served(HM_STENCIL_KERNEL_GENERIC);
  const int nh = E->nhops;
  size_t shared = sizeof(hm_stencil_hop) * nh + sizeof(int64_t) * E->nblocks + sizeof(int32_t) * (E->orbitals + 1);
  if (kpm && shared < sizeof(double) * 2 * kThreads) shared = sizeof(double) * 2 * kThreads;
  // Wannier models with their Wigner-Seitz images hold thousands of entries: past the default 48 KiB a
  // launch asks for the device's opt-in shared memory (227 KiB on the H100, 163 KiB on the A100).
  int device = 0, optin = 48 * 1024;
  HM_CALL_CUDA(cudaGetDevice(&device));
  HM_CALL_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  HM_CHECK(shared <= (size_t)optin, HM_ERR_ARGUMENT,
           "the cell's %d non-zero hopping entries need %zu bytes of shared memory; this GPU gives a thread block "
           "at most %d bytes (about %d entries): use storage = assembled",
           nh, shared, optin, optin / (int)sizeof(hm_stencil_hop));
  HM_CHECK(L.ntiles * L.nzchunks < INT32_MAX, HM_ERR_ARGUMENT, "a slab plane of %lld sites is too large for one launch",
           (long long)E->slab_sites);
  if (shared > 48 * 1024) {
    const void *kernels[4] = {(const void *)stencil_kernel<true, false>, (const void *)stencil_kernel<true, true>,
                              (const void *)stencil_kernel<false, false>, (const void *)stencil_kernel<false, true>};
    HM_CALL_CUDA(cudaFuncSetAttribute(kernels[(kpm ? 0 : 2) + (E->real ? 0 : 1)],
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  }
  dim3 grid((unsigned)(L.ntiles * L.nzchunks), (unsigned)L.chunks);
  if (kpm) {
    const size_t nparts = (size_t)grid.x * grid.y;
    HM_CALL(hm_device_buffer_grow(&scratch_buffer, nparts * 2 * k));
    if (E->real)
      stencil_kernel<true, false><<<grid, kThreads, shared>>>(*E, list, k, L.tile_sites, L.nzchunks, L.zchunk, L.slabs, s,
                                                              b, x, y, scratch_buffer.p);
    else
      stencil_kernel<true, true><<<grid, kThreads, shared>>>(*E, list, k, L.tile_sites, L.nzchunks, L.zchunk, L.slabs, s,
                                                             b, x, y, scratch_buffer.p);
    HM_CHECK_LAUNCH("stencil kpm_step");
    HM_CALL(column_sums(true, (int)nparts, 2 * k, scratch_buffer.p, dots));
  } else {
    if (E->real)
      stencil_kernel<false, false><<<grid, kThreads, shared>>>(*E, list, k, L.tile_sites, L.nzchunks, L.zchunk, L.slabs, 0,
                                                               0, x, y, nullptr);
    else
      stencil_kernel<false, true><<<grid, kThreads, shared>>>(*E, list, k, L.tile_sites, L.nzchunks, L.zchunk, L.slabs, 0,
                                                              0, x, y, nullptr);
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

void hm_stencil_cuda_release_state() {
  hm_device_buffer_free(&scratch_buffer);
}
