// The matrix-free lattice operator's y = H x and fused KPM step for the TI's shape (4 orbitals,
// hops to the 6 face neighbours and the site itself), staged through shared memory by an
// asynchronous pipeline. Chosen at 1 to 16 vectors (unless HAMLET_STENCIL_KERNEL names another kernel) (stencil_staged_cuda.h).
//
// Why: the per-site kernel (stencil_cuda.cu) reads each neighbour orbital's entries for a warp of
// 32 / R sites 4 R * 16 bytes apart, so at R = 2 one load touches 16 lines: about 14 L1 wavefronts
// per site and column where whole lines would take 3.5 (issue 27, session 32's brief). Session 27's
// staged kernel copied the same tiles synchronously and lost to the copy's latency; here the copies
// are cp.async (16-byte .cg, into shared memory without registers), S = 4 slabs in a ring, so the
// next slab's copy flies while this slab is computed.
//
// A thread block owns a TX x TY tile of the slab plane (x fastest) and marches along a chunk of
// consecutive slabs of one run of the row list. Stage j of the ring holds slab g0 - 1 + j's tile
// plus its one-site halo ((TX+2) x (TY+2) sites, corners not copied; 4 R entries a site, as in the
// vector): slab m of the chunk reads stages m (z - 1), m + 1 (its own plane and the 4 in-plane
// neighbours) and m + 2 (z + 1). Per slab: wait for stage m + 2, one barrier, issue the copy of
// stage m + 3 into the ring slot slab m - 1 left, compute (one thread per (site, column), all 4
// orbitals, the cell's blocks summed per direction in shared memory, their zero entries skipped by
// bit masks), then the results go through
// the slot of stage m (no longer read) so that the output block is read (KPM) and written in whole
// lines, and the dots take V from the staged plane instead of DRAM. Halo sites past an open
// boundary or on a slab not here are zero-filled by the copy itself (source size 0); periodic
// boundaries wrap when the halo is copied. Shared memory is swizzled per site (the 16-byte chunks
// of a site XOR-permuted by its index) so that the 32 / R sites of a warp hit distinct banks.
// The ring of S = 4 slabs above is variant s4; the default is s3c (3 slabs, the own site of the slab
// below in registers, the summed blocks in the constant bank: 3 blocks per SM at R = 1 and 2, 2 at
// R = 8 and 16). HAMLET_STENCIL_STAGED_VARIANT picks another for benchmarks (s4, s3, s5, rolled,
// cblocks: see shared_bytes and want_variant below).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "column_sums.cuh"
#include "device_buffer.cuh"
#include "stencil_launch.cuh"
#include "stencil_staged_cuda.h"

namespace {

constexpr int kThreads = 256;
constexpr int kOrbitals = 4;
constexpr int kDirections = 7;        // the site itself, -x, +x, -y, +y, -z, +z
constexpr int64_t kWantBlocks = 1024; // long chunks: each chunk copies 2 slabs more than it computes

hm_device_buffers scratch_buffer; // per device
hm_device_buffers table_buffer;   // per device: the cblocks variant's summed blocks before the constant bank

// The tile of the slab plane per width R: TX x TY sites, one thread per (site, column).
template <int K> struct Tile;
template <> struct Tile<1> { static constexpr int tx = 32, ty = 8; };
template <> struct Tile<2> { static constexpr int tx = 16, ty = 8; };
template <> struct Tile<4> { static constexpr int tx = 8, ty = 8; };
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
  static_assert(tx * ty * K == kThreads, "one thread per (site, column) of the tile");
  static_assert(site_bytes % 16 == 0, "a site is whole 16-byte chunks");
  static_assert(tx * ty * site_bytes <= stage_bytes && 2 * kThreads * 8 <= stage_bytes, "a stage holds the results and the dots");
};

