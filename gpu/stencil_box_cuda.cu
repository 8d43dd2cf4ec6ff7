// The matrix-free lattice operator's y = H x and fused KPM step for cells of 1 or 2 orbitals whose hops
// stay within one cell along each axis (up to 27 shifts: graphene's 5, a Wannier model's 19 first and
// second neighbours), on blocks of a multiple of 8 vectors (in slices of 16 or 8 columns).
//
// Why: the few-orbital kernel (stencil_small_cuda.cu) loads every hop's neighbour row through L1, one
// (site, column) per thread: a Wannier model's 38 hops a row are 38 loads of 16 bytes per orbital and
// column, 6 times the 48 bytes of DRAM the step has to move, and it ran at 3.3x the vectors-only
// floor at R = 32 on the H100 (graphene 1.5x; bench/README.md). Here, as in the TI's
// staged kernel (stencil_staged_cuda.cu), 16-byte cp.async copies fill a ring of 3 slab stages in
// shared memory, the next slab's copy in flight while one is computed, and each slab is read from
// shared memory once per thread and in-plane neighbour: a thread marches along the slabs of its
// (site, column) and adds each value of slab s to the outputs on slabs s + 1, s and s - 1 at once
// (the hops with dz = -1, 0, +1: out(c) += H(R) x(c + R)), keeping those three outputs in registers.
// So a slab costs 9 loads of O values per thread (3 on a 2D lattice), whatever the number of hops,
// and the output on slab s - 1 is complete after slab s. The cell's blocks, summed per shift on the
// host (E.box_sums, E.box_kinds), are operands from the constant bank; Dense (every entry of every
// hop non-zero, as in a Wannier model) multiplies each entry with no test, else each entry's kind
// (real, imaginary, complex) is tested (graphene: 6 real entries of 20).
//
// A thread block owns a tile of the slab plane (4 x 4 or 8 x 4 sites of the x-y plane, slabs along z;
// a run of 16 or 32 sites of an x row, slabs along y) and K = 8 or 16 columns, one thread per (site,
// column), and marches along a chunk of at most 64 consecutive slabs (blocks numbered chunk by chunk:
// staged_chunks.cuh). Its stages hold the tile and a one-site
// halo (corners included: diagonal hops read them), the K columns of each orbital of a site in a
// contiguous row, so a warp's 16-byte reads of 8 or 16 consecutive columns meet no bank conflict.
// Halo sites past an open boundary, and slabs past one or not here, are zero-filled by the copy;
// periodic boundaries wrap in the copy. Outputs are written from registers: a (site, orbital)'s K
// columns are 128 or 256 contiguous bytes written by consecutive threads.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "column_sums.cuh"
#include "device_buffer.cuh"
#include "stencil_box_cuda.h"
#include "staged_chunks.cuh"
#include "staged_copies.cuh"
#include "stencil_launch.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kStages = 3;            // slots of the ring
constexpr int64_t kMaxChunk = 64;     // slabs (wannier30 128 x 128 x 64 R = 32 on the H100: 64 43.6 us, 24 45.6 us)
constexpr int kDirections = 27;       // shifts within one cell per axis, d = (dx + 1) + 3 (dy + 1) + 9 (dz + 1)

hm_device_buffers scratch_buffer; // per device

// A launch's tile and stage: K columns, O orbitals; Planar: slabs along z, a TX x TY tile of the x-y
// plane with a halo of one site all round; else slabs along y (a 2D lattice): TX sites of an x row
// and one site either side.
template <int O, int K, bool Planar> struct Box {
  static constexpr int sites = kThreads / K; // one thread per (site, column) of the tile
  static constexpr int tx = Planar ? (K == 16 ? 4 : 8) : sites, ty = sites / tx;
  static constexpr int hx = tx + 2, hy = Planar ? ty + 2 : 1, halo_sites = hx * hy;
  static constexpr int row_bytes = K * 16, site_bytes = O * row_bytes, site_chunks = site_bytes / 16;
  static constexpr int stage_bytes = halo_sites * site_bytes;
  static constexpr int site_step = kThreads / site_chunks; // halo sites a round of copies covers
  static constexpr int copies = (halo_sites + site_step - 1) / site_step; // per thread and slab
  static constexpr int row_lines = row_bytes / 128;     // 128-byte lines of a (site, orbital)'s columns
  static_assert(kThreads % site_chunks == 0, "a round of copies covers whole sites");
  static_assert(copies <= 32, "the copy plan's bit masks");
  static_assert(tx * ty * K == kThreads && (Planar || ty == 1), "one thread per (site, column) of the tile");
  static_assert(kStages * stage_bytes >= 2 * kThreads * (int)sizeof(double), "the ring holds the dots' sums");
  static_assert(sites * O * row_lines <= kThreads, "a prefetched line per thread");
};

