// A host array copied into a new device allocation, for the device copies of a matrix (SELL-C-sigma
// made by prepare, 4 x 4 blocks made by the first KPM step): out of device memory is an
// HM_ERR_MEMORY error naming the copy, the bytes asked and the bytes free.
#ifndef HAMLET_DEVICE_UPLOAD_CUH
#define HAMLET_DEVICE_UPLOAD_CUH
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "host_to_device.h"

template <class T> int hm_device_upload(const T *h, size_t count, const char *what, T **d) {
  *d = nullptr;
  const size_t bytes = std::max<size_t>(count, 1) * sizeof(T);
  cudaError_t e = cudaMalloc((void **)d, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_b = 0, total = 0;
    cudaMemGetInfo(&free_b, &total);
    HM_RAISE(HM_ERR_MEMORY, "out of device memory for %s: %zu bytes asked, %zu of %zu free", what, bytes, free_b,
             total);
  }
  HM_CALL_CUDA(e);
  HM_CALL(hm_cuda_upload_bytes(*d, h, count * sizeof(T)));
  return HM_SUCCESS;
}

template <class T> int hm_device_upload(const std::vector<T> &h, const char *what, T **d) {
  return hm_device_upload(h.data(), h.size(), what, d);
}
#endif
