/* What the GPU backend allocated through its table's alloc (device memory of this process):
 * the bytes in use now and the most ever in use. 0 where CUDA is not built or not used. */
#ifndef HAMLET_DEVICE_MEMORY_H
#define HAMLET_DEVICE_MEMORY_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
size_t hm_device_memory_in_use(void);
size_t hm_device_memory_peak(void);
/* Free memory of this rank's device now (cudaMemGetInfo); 0 without CUDA or on failure. */
void hm_device_memory_free(size_t *free_bytes);
#ifdef __cplusplus
}
#endif
#endif
