/* What linalg asks of gpu/ before a CUDA kernel table exists: was it compiled, how many devices. */
#ifndef HAMLET_GPU_PROBE_H
#define HAMLET_GPU_PROBE_H
int hm_gpu_compiled(void);
int hm_gpu_device_count(int *count); /* 0 devices is not an error */
#endif