// The cell's table in shared memory: the blocks summed per direction (1792 bytes), then their
// non-zero entries as bits (4 words: directions 2w and 2w + 1 in word w); then the ring.
constexpr int kBlockBytes = (int)sizeof(double2) * kDirections * kOrbitals * kOrbitals;
constexpr int kTableBytes = kBlockBytes + 4 * (int)sizeof(uint32_t);
static_assert(kDirections * kOrbitals * kOrbitals <= kThreads && kTableBytes % 16 == 0, "a thread per block entry");

// The cblocks variant's copy of the table's blocks (per device; written on the launch's stream just
// before the launch, so each launch reads its own operator's blocks).
__constant__ double2 constant_blocks[kDirections * kOrbitals * kOrbitals];

// The kernel's variants (HAMLET_STENCIL_STAGED_VARIANT, a benchmark choice; want_variant):
//   default  S = 4 slabs in the ring, the 7 directions unrolled;
//   s5       S = 5: two slabs in flight (the wait is for the older one only); at R = 1, and R = 2
//            real (launch_width);
//   rolled   S = 4 with the direction loop not unrolled (Rolled): one direction's loads live at a
//            time, so the registers fit the blocks the shared memory allows (the unrolled kernel
//            takes 104-110 registers: 2 blocks per SM even where 4 fit, real arithmetic);
//   cblocks  the default with the summed blocks in the constant bank (constant_blocks, a copy per
//            launch): the multiply-adds take them as operands, no shared load per non-zero entry
//            (52 of the TI's per thread and slab);
//   s3c      S = 3 unrolled, the blocks in the constant bank (as cblocks);
//   s3       S = 3, rolled: the slab below (z - 1) kept in registers, each thread's own site from
//            the previous slab's plane (the only site of that slab it reads), so the ring holds the
//            plane, the slab above and the one in flight, and the results go through the plane's
//            slot once it is read: a quarter less shared memory per block, so 3 blocks per SM fit
//            at R = 1 and 2 (complex) and 2 at R = 8 and 16 where S = 4 fits one.
template <bool Cplx, int K, int S> constexpr size_t shared_bytes() {
  return (size_t)kTableBytes + (size_t)S * Layout<Cplx, K>::stage_bytes;
}

