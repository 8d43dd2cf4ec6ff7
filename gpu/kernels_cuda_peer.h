// CUDA IPC for the halo of ranks on one node (see the peer entries of hm_kernels in kernels.h).
#ifndef HAMLET_KERNELS_CUDA_PEER_H
#define HAMLET_KERNELS_CUDA_PEER_H
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif
int hm_cuda_peer_export(const void *p, void *handle);
int hm_cuda_peer_open(const void *handle, void **p);
void hm_cuda_peer_close(void *p);
int hm_cuda_peer_read(void *dst, const void *src, size_t bytes);
int hm_cuda_synchronize(void);
#ifdef __cplusplus
}
#endif
#endif
