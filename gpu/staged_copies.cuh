// What the staged kernels (stencil_staged_cuda.cu: the TI's shape; stencil_box_cuda.cu: 1 and 2
// orbitals) fill their rings of shared-memory stages with: 16-byte asynchronous copies (cp.async,
// committed in groups, waited for by count), and the wrap of a halo site's coordinate at the box's
// edge.
#ifndef HAMLET_STAGED_COPIES_CUH
#define HAMLET_STAGED_COPIES_CUH
#include <cstdint>

namespace {

// 16 bytes global -> shared, asynchronous; present = false fills zeros and reads nothing.
__device__ __forceinline__ void copy16(uint32_t dst, const void *src, bool present) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(present ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Wait until at most Pending of this thread's committed groups are still in flight.
template <int Pending = 0> __device__ __forceinline__ void wait_copies() {
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

} // namespace
#endif
