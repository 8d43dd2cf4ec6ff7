// SELL-C-sigma on the device (Kreutzer et al.; Anzt et al.'s SELL-P): the rows of one row list, in
// that list's order (the solver's cache-friendly traversal), cut into chunks of C = 32 rows; inside
// windows of sigma rows the rows are sorted by length (longest first) so that a chunk's rows have
// similar lengths; each chunk is stored column slot by column slot (entry (slot j, row r) at
// chunk_start + j C + r), padded to its longest row. perm maps a chunk row back to its local row,
// so results land in the original rows.
//
// One warp owns a chunk. Its lanes read one slot of all 32 rows in one coalesced load and pass the
// entries around with shuffles; a row's products are spread over LC lanes across the vector
// columns (row-major blocks: the LC columns of a vector row are contiguous), 32 / LC rows at a
// time. LC = 1 is the classic one-thread-per-row SELL SpMV; LC = 32 gives each lane one column of
// a 32-wide block. The KPM step fuses W = 2 s (A - b) V - W with both per-column dots (shuffles
// within the warp, shared memory across the block, one partial per block, summed in a fixed order:
// deterministic, no atomics).
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <vector>
#include <cuda_runtime.h>
#include "gpu_state.h"
#include "block_cuda.h"
#include "column_sums.cuh"
#include "cuda_check.h"
#include "device_buffer.cuh"
#include "device_upload.cuh"
#include "hamlet/matrix.h"
#include "host_alloc.h"
#include "occupancy.cuh"
#include "sell_cuda.h"

