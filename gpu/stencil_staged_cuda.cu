// The matrix-free lattice operator's y = H x and fused KPM step for the TI's shape (4 orbitals,
// hops to the 6 face neighbours and the site itself), staged through shared memory by an
// asynchronous pipeline. Chosen at 1, 2, 4, 8 vectors and any multiple of 16 (in 16-column slices)
// unless HAMLET_STENCIL_KERNEL names another kernel (stencil_staged_cuda.h).
//
// Why: the per-site kernel (stencil_cuda.cu) reads each neighbour orbital's entries for a warp of
// 32 / R sites 4 R * 16 bytes apart, so at R = 2 one load touches 16 lines: about 14 L1 wavefronts
// per site and column where whole lines would take 3.5. Here 16-byte cp.async copies (into shared
// memory without registers) fill a ring of 3 slabs, the next slab's copy in flight while this slab
// is computed (synchronous copies lost to their latency).
//
// A thread block owns a TX x TY tile of the slab plane (x fastest) and marches along a chunk of
// consecutive slabs of one run of the row list (at most 16; blocks numbered chunk by chunk, so the
// blocks that run at once read neighbouring rows: staged_chunks.cuh). Stage j (ring slot j % 3)
// holds slab g0 - 1 + j's tile plus its one-site halo ((TX+2) x (TY+2) sites, corners not copied; 4 R entries a site, as in
// the vector). Slab m of the chunk reads its plane and the 4 in-plane neighbours from stage m + 1,
// z + 1 from stage m + 2, and z - 1 from registers: each thread keeps its own site of the slab below
// (the only site of it that it reads), so stage m's slot takes stage m + 3's copy. One thread per
// (site, column) computes all 4 orbitals; the cell's blocks, summed per direction (E.face_sums), are
// operands from the constant bank. Then the results go through the plane's slot (read by no one by
// then) so that the output block is read (KPM) and written in whole lines, and the dots take V from
// the staged plane instead of DRAM. Halo sites past an open boundary or on a slab not here are zero-filled by
// the copy itself (source size 0); periodic boundaries wrap in the copy. Shared memory is swizzled
// per site (the 16-byte chunks of a site XOR-permuted by its index) so that the 32 / R sites of a
// warp hit distinct banks.
//
// Two arithmetic paths: where every summed entry is real or imaginary where the TI's is
// (E.face_kinds, the TI's kinds compiled in: ti_kind), each entry is 2 multiply-adds with no test;
// any other cell tests each entry's kind (E.face_kinds) and does the 4 of a complex product. The copies'
// addresses in the plane are worked out once per thread (copy_plan), not per slab; the KPM step's W
// tile of the next slab is prefetched into L2. HAMLET_STENCIL_STAGED_KINDS=generic forces the second
// path (benchmarks, tests). bench/README.md's history has the measurements behind each choice.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "column_sums.cuh"
#include "device_buffer.cuh"
#include "staged_chunks.cuh"
#include "staged_copies.cuh"
#include "stencil_launch.cuh"
#include "stencil_staged_cuda.h"

