/* The products each GPU kernel of the matrix-free operator served on this rank (gpu/stencil_cuda.cu
 * counts them), for the tests that force a kernel (hm_matrix_set_stencil_kernel, HAMLET_STENCIL_KERNEL)
 * and must see it serve, not a silent fall-back. The kernels of hamlet/stencil.h and the generic one. */
#ifndef HAMLET_STENCIL_KERNEL_COUNT_H
#define HAMLET_STENCIL_KERNEL_COUNT_H
#include "hamlet/stencil.h"
#ifdef __cplusplus
extern "C" {
#endif
enum { HM_STENCIL_KERNEL_GENERIC = HM_STENCIL_KERNEL_SITE + 1, HM_STENCIL_KERNELS };
void hm_stencil_kernel_served(int kernel);
long long hm_stencil_kernel_products(int kernel);
const char *hm_stencil_kernel_name(int kernel);
/* 1 where the library reads the GPU kernels' tuning variables (configured with -DHAMLET_TUNING=ON). */
int hm_stencil_tuning_compiled(void);
/* The kernel of a new matrix-free operator: HAMLET_STENCIL_KERNEL where set (an unknown word is an
 * error), else auto. */
int hm_stencil_kernel_default(hm_stencil_kernel *kernel);
#ifdef __cplusplus
}
#endif
#endif