// The cell's blocks summed per shift, [d][i * O + j] (per device; copied from E.box_sums on the
// default stream just before a product's launches, so each launch reads its own operator's blocks).
__constant__ double2 constant_box[kDirections * 4];

template <int O, int K, bool Planar> constexpr size_t shared_bytes() { return (size_t)kStages * Box<O, K, Planar>::stage_bytes; }

// A thread's share of copying one slab's halo tile, the same for every slab: its 16-byte chunk of a
// site (orbital chunk / K, column chunk % K) of halo sites site0 + n * site_step. Per copy the
// source's byte offset in the slab, bit n of `copies` (a halo site, not past the tile's last) and of
// `inside` (not past an open boundary: else zero-filled).
template <int O, int K, bool Planar> struct CopyPlan {
  uint32_t stage0, copies, inside;
  int32_t src[Box<O, K, Planar>::copies];
};

template <int O, int K, bool Planar>
__device__ __forceinline__ CopyPlan<O, K, Planar> copy_plan(const hm_stencil_exec &E, int x0, int y0, int nx, int ny,
                                                             int pitch, int c0) {
  using B = Box<O, K, Planar>;
  CopyPlan<O, K, Planar> p;
  const int chunk = (int)threadIdx.x % B::site_chunks, site0 = (int)threadIdx.x / B::site_chunks;
  p.stage0 = (uint32_t)(site0 * B::site_bytes + chunk * 16);
  p.copies = p.inside = 0;
#pragma unroll
  for (int n = 0; n < B::copies; n++) {
    const int hs = site0 + n * B::site_step;
    int X = x0 + hs % B::hx - 1, Y = Planar ? y0 + hs / B::hx - 1 : 0;
    const bool inside = wrap_axis(X, nx, E.boundary[0]) && (!Planar || wrap_axis(Y, ny, E.boundary[1]));
    p.copies |= (uint32_t)(hs < B::halo_sites) << n;
    p.inside |= (uint32_t)inside << n;
    p.src[n] = inside ? (((Y * nx + X) * O + chunk / K) * pitch + c0 + chunk % K) * 16 : 0;
  }
  return p;
}

// Issue the copies of global slab g's halo tile into the stage at shared address `stage`.
template <int O, int K, bool Planar>
__device__ __forceinline__ void copy_slab(const hm_stencil_exec &E, const double *x, int64_t g, uint32_t stage,
                                          const CopyPlan<O, K, Planar> &p, int pitch) {
  using B = Box<O, K, Planar>;
  const int64_t n = E.cells[E.slow];
  bool here = true;
  if (g < 0 || g >= n) {
    if (E.boundary[E.slow] == 1) here = false;
    else g = g < 0 ? g + n : g - n;
  }
  const int64_t base = here ? E.slab_row[g] : -1;
  here = here && base >= 0; // a slab not here: dropped, as hm_stencil_target's -1
  const char *slab = reinterpret_cast<const char *>(x) + (here ? base : 0) * pitch * 16;
  const uint32_t inside = here ? p.inside : 0;
#pragma unroll
  for (int c = 0; c < B::copies; c++)
    if (p.copies >> c & 1) copy16(stage + p.stage0 + (uint32_t)(c * B::site_step * B::site_bytes), slab + p.src[c], inside >> c & 1);
}

// acc[i] += sum_j a_ij xv[j] for the summed block of direction d (kinds: its E.box_kinds, 0: none).
// Dense: every entry a complex product with no test; else each entry by its kind.
template <int O, bool Dense>
__device__ __forceinline__ void add_block(int d, uint32_t kinds, const double2 *xv, double2 *acc) {
  if (!kinds) return;
#pragma unroll
  for (int i = 0; i < O; i++)
#pragma unroll
    for (int j = 0; j < O; j++) {
      const double2 a = constant_box[d * 4 + i * O + j];
      const uint32_t kind = Dense ? 3u : kinds >> (2 * (i * O + j)) & 3u;
      if (kind & 1u) {
        acc[i].x += a.x * xv[j].x;
        acc[i].y += a.x * xv[j].y;
      }
      if (kind & 2u) {
        acc[i].x -= a.y * xv[j].y;
        acc[i].y += a.y * xv[j].x;
      }
    }
}

