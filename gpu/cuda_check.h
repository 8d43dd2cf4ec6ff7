// Checked CUDA calls: a failure raises HM_ERR_CUDA with CUDA's own name and text of the error.
#ifndef HAMLET_CUDA_CHECK_H
#define HAMLET_CUDA_CHECK_H
#include <cuda_runtime.h>
#include "error_macros.h"

#define HM_CALL_CUDA(expr)                                                                   \
  do {                                                                                       \
    cudaError_t hm_e_ = (expr);                                                              \
    if (hm_e_ != cudaSuccess)                                                                \
      return hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "%s failed: %s (%s)", \
                            #expr, cudaGetErrorString(hm_e_), cudaGetErrorName(hm_e_));      \
  } while (0)

// After a launch: the launch itself (configuration) is checked; faults surface at the next sync.
#define HM_CHECK_LAUNCH(name) HM_CALL_CUDA(cudaGetLastError())
#endif
