/* Built without CUDA: no device memory is ever allocated. */
#include "../linalg/core/device_memory.h"

size_t hm_device_memory_in_use(void) { return 0; }
size_t hm_device_memory_peak(void) { return 0; }
void hm_device_memory_free(size_t *free_bytes) { *free_bytes = 0; }