// Blocks per SM the launch bounds promise (they cap the registers): 2 for the default, as measured;
// for the rolled variants and S = 3 what their shared memory lets fit on an sm_90 (228 KiB, 1 KiB reserved
// per block), from 2 to 4 (64 registers) for S = 4 and to 3 (80 registers) for S = 3, which holds
// 8 more (complex) and spills 50-70 bytes at 64 (ptxas -v).
template <bool Cplx, int K, int S, bool Rolled> constexpr int min_blocks() {
  if (!Rolled && S != 3) return 2;
  const int fit = (int)((228u * 1024u) / (shared_bytes<Cplx, K, S>() + 1024u)), most = S == 3 ? 3 : 4;
  return fit < 2 ? 2 : fit > most ? most : fit;
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

// 16 bytes global -> shared, asynchronous; present = false fills zeros and reads nothing.
__device__ __forceinline__ void copy16(uint32_t dst, const void *src, bool present) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(present ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int Pending> __device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// Coordinate X of an axis of n cells in [0, n) after one periodic wrap; false where an open boundary
// drops it (boundary 1 = HM_BC_OPEN; twisted boundaries never come here).
__device__ __forceinline__ bool wrap_axis(int &X, int n, int boundary) {
  if (X < 0) {
    if (boundary == 1) return false;
    X += n;
  } else if (X >= n) {
    if (boundary == 1) return false;
    X -= n;
  }
  return X >= 0 && X < n;
}

// Which of the 7 directions block shift R is (stencil_staged_cuda.h: E.face_hops holds).
__device__ __forceinline__ int direction_of(const int32_t *R) {
  for (int a = 0; a < 3; a++)
    if (R[a] != 0) return 1 + 2 * a + (R[a] > 0);
  return 0;
}

// Issue the copies of global slab gz's halo tile (corner sites skipped: no face hop reads them).
template <bool Cplx, int K>
__device__ void copy_slab(const hm_stencil_exec &E, const double *x, int64_t gz, uint32_t stage, int x0, int y0,
                          int nx, int ny) {
  using L = Layout<Cplx, K>;
  const int64_t nz = E.cells[2];
  bool slab_here = true;
  if (gz < 0 || gz >= nz) {
    if (E.boundary[2] == 1) slab_here = false;
    else gz = gz < 0 ? gz + nz : gz - nz;
  }
  const int64_t base = slab_here ? E.slab_row[gz] : -1;
  slab_here = slab_here && base >= 0; // a slab not here: dropped, as hm_stencil_target's -1
  const char *slab = reinterpret_cast<const char *>(x) + (slab_here ? base : 0) * L::row_bytes;
  for (int c = threadIdx.x; c < L::halo_sites * L::site_chunks; c += kThreads) {
    const uint32_t hs = (uint32_t)c / L::site_chunks, chunk = (uint32_t)c % L::site_chunks;
    const int hx = (int)(hs % L::hx), hy = (int)(hs / L::hx);
    if ((hx == 0 || hx == L::hx - 1) && (hy == 0 || hy == L::hy - 1)) continue;
    int X = x0 + hx - 1, Y = y0 + hy - 1;
    const bool here = slab_here && wrap_axis(X, nx, E.boundary[0]) && wrap_axis(Y, ny, E.boundary[1]);
    const void *src = here ? slab + (uint32_t)(Y * nx + X) * L::site_bytes + chunk * 16 : (const void *)x;
    copy16(stage + hs * L::site_bytes + ((chunk ^ swizzle<L::row_bytes>(hs)) << 4), src, here);
  }
}

// Entry e (direction, i, j) of the table: the blocks of direction e / 16 summed, in block order.
__device__ __forceinline__ double2 summed_block_entry(const hm_stencil_exec &E, int e) {
  constexpr int oo = kOrbitals * kOrbitals;
  const double2 *gblock = reinterpret_cast<const double2 *>(E.block);
  double2 sum = make_double2(0, 0);
  for (int b = 0; b < E.nblocks; b++)
    if (direction_of(E.shift + 3 * b) == e / oo) {
      sum.x += gblock[b * oo + e % oo].x;
      sum.y += gblock[b * oo + e % oo].y;
    }
  return sum;
}

// The table for the constant bank (cblocks): one thread per entry.
__global__ void summed_blocks_kernel(hm_stencil_exec E, double2 *table) {
  if (threadIdx.x < kDirections * kOrbitals * kOrbitals) table[threadIdx.x] = summed_block_entry(E, threadIdx.x);
}

template <bool Kpm, bool Cplx, int K, int S, bool Rolled, bool ConstBlocks>
__global__ void __launch_bounds__(kThreads, min_blocks<Cplx, K, S, Rolled>())
    stencil_staged_kernel(hm_stencil_exec E, int list, int ntx, int64_t nzchunks, int64_t zchunk, double s,
                          double bshift, const double *__restrict__ x, double *__restrict__ y, double *partial) {
  using L = Layout<Cplx, K>;
  constexpr bool kRegisterLo = S == 3; // the slab below in registers (shared_bytes)
  static_assert(S >= 3 && S <= 5, "a ring of 3 to 5 slabs");
  constexpr int kOutputs = L::ty * L::tx * L::site_entries / kThreads; // output entries per thread
  static_assert(kOutputs * kThreads == L::ty * L::tx * L::site_entries, "whole output rounds");
  extern __shared__ __align__(16) char sh[];
  double2 *blk = reinterpret_cast<double2 *>(sh); // [direction][i][j], the blocks of one direction summed
  uint32_t *nonzero_bits = reinterpret_cast<uint32_t *>(sh + kBlockBytes);
  char *ring = sh + kTableBytes;
  const uint32_t ring_addr = (uint32_t)__cvta_generic_to_shared(ring);
  static_assert(!(ConstBlocks && Rolled), "the constant bank's blocks are taken at fixed offsets (unrolled)");
  constexpr int oo = kOrbitals * kOrbitals;
  bool entry_nonzero = false; // the TI's hop blocks hold 8 non-zero entries of 16: the others are skipped
  if (threadIdx.x < kDirections * oo) {
    const int e = threadIdx.x;
    const double2 sum = summed_block_entry(E, e);
    blk[e] = sum;
    entry_nonzero = sum.x != 0 || sum.y != 0;
  }
  const uint32_t warp_bits = __ballot_sync(0xffffffffu, entry_nonzero);
  if (threadIdx.x % 32 == 0 && threadIdx.x / 32 < 4) nonzero_bits[threadIdx.x / 32] = warp_bits;
  uint32_t present = 0; // the directions some block takes
  for (int b = 0; b < E.nblocks; b++) present |= 1u << direction_of(E.shift + 3 * b);
  const bool need_lo = present & (1u << 5), need_hi = present & (1u << 6);

  // This block's tile and its chunk of slabs: local slabs [l0, l1) of one run of the list.
  const int64_t tile = blockIdx.x / nzchunks;
  int64_t rem = blockIdx.x % nzchunks, l0 = 0, l1 = 0;
  for (int r = 0; r < E.nruns[list]; r++) {
    const int64_t begin = E.run[list][r][0], end = E.run[list][r][1], n = (end - begin + zchunk - 1) / zchunk;
    if (rem < n) {
      l0 = begin + rem * zchunk;
      l1 = l0 + zchunk < end ? l0 + zchunk : end;
      break;
    }
    rem -= n;
  }
  const int nx = (int)E.cells[0], ny = (int)E.cells[1];
  const int x0 = (int)(tile % ntx) * L::tx, y0 = (int)(tile / ntx) * L::ty;
  const int nsl = (int)(l1 - l0), nj = nsl + 2;
  const int64_t g0 = E.first_slab + l0;
  const int t = threadIdx.x, col = t % K, lx = (t / K) % L::tx, ly = (t / K) / L::tx;
  const uint32_t self = (uint32_t)((ly + 1) * L::hx + lx + 1);

  // Stage j (slab g0 - 1 + j) into ring slot j % S; a commit per stage even where nothing is
  // copied (the first and last slabs where no block hops along z), so the group count is fixed.
  auto issue = [&](int j) {
    if (j < nj && (j > 0 || need_lo) && (j < nj - 1 || need_hi))
      copy_slab<Cplx, K>(E, x, g0 - 1 + j, ring_addr + (uint32_t)(j % S) * L::stage_bytes, x0, y0, nx, ny);
    commit_copies();
  };
  // Stages ahead of slab m: m + 3 (S = 3: it lands in slab m - 1's plane, read by then), m + S - 1.
  constexpr int kAhead = kRegisterLo ? 3 : S - 1;
  for (int j = 0; j < kAhead; j++) issue(j);
  __syncthreads(); // the blocks and their bits
  uint32_t bits[4];
#pragma unroll
  for (int w = 0; w < 4; w++) bits[w] = nonzero_bits[w];
  double2 below[kOrbitals]; // S = 3: this thread's site on slab m - 1 (stage m)
  if constexpr (kRegisterLo) {
    wait_copies<0>();
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kOrbitals; j++) below[j] = read_shared<Cplx>(ring + entry_offset<Cplx, K>(self, j * K + col));
  }
  double vv = 0, wv = 0;
  for (int m = 0; m < nsl; m++) {
    wait_copies<kRegisterLo ? 0 : S - 4>(); // stages up to m + 2 are here
    __syncthreads(); // ... for every thread; slab m - 1's slot (S = 3: its plane and results) is free
    issue(m + kAhead);
    char *lo = ring + (m % S) * L::stage_bytes, *mid = ring + ((m + 1) % S) * L::stage_bytes;
    const char *hi = ring + ((m + 2) % S) * L::stage_bytes;
    double2 acc[kOrbitals];
#pragma unroll
    for (int i = 0; i < kOrbitals; i++) acc[i] = make_double2(0, 0);
    // Rolled: one direction's loads live at a time (fewer registers, less overlap)
#pragma unroll(Rolled ? 1 : kDirections)
    for (int d = 0; d < kDirections; d++) {
      const uint32_t nonzero = (Rolled ? nonzero_bits[d >> 1] : bits[d / 2]) >> (16 * (d % 2)) & 0xffffu;
      if (!nonzero) continue;
      const char *st = d == 5 ? lo : d == 6 ? hi : mid;
      const uint32_t site = self + (d == 1 ? -1 : d == 2 ? 1 : d == 3 ? -L::hx : d == 4 ? L::hx : 0);
      double2 xj[kOrbitals];
#pragma unroll
      for (int j = 0; j < kOrbitals; j++) {
        if (kRegisterLo && d == 5) xj[j] = below[j];
        else xj[j] = read_shared<Cplx>(st + entry_offset<Cplx, K>(site, j * K + col));
      }
      const double2 *B = blk + d * oo;
#pragma unroll
      for (int i = 0; i < kOrbitals; i++)
#pragma unroll
        for (int j = 0; j < kOrbitals; j++) {
          if (!(nonzero & (1u << (i * kOrbitals + j)))) continue;
          const double2 a = ConstBlocks ? constant_blocks[d * oo + i * kOrbitals + j] : B[i * kOrbitals + j];
          if constexpr (Cplx) {
            acc[i].x += a.x * xj[j].x - a.y * xj[j].y;
            acc[i].y += a.x * xj[j].y + a.y * xj[j].x;
          } else {
            acc[i].x += a.x * xj[j].x;
          }
        }
    }
    if constexpr (kRegisterLo) {
      // this site on this slab: the next slab's below (loaded again here, not kept from direction
      // 0, so that the computation holds one set of 4 fewer)
#pragma unroll
      for (int j = 0; j < kOrbitals; j++) below[j] = read_shared<Cplx>(mid + entry_offset<Cplx, K>(self, j * K + col));
      // the disorder (diagonal) added here from this site's entries, so that the unrolled output
      // below stays short
      if (E.disorder_w != 0 && x0 + lx < nx && y0 + ly < ny) {
        const int64_t site = (g0 + m) * E.slab_sites + (y0 + ly) * nx + x0 + lx;
#pragma unroll
        for (int i = 0; i < kOrbitals; i++) {
          const double d = hm_stencil_disorder(&E, site, i);
          acc[i].x += d * below[i].x;
          acc[i].y += d * below[i].y;
        }
      }
    }
    // S = 3: the plane's entries this thread writes out (V), before the results overwrite them.
    double2 plane[kOutputs];
    if constexpr (kRegisterLo) {
#pragma unroll
      for (int n = 0; n < kOutputs; n++) {
        const int e = t + n * kThreads, oy = e / (L::tx * L::site_entries), r = e % (L::tx * L::site_entries);
        plane[n] = read_shared<Cplx>(
            mid + entry_offset<Cplx, K>((uint32_t)((oy + 1) * L::hx + r / L::site_entries + 1), r % L::site_entries));
      }
    }
    // S >= 4: stage m (slab g0 + m - 1, z - 1 of this slab) is read by no one now: the results go
    // there; S = 3: the plane (stage m + 1), read by no one now.
    __syncthreads();
    char *res = kRegisterLo ? mid : lo;
    const uint32_t tile_site = (uint32_t)(t / K);
#pragma unroll
    for (int i = 0; i < kOrbitals; i++) write_shared<Cplx>(res + entry_offset<Cplx, K>(tile_site, i * K + col), acc[i]);
    __syncthreads();
    // Whole tile rows of the output (TX sites are consecutive in the vector): thread t takes
    // entries t, t + 256, ...; its column stays t % K. The disorder (diagonal) is added here, from
    // the staged plane, to V's entry.
    double *yslab = y + (size_t)(l0 + m) * (size_t)E.slab_sites * L::site_entries * (Cplx ? 2 : 1);
    const int64_t slab_site0 = (g0 + m) * E.slab_sites;
    constexpr int row_entries = L::tx * L::site_entries;
    auto output = [&](int e, double2 v, bool disorder) {
      const int oy = e / row_entries, r = e % row_entries, ox = r / L::site_entries, within = r % L::site_entries;
      if (x0 + ox >= nx || y0 + oy >= ny) return;
      double2 h = read_shared<Cplx>(res + entry_offset<Cplx, K>((uint32_t)(oy * L::tx + ox), within));
      const uint32_t q = (uint32_t)((y0 + oy) * nx + x0 + ox), out = q * L::site_entries + within;
      if constexpr (!kRegisterLo)
        v = read_shared<Cplx>(mid + entry_offset<Cplx, K>((uint32_t)((oy + 1) * L::hx + ox + 1), within));
      if (disorder) {
        const double d = hm_stencil_disorder(&E, slab_site0 + q, within / K);
        h.x += d * v.x;
        h.y += d * v.y;
      }
      if constexpr (!Kpm) {
        store_stream<Cplx>(yslab, out, h);
      } else {
        const double2 old = load_stream<Cplx>(yslab, out);
        const double wr = 2.0 * s * (h.x - bshift * v.x) - old.x, wm = 2.0 * s * (h.y - bshift * v.y) - old.y;
        store_stream<Cplx>(yslab, out, make_double2(wr, wm));
        vv += v.x * v.x + v.y * v.y;
        wv += wr * v.x + wm * v.y;
      }
    };
    if constexpr (kRegisterLo) { // the disorder is in the results already
#pragma unroll
      for (int n = 0; n < kOutputs; n++) output(t + n * kThreads, plane[n], false);
    } else if (E.disorder_w == 0) {
#pragma unroll
      for (int e = t; e < L::ty * row_entries; e += kThreads) output(e, make_double2(0, 0), false);
    } else { // the seeded draw is long: not unrolled
#pragma unroll 1
      for (int e = t; e < L::ty * row_entries; e += kThreads) output(e, make_double2(0, 0), true);
    }
  }
  wait_copies<0>(); // the empty groups past the chunk
  if constexpr (Kpm) block_column_sums(vv, wv, K, reinterpret_cast<double *>(ring), partial);
}

// Thread blocks a launch aims at (tiles times slab chunks): kWantBlocks, or HAMLET_STENCIL_STAGED_BLOCKS
// (benchmarks: longer chunks copy fewer extra slabs, more blocks balance the multiprocessors).
int64_t want_blocks() {
  const char *v = getenv("HAMLET_STENCIL_STAGED_BLOCKS");
  const long long n = v ? atoll(v) : 0;
  return n >= 1 && n <= (1 << 24) ? n : kWantBlocks;
}

// The variant HAMLET_STENCIL_STAGED_VARIANT names (shared_bytes): s4 (the 4-slab ring), s3, s5 (only
// where 2 blocks per SM still fit its ring: 1 vector, and 2 in real arithmetic; elsewhere s4),
// rolled, cblocks; unset or any other value s3c, the 3-slab ring with the blocks in the constant
// bank: the fastest at every width on the H200 (session 32, bench/RESULTS.md).
enum Variant { kFourStages, kFiveStages, kThreeStages, kRolled, kConstBlocks, kThreeConst };
Variant want_variant(int k) {
  const char *v = getenv("HAMLET_STENCIL_STAGED_VARIANT");
  if (!v) return kThreeConst;
  if (!strcmp(v, "s4")) return kFourStages;
  if (!strcmp(v, "s3")) return kThreeStages;
  if (!strcmp(v, "s5")) return k <= 2 ? kFiveStages : kFourStages;
  if (!strcmp(v, "rolled")) return kRolled;
  if (!strcmp(v, "cblocks")) return kConstBlocks;
  return kThreeConst;
}

template <bool Kpm, bool Cplx, int K, int S, bool Rolled, bool ConstBlocks>
int launch(const hm_stencil_exec *E, int list, double s, double b, const double *x, double *y, double *dots) {
  using L = Layout<Cplx, K>;
  const int64_t slabs = hm_stencil_list_slabs(E, list);
  if (slabs == 0) return HM_SUCCESS;
  const int64_t ntx = (E->cells[0] + L::tx - 1) / L::tx, ntiles = ntx * ((E->cells[1] + L::ty - 1) / L::ty);
  int64_t zchunk, unused;
  hm_stencil_zchunks(slabs, ntiles, want_blocks(), &zchunk, &unused);
  int64_t nzchunks = 0; // chunks never cross a run: the ring holds consecutive slabs
  for (int r = 0; r < E->nruns[list]; r++) nzchunks += (E->run[list][r][1] - E->run[list][r][0] + zchunk - 1) / zchunk;
  HM_CHECK(ntiles * nzchunks < INT32_MAX, HM_ERR_ARGUMENT, "a slab plane of %lld sites is too large for one launch",
           (long long)E->slab_sites);
  const size_t shared = shared_bytes<Cplx, K, S>();
  const void *kernel = (const void *)stencil_staged_kernel<Kpm, Cplx, K, S, Rolled, ConstBlocks>;
  HM_CALL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  const unsigned grid = (unsigned)(ntiles * nzchunks);
  double *partial = nullptr;
  if (Kpm) {
    HM_CALL(hm_device_buffer_grow(&scratch_buffer, (size_t)grid * 2 * K));
    partial = scratch_buffer.p;
  }
  if (ConstBlocks) { // this operator's blocks into the constant bank, in stream order (no host wait)
    HM_CALL(hm_device_buffer_grow(&table_buffer, 2 * kDirections * kOrbitals * kOrbitals));
    summed_blocks_kernel<<<1, kDirections * kOrbitals * kOrbitals>>>(*E, reinterpret_cast<double2 *>(table_buffer.p));
    HM_CHECK_LAUNCH("stencil staged: the summed blocks");
    HM_CALL_CUDA(cudaMemcpyToSymbolAsync(constant_blocks, table_buffer.p, sizeof(double2) * kDirections * kOrbitals * kOrbitals,
                                         0, cudaMemcpyDeviceToDevice, 0));
  }
  stencil_staged_kernel<Kpm, Cplx, K, S, Rolled, ConstBlocks><<<grid, kThreads, shared>>>(*E, list, (int)ntx, nzchunks, zchunk, s, b, x, y,
                                                                   partial);
  HM_CHECK_LAUNCH(Kpm ? "stencil kpm_step (staged)" : "stencil spmmv (staged)");
  if (Kpm) HM_CALL(column_sums(true, (int)grid, 2 * K, partial, dots));
  return HM_SUCCESS;
}

template <bool Kpm, bool Cplx>
int launch_width(const hm_stencil_exec *E, int list, int k, double s, double b, const double *x, double *y,
                 double *dots) {
  const Variant variant = want_variant(k);
  switch (k * 8 + variant) {
#define HM_STAGED_WIDTH(K)                                                                                     \
  case K * 8 + kFourStages: return launch<Kpm, Cplx, K, 4, false, false>(E, list, s, b, x, y, dots);              \
  case K * 8 + kThreeStages: return launch<Kpm, Cplx, K, 3, true, false>(E, list, s, b, x, y, dots);           \
  case K * 8 + kRolled: return launch<Kpm, Cplx, K, 4, true, false>(E, list, s, b, x, y, dots);                \
  case K * 8 + kConstBlocks: return launch<Kpm, Cplx, K, 4, false, true>(E, list, s, b, x, y, dots);            \
  case K * 8 + kThreeConst: return launch<Kpm, Cplx, K, 3, false, true>(E, list, s, b, x, y, dots);
    HM_STAGED_WIDTH(1)
    HM_STAGED_WIDTH(2)
    HM_STAGED_WIDTH(4)
    HM_STAGED_WIDTH(8)
    HM_STAGED_WIDTH(16)
#undef HM_STAGED_WIDTH
    case 1 * 8 + kFiveStages: return launch<Kpm, Cplx, 1, 5, false, false>(E, list, s, b, x, y, dots);
    case 2 * 8 + kFiveStages: // complex: 5 slabs of 23 KB fit one block per SM; the default runs
      if constexpr (Cplx) return launch<Kpm, Cplx, 2, 4, false, false>(E, list, s, b, x, y, dots);
      else return launch<Kpm, Cplx, 2, 5, false, false>(E, list, s, b, x, y, dots);
    default: break;
  }
  HM_CHECK(0, HM_ERR_ARGUMENT, "the staged stencil kernel serves 1, 2, 4, 8 or 16 vectors; got %d", k);
  return HM_SUCCESS;
}

// HAMLET_STENCIL_KERNEL unset or "staged": the staged kernel at every width it serves (its s3c
// variant measured faster than the per-site kernel at each on the H200, session 32: TI 200 x 100 x 40
// at R = 1, 2, 4, 8, 16 3.44x, 2.67x, 2.49x, 2.37x, 2.40x the floor against 3.61x, 3.32x, 2.89x,
// 2.61x, 2.49x, and 2.36x against 3.31x at N = 10^9); any other value (site, small, mma): never.
bool chosen(int k) {
  (void)k;
  const char *v = getenv("HAMLET_STENCIL_KERNEL");
  return !v || !*v || !strcmp(v, "staged");
}

} // namespace

