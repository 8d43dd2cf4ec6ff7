// Device memory shared between the processes of one node (CUDA IPC), for the halo exchange of
// ranks whose GPUs share a node: a receiver reads the sender's packed rows straight from the
// sender's device buffer (NVLink or PCIe peer-to-peer, or within one GPU), with no host staging.
// Marks (events) order the kernels' stream, the reads' stream and the host around the transfers.
#include <cstring>

#include "cuda_check.h"
#include "kernels_cuda_peer.h"

static_assert(sizeof(cudaIpcMemHandle_t) <= HM_PEER_HANDLE_BYTES, "an IPC handle must fit the halo's token");

namespace {
// The reads run on their own stream: kernels already queued on the default stream (the product
// over the interior rows) keep running while the halo arrives. Non-blocking: no implicit
// synchronisation with the legacy default stream.
cudaStream_t read_stream = nullptr;
cudaEvent_t marks[HM_MARKS] = {};

int mark_event(int m, cudaEvent_t *e) {
  HM_CHECK(m >= 0 && m < HM_MARKS, HM_ERR_ARGUMENT, "mark %d; allowed: 0 to %d", m, HM_MARKS - 1);
  if (!marks[m]) HM_CALL_CUDA(cudaEventCreateWithFlags(&marks[m], cudaEventDisableTiming));
  *e = marks[m];
  return HM_SUCCESS;
}

int set_mark_on(cudaStream_t s, int m) {
  cudaEvent_t e;
  HM_CALL(mark_event(m, &e));
  HM_CALL_CUDA(cudaEventRecord(e, s));
  return HM_SUCCESS;
}
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

extern "C" int hm_cuda_peer_read(void *dst, const void *src, size_t bytes, int m) {
  if (!read_stream) HM_CALL_CUDA(cudaStreamCreateWithFlags(&read_stream, cudaStreamNonBlocking));
  if (bytes) HM_CALL_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, read_stream));
  HM_CALL(set_mark_on(read_stream, m));
  return HM_SUCCESS;
}

extern "C" int hm_cuda_set_mark(int m) {
  HM_CALL(set_mark_on(0, m));
  return HM_SUCCESS;
}

// A mark never set is passed at once (CUDA's rule for an event never recorded).
extern "C" int hm_cuda_wait_mark(int m) {
  cudaEvent_t e;
  HM_CALL(mark_event(m, &e));
  HM_CALL_CUDA(cudaStreamWaitEvent(0, e, 0));
  return HM_SUCCESS;
}

extern "C" int hm_cuda_sync_mark(int m) {
  cudaEvent_t e;
  HM_CALL(mark_event(m, &e));
  HM_CALL_CUDA(cudaEventSynchronize(e));
  return HM_SUCCESS;
}