namespace {

struct FreeHost { // for arrays from hm_alloc_large
  void operator()(void *p) const { free(p); }
};

constexpr int kC = 32; // chunk height: one row per lane of a warp
constexpr unsigned kFull = 0xffffffffu;
constexpr int kMaxWarps = 8;

struct SellList {
  const int32_t *key; // the device row list this copy stands for
  int32_t n = 0, nchunks = 0;
  int sigma = 1;
  double fill = 1; // stored entries / true entries
  int64_t *cptr = nullptr; // nchunks + 1 chunk starts, in entries
  int32_t *perm = nullptr; // nchunks * C local rows, -1 for padding rows
  int32_t *col = nullptr;
  double *val = nullptr; // 1 or 2 doubles per entry
  // The 4 x 4 block copy of the same list (block_cuda.h), where it pays: made at the first KPM step
  // that can take it (only KPM uses it, and its vectors are then already allocated), from the host
  // list hrows (the matrix's, alive as long as this format).
  const int32_t *hrows = nullptr;
  void *block = nullptr;
  bool block_tried = false;
};

struct SellFormat {
  hm_scalar type;
  int choice; // HM_FORMAT_AUTO: SELL up to the tuning's block widths; HM_FORMAT_SELL: at every width
  hm_csr_view host; // the matrix's host CSR arrays, for the block copies
  std::vector<SellList> lists;
};

// Measured on the H100 (bench_kpm_gpu --sweep, bench_spmm_gpu, 2026-11-23): 16 lanes with 16 row
// groups per pass and 8 warps were among the fastest SELL shapes at R = 32 (134-180 us per
// vector-step between runs); taking a vector row that the rows before loaded from registers instead
// of L1 was slower (188). Routing: SELL for spmmv up to k = 4 (SpMV 346 us = 92% of the roofline,
// CSR 526) and for kpm_step at R = 1 only (R = 4: CSR 173 us, SELL 222; R = 32: CSR 108, SELL 181);
// the block copy's KPM step from R = 4 on (2026-11-24: R = 8 93 us against CSR 140,
// R = 16 76 against 116, R = 32 71 against 98, R = 64 71 against 100; later, widths not a
// multiple of 8: R = 2 341 against 270, R = 4 175 against 183, R = 6 123 against 162, R = 20 75
// against 113).
hm_sell_tuning tuning = {16, 16, 8, 0, 4, 1, 4};

// ---- host side: build one list's copy ----

// Entries the list's rows take in order `order` (positions into len), each row padded to the
// longest row of its chunk (the padding rows of a last, partial chunk not counted).
int64_t stored_entries(const std::vector<int32_t> &len, const std::vector<int32_t> &order) {
  int64_t stored = 0;
  const int64_t n = (int64_t)order.size();
#pragma omp parallel for schedule(static) reduction(+ : stored)
  for (int64_t q = 0; q < n; q += kC) {
    int32_t w = 0;
    const int64_t end = std::min(n, q + kC);
    for (int64_t r = q; r < end; r++) w = std::max(w, len[order[r]]);
    stored += (int64_t)w * (end - q);
  }
  return stored;
}

void sort_windows(const std::vector<int32_t> &len, int64_t sigma, std::vector<int32_t> &order) {
  std::iota(order.begin(), order.end(), 0);
  if (sigma <= 1) return;
  const int64_t n = (int64_t)order.size();
#pragma omp parallel for schedule(dynamic)
  for (int64_t s = 0; s < n; s += sigma)
    std::stable_sort(order.begin() + s, order.begin() + std::min(n, s + sigma),
                     [&](int32_t a, int32_t b) { return len[a] > len[b]; });
}

void release_list(SellList &L) {
  cudaFree(L.cptr);
  cudaFree(L.perm);
  cudaFree(L.col);
  cudaFree(L.val);
  hm_cuda_block_release(L.block);
  L.block = nullptr;
  L.cptr = nullptr;
  L.perm = L.col = nullptr;
  L.val = nullptr;
}

// sigma: the smallest window (1, then 4C, 16C, ... the whole list) whose padding stays within 3%
// of the entries: sorting moves rows away from the traversal order, so sort no more than needed.
// A sigma asked for (> 0, hm_matrix_set_format) is taken as it is, cut at the row count.
int build_list(hm_scalar type, const struct hm_csr_view *A, const int32_t *rows, int32_t n, int asked, SellList &L) {
  std::vector<int32_t> len(n), order(n);
  int64_t nnz = 0, bad = n; // the first list entry outside the matrix
#pragma omp parallel for schedule(static) reduction(+ : nnz) reduction(min : bad)
  for (int32_t p = 0; p < n; p++) {
    const int32_t i = rows[p];
    if (i < 0 || i >= A->nrows) {
      bad = std::min<int64_t>(bad, p);
      continue;
    }
    len[p] = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
    nnz += len[p];
  }
  HM_CHECK(bad == n, HM_ERR_ARGUMENT, "row list entry %lld is %d, outside [0, %d)", (long long)bad,
           bad < n ? rows[bad] : 0, A->nrows);
  int64_t sigma = asked > 0 ? std::max<int64_t>(1, std::min<int64_t>(asked, n)) : 1;
  sort_windows(len, sigma, order);
  int64_t stored = stored_entries(len, order);
  for (int64_t s = 4 * kC; asked == 0 && stored > nnz + nnz / 33 && sigma < n; s *= 4) {
    sigma = std::min<int64_t>(s, n);
    sort_windows(len, sigma, order);
    stored = stored_entries(len, order);
  }
  L.n = n;
  L.nchunks = (n + kC - 1) / kC;
  L.sigma = (int)sigma;
  L.fill = nnz ? (double)stored / (double)nnz : 1.0;
  std::vector<int64_t> cptr(L.nchunks + 1, 0);
#pragma omp parallel for schedule(static)
  for (int32_t q = 0; q < L.nchunks; q++) {
    int32_t w = 0;
    for (int32_t r = 0; r < kC && q * kC + r < n; r++) w = std::max(w, len[order[q * kC + r]]);
    cptr[q + 1] = (int64_t)w * kC;
  }
  for (int32_t q = 0; q < L.nchunks; q++) cptr[q + 1] += cptr[q];
  // every slot is written below, on the host's threads (the values of a large lattice are GBs)
  const size_t slots = (size_t)cptr[L.nchunks];
  std::unique_ptr<int32_t[]> perm(new (std::nothrow) int32_t[(size_t)L.nchunks * kC + 1]);
  std::unique_ptr<int32_t[], FreeHost> col(static_cast<int32_t *>(hm_alloc_large(sizeof(int32_t) * (slots + 1))));
  std::unique_ptr<double[], FreeHost> val(static_cast<double *>(hm_alloc_large(sizeof(double) * (slots * type + 1))));
  HM_CHECK(perm && col && val, HM_ERR_MEMORY, "no host memory to build a SELL copy of %zu slots", slots);
#pragma omp parallel for schedule(dynamic, 64)
  for (int32_t q = 0; q < L.nchunks; q++) {
    const int32_t w = (int32_t)((cptr[q + 1] - cptr[q]) / kC);
    for (int32_t r = 0; r < kC; r++) {
      const int32_t pos = q * kC + r;
      const int32_t i = pos < n ? rows[order[pos]] : -1;
      perm[pos] = i;
      const int64_t start = i >= 0 ? A->rowptr[i] : 0, m = i >= 0 ? len[order[pos]] : 0;
      for (int32_t j = 0; j < w; j++) {
        const int64_t e = cptr[q] + (int64_t)j * kC + r;
        // padding reads a vector row that exists (the row's own, or row 0) and multiplies it by 0
        col[e] = j < m ? A->col[start + j] : (i >= 0 ? i : 0);
        if (j < m) memcpy(&val[(size_t)e * type], &A->val[(size_t)(start + j) * type], sizeof(double) * type);
        else memset(&val[(size_t)e * type], 0, sizeof(double) * type);
      }
    }
  }
  HM_CALL(hm_device_upload(cptr, "a SELL copy", &L.cptr));
  HM_CALL(hm_device_upload(perm.get(), (size_t)L.nchunks * kC, "a SELL copy", &L.perm));
  HM_CALL(hm_device_upload(col.get(), slots, "a SELL copy", &L.col));
  HM_CALL(hm_device_upload(val.get(), slots * type, "a SELL copy", &L.val));
  return HM_SUCCESS;
}

// ---- device side ----

template <bool Complex> struct Scalar { using T = double; };
template <> struct Scalar<true> { using T = double2; };

__device__ __forceinline__ double ld(const double *p) { return __ldg(p); }
__device__ __forceinline__ double2 ld(const double2 *p) { return __ldg(p); }
__device__ __forceinline__ double shfl(double v, int src) { return __shfl_sync(kFull, v, src); }
__device__ __forceinline__ double2 shfl(double2 v, int src) {
  return make_double2(__shfl_sync(kFull, v.x, src), __shfl_sync(kFull, v.y, src));
}
__device__ __forceinline__ void madd(double &acc, double a, double x) { acc = fma(a, x, acc); }
__device__ __forceinline__ void madd(double2 &acc, double2 a, double2 x) {
  acc.x = fma(a.x, x.x, fma(-a.y, x.y, acc.x));
  acc.y = fma(a.x, x.y, fma(a.y, x.x, acc.y));
}
template <class T> __device__ __forceinline__ T zero();
template <> __device__ __forceinline__ double zero<double>() { return 0.0; }
template <> __device__ __forceinline__ double2 zero<double2>() { return make_double2(0.0, 0.0); }

// W = 2 s (acc - b v) - w; vv += |v|^2, wv += Re conj(W) v.
__device__ __forceinline__ double kpm_update(double acc, double v, double w, double s, double b, double &vv, double &wv) {
  const double wn = 2.0 * s * (acc - b * v) - w;
  vv += v * v;
  wv += wn * v;
  return wn;
}
__device__ __forceinline__ double2 kpm_update(double2 acc, double2 v, double2 w, double s, double b, double &vv,
                                              double &wv) {
  const double2 wn = make_double2(2.0 * s * (acc.x - b * v.x) - w.x, 2.0 * s * (acc.y - b * v.y) - w.y);
  vv += v.x * v.x + v.y * v.y;
  wv += wn.x * v.x + wn.y * v.y;
  return wn;
}

// LC lanes across columns, GP row groups per pass over the slots (GP divides LC, the groups of a
// chunk). Blocks: index = row block * nck + column chunk (the column chunks of the same rows run
// side by side, so the matrix is read from DRAM once). Kpm: W = 2 s (A - b) V - W + dots into
// partials[warp of the grid's row blocks][2k] (no shared memory: all of it left to L1); else W = A V.
template <int LC, int GP, bool Complex, bool Kpm>
__global__ void __launch_bounds__(256) sell_kernel(int32_t nchunks, const int64_t *__restrict__ cptr,
                                                   const int32_t *__restrict__ perm, const int32_t *__restrict__ col,
                                                   const double *__restrict__ val, int k, int nck, double s, double b,
                                                   const double *__restrict__ V, double *__restrict__ W,
                                                   double *__restrict__ partials) {
  using T = typename Scalar<Complex>::T;
  constexpr int RPW = 32 / LC; // rows one group covers
  constexpr int G = kC / RPW;  // groups per chunk (= LC)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
  const int nrb = gridDim.x / nck, cc = blockIdx.x % nck, rb = blockIdx.x / nck;
  const int c = cc * LC + lane % LC, sub = lane / LC;
  const bool cok = c < k;
  const T *Vt = reinterpret_cast<const T *>(V);
  const T *vals = reinterpret_cast<const T *>(val);
  T *Wt = reinterpret_cast<T *>(W);
  double vv = 0, wv = 0;
  for (int32_t q = rb * wpb + warp; q < nchunks; q += nrb * wpb) {
    const int64_t base = cptr[q];
    const int width = (int)((cptr[q + 1] - base) / kC);
    const int32_t myrow = perm[(int64_t)q * kC + lane];
    for (int g0 = 0; g0 < G; g0 += GP) {
      T acc[GP];
#pragma unroll
      for (int g = 0; g < GP; g++) acc[g] = zero<T>();
      // slot j + 1's entries are loaded while slot j's vector rows are in flight (one memory
      // latency per slot instead of two: ncu showed these kernels latency-bound)
      const int64_t e0 = base + lane;
      int32_t mc_next = width > 0 ? __ldg(col + e0) : 0;
      T mv_next = width > 0 ? ld(vals + e0) : zero<T>();
#pragma unroll(LC == 1 ? 4 : 1)
      for (int j = 0; j < width; j++) {
        const int32_t mc = mc_next;
        const T mv = mv_next;
        if (j + 1 < width) {
          const int64_t e = base + (int64_t)(j + 1) * kC + lane;
          mc_next = __ldg(col + e);
          mv_next = ld(vals + e);
        }
#pragma unroll
        for (int g = 0; g < GP; g++) {
          const int r = (g0 + g) * RPW + sub;
          int32_t cj;
          T a;
          if constexpr (LC == 1) {
            cj = mc;
            a = mv;
          } else {
            cj = __shfl_sync(kFull, mc, r);
            a = shfl(mv, r);
          }
          if (cok) madd(acc[g], a, ld(Vt + (size_t)cj * k + c));
        }
      }
#pragma unroll
      for (int g = 0; g < GP; g++) {
        const int r = (g0 + g) * RPW + sub;
        int32_t i;
        if constexpr (LC == 1) i = myrow;
        else i = __shfl_sync(kFull, myrow, r);
        if (i >= 0 && cok) {
          const size_t at = (size_t)i * k + c;
          if constexpr (Kpm) Wt[at] = kpm_update(acc[g], ld(Vt + at), Wt[at], s, b, vv, wv);
          else Wt[at] = acc[g];
        }
      }
    }
  }
  if constexpr (Kpm) {
    // lanes of one column: lane % LC
#pragma unroll
    for (int off = LC; off < 32; off *= 2) {
      vv += __shfl_xor_sync(kFull, vv, off);
      wv += __shfl_xor_sync(kFull, wv, off);
    }
    if (lane < LC && cok) {
      const size_t at = ((size_t)rb * wpb + warp) * 2 * k;
      partials[at + c] = vv;
      partials[at + k + c] = wv;
    }
  }
}

hm_device_buffers scratch_buffer; // per device
double *scratch = nullptr;

int scratch_at_least(size_t n) {
  HM_CALL(hm_device_buffer_grow(&scratch_buffer, n));
  scratch = scratch_buffer.p;
  return HM_SUCCESS;
}

using KernelFn = void (*)(int32_t, const int64_t *, const int32_t *, const int32_t *, const double *, int, int, double,
                          double, const double *, double *, double *);

template <bool Complex, bool Kpm> KernelFn pick(int lc, int gp) {
#define HM_SELL_CASE(L, P) \
  if (lc == L && gp == P) return sell_kernel<L, P, Complex, Kpm>
  HM_SELL_CASE(1, 1);
  HM_SELL_CASE(2, 2);
  HM_SELL_CASE(4, 4);
  HM_SELL_CASE(8, 8);
  HM_SELL_CASE(16, 8);
  HM_SELL_CASE(16, 16);
  HM_SELL_CASE(32, 8);
  HM_SELL_CASE(32, 16);
  HM_SELL_CASE(32, 32);
#undef HM_SELL_CASE
  return nullptr;
}

// The widest block a product takes from the SELL copy: every width where SELL was asked for.
int max_k(const void *format, int automatic) {
  return format && static_cast<const SellFormat *>(format)->choice == HM_FORMAT_SELL ? INT_MAX : automatic;
}

// The format is const to the kernel table (a view of the matrix); the lazily made block copies
// are the one thing a product adds to it.
SellList *find_list(const void *format, const int32_t *rows, int32_t nrows) {
  if (!format) return nullptr;
  for (SellList &L : static_cast<SellFormat *>(const_cast<void *>(format))->lists)
    if (L.key == rows && L.n == nrows) return &L;
  return nullptr;
}

// List number `list` of the format (checked: an error names the range).
int list_at(const void *format, int list, SellList **L) {
  HM_CHECK(format, HM_ERR_ARGUMENT, "format is NULL");
  SellFormat *F = static_cast<SellFormat *>(const_cast<void *>(format));
  HM_CHECK(list >= 0 && list < (int)F->lists.size(), HM_ERR_ARGUMENT, "list %d is outside [0, %d)", list,
           (int)F->lists.size());
  *L = &F->lists[list];
  return HM_SUCCESS;
}

// Makes list L's block copy once, where the format and type allow one and it pays.
int block_copy(const void *format, SellList &L) {
  const SellFormat *F = static_cast<const SellFormat *>(format);
  if (L.block_tried || F->choice != HM_FORMAT_AUTO || F->type != HM_COMPLEX) return HM_SUCCESS;
  L.block_tried = true;
  HM_CALL(hm_cuda_block_build(&F->host, L.hrows, L.n, 0, &L.block));
  return HM_SUCCESS;
}

int launch(const SellList &L, hm_scalar type, bool kpm, int k, double s, double b, const double *V, double *W,
           double *dots) {
  if (L.nchunks == 0) return HM_SUCCESS;
  int lc = 1;
  while (lc < k && lc < tuning.max_lanes) lc *= 2;
  const int gp = std::min(lc, tuning.rows_per_pass);
  const int nck = (k + lc - 1) / lc;
  const KernelFn fn = type == HM_COMPLEX ? (kpm ? pick<true, true>(lc, gp) : pick<true, false>(lc, gp))
                                         : (kpm ? pick<false, true>(lc, gp) : pick<false, false>(lc, gp));
  HM_CHECK(fn, HM_ERR_ARGUMENT, "no SELL kernel for %d lanes and %d row groups per pass", lc, gp);
  const int wpb = tuning.warps_per_block, threads = 32 * wpb;
  int per_sm = 1, sms = 1;
  HM_CALL(resident_blocks((const void *)fn, threads, tuning.prefer_l1 ? 0 : -1, &per_sm, &sms));
  // a persistent grid: every SM busy, all of them in one window of chunks (which L2 holds)
  const int64_t need = (L.nchunks + wpb - 1) / wpb;
  const int64_t cap = std::max<int64_t>(1, (int64_t)per_sm * sms / nck);
  const int nrb = (int)std::max<int64_t>(1, std::min<int64_t>(need, cap));
  if (kpm) HM_CALL(scratch_at_least((size_t)nrb * wpb * 2 * k));
  fn<<<nrb * nck, threads>>>(L.nchunks, L.cptr, L.perm, L.col, L.val, k, nck, s, b, V, W, scratch);
  HM_CHECK_LAUNCH("sell_kernel");
  if (kpm) {
    HM_CALL(column_sums(true, nrb * wpb, 2 * k, scratch, dots));
  }
  return HM_SUCCESS;
}

} // namespace

