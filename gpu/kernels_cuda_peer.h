// CUDA IPC for the halo of ranks on one node, and the marks around it (see the peer and mark entries
// of hm_kernels in kernels.h).
#ifndef HAMLET_KERNELS_CUDA_PEER_H
#define HAMLET_KERNELS_CUDA_PEER_H
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif
int hm_cuda_peer_export(const void *p, void *handle);
int hm_cuda_peer_open(const void *handle, void **p);
void hm_cuda_peer_close(void *p);
int hm_cuda_peer_read(void *dst, const void *src, size_t bytes, int m);
int hm_cuda_set_mark(int m);
int hm_cuda_wait_mark(int m);
int hm_cuda_sync_mark(int m);
#ifdef __cplusplus
}
#endif
#endif
