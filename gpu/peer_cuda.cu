// Device memory shared between the processes of one node (CUDA IPC), for the halo exchange of
// ranks whose GPUs share a node: a receiver reads the sender's packed rows straight from the
// sender's device buffer (NVLink or PCIe peer-to-peer, or within one GPU), with no host staging.
#include <cstring>

#include "gpu_state.h"
#include "cuda_check.h"
#include "gpu_device.cuh"
#include "kernels_cuda_peer.h"

static_assert(sizeof(cudaIpcMemHandle_t) <= HM_PEER_HANDLE_BYTES, "an IPC handle must fit the halo's token");

namespace {
// The reads run on their own stream: kernels already queued on the default stream (the product
// over the interior rows) keep running while the halo arrives. Non-blocking: no implicit
// synchronisation with the legacy default stream. One per device (a stream belongs to its device).
hm_per_device<cudaStream_t> read_streams;
}  // namespace

extern "C" int hm_cuda_peer_export(const void *p, void *handle) {
  cudaIpcMemHandle_t h;
  HM_CALL_CUDA(cudaIpcGetMemHandle(&h, const_cast<void *>(p)));
  memset(handle, 0, HM_PEER_HANDLE_BYTES);
  memcpy(handle, &h, sizeof h);
  return HM_SUCCESS;
}

extern "C" int hm_cuda_peer_open(const void *handle, void **p) {
  cudaIpcMemHandle_t h;
  memcpy(&h, handle, sizeof h);
  *p = nullptr;
  HM_CALL_CUDA(cudaIpcOpenMemHandle(p, h, cudaIpcMemLazyEnablePeerAccess));
  return HM_SUCCESS;
}

extern "C" void hm_cuda_peer_close(void *p) {
  if (p) cudaIpcCloseMemHandle(p);
}

extern "C" int hm_cuda_peer_read(void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return HM_SUCCESS;
  cudaStream_t &read_stream = read_streams.here();
  if (!read_stream) HM_CALL_CUDA(cudaStreamCreateWithFlags(&read_stream, cudaStreamNonBlocking));
  HM_CALL_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, read_stream));
  HM_CALL_CUDA(cudaStreamSynchronize(read_stream));
  return HM_SUCCESS;
}

extern "C" int hm_cuda_synchronize(void) {
  HM_CALL_CUDA(cudaDeviceSynchronize());
  return HM_SUCCESS;
}

void hm_peer_cuda_release_state() {
  cudaStream_t &read_stream = read_streams.here();
  if (read_stream) cudaStreamDestroy(read_stream);
  read_stream = nullptr;
}