extern "C" int hm_cuda_prepare(hm_scalar type, const struct hm_csr_view *A, int nlists, const int32_t *const *rows,
                               const int32_t *counts, const int32_t *const *keys, int choice, int sigma,
                               void **format) {
  HM_CHECK(A && format && nlists >= 0 && (nlists == 0 || (rows && counts && keys)), HM_ERR_ARGUMENT,
           "hm_cuda_prepare: A, format, rows, counts or keys is NULL");
  HM_CHECK(type == HM_REAL || type == HM_COMPLEX, HM_ERR_ARGUMENT, "type %d is not HM_REAL or HM_COMPLEX", (int)type);
  HM_CHECK(choice >= HM_FORMAT_AUTO && choice <= HM_FORMAT_SELL && sigma >= 0, HM_ERR_ARGUMENT,
           "hm_cuda_prepare: format %d, sigma %d", choice, sigma);
  *format = nullptr;
  if (choice == HM_FORMAT_CSR) return HM_SUCCESS; // the products read the CSR arrays
  SellFormat *F = new (std::nothrow) SellFormat;
  HM_CHECK(F, HM_ERR_MEMORY, "no host memory for a SELL format");
  F->type = type;
  F->choice = choice;
  F->host = *A;
  for (int l = 0; l < nlists; l++) {
    F->lists.emplace_back();
    F->lists.back().key = keys[l];
    F->lists.back().hrows = rows[l];
    const int st = build_list(type, A, rows[l], counts[l], sigma, F->lists.back());
    if (st) {
      hm_cuda_unprepare(F);
      return hm_error_trace(st, __FILE__, __LINE__, __func__);
    }
  }
  *format = F;
  return HM_SUCCESS;
}

