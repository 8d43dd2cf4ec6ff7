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

const hm_kernels *hm_kernels_cuda(void) { return NULL; }

void hm_gpu_context_opened(void) {}
void hm_gpu_context_closed(void) {}

int hm_gpu_axpy_selftest(size_t n, double a, const double *x, double *y) {
  (void)n; (void)a; (void)x; (void)y;
  HM_RAISE(HM_ERR_BACKEND, "hamlet was built without CUDA");
}