namespace {

constexpr int kThreads = 256;
constexpr int kOrbitals = 4;
constexpr int kDirections = 7;        // the site itself, -x, +x, -y, +y, -z, +z
constexpr int kEntries = kDirections * kOrbitals * kOrbitals;
constexpr int kStages = 3;            // slots of the ring
constexpr int64_t kMaxChunk = 16;     // slabs (N = 10^9, R = 2 on the H100: 8 1.22x, 16 1.24x, 24 1.27x, 48 1.30x)

hm_device_buffers scratch_buffer; // per device

// The tile of the slab plane per width R: TX x TY sites, one thread per (site, column). Rows of 32
// sites at R = 2 (2 blocks per SM, no spills): 68.0 us against 72.2 us with 16 x 8 (3 blocks per SM,
// spilling) on the H100, N = 10^9 17.8 ms against 20.1; R = 1 at 64 x 4 was 2.6% slower.
template <int K> struct Tile;
template <> struct Tile<1> { static constexpr int tx = 32, ty = 8; };
template <> struct Tile<2> { static constexpr int tx = 32, ty = 4; };
template <> struct Tile<4> { static constexpr int tx = 16, ty = 4; };
template <> struct Tile<8> { static constexpr int tx = 8, ty = 4; };
template <> struct Tile<16> { static constexpr int tx = 4, ty = 4; };

template <bool Cplx, int K> struct Layout {
  static constexpr int tx = Tile<K>::tx, ty = Tile<K>::ty;
  static constexpr int hx = tx + 2, hy = ty + 2, halo_sites = hx * hy;
  static constexpr int entry = Cplx ? 16 : 8;     // bytes of one (orbital, column) entry
  static constexpr int row_bytes = K * entry;     // one orbital's K columns
  static constexpr int site_bytes = kOrbitals * row_bytes;
  static constexpr int site_chunks = site_bytes / 16;
  static constexpr int stage_bytes = halo_sites * site_bytes;
  static constexpr int site_entries = kOrbitals * K;
  static constexpr int copies = (halo_sites * site_chunks + kThreads - 1) / kThreads; // per thread and slab
  static constexpr int outputs = tx * ty * site_entries / kThreads;                    // per thread and slab
  static_assert(tx * ty * K == kThreads, "one thread per (site, column) of the tile");
  static_assert(site_bytes % 16 == 0, "a site is whole 16-byte chunks");
  static_assert(outputs * kThreads == tx * ty * site_entries, "whole output rounds");
  static_assert(tx * ty * site_bytes <= stage_bytes && 2 * kThreads * 8 <= stage_bytes, "a stage holds the results and the dots");
};

// The cell's blocks summed per direction, [direction][i][j] (per device; copied from E.face_sums on the
// default stream just before a product's launches, so each launch reads its own operator's blocks).
__constant__ double2 constant_blocks[kEntries];

// Shared memory: the ring.
template <bool Cplx, int K> constexpr size_t shared_bytes() { return (size_t)kStages * Layout<Cplx, K>::stage_bytes; }

// Blocks per SM the launch bounds promise (they cap the registers): 3 where the shared memory lets
// them fit on an sm_90 (228 KiB, 1 KiB reserved per block) at R <= 2 (now R = 1 only: R = 2's rows of
// 32 sites leave room for 2), else 2. At R = 4 three fit exactly, but the 80 registers they leave
// spill: 73.5 us against 68.2 us on the H100.
template <bool Cplx, int K> constexpr int min_blocks() {
  const int fit = (int)((228u * 1024u) / (shared_bytes<Cplx, K>() + 1024u));
  return K <= 2 && fit >= 3 ? 3 : 2;
}

// The TI's kind of summed entry (d, i, j) (inputs/lattices/ti.lattice: the site m G1, each face
// -t/2 G1 -+ t/2 i G_a with G1 = tau_z sigma_0, G_a = tau_x sigma_a): 0 zero, 1 real, 2 imaginary.
// Every diagonal entry is real; x: (i, 3 - i) imaginary; y: (i, 3 - i) real; z: (i, i ^ 2) imaginary.
__host__ __device__ constexpr int ti_kind(int d, int i, int j) {
  return i == j ? 1 : d == 1 || d == 2 ? (i + j == 3 ? 2 : 0) : d == 3 || d == 4 ? (i + j == 3 ? 1 : 0)
                                    : d == 5 || d == 6 ? ((i ^ 2) == j ? 2 : 0) : 0;
}

// Whether E's summed entries are among the TI's kinds: each part non-zero only where the TI's is.
bool has_ti_kinds(const hm_stencil_exec *E) {
  for (int d = 0; d < kDirections; d++)
    for (int e = 0; e < kOrbitals * kOrbitals; e++) {
      const uint32_t kind = E->face_kinds[d] >> (2 * e) & 3u;
      if (kind & ~(uint32_t)ti_kind(d, e / kOrbitals, e % kOrbitals)) return false;
    }
  return true;
}

// The chunk permutation of a site: the sites a warp reads at once (consecutive ones) land on
// distinct banks. row_bytes 16: 8 sites of one chunk per orbital; 32: 4 sites; 64: 2 sites.
template <int RowBytes> __device__ __forceinline__ uint32_t swizzle(uint32_t site) {
  if constexpr (RowBytes == 16) return (site >> 1) & 3;
  else if constexpr (RowBytes == 32) return (site & 3) << 1;
  else if constexpr (RowBytes == 64) return (site & 1) << 2;
  else return 0;
}

// Byte offset in a stage of entry e (orbital * K + column) of stage site `site`.
template <bool Cplx, int K> __device__ __forceinline__ uint32_t entry_offset(uint32_t site, uint32_t e) {
  using L = Layout<Cplx, K>;
  const uint32_t byte = e * L::entry;
  return site * L::site_bytes + (((byte >> 4) ^ swizzle<L::row_bytes>(site)) << 4) + (byte & 15);
}

template <bool Cplx> __device__ __forceinline__ double2 read_shared(const char *p) {
  if constexpr (Cplx) return *reinterpret_cast<const double2 *>(p);
  else return make_double2(*reinterpret_cast<const double *>(p), 0);
}

template <bool Cplx> __device__ __forceinline__ void write_shared(char *p, double2 v) {
  if constexpr (Cplx) *reinterpret_cast<double2 *>(p) = v;
  else *reinterpret_cast<double *>(p) = v.x;
}

// The output block streams past L1 (evict first).
template <bool Cplx> __device__ __forceinline__ double2 load_stream(const double *y, uint32_t e) {
  if constexpr (Cplx) return __ldcs(reinterpret_cast<const double2 *>(y) + e);
  else return make_double2(__ldcs(y + e), 0);
}

template <bool Cplx> __device__ __forceinline__ void store_stream(double *y, uint32_t e, double2 v) {
  if constexpr (Cplx) __stcs(reinterpret_cast<double2 *>(y) + e, v);
  else __stcs(y + e, v.x);
}

// Which of the 7 directions block shift R is (stencil_staged_cuda.h: E.face_hops holds).
__device__ __forceinline__ int direction_of(const int32_t *R) {
  for (int a = 0; a < 3; a++)
    if (R[a] != 0) return 1 + 2 * a + (R[a] > 0);
  return 0;
}

// A thread's share of copying one slab's halo tile, the same for every slab. 256 threads cover whole
// sites (a site is 4 to 64 chunks of 16 bytes), so a thread's chunk within its sites is fixed and its
// n-th site is site0 + n * kSiteStep: in the stage (whose swizzle repeats within that stride) its
// offsets are stage0 + n * kSiteStep * site_bytes. Per copy the plan keeps the source's byte offset in
// the slab and two bits: bit n of `copies` (a copy: not a corner, within the tile) and of `inside`
// (not past an open boundary: else zero-filled). Corner sites are skipped: no face hop reads them.
template <bool Cplx, int K> struct CopyPlan {
  uint32_t stage0, copies, inside;
  int32_t slab[Layout<Cplx, K>::copies];
};

template <bool Cplx, int K>
__device__ __forceinline__ CopyPlan<Cplx, K> copy_plan(const hm_stencil_exec &E, int x0, int y0, int nx, int ny, int pitch,
                                                        int c0) {
  using L = Layout<Cplx, K>;
  static_assert(kThreads % L::site_chunks == 0, "a round of copies covers whole sites");
  constexpr uint32_t kSiteStep = kThreads / L::site_chunks;
  static_assert(L::row_bytes >= 128 || kSiteStep % 8 == 0, "the swizzle repeats within a round");
  CopyPlan<Cplx, K> p;
  const uint32_t chunk = threadIdx.x % L::site_chunks, site0 = threadIdx.x / L::site_chunks;
  p.stage0 = site0 * L::site_bytes + ((chunk ^ swizzle<L::row_bytes>(site0)) << 4);
  p.copies = p.inside = 0;
#pragma unroll
  for (int n = 0; n < L::copies; n++) {
    const uint32_t hs = site0 + n * kSiteStep;
    const int hx = (int)(hs % L::hx), hy = (int)(hs / L::hx);
    const bool corner = (hx == 0 || hx == L::hx - 1) && (hy == 0 || hy == L::hy - 1);
    int X = x0 + hx - 1, Y = y0 + hy - 1;
    const bool inside = wrap_axis(X, nx, E.boundary[0]) && wrap_axis(Y, ny, E.boundary[1]);
    p.copies |= (uint32_t)(hs < (uint32_t)L::halo_sites && !corner) << n;
    p.inside |= (uint32_t)inside << n;
    // the chunk's orbital row and place in it; a slice's rows are `pitch` entries apart, from column c0
    const int orbital = (int)chunk * 16 / L::row_bytes, within = (int)chunk * 16 % L::row_bytes;
    p.slab[n] = !inside ? 0
                : K < 16  ? (Y * nx + X) * L::site_bytes + (int)chunk * 16
                          : (((Y * nx + X) * kOrbitals + orbital) * pitch + c0) * L::entry + within;
  }
  return p;
}

// Issue the copies of global slab gz's halo tile into the stage at shared address `stage`.
template <bool Cplx, int K>
__device__ __forceinline__ void copy_slab(const hm_stencil_exec &E, const double *x, int64_t gz, uint32_t stage,
                                          const CopyPlan<Cplx, K> &p, int pitch) {
  using L = Layout<Cplx, K>;
  constexpr uint32_t kSiteStep = kThreads / L::site_chunks;
  const int64_t nz = E.cells[2];
  bool slab_here = true;
  if (gz < 0 || gz >= nz) {
    if (E.boundary[2] == 1) slab_here = false;
    else gz = gz < 0 ? gz + nz : gz - nz;
  }
  const int64_t base = slab_here ? E.slab_row[gz] : -1;
  slab_here = slab_here && base >= 0; // a slab not here: dropped, as hm_stencil_target's -1
  const char *slab = reinterpret_cast<const char *>(x) + (slab_here ? base : 0) * pitch * L::entry;
  const uint32_t inside = slab_here ? p.inside : 0;
#pragma unroll
  for (int n = 0; n < L::copies; n++) {
    if (!(p.copies >> n & 1)) continue;
    const bool here = inside >> n & 1;
    copy16(stage + p.stage0 + n * kSiteStep * L::site_bytes, slab + p.slab[n], here);
  }
}

// The KPM step reads W's tile of each slab just before writing it: with 6 warps per scheduler the
// load's DRAM latency stood bare (ncu: "long scoreboard", 44% of the stall cycles at R = 2). So the
// tile of the next slab is asked into L2 first, one 128-byte line per thread (R = 8, 16: 1.2x faster;
// R = 2: 1.05x; 2 slabs ahead measured slower). The tile's rows are contiguous where the block is
// this launch's K columns; in a slice of a wider block (pitch > K) each orbital row is a run.
template <bool Cplx, int K>
__device__ __forceinline__ void prefetch_output(const double *yslab, int pitch, int c0, int x0, int y0, int nx, int ny,
                                                int t) {
  using L = Layout<Cplx, K>;
  if (K < 16 || pitch == K) { // slices are 16 columns wide
    constexpr int row_lines = L::tx * L::site_bytes / 128; // a tile row is whole lines
    static_assert(row_lines * 128 == L::tx * L::site_bytes && L::ty * row_lines <= kThreads, "a line per thread");
    if (t >= L::ty * row_lines) return;
    const int oy = t / row_lines, at = t % row_lines;
    if (y0 + oy >= ny || x0 + at * 128 / L::site_bytes >= nx) return; // no line past the lattice
    const char *row = reinterpret_cast<const char *>(yslab) + (size_t)((y0 + oy) * nx + x0) * L::site_bytes;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(row + at * 128));
  } else if constexpr (K >= 16) {
    constexpr int run_lines = L::row_bytes / 128;
    static_assert(run_lines * 128 == L::row_bytes && L::tx * L::ty * kOrbitals * run_lines <= kThreads, "a line per thread");
    if (t >= L::tx * L::ty * kOrbitals * run_lines) return;
    const int site = t / (kOrbitals * run_lines), orbital = t / run_lines % kOrbitals, at = t % run_lines;
    const int ox = site % L::tx, oy = site / L::tx;
    if (x0 + ox >= nx || y0 + oy >= ny) return;
    const size_t row = (size_t)((y0 + oy) * nx + x0 + ox) * kOrbitals + orbital;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(reinterpret_cast<const char *>(yslab) + (row * pitch + c0) * L::entry + at * 128));
  }
}

