// A device buffer that grows on demand and is kept: the scratch of a family of kernels (block
// partial sums, small factors). Each family keeps its own, so no family overwrites another's data
// between the calls that produce and consume it; hm_device_buffers keeps one per device.
#ifndef HAMLET_DEVICE_BUFFER_CUH
#define HAMLET_DEVICE_BUFFER_CUH
#include <cstddef>
#include "cuda_check.h"
#include "gpu_device.cuh"

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

// One buffer per device. grow works on the current device's (gpu_device.cuh), and p then points at
// it: read p right after grow, on the same thread.
struct hm_device_buffers {
  hm_per_device<hm_device_buffer> slots;
  double *p = nullptr;
};

static inline int hm_device_buffer_grow(hm_device_buffers *b, size_t n) {
  hm_device_buffer &mine = b->slots.here();
  HM_CALL(hm_device_buffer_grow(&mine, n));
  b->p = mine.p;
  return HM_SUCCESS;
}

// The current device's buffer back to empty (gpu_state.cu makes each device current to free it).
static inline void hm_device_buffer_free(hm_device_buffers *b) {
  hm_device_buffer &mine = b->slots.here();
  if (b->p == mine.p) b->p = nullptr;
  hm_device_buffer_free(&mine);
}
#endif
