// cuBLAS and cuSOLVER, opened when a CUDA context first needs them (dlopen), not linked: linked,
// libcublasLt's static initialisation cost every process 0.4 s at start, CPU runs and `hamlet
// --version` included (a no-op program linked with it: 0.40 s; with cudart alone: 0.00 s).
// hm_cuda_blas() / hm_cuda_solver() load on first call and return the table (NULL and an error raised
// where the library cannot be opened); the members have the libraries' own names and types.
#ifndef HAMLET_CUDA_LIBS_H
#define HAMLET_CUDA_LIBS_H
#include <cublas_v2.h>
#include <cusolverDn.h>
#include "error_macros.h"

#define HM_CUBLAS_FUNCTIONS(X) X(cublasCreate) X(cublasDestroy) X(cublasGetStatusString) X(cublasDgemm) X(cublasZgemm) X(cublasDrot) \
  X(cublasDtrsm) X(cublasZtrsm)
#define HM_CUSOLVER_FUNCTIONS(X)                                                                              \
  X(cusolverDnCreate) X(cusolverDnDestroy) X(cusolverDnCreateParams) X(cusolverDnDestroyParams)               \
  X(cusolverDnXsyevd_bufferSize) X(cusolverDnXsyevd) X(cusolverDnDsygvd_bufferSize) X(cusolverDnDsygvd)       \
  X(cusolverDnZhegvd_bufferSize) X(cusolverDnZhegvd) X(cusolverDnDgeqrf_bufferSize) X(cusolverDnDgeqrf)         \
  X(cusolverDnZgeqrf_bufferSize) X(cusolverDnZgeqrf)

struct hm_cuda_libs {
#define HM_CUDA_LIBS_MEMBER(f) decltype(&::f) f;
  HM_CUBLAS_FUNCTIONS(HM_CUDA_LIBS_MEMBER)
  HM_CUSOLVER_FUNCTIONS(HM_CUDA_LIBS_MEMBER)
#undef HM_CUDA_LIBS_MEMBER
};

const hm_cuda_libs *hm_cuda_blas();
const hm_cuda_libs *hm_cuda_solver();
// A cuSOLVER function that only some CUDA versions have (NULL where this one lacks it).
void *hm_cuda_solver_optional(const char *name);

// The current device's cuBLAS handle, made on first use and kept (kernels_cuda_block.cu owns and releases
// it): default stream, default settings, shared by every file that calls cuBLAS.
int hm_cuda_blas_handle(cublasHandle_t *h);

// A checked cuBLAS call: a failure raises HM_ERR_CUDA with cuBLAS's text of the status.
#define HM_CALL_CUBLAS(expr)                                                                     \
  do {                                                                                           \
    cublasStatus_t hm_s_ = (expr);                                                               \
    if (hm_s_ != CUBLAS_STATUS_SUCCESS)                                                          \
      return hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "%s failed: %s (%d)", #expr, \
                            hm_cuda_blas()->cublasGetStatusString(hm_s_), (int)hm_s_);           \
  } while (0)

#endif