// The KPM step reads W's tile of each output slab just before writing it: ask it into L2 one slab
// ahead (as the TI's staged kernel does), one 128-byte line per thread. yslab: the output slab's first
// entry (complex) of the block.
template <int O, int K, bool Planar>
__device__ __forceinline__ void prefetch_output(const double2 *yslab, int pitch, int c0, int x0, int y0, int nx, int ny) {
  using B = Box<O, K, Planar>;
  const int t = (int)threadIdx.x;
  if (t >= B::sites * O * B::row_lines) return;
  const int site = t / (O * B::row_lines), orbital = t / B::row_lines % O, line = t % B::row_lines;
  const int X = x0 + site % B::tx, Y = y0 + site / B::tx;
  if (X >= nx || Y >= ny) return;
  const size_t row = (size_t)(Y * nx + X) * O + orbital;
  asm volatile("prefetch.global.L2 [%0];" ::"l"(yslab + row * pitch + c0 + line * 8));
}

// y = H x (Kpm: the KPM step) on columns [c0, c0 + K) of blocks whose rows hold `pitch` columns.
template <bool Kpm, int O, int K, bool Planar, bool Dense>
__global__ void __launch_bounds__(kThreads, 2)
    stencil_box_kernel(hm_stencil_exec E, int list, int ntx, int64_t ntiles, int64_t zchunk, double s,
                       double bshift, const double *__restrict__ x, double *__restrict__ y, double *partial, int pitch,
                       int c0) {
  using B = Box<O, K, Planar>;
  extern __shared__ __align__(16) char ring[];
  const uint32_t ring_addr = (uint32_t)__cvta_generic_to_shared(ring);

  // This block's tile and its chunk of slabs: local slabs [l0, l1) of one run of the list.
  int64_t tile, l0, l1;
  staged_block(E, list, ntiles, zchunk, blockIdx.x, &tile, &l0, &l1);
  const int nx = (int)E.cells[0], ny = Planar ? (int)E.cells[1] : 1;
  const int x0 = (int)(tile % ntx) * B::tx, y0 = (int)(tile / ntx) * B::ty;
  const int nsl = (int)(l1 - l0);
  const int64_t g0 = E.first_slab + l0;
  const int col = (int)threadIdx.x % K, lx = (int)threadIdx.x / K % B::tx, ly = (int)threadIdx.x / K / B::tx;
  const bool mine = x0 + lx < nx && y0 + ly < ny; // a site of the lattice (a tile may overhang it)
  const int64_t q = (int64_t)(y0 + ly) * nx + x0 + lx; // its plane site
  // byte offset in a stage of this thread's site, orbital 0, column col
  const int centre = ((Planar ? ly + 1 : 0) * B::hx + lx + 1) * B::site_bytes + col * 16;
  const CopyPlan<O, K, Planar> plan = copy_plan<O, K, Planar>(E, x0, y0, nx, ny, pitch, c0);

  // Input j is slab g0 - 1 + j, into ring slot j % 3; a commit per input even past the last, so
  // that the group count is fixed.
  auto issue = [&](int j) {
    if (j < nsl + 2) copy_slab<O, K, Planar>(E, x, g0 - 1 + j, ring_addr + (uint32_t)(j % kStages * B::stage_bytes), plan, pitch);
    commit_copies();
  };
  issue(0);
  issue(1);
  double2 acc[3][O]; // the outputs on slabs s - 1, s and s + 1 of input slab s
  double2 own_prev[O]; // V at this thread's (site, column) on slab s - 1
#pragma unroll
  for (int a = 0; a < 3; a++)
#pragma unroll
    for (int i = 0; i < O; i++) acc[a][i] = make_double2(0, 0);
#pragma unroll
  for (int i = 0; i < O; i++) own_prev[i] = make_double2(0, 0);
  double vv = 0, wv = 0;
  const uint64_t disorder_key = hm_stencil_disorder_key(&E);
  const double2 *y2 = reinterpret_cast<const double2 *>(y);
  for (int j = 0; j < nsl + 2; j++) {
    wait_copies<1>(); // input j is here (j + 1 may still be in flight)
    __syncthreads();  // ... for every thread; input j - 1's slot is free
    issue(j + 2);
    if constexpr (Kpm)
      if (j >= 1 && j - 1 < nsl)
        prefetch_output<O, K, Planar>(y2 + (size_t)(l0 + j - 1) * E.slab_sites * O * pitch, pitch, c0, x0, y0, nx, ny);
    const char *stage = ring + j % kStages * B::stage_bytes + centre;
    double2 own[O];
#pragma unroll
    for (int py = Planar ? -1 : 0; py <= (Planar ? 1 : 0); py++)
#pragma unroll
      for (int px = -1; px <= 1; px++) {
        const int d0 = (px + 1) + 3 * (py + 1); // + 9 (dz + 1)
        const bool self = px == 0 && py == 0;    // read for the KPM step and the disorder in any case
        if (!self && !(E.box_kinds[d0] | E.box_kinds[d0 + 9] | E.box_kinds[d0 + 18])) continue;
        double2 xv[O];
#pragma unroll
        for (int o = 0; o < O; o++)
          xv[o] = *reinterpret_cast<const double2 *>(stage + (py * B::hx + px) * B::site_bytes + o * B::row_bytes);
        if (self)
#pragma unroll
          for (int o = 0; o < O; o++) own[o] = xv[o];
        // x on slab s at c + (px, py) is H(px, py, dz)'s neighbour for the output on slab s - dz
#pragma unroll
        for (int dz = -1; dz <= 1; dz++) add_block<O, Dense>(d0 + 9 * (dz + 1), E.box_kinds[d0 + 9 * (dz + 1)], xv, acc[1 - dz]);
      }
    // The output on slab s - 1 (local l0 + j - 2) is complete.
    if (j >= 2 && mine) {
      const int64_t l = l0 + j - 2, site = (E.first_slab + l) * E.slab_sites + q;
      if (E.disorder_w != 0) {
        const double d0 = hm_stencil_disorder_draw(&E, disorder_key, E.disorder_per_site ? site : site * O);
#pragma unroll
        for (int i = 0; i < O; i++) {
          const double d = E.disorder_per_site || i == 0 ? d0 : hm_stencil_disorder_draw(&E, disorder_key, site * O + i);
          acc[0][i].x += d * own_prev[i].x;
          acc[0][i].y += d * own_prev[i].y;
        }
      }
#pragma unroll
      for (int i = 0; i < O; i++) {
        double2 *out = reinterpret_cast<double2 *>(y) + ((size_t)(l * E.slab_sites + q) * O + i) * pitch + c0 + col;
        if constexpr (!Kpm) {
          __stcs(out, acc[0][i]);
        } else {
          const double2 v = own_prev[i], old = __ldcs(out);
          const double wr = 2.0 * s * (acc[0][i].x - bshift * v.x) - old.x,
                       wm = 2.0 * s * (acc[0][i].y - bshift * v.y) - old.y;
          __stcs(out, make_double2(wr, wm));
          vv += v.x * v.x + v.y * v.y;
          wv += wr * v.x + wm * v.y;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < O; i++) {
      acc[0][i] = acc[1][i];
      acc[1][i] = acc[2][i];
      acc[2][i] = make_double2(0, 0);
      own_prev[i] = own[i];
    }
  }
  wait_copies<0>(); // the empty groups past the chunk
  if constexpr (Kpm) block_column_sums(vv, wv, K, reinterpret_cast<double *>(ring), partial);
}

// Every entry of every direction with a hop non-zero (its real or imaginary part): no test per entry.
bool dense_blocks(const hm_stencil_exec *E) {
  for (int d = 0; d < kDirections; d++) {
    const uint32_t k = E->box_kinds[d];
    if (!k) continue;
    for (int e = 0; e < E->orbitals * E->orbitals; e++)
      if (!(k >> (2 * e) & 3u)) return false;
  }
  return true;
}

// The launch for columns [c0, c0 + K) of blocks `pitch` columns wide.
template <bool Kpm, int O, int K, bool Planar, bool Dense>
int launch(const hm_stencil_exec *E, int list, int pitch, int c0, double s, double b, const double *x, double *y,
           double *dots) {
  using B = Box<O, K, Planar>;
  const int64_t slabs = hm_stencil_list_slabs(E, list);
  if (slabs == 0) return HM_SUCCESS;
  const int64_t ntx = (E->cells[0] + B::tx - 1) / B::tx;
  const int64_t ntiles = ntx * (Planar ? (E->cells[1] + B::ty - 1) / B::ty : 1);
  int64_t zchunk, nzchunks;
  staged_chunks(E, list, ntiles, kMaxChunk, &zchunk, &nzchunks);
  HM_CHECK(ntiles * nzchunks < INT32_MAX, HM_ERR_ARGUMENT, "a slab plane of %lld sites is too large for one launch",
           (long long)E->slab_sites);
  const size_t shared = shared_bytes<O, K, Planar>();
  const void *kernel = (const void *)stencil_box_kernel<Kpm, O, K, Planar, Dense>;
  HM_CALL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  const unsigned grid = (unsigned)(ntiles * nzchunks);
  double *partial = nullptr;
  if (Kpm) {
    HM_CALL(hm_device_buffer_grow(&scratch_buffer, (size_t)grid * 2 * K));
    partial = scratch_buffer.p;
  }
  stencil_box_kernel<Kpm, O, K, Planar, Dense><<<grid, kThreads, shared>>>(*E, list, (int)ntx, ntiles, zchunk, s, b,
                                                                          x, y, partial, pitch, c0);
  HM_CHECK_LAUNCH(Kpm ? "stencil kpm_step (box)" : "stencil spmmv (box)");
  // V.V of column c0 + c to dots[c0 + c], Re W.V to dots[pitch + c0 + c]
  if (Kpm) HM_CALL(column_sums(true, (int)grid, 2 * K, partial, dots + c0, K, pitch - K));
  return HM_SUCCESS;
}

// Blocks of a multiple of 16 columns in slices of 16, else of 8.
template <bool Kpm, int O, bool Planar, bool Dense>
int launch_width(const hm_stencil_exec *E, int list, int k, double s, double b, const double *x, double *y,
                 double *dots) {
  if (k % 16 == 0) {
    for (int c0 = 0; c0 < k; c0 += 16) HM_CALL((launch<Kpm, O, 16, Planar, Dense>(E, list, k, c0, s, b, x, y, dots)));
    return HM_SUCCESS;
  }
  for (int c0 = 0; c0 < k; c0 += 8) HM_CALL((launch<Kpm, O, 8, Planar, Dense>(E, list, k, c0, s, b, x, y, dots)));
  return HM_SUCCESS;
}

template <bool Kpm, int O>
int run_cell(const hm_stencil_exec *E, int list, int k, double s, double b, const double *x, double *y, double *dots) {
  const bool planar = E->slow == 2, dense = dense_blocks(E);
  if (planar) return dense ? launch_width<Kpm, O, true, true>(E, list, k, s, b, x, y, dots)
                           : launch_width<Kpm, O, true, false>(E, list, k, s, b, x, y, dots);
  return dense ? launch_width<Kpm, O, false, true>(E, list, k, s, b, x, y, dots)
               : launch_width<Kpm, O, false, false>(E, list, k, s, b, x, y, dots);
}

// The operator's kernel choice auto or box: the box kernel wherever it serves; any other: never.
bool chosen(const hm_stencil_exec *E) {
  return E->kernel == HM_STENCIL_KERNEL_AUTO || E->kernel == HM_STENCIL_KERNEL_BOX;
}

} // namespace

bool hm_cuda_stencil_box_applies(const hm_stencil_exec *E, int k, const double *x, const double *y) {
  if (!chosen(E) || E->real || !E->box_sums || E->has_peierls || E->vacancy_p > 0) return false;
  if (!(E->slow == 1 || E->slow == 2) || !(E->orbitals == 1 || E->orbitals == 2)) return false;
  for (int a = 0; a < 3; a++)
    if (E->boundary[a] == 2) return false; // twisted: a phase on the wrapped neighbour's values
  if (k < 8 || k % 8) return false;
  if ((uintptr_t)x % 16 || (uintptr_t)y % 16) return false; // 16-byte copies
  return E->slab_sites * E->orbitals * (int64_t)k * 16 < INT32_MAX; // 32-bit offsets inside a slab
}

int hm_cuda_stencil_box_run(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b, const double *x,
                            double *y, double *dots) {
  HM_CHECK(list == HM_STENCIL_INTERIOR || list == HM_STENCIL_BOUNDARY, HM_ERR_ARGUMENT,
           "row list %d: the box stencil kernel takes only the interior (0) or boundary (1) slabs", list);
  // this operator's summed blocks into the constant bank, in stream order (no host wait)
  HM_CALL_CUDA(cudaMemcpyToSymbolAsync(constant_box, E->box_sums, sizeof(double2) * kDirections * 4, 0,
                                       cudaMemcpyDeviceToDevice, 0));
  if (E->orbitals == 1) return kpm ? run_cell<true, 1>(E, list, k, s, b, x, y, dots) : run_cell<false, 1>(E, list, k, s, b, x, y, dots);
  return kpm ? run_cell<true, 2>(E, list, k, s, b, x, y, dots) : run_cell<false, 2>(E, list, k, s, b, x, y, dots);
}

void hm_stencil_box_cuda_release_state() { hm_device_buffer_free(&scratch_buffer); }
