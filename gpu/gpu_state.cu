// Counts the process's CUDA contexts; the last one destroyed frees the backend's kept state.
#include <mutex>
#include <cuda_runtime.h>
#include "gpu_probe.h"
#include "gpu_state.h"
#include "../linalg/core/gpu_probe.h"
#include "stencil_cuda.h"

namespace {
std::mutex lock;
int open_contexts = 0;
} // namespace

extern "C" void hm_gpu_context_opened(void) {
  std::lock_guard<std::mutex> guard(lock);
  open_contexts++;
}

extern "C" void hm_gpu_context_closed(void) {
  std::lock_guard<std::mutex> guard(lock);
  if (open_contexts == 0 || --open_contexts > 0) return;
  cudaDeviceSynchronize(); // nothing in flight reads what is freed
  hm_kernels_cuda_release_state();
  hm_kernels_cuda_block_release_state();
  hm_kernels_cuda_idr_release_state();
  hm_sell_cuda_release_state();
  hm_block_cuda_release_state();
  hm_dense_cuda_release_state();
  hm_peer_cuda_release_state();
  hm_host_to_device_release_state();
  hm_stencil_cuda_release_state();
}
