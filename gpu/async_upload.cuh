// Small host arrays (a solver's coefficients) to the device without waiting. A cudaMemcpy from
// pageable memory first waits for every kernel launched before it, so the device sat idle between
// an iteration's launches while the host waited (measured on the H100, IDR(1): several syncs per
// iteration). Here the arrays are packed into one of a few page-locked slots and copied with
// cudaMemcpyAsync on the default stream, so the copy stays ordered behind the earlier kernels and
// ahead of the kernel that reads it; a slot is written again only after its last copy ran (event).
#ifndef HAMLET_ASYNC_UPLOAD_CUH
#define HAMLET_ASYNC_UPLOAD_CUH
#include <cstring>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "gpu_device.cuh"

namespace {

struct UploadSlot {
  double *host = nullptr; // page-locked
  size_t cap = 0;         // doubles
  cudaEvent_t copied = nullptr;
};

constexpr int kUploadSlots = 8;
struct UploadSlots { // a device's (an event belongs to the device it was made on)
  UploadSlot slot[kUploadSlots];
  int next = 0;
};
hm_per_device<UploadSlots> upload_slots;

// The current device's page-locked slots and events freed (hm_gpu_state_release); made again on
// the next upload.
inline void upload_slots_release() {
  UploadSlots &mine = upload_slots.here();
  for (UploadSlot &s : mine.slot) {
    if (s.copied) {
      cudaEventSynchronize(s.copied);
      cudaEventDestroy(s.copied);
    }
    if (s.host) cudaFreeHost(s.host);
    s = UploadSlot();
  }
  mine.next = 0;
}

// dev[0, na) = a, dev[na, na + nb) = b (b may be NULL with nb = 0), in stream order.
inline int upload_async(double *dev, const double *a, size_t na, const double *b = nullptr, size_t nb = 0) {
  const size_t n = na + nb;
  if (n == 0) return HM_SUCCESS;
  UploadSlots &mine = upload_slots.here();
  UploadSlot &s = mine.slot[mine.next];
  mine.next = (mine.next + 1) % kUploadSlots;
  if (s.copied) HM_CALL_CUDA(cudaEventSynchronize(s.copied));
  else HM_CALL_CUDA(cudaEventCreateWithFlags(&s.copied, cudaEventDisableTiming));
  if (s.cap < n) {
    if (s.host) HM_CALL_CUDA(cudaFreeHost(s.host));
    s.host = nullptr;
    s.cap = 0;
    HM_CALL_CUDA(cudaMallocHost(&s.host, n * sizeof(double)));
    s.cap = n;
  }
  if (na) memcpy(s.host, a, na * sizeof(double));
  if (nb) memcpy(s.host + na, b, nb * sizeof(double));
  HM_CALL_CUDA(cudaMemcpyAsync(dev, s.host, n * sizeof(double), cudaMemcpyHostToDevice, 0));
  HM_CALL_CUDA(cudaEventRecord(s.copied, 0));
  return HM_SUCCESS;
}

} // namespace
#endif
