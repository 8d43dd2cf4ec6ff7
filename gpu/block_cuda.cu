// 4 x 4 block copies of a complex matrix's row list on the device, and the fused KPM step on them
// with the FP64 tensor cores. The list's positions are cut into groups of 4 (a lattice site's
// orbitals in the TI builder's order); a group's entries are gathered by column block (columns
// 4 bc .. 4 bc + 3), each block stored as its column block, a 16-bit mask of the entries present
// (bit 4 r + cc: group row r, column 4 bc + cc; it tells which vector rows the block uses) and the
// index of its values. Equal value blocks are stored once (a lattice's hoppings are the same at
// every site: the TI lattice without disorder has 7 distinct blocks), each as the 64 coefficients
// the kernel's lanes take (mma_coefficients).
//
// Why: a group reads each neighbour's vector rows once, not once per entry (TI: 28 vector rows
// per site instead of 52), and its loads hang on one short chain (group -> block -> vector rows).
// On the tensor cores a lane loads one coefficient pair per block (a warp's in one coalesced
// load) and one double of x per column pair and 8 columns, with few registers. Measured on the
// H100, R = 32 (bench/README.md): 64.9 us per vector-step against 98.4 for the CSR kernel;
// CUDA-core variants of the same blocks took 114-271 us (broadcast loads of the values and the
// mask arithmetic filled the L1 and the issue slots).
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <unordered_map>
#include <vector>
#include <cuda_runtime.h>
#include <omp.h>
#include "gpu_state.h"
#include "block_cuda.h"
#include "column_sums.cuh"
#include "cuda_check.h"
#include "device_buffer.cuh"
#include "device_upload.cuh"
#include "mma_f64.cuh"
#include "occupancy.cuh"

