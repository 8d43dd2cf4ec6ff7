/* The GPU kernels of a matrix-free product (gpu/stencil_cuda.cu chooses one per product;
 * stencil_kernel_count.c counts the products each served on this rank, for the tests that force one
 * with HAMLET_STENCIL_KERNEL and must see it serve, not a silent fall-back). */
#ifndef HAMLET_STENCIL_KERNEL_COUNT_H
#define HAMLET_STENCIL_KERNEL_COUNT_H
#ifdef __cplusplus
extern "C" {
#endif
typedef enum {
  HM_STENCIL_KERNEL_STAGED, HM_STENCIL_KERNEL_BOX, HM_STENCIL_KERNEL_MMA, HM_STENCIL_KERNEL_SMALL,
  HM_STENCIL_KERNEL_SITE, HM_STENCIL_KERNEL_GENERIC, HM_STENCIL_KERNELS
} hm_stencil_kernel;
void hm_stencil_kernel_served(hm_stencil_kernel kernel);
long long hm_stencil_kernel_products(hm_stencil_kernel kernel);
/* The kernel HAMLET_STENCIL_KERNEL names ("staged", "box", "mma", "small", "site"), -1 for another word. */
int hm_stencil_kernel_named(const char *name);
const char *hm_stencil_kernel_name(hm_stencil_kernel kernel);
#ifdef __cplusplus
}
#endif
#endif
