/* What linalg asks of gpu/ when choosing a backend: was CUDA compiled, how many devices, bind one. */
#ifndef HAMLET_GPU_PROBE_H
#define HAMLET_GPU_PROBE_H
#ifdef __cplusplus
extern "C" {
#endif
int hm_gpu_compiled(void);
int hm_gpu_device_count(int *count); /* 0 devices is not an error */
/* Bind this process to device (node_rank mod count); returns the device index. */
int hm_gpu_select(int node_rank, int *device);
/* Make the given device current on this thread: HM_ERR_ARGUMENT naming the visible count where
 * it is not one of them, HM_ERR_BACKEND where CUDA is not built. */
int hm_gpu_bind(int device);
/* CUDA contexts of each device: the backend's kept state for a device (scratch, handles, staging)
 * is made on first use there and freed when the last context on that device is closed. */
int hm_gpu_context_opened(int device);
void hm_gpu_context_closed(int device);
#ifdef __cplusplus
}
#endif
#endif