extern "C" void hm_cuda_unprepare(void *format) {
  if (!format) return;
  SellFormat *F = static_cast<SellFormat *>(format);
  for (SellList &L : F->lists) release_list(L);
  delete F;
}

extern "C" int hm_cuda_sell_spmmv(const void *format, hm_scalar type, int k, const int32_t *rows, int32_t nrows,
                                  const double *x, double *y, int *done) {
  const SellList *L = k <= max_k(format, tuning.spmmv_max_k) ? find_list(format, rows, nrows) : nullptr;
  *done = L != nullptr;
  if (L) HM_CALL(launch(*L, type, false, k, 0, 0, x, y, nullptr));
  return HM_SUCCESS;
}

// SELL up to the SELL widths; the block copy (complex, HM_FORMAT_AUTO, made here the first time)
// from its width on; else the CSR arrays (*done = 0).
extern "C" int hm_cuda_sell_kpm_step(const void *format, hm_scalar type, int k, const int32_t *rows, int32_t nrows,
                                     double scale, double shift, const double *V, double *W, double *dots, int *done) {
  SellList *L = find_list(format, rows, nrows);
  *done = 0;
  if (!L) return HM_SUCCESS;
  if (k <= max_k(format, tuning.kpm_max_k)) {
    *done = 1;
    HM_CALL(launch(*L, type, true, k, scale, shift, V, W, dots));
  } else if (type == HM_COMPLEX && k >= tuning.block_kpm_min_k) {
    HM_CALL(block_copy(format, *L));
    if (L->block) {
      *done = 1;
      HM_CALL(hm_cuda_block_kpm_step(L->block, k, scale, shift, V, W, dots));
    }
  }
  return HM_SUCCESS;
}