// acc[i] += sum_j a_ij xj[j] for direction d: TiKinds: the TI's entries, 2 multiply-adds each with
// no test (d, i, j are constants once unrolled); else every entry of a non-zero kind (kinds: the
// direction's E.face_kinds), a complex product.
template <bool Cplx, bool TiKinds>
__device__ __forceinline__ void add_direction(int d, uint32_t kinds, const double2 *xj, double2 *acc) {
  constexpr int oo = kOrbitals * kOrbitals;
#pragma unroll
  for (int i = 0; i < kOrbitals; i++)
#pragma unroll
    for (int j = 0; j < kOrbitals; j++) {
      const double2 a = constant_blocks[d * oo + i * kOrbitals + j];
      if constexpr (TiKinds) {
        const int kind = ti_kind(d, i, j);
        if (kind == 1) {
          acc[i].x += a.x * xj[j].x;
          acc[i].y += a.x * xj[j].y;
        } else if (kind == 2) {
          acc[i].x -= a.y * xj[j].y;
          acc[i].y += a.y * xj[j].x;
        }
      } else {
        if (!(kinds >> (2 * (i * kOrbitals + j)) & 3u)) continue;
        if constexpr (Cplx) {
          acc[i].x += a.x * xj[j].x - a.y * xj[j].y;
          acc[i].y += a.x * xj[j].y + a.y * xj[j].x;
        } else {
          acc[i].x += a.x * xj[j].x;
        }
      }
    }
}

