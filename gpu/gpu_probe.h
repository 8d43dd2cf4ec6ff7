/* Device self-test used by the gpu-labelled tests: y = a x + y on the device, copied back. */
#ifndef HAMLET_GPU_SELFTEST_H
#define HAMLET_GPU_SELFTEST_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
int hm_gpu_axpy_selftest(size_t n, double a, const double *x, double *y);
#ifdef __cplusplus
}
#endif
#endif