extern "C" int hm_cuda_sell_info(const void *format, int list, int *chunk, int *sigma, double *fill) {
  SellList *L;
  HM_CALL(list_at(format, list, &L));
  if (chunk) *chunk = kC;
  if (sigma) *sigma = L->sigma;
  if (fill) *fill = L->fill;
  return HM_SUCCESS;
}

extern "C" int hm_cuda_sell_block(const void *format, int list, int make, const void **block) {
  HM_CHECK(format && block, HM_ERR_ARGUMENT, "format or block is NULL");
  *block = nullptr;
  SellList *L;
  HM_CALL(list_at(format, list, &L));
  if (make) HM_CALL(block_copy(format, *L));
  *block = L->block;
  return HM_SUCCESS;
}

extern "C" int hm_cuda_sell_block_info(const void *format, int list, int *made, double *reads, double *distinct) {
  const void *block = nullptr;
  HM_CALL(hm_cuda_sell_block(format, list, 0, &block));
  if (made) *made = block != nullptr;
  hm_cuda_block_info(block, nullptr, reads, nullptr, distinct);
  return HM_SUCCESS;
}

extern "C" void hm_cuda_sell_tuning(const hm_sell_tuning *set, hm_sell_tuning *get) {
  if (get) *get = tuning;
  if (!set) return;
  hm_sell_tuning t = *set;
  int lanes = 1;
  while (lanes < t.max_lanes && lanes < 32) lanes *= 2;
  t.max_lanes = lanes;
  t.rows_per_pass = t.rows_per_pass <= 8 ? 8 : t.rows_per_pass <= 16 ? 16 : 32;
  t.warps_per_block = std::min(kMaxWarps, std::max(1, t.warps_per_block));
  t.prefer_l1 = t.prefer_l1 != 0;
  tuning = t;
}

void hm_sell_cuda_release_state() {
  hm_device_buffer_free(&scratch_buffer);
  scratch = nullptr;
}
