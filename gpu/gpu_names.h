/* One line about a visible CUDA device, for `hamlet info` (internal to hamlet). */
#ifndef HAMLET_GPU_NAMES_H
#define HAMLET_GPU_NAMES_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* "NVIDIA H100 80GB HBM3, 79.2 GiB, compute 9.0, PCI 0000:1b:00.0" into text (truncated to len). */
int hm_gpu_describe(int device, char *text, size_t len);
/* The CUDA runtime and driver versions as "runtime 13.0, driver 13.0" (or why unknown). */
int hm_gpu_versions(char *text, size_t len);
#ifdef __cplusplus
}
#endif
#endif
