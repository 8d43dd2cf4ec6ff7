// cuBLAS and cuSOLVER open on first use (gpu/cuda_libs.cu): the toolkit's sonames load, every function
// the CUDA backend calls resolves, and cuBLAS answers a status string. No GPU is needed, so CI runs it.
// (C++ without tests/support/testing.h, which is C.)
#include <cstdio>
#include <cstring>
#include "hamlet/error.h"
#include "cuda_libs.h"

static int failures = 0;
static void check(bool ok, const char *what) {
  if (!ok) fprintf(stderr, "FAIL: %s %s\n", what, hm_error_message()), failures++;
}

int main() {
  const hm_cuda_libs *blas = hm_cuda_blas();
  check(blas != nullptr, "cuBLAS did not open:");
  const hm_cuda_libs *solver = hm_cuda_solver();
  check(solver != nullptr, "cuSOLVER did not open:");
  if (blas && solver) {
#define HM_CUDA_LIBS_CHECK(f) check(solver->f != nullptr, #f " did not resolve");
    HM_CUBLAS_FUNCTIONS(HM_CUDA_LIBS_CHECK)
    HM_CUSOLVER_FUNCTIONS(HM_CUDA_LIBS_CHECK)
#undef HM_CUDA_LIBS_CHECK
    const char *text = blas->cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED);
    check(text && strlen(text) > 0, "cublasGetStatusString gave no text");
    printf("cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED) = \"%s\"\n", text ? text : "");
    check(hm_cuda_blas() == blas, "a second call gave another table");
  }
  printf(failures ? "FAILED (%d)\n" : "PASSED (%d failures)\n", failures);
  return failures ? 1 : 0;
}
