// A device buffer that grows on demand and is kept for the process: the scratch of a family of
// kernels (block partial sums, small factors). Each family keeps its own, so no family overwrites
// another's data between the calls that produce and consume it.
#ifndef HAMLET_DEVICE_BUFFER_CUH
#define HAMLET_DEVICE_BUFFER_CUH
#include <cstddef>
#include "cuda_check.h"

struct hm_device_buffer {
  double *p = nullptr;
  size_t len = 0; // doubles
};

// At least n doubles in b (the old contents are not kept).
static inline int hm_device_buffer_grow(hm_device_buffer *b, size_t n) {
  if (n <= b->len) return HM_SUCCESS;
  if (b->p) HM_CALL_CUDA(cudaFree(b->p));
  b->p = nullptr;
  b->len = 0;
  HM_CALL_CUDA(cudaMalloc(&b->p, n * sizeof(double)));
  b->len = n;
  return HM_SUCCESS;
}

// Back to empty (hm_gpu_state_release, when the last CUDA context goes).
static inline void hm_device_buffer_free(hm_device_buffer *b) {
  if (b->p) cudaFree(b->p);
  b->p = nullptr;
  b->len = 0;
}
#endif