// y = H x (Kpm: the KPM step) on columns [c0, c0 + K) of blocks whose rows hold `pitch` columns.
template <bool Kpm, bool Cplx, int K, bool TiKinds>
__global__ void __launch_bounds__(kThreads, min_blocks<Cplx, K>())
    stencil_staged_kernel(hm_stencil_exec E, int list, int ntx, int64_t ntiles, int64_t zchunk, double s,
                          double bshift, const double *__restrict__ x, double *__restrict__ y, double *partial,
                          int slice_pitch, int slice_c0) {
  using L = Layout<Cplx, K>;
  // only 16-column launches are slices of a wider block: narrower ones keep compile-time offsets
  // (runtime ones cost 2.5x the spills at R = 2)
  const int pitch = K < 16 ? K : slice_pitch, c0 = K < 16 ? 0 : slice_c0;
  static_assert(!TiKinds || Cplx, "the TI's kinds hold imaginary entries");
  extern __shared__ __align__(16) char ring[];
  const uint32_t ring_addr = (uint32_t)__cvta_generic_to_shared(ring);
  uint32_t present = 0; // the directions some block takes
  for (int b = 0; b < E.nblocks; b++) present |= 1u << direction_of(E.shift + 3 * b);
  // TiKinds reads every direction's stage unconditionally (a zero entry times a stale value could be NaN)
  const bool need_lo = TiKinds || (present & (1u << 5)), need_hi = TiKinds || (present & (1u << 6));

  // This block's tile and its chunk of slabs: local slabs [l0, l1) of one run of the list.
  int64_t tile, l0, l1;
  staged_block(E, list, ntiles, zchunk, blockIdx.x, &tile, &l0, &l1);
  const int nx = (int)E.cells[0], ny = (int)E.cells[1];
  const int x0 = (int)(tile % ntx) * L::tx, y0 = (int)(tile / ntx) * L::ty;
  const int nsl = (int)(l1 - l0), nj = nsl + 2;
  const int64_t g0 = E.first_slab + l0;
  const int t0 = threadIdx.x, col = t0 % K, lx = (t0 / K) % L::tx, ly = (t0 / K) / L::tx;
  const uint32_t self0 = (uint32_t)((ly + 1) * L::hx + lx + 1);
  const CopyPlan<Cplx, K> plan = copy_plan<Cplx, K>(E, x0, y0, nx, ny, pitch, c0);

  // Stage j (slab g0 - 1 + j) into ring slot j % 3; a commit per stage even where nothing is
  // copied (the first and last slabs where no block hops along z), so the group count is fixed.
  auto issue = [&](int j) {
    if (j < nj && (j > 0 || need_lo) && (j < nj - 1 || need_hi))
      copy_slab<Cplx, K>(E, x, g0 - 1 + j, ring_addr + (uint32_t)(j % kStages) * L::stage_bytes, plan, pitch);
    commit_copies();
  };
  for (int j = 0; j < kStages; j++) issue(j);
  wait_copies();
  __syncthreads(); // the first three stages
  double2 below[kOrbitals]; // this thread's site on slab m - 1 (stage m)
#pragma unroll
  for (int j = 0; j < kOrbitals; j++) below[j] = read_shared<Cplx>(ring + entry_offset<Cplx, K>(self0, j * K + col));
  double vv = 0, wv = 0;
  const uint64_t disorder_key = hm_stencil_disorder_key(&E);
  for (int m = 0; m < nsl; m++) {
    wait_copies(); // stage m + 2 is here
    __syncthreads(); // ... for every thread; slab m - 1's slot is free
    issue(m + kStages);
    char *mid = ring + ((m + 1) % kStages) * L::stage_bytes;
    const char *hi = ring + ((m + 2) % kStages) * L::stage_bytes;
    // The shared offsets below are cheap from the thread's index; hoisted out of the loop they are
    // some 40 values that spill at the 80 registers of 3 blocks per SM, so the compiler is kept
    // from seeing that they do not change.
    uint32_t self = self0;
    int t = t0;
    asm volatile("" : "+r"(self), "+r"(t));
    if constexpr (Kpm)
      if (m + 1 < nsl)
        prefetch_output<Cplx, K>(y + (size_t)(l0 + m + 1) * E.slab_sites * kOrbitals * pitch * (Cplx ? 2 : 1), pitch, c0, x0,
                                 y0, nx, ny, t);
    double2 acc[kOrbitals];
#pragma unroll
    for (int i = 0; i < kOrbitals; i++) acc[i] = make_double2(0, 0);
#pragma unroll
    for (int d = 0; d < kDirections; d++) {
      const uint32_t kinds = E.face_kinds[d];
      if (!TiKinds && !kinds) continue;
      const char *st = d == 6 ? hi : mid;
      const uint32_t site = self + (d == 1 ? -1 : d == 2 ? 1 : d == 3 ? -L::hx : d == 4 ? L::hx : 0);
      double2 xj[kOrbitals];
#pragma unroll
      for (int j = 0; j < kOrbitals; j++)
        xj[j] = d == 5 ? below[j] : read_shared<Cplx>(st + entry_offset<Cplx, K>(site, j * K + col));
      add_direction<Cplx, TiKinds>(d, kinds, xj, acc);
    }
    // this site on this slab: the next slab's below (loaded again here, not kept from direction 0,
    // so that the computation holds one set of 4 fewer)
#pragma unroll
    for (int j = 0; j < kOrbitals; j++) below[j] = read_shared<Cplx>(mid + entry_offset<Cplx, K>(self, j * K + col));
    // the disorder (diagonal) added here from this site's entries, so that the unrolled output
    // below stays short
    // (one draw per site where the disorder is per site: the 4 orbitals' calls were not merged)
    if (E.disorder_w != 0 && x0 + lx < nx && y0 + ly < ny) {
      const int64_t site = (g0 + m) * E.slab_sites + (y0 + ly) * nx + x0 + lx;
      const double d0 = hm_stencil_disorder_draw(&E, disorder_key, E.disorder_per_site ? site : site * kOrbitals);
#pragma unroll
      for (int i = 0; i < kOrbitals; i++) {
        const double d = E.disorder_per_site || i == 0 ? d0 : hm_stencil_disorder_draw(&E, disorder_key, site * kOrbitals + i);
        acc[i].x += d * below[i].x;
        acc[i].y += d * below[i].y;
      }
    }
    // The plane's entries this thread writes out (V), before the results overwrite them.
    constexpr int row_entries = L::tx * L::site_entries;
    double2 plane[L::outputs];
#pragma unroll
    for (int n = 0; n < L::outputs; n++) {
      const int e = t + n * kThreads, oy = e / row_entries, r = e % row_entries;
      plane[n] = read_shared<Cplx>(
          mid + entry_offset<Cplx, K>((uint32_t)((oy + 1) * L::hx + r / L::site_entries + 1), r % L::site_entries));
    }
    __syncthreads(); // the plane is read by no one now: the results go there
    const uint32_t tile_site = (uint32_t)(t / K);
#pragma unroll
    for (int i = 0; i < kOrbitals; i++) write_shared<Cplx>(mid + entry_offset<Cplx, K>(tile_site, i * K + col), acc[i]);
    __syncthreads();
    // Whole tile rows of the output (TX sites are consecutive in the vector): thread t takes
    // entries t, t + 256, ...; its column stays t % K.
    double *yslab = y + (size_t)(l0 + m) * E.slab_sites * kOrbitals * pitch * (Cplx ? 2 : 1);
#pragma unroll
    for (int n = 0; n < L::outputs; n++) {
      const int e = t + n * kThreads, oy = e / row_entries, r = e % row_entries, ox = r / L::site_entries,
                within = r % L::site_entries;
      if (x0 + ox >= nx || y0 + oy >= ny) continue;
      const double2 h = read_shared<Cplx>(mid + entry_offset<Cplx, K>((uint32_t)(oy * L::tx + ox), within));
      const uint32_t q = (uint32_t)((y0 + oy) * nx + x0 + ox);
      const uint32_t out = K < 16 ? q * L::site_entries + within : (q * kOrbitals + within / K) * pitch + c0 + within % K;
      if constexpr (!Kpm) {
        store_stream<Cplx>(yslab, out, h);
      } else {
        const double2 v = plane[n], old = load_stream<Cplx>(yslab, out);
        const double wr = 2.0 * s * (h.x - bshift * v.x) - old.x, wm = 2.0 * s * (h.y - bshift * v.y) - old.y;
        store_stream<Cplx>(yslab, out, make_double2(wr, wm));
        vv += v.x * v.x + v.y * v.y;
        wv += wr * v.x + wm * v.y;
      }
    }
  }
  wait_copies(); // the empty groups past the chunk
  if constexpr (Kpm) block_column_sums(vv, wv, K, reinterpret_cast<double *>(ring), partial);
}

