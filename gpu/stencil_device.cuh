// Device arithmetic the matrix-free lattice operator's CUDA kernels share (stencil_cuda.cu,
// stencil_mma_cuda.cu, stencil_small_cuda.cu): which slab a list position is, a site's cell, where a
// block's hop lands, a column entry of either arithmetic.
#ifndef HAMLET_STENCIL_DEVICE_CUH
#define HAMLET_STENCIL_DEVICE_CUH
#include "stencil_exec.h"

namespace {

__device__ inline int64_t slab_at(const hm_stencil_exec &E, int list, int64_t p) {
  return hm_stencil_slab_at(&E, list, p);
}

// Cell of plane index q in global slab g (cheap 32-bit arithmetic where the plane allows it).
__device__ inline void cell_of(const hm_stencil_exec &E, int64_t g, int64_t q, int64_t c[3]) {
  c[0] = c[1] = c[2] = 0;
  c[E.slow] = g;
  if (E.slow == 2) {
    const int64_t nx = E.cells[0];
    c[0] = q % nx;
    c[1] = q / nx;
  } else if (E.slow == 1) {
    c[0] = q;
  }
}

// Where block b's hop from cell c lands and its boundary factor; -1 where it is dropped. The common
// case (no wrap in any direction) is one add of the block's precomputed local offset: cheap 32-bit
// checks decide it; wraps, ghost slabs and vacancies take the general arithmetic of stencil_exec.h.
__device__ inline int64_t hop_target(const hm_stencil_exec &E, int b, const int64_t c[3], int64_t self,
                                     const int64_t *delta, bool interior, int64_t w[3], double *angle) {
  const int32_t *R = E.shift + 3 * b;
  *angle = 0;
  if (interior && (uint64_t)(c[0] + R[0]) < (uint64_t)E.cells[0] && (uint64_t)(c[1] + R[1]) < (uint64_t)E.cells[1] &&
      (uint64_t)(c[2] + R[2]) < (uint64_t)E.cells[2]) {
    w[0] = w[1] = w[2] = 0;
    return self + delta[b];
  }
  return hm_stencil_target(&E, R, c, w, angle);
}

// A column entry of either arithmetic: Cplx (re, im pairs) or real (one double; y = 0 throughout).
template <bool Cplx>
__device__ __forceinline__ double2 load_entry(const double *x, size_t e) {
  if constexpr (Cplx) return reinterpret_cast<const double2 *>(x)[e];
  else return make_double2(x[e], 0);
}

template <bool Cplx>
__device__ __forceinline__ void store_entry(double *y, size_t e, double2 v) {
  if constexpr (Cplx) reinterpret_cast<double2 *>(y)[e] = v;
  else y[e] = v.x;
}

// The same past L1 (evict first): an output block that streams by while L1 keeps the input's rows.
template <bool Cplx>
__device__ __forceinline__ double2 load_streaming(const double *x, size_t e) {
  if constexpr (Cplx) return __ldcs(reinterpret_cast<const double2 *>(x) + e);
  else return make_double2(__ldcs(x + e), 0);
}

template <bool Cplx>
__device__ __forceinline__ void store_streaming(double *y, size_t e, double2 v) {
  if constexpr (Cplx) __stcs(reinterpret_cast<double2 *>(y) + e, v);
  else __stcs(y + e, v.x);
}

} // namespace
#endif
