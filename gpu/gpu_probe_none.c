/* Built without CUDA: the probe says so; asking for the CUDA table gets none. */
#include "error_macros.h"
#include "gpu_probe.h"
#include "kernels.h"
#include "../linalg/core/gpu_probe.h"

int hm_gpu_compiled(void) { return 0; }

int hm_gpu_device_count(int *count) {
  *count = 0;
  return HM_SUCCESS;
}

int hm_gpu_select(int node_rank, int *device) {
  (void)node_rank;
  *device = -1;
  HM_RAISE(HM_ERR_BACKEND, "hamlet was built without CUDA");
}

int hm_gpu_bind(int device) {
  HM_RAISE(HM_ERR_BACKEND, "CUDA device %d asked, but this hamlet was built without CUDA (0 CUDA devices usable)",
           device);
}

const hm_kernels *hm_kernels_cuda(void) { return NULL; }
const hm_kernels *hm_kernels_cuda_on(int device) {
  (void)device;
  return NULL;
}

int hm_gpu_context_opened(int device) {
  (void)device;
  return HM_SUCCESS;
}
void hm_gpu_context_closed(int device) { (void)device; }

int hm_gpu_axpy_selftest(size_t n, double a, const double *x, double *y) {
  (void)n; (void)a; (void)x; (void)y;
  HM_RAISE(HM_ERR_BACKEND, "hamlet was built without CUDA");
}