// The TI's kinds compiled in where E's entries are among them, unless HAMLET_STENCIL_STAGED_KINDS=generic.
bool want_ti_kinds(const hm_stencil_exec *E) {
  const char *v = hm_tuning_variable("HAMLET_STENCIL_STAGED_KINDS");
  return !E->real && !(v && !strcmp(v, "generic")) && has_ti_kinds(E);
}

// The launch for columns [c0, c0 + K) of blocks `pitch` columns wide.
template <bool Kpm, bool Cplx, int K, bool TiKinds>
int launch(const hm_stencil_exec *E, int list, int pitch, int c0, double s, double b, const double *x, double *y,
           double *dots) {
  using L = Layout<Cplx, K>;
  const int64_t slabs = hm_stencil_list_slabs(E, list);
  if (slabs == 0) return HM_SUCCESS;
  const int64_t ntx = (E->cells[0] + L::tx - 1) / L::tx, ntiles = ntx * ((E->cells[1] + L::ty - 1) / L::ty);
  int64_t zchunk, nzchunks;
  staged_chunks(E, list, ntiles, kMaxChunk, &zchunk, &nzchunks);
  HM_CHECK(ntiles * nzchunks < INT32_MAX, HM_ERR_ARGUMENT, "a slab plane of %lld sites is too large for one launch",
           (long long)E->slab_sites);
  const size_t shared = shared_bytes<Cplx, K>();
  const void *kernel = (const void *)stencil_staged_kernel<Kpm, Cplx, K, TiKinds>;
  HM_CALL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  const unsigned grid = (unsigned)(ntiles * nzchunks);
  double *partial = nullptr;
  if (Kpm) {
    HM_CALL(hm_device_buffer_grow(&scratch_buffer, (size_t)grid * 2 * K));
    partial = scratch_buffer.p;
  }
  stencil_staged_kernel<Kpm, Cplx, K, TiKinds><<<grid, kThreads, shared>>>(*E, list, (int)ntx, ntiles, zchunk, s, b,
                                                                          x, y, partial, pitch, c0);
  HM_CHECK_LAUNCH(Kpm ? "stencil kpm_step (staged)" : "stencil spmmv (staged)");
  // V.V of column c0 + c to dots[c0 + c], Re W.V to dots[pitch + c0 + c]
  if (Kpm) HM_CALL(column_sums(true, (int)grid, 2 * K, partial, dots + c0, K, pitch - K));
  return HM_SUCCESS;
}