bool hm_cuda_stencil_staged_applies(const hm_stencil_exec *E, int k, const double *x, const double *y) {
  if (!chosen(k) || E->orbitals != kOrbitals || E->has_peierls || E->vacancy_p > 0 || !E->face_hops || E->slow != 2)
    return false;
  for (int a = 0; a < 3; a++)
    if (E->boundary[a] == 2) return false; // twisted: a phase on the wrapped neighbour's values
  if (!(k == 1 || k == 2 || k == 4 || k == 8 || k == 16)) return false;
  if ((uintptr_t)x % 16 || (uintptr_t)y % 16) return false; // 16-byte copies
  const int64_t site_bytes = (int64_t)kOrbitals * k * (E->real ? 8 : 16);
  return E->slab_sites * site_bytes < INT32_MAX; // 32-bit offsets inside a slab
}

int hm_cuda_stencil_staged_run(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b,
                               const double *x, double *y, double *dots) {
  HM_CHECK(list == HM_STENCIL_INTERIOR || list == HM_STENCIL_BOUNDARY, HM_ERR_ARGUMENT,
           "row list %d: the staged stencil kernel takes only the interior (0) or boundary (1) slabs", list);
  if (E->real) return kpm ? launch_width<true, false>(E, list, k, s, b, x, y, dots)
                          : launch_width<false, false>(E, list, k, s, b, x, y, dots);
  return kpm ? launch_width<true, true>(E, list, k, s, b, x, y, dots)
             : launch_width<false, true>(E, list, k, s, b, x, y, dots);
}

void hm_stencil_staged_cuda_release_state() {
  hm_device_buffer_free(&scratch_buffer);
  hm_device_buffer_free(&table_buffer);
}
