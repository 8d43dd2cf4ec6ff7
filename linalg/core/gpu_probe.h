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
/* CUDA contexts of this process: the backend's kept state (scratch, handles, staging) is freed
 * when the last one is closed. */
void hm_gpu_context_opened(void);
void hm_gpu_context_closed(void);
#ifdef __cplusplus
}
#endif
#endif