// Blocks of k = 1, 2, 4, 8 or 16 columns in one launch, wider ones (a multiple of 16) in slices of 16.
template <bool Kpm, bool Cplx, bool TiKinds>
int launch_width(const hm_stencil_exec *E, int list, int k, double s, double b, const double *x, double *y,
                 double *dots) {
  switch (k) {
    case 1: return launch<Kpm, Cplx, 1, TiKinds>(E, list, k, 0, s, b, x, y, dots);
    case 2: return launch<Kpm, Cplx, 2, TiKinds>(E, list, k, 0, s, b, x, y, dots);
    case 4: return launch<Kpm, Cplx, 4, TiKinds>(E, list, k, 0, s, b, x, y, dots);
    case 8: return launch<Kpm, Cplx, 8, TiKinds>(E, list, k, 0, s, b, x, y, dots);
    default: break;
  }
  HM_CHECK(k % 16 == 0, HM_ERR_ARGUMENT, "the staged stencil kernel serves 1, 2, 4, 8 or a multiple of 16 vectors; got %d",
           k);
  for (int c0 = 0; c0 < k; c0 += 16) HM_CALL((launch<Kpm, Cplx, 16, TiKinds>(E, list, k, c0, s, b, x, y, dots)));
  return HM_SUCCESS;
}

