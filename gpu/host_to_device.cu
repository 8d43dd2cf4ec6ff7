// Large host-to-device copies through page-locked staging. A copy from pageable memory runs at the
// speed of the driver's one-thread copy into its own staging buffers (about 6 GB/s measured on the
// H100's host); here the host's threads fill one page-locked buffer while the other one's DMA runs.
#include <cstring>
#include <omp.h>
#include "gpu_state.h"
#include "cuda_check.h"
#include "gpu_device.cuh"
#include "host_to_device.h"

namespace {

constexpr size_t kStageBytes = (size_t)32 << 20; // per buffer; both kept for the device
constexpr size_t kStagedFrom = (size_t)64 << 20; // smaller copies: one plain cudaMemcpy

struct Stage {
  char *buf[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};
  cudaStream_t stream = nullptr;
};
hm_per_device<Stage> stages; // the current device's stream and events

// Made on the first staged copy; a failed part is made again by the next one, nothing twice.
int stage_ready(Stage &stage) {
  for (int b = 0; b < 2; b++) {
    if (!stage.buf[b]) HM_CALL_CUDA(cudaMallocHost((void **)&stage.buf[b], kStageBytes));
    if (!stage.done[b]) HM_CALL_CUDA(cudaEventCreateWithFlags(&stage.done[b], cudaEventDisableTiming));
  }
  if (!stage.stream) HM_CALL_CUDA(cudaStreamCreateWithFlags(&stage.stream, cudaStreamNonBlocking));
  return HM_SUCCESS;
}

// dst = src with the host's threads, each a contiguous share.
void parallel_copy(char *dst, const char *src, size_t bytes) {
#pragma omp parallel
  {
    const size_t t = (size_t)omp_get_thread_num(), n = (size_t)omp_get_num_threads();
    const size_t lo = bytes * t / n, hi = bytes * (t + 1) / n;
    memcpy(dst + lo, src + lo, hi - lo);
  }
}

} // namespace

extern "C" int hm_cuda_upload_bytes(void *dst, const void *src, size_t bytes) {
  if (bytes < kStagedFrom) {
    if (bytes) HM_CALL_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return HM_SUCCESS;
  }
  Stage &stage = stages.here();
  HM_CALL(stage_ready(stage));
  // Work queued on the default stream before this copy (an earlier upload, a kernel) comes first.
  HM_CALL_CUDA(cudaStreamSynchronize(0));
  for (size_t at = 0, i = 0; at < bytes; at += kStageBytes, i++) {
    const int b = (int)(i % 2);
    const size_t n = bytes - at < kStageBytes ? bytes - at : kStageBytes;
    HM_CALL_CUDA(cudaEventSynchronize(stage.done[b])); // its previous DMA has read it
    parallel_copy(stage.buf[b], (const char *)src + at, n);
    HM_CALL_CUDA(cudaMemcpyAsync((char *)dst + at, stage.buf[b], n, cudaMemcpyHostToDevice, stage.stream));
    HM_CALL_CUDA(cudaEventRecord(stage.done[b], stage.stream));
  }
  HM_CALL_CUDA(cudaStreamSynchronize(stage.stream)); // returns with the data in place, as cudaMemcpy does
  return HM_SUCCESS;
}

void hm_host_to_device_release_state() {
  Stage &stage = stages.here();
  for (int b = 0; b < 2; b++) {
    if (stage.done[b]) cudaEventDestroy(stage.done[b]);
    if (stage.buf[b]) cudaFreeHost(stage.buf[b]);
  }
  if (stage.stream) cudaStreamDestroy(stage.stream);
  stage = Stage();
}
