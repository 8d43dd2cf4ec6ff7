// The CUDA backend's alloc and release report here (device_memory.cu), so the run summary can
// give the peak device memory.
#ifndef HAMLET_DEVICE_MEMORY_COUNT_H
#define HAMLET_DEVICE_MEMORY_COUNT_H
#include <cstddef>
void hm_device_memory_count_alloc(const void *p, size_t bytes);
void hm_device_memory_count_release(const void *p);
#endif
