/* Built without CUDA: the probe says so; the self-test reports the backend missing. */
#include "error_macros.h"
#include "gpu_probe.h"
#include "../linalg/core/gpu_probe.h"

int hm_gpu_compiled(void) { return 0; }

int hm_gpu_device_count(int *count) {
  *count = 0;
  return HM_SUCCESS;
}

int hm_gpu_axpy_selftest(size_t n, double a, const double *x, double *y) {
  (void)n; (void)a; (void)x; (void)y;
  HM_RAISE(HM_ERR_BACKEND, "hamlet was built without CUDA");
}