// This operator's summed blocks (stencil_free.c, on the device since the operator was made) into the
// constant bank, in stream order (no host wait), then the launches.
template <bool Kpm, bool Cplx>
int run_width(const hm_stencil_exec *E, int list, int k, double s, double b, const double *x, double *y, double *dots) {
  HM_CALL_CUDA(cudaMemcpyToSymbolAsync(constant_blocks, E->face_sums, sizeof(double2) * kEntries, 0,
                                       cudaMemcpyDeviceToDevice, 0));
  if constexpr (Cplx)
    if (want_ti_kinds(E)) return launch_width<Kpm, Cplx, true>(E, list, k, s, b, x, y, dots);
  return launch_width<Kpm, Cplx, false>(E, list, k, s, b, x, y, dots);
}

// The operator's kernel choice auto or staged: the staged kernel at every width it serves (faster
// than the per-site and tensor-core kernels at each, bench/README.md); any other: never.
bool chosen(const hm_stencil_exec *E) {
  return E->kernel == HM_STENCIL_KERNEL_AUTO || E->kernel == HM_STENCIL_KERNEL_STAGED;
}

} // namespace

bool hm_cuda_stencil_staged_applies(const hm_stencil_exec *E, int k, const double *x, const double *y) {
  if (!chosen(E) || E->orbitals != kOrbitals || E->has_peierls || E->vacancy_p > 0 || !E->face_hops || E->slow != 2)
    return false;
  for (int a = 0; a < 3; a++)
    if (E->boundary[a] == 2) return false; // twisted: a phase on the wrapped neighbour's values
  if (!(k == 1 || k == 2 || k == 4 || k == 8 || k % 16 == 0)) return false;
  if ((uintptr_t)x % 16 || (uintptr_t)y % 16) return false; // 16-byte copies
  const int64_t site_bytes = (int64_t)kOrbitals * k * (E->real ? 8 : 16);
  return E->slab_sites * site_bytes < INT32_MAX; // 32-bit offsets inside a slab
}

int hm_cuda_stencil_staged_run(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b,
                               const double *x, double *y, double *dots) {
  HM_CHECK(list == HM_STENCIL_INTERIOR || list == HM_STENCIL_BOUNDARY, HM_ERR_ARGUMENT,
           "row list %d: the staged stencil kernel takes only the interior (0) or boundary (1) slabs", list);
  if (E->real) return kpm ? run_width<true, false>(E, list, k, s, b, x, y, dots)
                          : run_width<false, false>(E, list, k, s, b, x, y, dots);
  return kpm ? run_width<true, true>(E, list, k, s, b, x, y, dots) : run_width<false, true>(E, list, k, s, b, x, y, dots);
}

void hm_stencil_staged_cuda_release_state() { hm_device_buffer_free(&scratch_buffer); }
