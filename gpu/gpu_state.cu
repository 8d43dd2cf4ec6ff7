// Counts the CUDA contexts of each device; the last one destroyed on a device frees the state the
// backend keeps for that device. Also the thread's current device (gpu_device.cuh).
#include <mutex>
#include <cuda_runtime.h>
#include "gpu_device.cuh"
#include "gpu_probe.h"
#include "gpu_state.h"
#include "../linalg/core/gpu_probe.h"
#include "stencil_cuda.h"
#include "stencil_mma_cuda.h"
#include "stencil_small_cuda.h"
#include "stencil_box_cuda.h"
#include "stencil_staged_cuda.h"

thread_local int hm_gpu_thread_device = -1;

int hm_gpu_switch_device(int device) {
  HM_CHECK(device >= 0 && device < kGpuMaxDevices, HM_ERR_ARGUMENT,
           "CUDA device %d: hamlet uses devices 0 to %d of a node", device, kGpuMaxDevices - 1);
  HM_CALL_CUDA(cudaSetDevice(device));
  hm_gpu_thread_device = device;
  return HM_SUCCESS;
}

int hm_gpu_current_device() {
  if (hm_gpu_thread_device >= 0) return hm_gpu_thread_device;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kGpuMaxDevices) {
    cudaGetLastError(); // a direct caller without a usable device: its first CUDA call reports it
    device = 0;
  }
  return device;
}

namespace {
std::mutex lock;
int open_contexts[kGpuMaxDevices] = {};

// Every file's slot for the current device.
void release_current_device_state() {
  cudaDeviceSynchronize(); // nothing in flight reads what is freed
  hm_kernels_cuda_release_state();
  hm_kernels_cuda_block_release_state();
  hm_kernels_cuda_idr_release_state();
  hm_sell_cuda_release_state();
  hm_block_cuda_release_state();
  hm_dense_cuda_release_state();
  hm_dense_exec_cuda_release_state();
  hm_peer_cuda_release_state();
  hm_host_to_device_release_state();
  hm_stencil_cuda_release_state();
  hm_stencil_mma_cuda_release_state();
  hm_stencil_small_cuda_release_state();
  hm_stencil_staged_cuda_release_state();
  hm_stencil_box_cuda_release_state();
}
} // namespace

extern "C" int hm_gpu_context_opened(int device) {
  HM_CHECK(device >= 0 && device < kGpuMaxDevices, HM_ERR_ARGUMENT,
           "CUDA device %d: hamlet uses devices 0 to %d of a node", device, kGpuMaxDevices - 1);
  std::lock_guard<std::mutex> guard(lock);
  open_contexts[device]++;
  return HM_SUCCESS;
}

extern "C" void hm_gpu_context_closed(int device) {
  if (device < 0 || device >= kGpuMaxDevices) return;
  std::lock_guard<std::mutex> guard(lock);
  if (open_contexts[device] == 0 || --open_contexts[device] > 0) return;
  const int previous = hm_gpu_thread_device;
  if (hm_gpu_switch_device(device) != HM_SUCCESS) return; // the device is gone: nothing to free on it
  release_current_device_state();
  // the caller's thread goes on where it was (another context's device, if it had one)
  if (previous >= 0 && previous != device) hm_gpu_switch_device(previous);
}