namespace {

constexpr int kThreads = 256, kWarps = kThreads / 32;

struct BlockCopy {
  int32_t n = 0, ngroups = 0;
  int64_t nnz = 0, blocks = 0, block_reads = 0, stored = 0;
  int4 *grows = nullptr;   // ngroups: the 4 local rows of a group, -1 past the list's end
  int64_t *gblk = nullptr; // ngroups + 1: a group's first block
  int2 *desc = nullptr;    // blocks: (column block, mask of the entries present)
  int32_t *vid = nullptr;  // blocks: the block's values in coef
  double *coef = nullptr;  // distinct value blocks in the mma's order (mma_coefficients): 64 doubles each
};

void release(BlockCopy *B) {
  if (!B) return;
  cudaFree(B->grows);
  cudaFree(B->gblk);
  cudaFree(B->desc);
  cudaFree(B->vid);
  cudaFree(B->coef);
  delete B;
}

// One entry of a group on its way into a block: column block, bit in the block's mask, CSR entry.
struct Entry {
  int32_t bc;
  int32_t bit;
  int64_t e;
};

// Group g's rows (-1 past the list's end) and entries, sorted by column block and bit (the rows
// were checked by build). Rows sorted by column (the local CSR's rows are, on one rank) are merged
// by (column block, row): the order of (column block, bit), without a sort.
int4 group_entries(const struct hm_csr_view *A, const int32_t *rows, int32_t n, int32_t g,
                   std::vector<Entry> &entries) {
  int r4[4];
  int64_t at[4], end[4];
  bool sorted = true;
  entries.clear();
  for (int r = 0; r < 4; r++) {
    const int64_t pos = 4 * (int64_t)g + r;
    r4[r] = pos < n ? rows[pos] : -1;
    at[r] = r4[r] < 0 ? 0 : A->rowptr[r4[r]];
    end[r] = r4[r] < 0 ? 0 : A->rowptr[r4[r] + 1];
    for (int64_t e = at[r] + 1; e < end[r]; e++) sorted = sorted && A->col[e - 1] < A->col[e];
  }
  if (sorted) {
    for (;;) {
      int best = -1;
      for (int r = 0; r < 4; r++)
        if (at[r] < end[r] && (best < 0 || (A->col[at[r]] >> 2) < (A->col[at[best]] >> 2))) best = r;
      if (best < 0) break;
      const int32_t j = A->col[at[best]];
      entries.push_back({j >> 2, 4 * best + (j & 3), at[best]++});
    }
  } else {
    for (int r = 0; r < 4; r++)
      for (int64_t e = at[r]; e < end[r]; e++) entries.push_back({A->col[e] >> 2, 4 * r + (A->col[e] & 3), e});
    std::sort(entries.begin(), entries.end(),
              [](const Entry &a, const Entry &b) { return a.bc != b.bc ? a.bc < b.bc : a.bit < b.bit; });
  }
  return make_int4(r4[0], r4[1], r4[2], r4[3]);
}

// The blocks of a group's sorted entries, and the vector rows their product loads (*reads).
int64_t count_blocks(const std::vector<Entry> &entries, int64_t *reads) {
  int64_t blocks = 0;
  for (size_t p = 0; p < entries.size();) {
    const int32_t bc = entries[p].bc;
    unsigned mask = 0;
    for (; p < entries.size() && entries[p].bc == bc; p++) mask |= 1u << entries[p].bit;
    for (int cc = 0; cc < 4; cc++) *reads += (mask & (0x1111u << cc)) != 0;
    blocks++;
  }
  return blocks;
}

// A group's blocks written from desc and val on (32 doubles each); a repeated (row, column) is
// summed into one slot.
void fill_blocks(const struct hm_csr_view *A, const std::vector<Entry> &entries, int2 *desc, double *val) {
  for (size_t p = 0; p < entries.size(); desc++, val += 32) {
    const int32_t bc = entries[p].bc;
    unsigned mask = 0;
    std::fill(val, val + 32, 0.0);
    for (; p < entries.size() && entries[p].bc == bc; p++) {
      mask |= 1u << entries[p].bit;
      const double *a = A->val + 2 * entries[p].e;
      val[2 * entries[p].bit] += a[0];
      val[2 * entries[p].bit + 1] += a[1];
    }
    *desc = make_int2(bc, (int)mask);
  }
}

uint64_t block_hash(const double *v) {
  uint64_t h = 1469598103934665603ull, w;
  for (int i = 0; i < 32; i++) {
    memcpy(&w, v + i, sizeof w);
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

// Value blocks (32 doubles each, compared bitwise) stored once, numbered in the order first seen.
// Where all are distinct, as with random values, it holds them all (about 300 bytes per block;
// describe_blocks holds them twice while it merges its ranges).
struct DistinctBlocks {
  std::vector<double> val;
  std::unordered_multimap<uint64_t, int32_t> seen; // hash -> id
  int64_t count() const { return (int64_t)(val.size() / 32); }
  int32_t id_of(const double *v) { // adds v where it is new
    const uint64_t h = block_hash(v);
    const auto range = seen.equal_range(h);
    for (auto it = range.first; it != range.second; ++it)
      if (!memcmp(val.data() + 32 * (size_t)it->second, v, 32 * sizeof(double))) return it->second;
    const int32_t id = (int32_t)count();
    val.insert(val.end(), v, v + 32);
    seen.emplace(h, id);
    return id;
  }
};

// The blocks described (desc) and their value blocks numbered (vid) on the host's threads, each
// thread over a contiguous range of groups with its own distinct blocks; the ranges' distinct
// blocks are then merged in range order, so the ids (the order of first appearance) and the copy
// do not depend on the thread count. The values of all blocks (TI 336 x 200 x 100: 12 GB) are
// never held at once.
void describe_blocks(const struct hm_csr_view *A, const int32_t *rows, int32_t n, const std::vector<int64_t> &gblk,
                     int2 *desc, int32_t *vid, DistinctBlocks &all) {
  const int32_t ngroups = (int32_t)gblk.size() - 1;
  std::vector<DistinctBlocks> local(omp_get_max_threads());
  int used = 1;
  auto range = [&](int t, int T, int32_t *g0, int32_t *g1) {
    *g0 = (int32_t)((int64_t)ngroups * t / T);
    *g1 = (int32_t)((int64_t)ngroups * (t + 1) / T);
  };
#pragma omp parallel num_threads((int)local.size())
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
#pragma omp single
    used = T;
    int32_t g0, g1;
    range(t, T, &g0, &g1);
    std::vector<Entry> entries;
    std::vector<double> val;
    int64_t prev = -1, prev_count = 0; // the previous group's first block and block count
    for (int32_t g = g0; g < g1; g++) {
      group_entries(A, rows, n, g, entries);
      const int64_t count = gblk[(size_t)g + 1] - gblk[g];
      val.resize(32 * (size_t)count);
      fill_blocks(A, entries, desc + gblk[g], val.data());
      DistinctBlocks &seen = local[t];
      for (int64_t j = 0; j < count; j++) {
        const double *v = val.data() + 32 * j;
        // a lattice's groups repeat the previous group's value blocks in place: compared first,
        // before the hash (the ids are the same either way)
        const int32_t same = j < prev_count ? vid[prev + j] : -1;
        vid[gblk[g] + j] = same >= 0 && !memcmp(seen.val.data() + 32 * (size_t)same, v, 32 * sizeof(double))
                               ? same
                               : seen.id_of(v);
      }
      prev = gblk[g];
      prev_count = count;
    }
  }
  std::vector<std::vector<int32_t>> to_all(used);
  for (int t = 0; t < used; t++) {
    for (int64_t i = 0; i < local[t].count(); i++) to_all[t].push_back(all.id_of(local[t].val.data() + 32 * i));
    local[t] = DistinctBlocks();
  }
#pragma omp parallel for schedule(static, 1) num_threads(used)
  for (int t = 0; t < used; t++) {
    int32_t g0, g1;
    range(t, used, &g0, &g1);
    for (int64_t p = gblk[g0]; p < gblk[g1]; p++) vid[p] = to_all[t][vid[p]];
  }
}

// The distinct value blocks (16 complex slots each, slot 4 r + cc) as the kernel's lanes read them
// (hm_mma_coefficient): lane L takes the coefficients of pairs 0 and 1 as one double2 at 64 id + 2 L
// (id: the distinct block). Each entry's parts appear twice: 512 bytes per distinct block.
void mma_coefficients(const double *val, int64_t stored, double *coef) {
#pragma omp parallel for schedule(static)
  for (int64_t id = 0; id < stored; id++)
    for (int L = 0; L < 32; L++)
      for (int h = 0; h < 2; h++) coef[(size_t)64 * id + 2 * L + h] = hm_mma_coefficient(val + 32 * id, L, h);
}

// Two passes over the groups, both on the host's threads (OpenMP): count the blocks (and decide
// whether they pay), then fill them in place; the values (TI 336 x 200 x 100: 12 GB) are written
// once, not grown.
int build(const struct hm_csr_view *A, const int32_t *rows, int32_t n, int always, BlockCopy **out) {
  *out = nullptr;
  const int32_t ngroups = (int32_t)(((int64_t)n + 3) / 4);
  int64_t nnz = 0, reads = 0, bad_entry = n, bad_col = n; // the first list entries with a bad row, a bad column
#pragma omp parallel for schedule(static) reduction(+ : nnz) reduction(min : bad_entry, bad_col)
  for (int32_t p = 0; p < n; p++) {
    if (rows[p] < 0 || rows[p] >= A->nrows) {
      bad_entry = std::min<int64_t>(bad_entry, p);
      continue;
    }
    for (int64_t e = A->rowptr[rows[p]]; e < A->rowptr[rows[p] + 1]; e++)
      if (A->col[e] < 0) bad_col = std::min<int64_t>(bad_col, p);
    nnz += A->rowptr[rows[p] + 1] - A->rowptr[rows[p]];
  }
  HM_CHECK(bad_entry == n, HM_ERR_ARGUMENT, "row list entry %lld is %d, outside [0, %d)", (long long)bad_entry,
           bad_entry < n ? rows[bad_entry] : 0, A->nrows);
  if (bad_col < n) {
    int64_t e = A->rowptr[rows[bad_col]];
    while (A->col[e] >= 0) e++;
    HM_RAISE(HM_ERR_ARGUMENT, "row %d has column %d", rows[bad_col], A->col[e]);
  }
  if (n == 0 && !always) return HM_SUCCESS;
  std::vector<int4> grows(ngroups);
  std::vector<int64_t> gblk((size_t)ngroups + 1, 0);
#pragma omp parallel
  {
    std::vector<Entry> entries;
#pragma omp for schedule(dynamic, 4096) reduction(+ : reads)
    for (int32_t g = 0; g < ngroups; g++) {
      grows[g] = group_entries(A, rows, n, g, entries);
      gblk[(size_t)g + 1] = count_blocks(entries, &reads);
    }
  }
  for (int32_t g = 0; g < ngroups; g++) gblk[(size_t)g + 1] += gblk[g];
  // blocks pay where they read at most 3/4 of the vector rows CSR reads (TI: 28 of 52 per site)
  // and hold at most 4 slots per entry (TI: 2.15)
  const int64_t blocks = gblk[ngroups];
  if (!always && (4 * reads > 3 * nnz || 16 * blocks > 4 * nnz)) return HM_SUCCESS;
  HM_CHECK(blocks <= INT32_MAX, HM_ERR_ARGUMENT, "a block copy holds at most %d blocks, not %lld", INT32_MAX,
           (long long)blocks);
  const size_t host_bytes = (size_t)blocks * (sizeof(int2) + sizeof(int32_t));
  std::unique_ptr<int2[]> desc(new (std::nothrow) int2[std::max<int64_t>(blocks, 1)]);
  std::unique_ptr<int32_t[]> vid(new (std::nothrow) int32_t[std::max<int64_t>(blocks, 1)]);
  HM_CHECK(desc && vid, HM_ERR_MEMORY, "no host memory to build a block copy (%zu bytes)", host_bytes);
  DistinctBlocks distinct;
  describe_blocks(A, rows, n, gblk, desc.get(), vid.get(), distinct);
  const int64_t stored = distinct.count();
  std::unique_ptr<double[]> coef(new (std::nothrow) double[64 * std::max<int64_t>(stored, 1)]);
  HM_CHECK(coef, HM_ERR_MEMORY, "no host memory to build a block copy (%zu bytes)",
           (size_t)stored * 64 * sizeof(double));
  mma_coefficients(distinct.val.data(), stored, coef.get());
  // the copy only speeds products up: where it would take more than half of the free device memory,
  // the memory is left to the solver's vectors
  const size_t bytes = grows.size() * sizeof(int4) + gblk.size() * sizeof(int64_t) +
                       (size_t)blocks * (sizeof(int2) + sizeof(int32_t)) + (size_t)stored * 64 * sizeof(double);
  size_t free_b = 0, total_b = 0;
  HM_CALL_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (!always && bytes > free_b / 2) return HM_SUCCESS;
  BlockCopy *B = new (std::nothrow) BlockCopy;
  HM_CHECK(B, HM_ERR_MEMORY, "no host memory for a block copy");
  B->n = n;
  B->ngroups = ngroups;
  B->nnz = nnz;
  B->blocks = blocks;
  B->block_reads = reads;
  B->stored = stored;
  int st = hm_device_upload(grows, "a block copy", &B->grows);
  if (!st) st = hm_device_upload(gblk, "a block copy", &B->gblk);
  if (!st) st = hm_device_upload(desc.get(), (size_t)blocks, "a block copy", &B->desc);
  if (!st) st = hm_device_upload(vid.get(), (size_t)blocks, "a block copy", &B->vid);
  if (!st) st = hm_device_upload(coef.get(), 64 * (size_t)stored, "a block copy", &B->coef);
  if (st) {
    release(B);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  *out = B;
  return HM_SUCCESS;
}

// ---- device side ----

// The complex block product on the FP64 tensor cores (mma_f64.cuh), for any block width k: one warp
// owns a group and 8 NT columns. A lane loads one double of x per pair and tile, and a half warp's
// loads fall in 2 rows (128-byte lines) of V: the L1 moves 4 lines per 512 bytes, where one complex
// entry per lane (4 rows per quarter warp) made it move 16 (Nsight Compute at R = 32: L1
// wavefronts 84% -> 65% busy).

// Pairs: x loaded by column pair (one double per lane, the layout above); else one complex entry
// per lane, x's 4 rows in one load and two mma per tile (Re x, Im x), which keeps twice the bytes
// in flight per load and is the faster form for a single tile (R = 8: 93 against 107 us).
// With 2 to 4 tiles a group's W rows are prefetched into L2 when the group starts and loaded after
// its blocks: the registers they held (16 at 4 tiles) let the loop run two blocks' loads at once
// at 2 blocks per SM (R = 32: 64.9 against 68.7 us; with 1 tile it gained nothing).
// Ragged: k is not a multiple of 8 NT; columns from k on (in the last chunk) are neither loaded nor
// stored, and their lanes' products are thrown away.
template <int NT, int MinBlocks, int Unroll, bool Pairs, bool Ragged = false>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    block_kpm_kernel(int32_t ngroups, const int4 *__restrict__ grows, const int64_t *__restrict__ gblk,
                     const int2 *__restrict__ desc, const int32_t *__restrict__ vid,
                     const double2 *__restrict__ coef, int k, double s, double b,
                     const double *__restrict__ V, double *__restrict__ W, double *__restrict__ partials, int run) {
  __shared__ double sh[kWarps][2][8 * NT];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
  const int m = lane >> 2, q = lane & 3, r = m & 3, part = m >> 2; // part 1: imaginary parts
  const int jq = q >> 1;                                              // B: x row 2 h + jq, part q % 2
  // after the product a lane holds whole complex entries of one column (see below): 2 q + part
  const int c0 = blockIdx.y * 8 * NT, cl = 2 * q + part;
  const double2 *V2 = reinterpret_cast<const double2 *>(V);
  double2 *W2 = reinterpret_cast<double2 *>(W);
  double vv[NT] = {}, wv[NT] = {};
  // whether column c0 + c exists (always, unless the width is ragged)
  auto has = [&](int c) { return !Ragged || c0 + c < k; };
  // a block takes run rounds of wpb consecutive groups, then strides past the other blocks' runs
  const int64_t skip = (int64_t)(gridDim.x - 1) * wpb * run;
  int u = 0;
  constexpr bool late_w = NT > 1;
  for (int64_t g = (int64_t)blockIdx.x * wpb * run + warp; g < ngroups; g += wpb) {
    if (u == run) {
      u = 0;
      g += skip;
      if (g >= ngroups) break;
    }
    u++;
    const int4 rw = grows[g];
    const int row = r == 0 ? rw.x : r == 1 ? rw.y : r == 2 ? rw.z : rw.w;
    double acc[NT][2];
    double2 w[NT];
#pragma unroll
    for (int t = 0; t < NT; t++) {
      acc[t][0] = acc[t][1] = 0;
      const bool own = row >= 0 && has(8 * t + cl);
      if (!late_w) w[t] = own ? W2[(size_t)row * k + c0 + 8 * t + cl] : make_double2(0, 0);
      else if (own) asm volatile("prefetch.global.L2 [%0];" ::"l"(W2 + (size_t)row * k + c0 + 8 * t + cl));
    }
    const int64_t b1 = gblk[g + 1];
#pragma unroll Unroll
    for (int64_t p = gblk[g]; p < b1; p++) {
      const int2 d = __ldg(&desc[p]);
      const unsigned mk = (unsigned)d.y, used = (mk | mk >> 4 | mk >> 8 | mk >> 12) & 0xfu;
      const int64_t id = __ldg(&vid[p]);
      if (Pairs) {
        const double2 a = __ldg(&coef[32 * id + lane]);
#pragma unroll
        for (int h = 0; h < 2; h++) {
          // an unused column's lanes load a used row, the pair's other column first (their coefficients
          // are zero): no branch, so that the loads of both pairs and of the unrolled blocks go out together
          const int j = 2 * h + jq;
          const int use = (used >> j & 1u) ? j : (used >> (j ^ 1) & 1u) ? j ^ 1 : __ffs(used) - 1;
          const double *x = V + ((size_t)(4 * (int64_t)d.x + use) * k + c0 + m) * 2 + (q & 1);
#pragma unroll
          for (int t = 0; t < NT; t++)
            mma_f64(acc[t][0], acc[t][1], h ? a.y : a.x, has(8 * t + m) ? __ldg(x + 16 * t) : 0.0);
        }
      } else {
        // x row q's (Re, Im) take the coefficients of A fragment columns 2 (q % 2) and + 1 of pair q / 2
        const double *c = reinterpret_cast<const double *>(coef) + 64 * id + 8 * m + 4 * (q & 1) + jq;
        const double a1 = __ldg(c), a2 = __ldg(c + 2);
        const int64_t xrow = 4 * (int64_t)d.x + ((used >> q & 1u) ? q : __ffs(used) - 1);
#pragma unroll
        for (int t = 0; t < NT; t++) {
          const double2 x = has(8 * t + m) ? __ldg(&V2[(size_t)xrow * k + c0 + 8 * t + m]) : make_double2(0, 0);
          mma_f64(acc[t][0], acc[t][1], a1, x.x);
          mma_f64(acc[t][0], acc[t][1], a2, x.y);
        }
      }
    }
    if (late_w)
#pragma unroll
      for (int t = 0; t < NT; t++)
        w[t] = row >= 0 && has(8 * t + cl) ? W2[(size_t)row * k + c0 + 8 * t + cl] : make_double2(0, 0);
    // lanes m and m ^ 4 (lane ^ 16) hold the real and the imaginary parts of row r, columns 2 q and
    // 2 q + 1: they swap halves, so that each updates whole entries with 16-byte loads and stores
#pragma unroll
    for (int t = 0; t < NT; t++) {
      const double o0 = __shfl_xor_sync(0xffffffffu, acc[t][0], 16), o1 = __shfl_xor_sync(0xffffffffu, acc[t][1], 16);
      const double2 y = part ? make_double2(o1, acc[t][1]) : make_double2(acc[t][0], o0);
      if (row >= 0 && has(8 * t + cl)) {
        const size_t at = (size_t)row * k + c0 + 8 * t + cl;
        const double2 v = __ldg(&V2[at]);
        const double2 wn = make_double2(2.0 * s * (y.x - b * v.x) - w[t].x, 2.0 * s * (y.y - b * v.y) - w[t].y);
        W2[at] = wn;
        vv[t] += v.x * v.x + v.y * v.y;
        wv[t] += wn.x * v.x + wn.y * v.y;
      }
    }
  }
  mma_block_dots<NT>(vv, wv, sh, wpb, c0, k, Ragged ? min(8 * NT, k - c0) : 8 * NT, partials);
}

hm_device_buffers scratch_buffer; // per device

// Measured on the H100 (bench_kpm_gpu --block-sweep, 2026-11-24), us per
// vector-step on the TI lattice 200 x 100 x 40 with the traversal tiles cut for R (bench/README.md):
// R = 32 and 64, 4 column tiles (the matrix read once), pair loads, late W, unrolled twice, 2
// blocks per SM (128 registers): 64.9 and 65.0 (not unrolled, 3 blocks per SM: 65.7); R = 16, 2
// tiles, the same: 71.8; later: R = 24, 48 and 72, 3 tiles, the same at 3 blocks per SM (80
// registers): 66.9, 67.0 and 67.0 (with 1, 2 and 1 tiles: 92.3, 70.2 and 99.7); R = 40, 5 tiles,
// as at 4: 64.3 (1 tile: 94.8); R = 56, 7 tiles, not unrolled, 2 blocks per SM: 71.7 to 80.7
// (unrolled 77.3; 1 tile 91.8 to 99.5); R = 8, 1 tile, complex loads, not unrolled, 3
// blocks per SM: 93.1 (pair loads 107.1). Runs of 2 rounds within 1%; 4 slower. Changed by
// hm_cuda_block_tuning for benchmarks; 0 = by the tile count.
int max_tiles = 7, unroll = 0, min_blocks = 0, run = 1, loads = 0;

using MmaFn = void (*)(int32_t, const int4 *, const int64_t *, const int2 *, const int32_t *, const double2 *, int,
                       double, double, const double *, double *, double *, int);

// Defaults by the tile count (the sweeps above). Ragged widths, whose rows do not start on 128-byte
// lines, load x as complex entries (R = 12, 20, 28, 44, 100: 85.2, 70.6, 74.7, 71.3,
// 82.1 us against 122.9, 75.1, 77.1, 71.8, 95.5 with pair loads; R = 36: 75.0 against 73.8), with 3
// blocks per SM at 2 and 3 tiles.
template <int NT, int U, bool P, bool Rg> MmaFn pick_cap() {
  const int cap = min_blocks > 0 ? min_blocks : NT == 1 || NT == 3 || (Rg && NT == 2) ? 3 : 2;
  if (cap >= 4) return block_kpm_kernel<NT, 4, U, P, Rg>;
  if (cap >= 3) return block_kpm_kernel<NT, 3, U, P, Rg>;
  if (cap >= 2) return block_kpm_kernel<NT, 2, U, P, Rg>;
  return block_kpm_kernel<NT, 1, U, P, Rg>;
}
template <int NT, bool P, bool Rg> MmaFn pick_unroll() {
  return (unroll > 0 ? unroll == 2 : NT > 1 && NT < 7) ? pick_cap<NT, 2, P, Rg>() : pick_cap<NT, 1, P, Rg>();
}
template <int NT, bool Rg = false> MmaFn pick_loads() {
  return (loads > 0 ? loads == 2 : NT > 1 && !Rg) ? pick_unroll<NT, true, Rg>() : pick_unroll<NT, false, Rg>();
}

// Column tiles (of 8) per warp, and whether the width is ragged (the last chunk partial). Where a
// tile count divides the width, the first of 4, 3, 2, 5, 7 that does, in the order measured fastest
// per vector (the matrix is read k / (8 nt) times; R = 80: 2 tiles 69.0 us, 5 tiles 72). Other
// widths, the last chunk partial (R = 88, 11 tiles: 4 tiles 3 times 107.5 us, 1 tile 11 times
// 131.7, CSR 116.8): the count with the least cost, 3 per tile (empty ones too) and 2 per chunk (from the
// measured times per step at R = 8, 16, 24 and 32: about 440 us per tile and 300 per chunk), 7
// tiles left out (R = 50: 80.5 us against 78.9 at 4 tiles; R = 100: 98.0 against 81.2 at 5).
int tiles_for(int k, bool *ragged) {
  const int tiles = (k + 7) / 8;
  int best = 0, least = INT_MAX;
  if (k % 8 == 0)
    for (int t : {4, 3, 2, 5, 7})
      if (!best && t <= max_tiles && tiles % t == 0) best = t;
  if (!best)
    for (int t : {4, 3, 5, 2, 1}) {
      const int chunks = (tiles + t - 1) / t, cost = 3 * chunks * t + 2 * chunks;
      if (t <= max_tiles && cost < least) {
        best = t;
        least = cost;
      }
    }
  *ragged = k % (8 * best) != 0;
  return best;
}

int launch(const BlockCopy &B, int k, double s, double b, const double *V, double *W, double *dots) {
  if (B.ngroups == 0) return HM_SUCCESS;
  bool ragged;
  const int nt = tiles_for(k, &ragged), chunks = (k + 8 * nt - 1) / (8 * nt);
  const MmaFn fn = ragged    ? (nt == 4   ? pick_loads<4, true>()
                                : nt == 3 ? pick_loads<3, true>()
                                : nt == 5 ? pick_loads<5, true>()
                                : nt == 2 ? pick_loads<2, true>()
                                          : pick_loads<1, true>())
                   : nt == 4 ? pick_loads<4>()
                   : nt == 3 ? pick_loads<3>()
                   : nt == 5 ? pick_loads<5>()
                   : nt == 7 ? pick_loads<7>()
                   : nt == 2 ? pick_loads<2>()
                             : pick_loads<1>();
  int per_sm = 1, sms = 1;
  HM_CALL(resident_blocks((const void *)fn, kThreads, kCarveoutUnset, &per_sm, &sms));
  // a persistent grid: every SM busy, all of them in one window of groups (which L2 holds)
  const int64_t need = ((int64_t)B.ngroups + (int64_t)kWarps * run - 1) / ((int64_t)kWarps * run);
  const int grid = (int)std::max<int64_t>(1, std::min<int64_t>(need, (int64_t)per_sm * sms / chunks));
  HM_CALL(hm_device_buffer_grow(&scratch_buffer, (size_t)grid * 2 * k));
  fn<<<dim3(grid, chunks), kThreads>>>(B.ngroups, B.grows, B.gblk, B.desc, B.vid,
                                       reinterpret_cast<const double2 *>(B.coef), k, s, b, V, W,
                                       scratch_buffer.p, run);
  HM_CHECK_LAUNCH("block_kpm_kernel");
  HM_CALL(column_sums(true, grid, 2 * k, scratch_buffer.p, dots));
  return HM_SUCCESS;
}

} // namespace

extern "C" int hm_cuda_block_build(const struct hm_csr_view *A, const int32_t *rows, int32_t n, int always,
                                   void **copy) {
  HM_CHECK(A && copy && (rows || n == 0) && n >= 0, HM_ERR_ARGUMENT, "hm_cuda_block_build: A, rows or copy is NULL");
  *copy = nullptr;
  int device = 0, major = 0;
  HM_CALL_CUDA(cudaGetDevice(&device));
  HM_CALL_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 8) { // the FP64 mma needs sm_80 or later
    HM_CHECK(!always, HM_ERR_ARGUMENT, "a block copy needs a device of compute capability 8.0 or later, not %d.x",
             major);
    return HM_SUCCESS;
  }
  BlockCopy *B = nullptr;
  HM_CALL(build(A, rows, n, always, &B));
  *copy = B;
  return HM_SUCCESS;
}

extern "C" void hm_cuda_block_release(void *copy) { release(static_cast<BlockCopy *>(copy)); }

extern "C" int hm_cuda_block_kpm_step(const void *copy, int k, double scale, double shift, const double *V, double *W,
                                      double *dots) {
  HM_CHECK(copy, HM_ERR_ARGUMENT, "no block copy");
  HM_CHECK(k > 0, HM_ERR_ARGUMENT, "the block KPM step takes widths of at least 1, not %d", k);
  HM_CALL(launch(*static_cast<const BlockCopy *>(copy), k, scale, shift, V, W, dots));
  return HM_SUCCESS;
}

extern "C" void hm_cuda_block_info(const void *copy, double *fill, double *block_reads, double *csr_reads,
                                   double *distinct) {
  const BlockCopy *B = static_cast<const BlockCopy *>(copy);
  if (distinct) *distinct = B && B->blocks ? (double)B->stored / (double)B->blocks : 1.0;
  const double rows = B && B->n ? (double)B->n : 1.0;
  if (fill) *fill = B && B->nnz ? 16.0 * (double)B->blocks / (double)B->nnz : 1.0;
  if (block_reads) *block_reads = B ? (double)B->block_reads / rows : 0.0;
  if (csr_reads) *csr_reads = B ? (double)B->nnz / rows : 0.0;
}

extern "C" void hm_cuda_block_tuning(const int *set, int *get) {
  if (get) {
    get[0] = max_tiles;
    get[1] = unroll;
    get[2] = min_blocks;
    get[3] = run;
    get[4] = loads;
  }
  if (set) {
    max_tiles = std::max(1, std::min(set[0], 7));
    unroll = set[1] >= 2 ? 2 : set[1] == 1 ? 1 : 0;
    min_blocks = std::max(0, std::min(set[2], 4));
    run = std::max(1, std::min(set[3], 64));
    loads = set[4] == 1 || set[4] == 2 ? set[4] : 0;
  }
}

void hm_block_cuda_release_state() { hm_device_buffer_free(&scratch_buffer); }
