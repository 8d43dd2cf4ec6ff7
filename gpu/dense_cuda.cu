// cuSOLVER path of the dense Hermitian eigensolver: the host array goes to the device, the whole
// reduction and the tridiagonal solve run there (cusolverDnXsyevd; cusolverDn{D,Z}sygvd / hegvd for
// generalized problems), eigenvalues and vectors come back. Every call is checked; every device and
// host buffer is released on every path (one cleanup label).
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include "gpu_state.h"
#include "cuda_check.h"
#include "cuda_libs.h"
#include "dense_cuda_handle.h"
#include "../linalg/dense/dense_gpu.h"

const char *hm_cusolver_status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "cusolverStatus_t (other)";
  }
}

namespace {

// One handle per device, made on first use and kept (creating one costs milliseconds, which
// would show in every call). Not thread-safe: one host thread per device uses the dense path.
const int max_devices = 64;
cusolverDnHandle_t handles[max_devices];
cusolverDnParams_t params[max_devices];

}  // namespace

int hm_dense_cuda_handle(cusolverDnHandle_t *h, cusolverDnParams_t *p) {
  int device = 0;
  HM_CALL_CUDA(cudaGetDevice(&device));
  HM_CHECK(device >= 0 && device < max_devices, HM_ERR_CUDA, "CUDA device %d beyond the %d this path handles", device,
           max_devices);
  if (!handles[device]) {
    const hm_cuda_libs *lib = hm_cuda_solver();
    if (!lib) return HM_ERR_CUDA; /* raised by the loader */
    cusolverStatus_t s = lib->cusolverDnCreate(&handles[device]);
    HM_CHECK(s == CUSOLVER_STATUS_SUCCESS, HM_ERR_CUDA, "cusolverDnCreate failed: %s", hm_cusolver_status_name(s));
    s = lib->cusolverDnCreateParams(&params[device]);
    if (s != CUSOLVER_STATUS_SUCCESS) {
      lib->cusolverDnDestroy(handles[device]);
      handles[device] = nullptr;
      HM_RAISE(HM_ERR_CUDA, "cusolverDnCreateParams failed: %s", hm_cusolver_status_name(s));
    }
  }
  *h = handles[device];
  *p = params[device];
  return HM_SUCCESS;
}

namespace {

const char *bytes_text(double b, char *buf) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) { b /= 1024; u++; }
  snprintf(buf, 32, "%.2f %s", b, unit[u]);
  return buf;
}

}  // namespace

#define SOLVER_GOTO(expr)                                                                                      \
  do {                                                                                                         \
    cusolverStatus_t s_ = (expr);                                                                              \
    if (s_ != CUSOLVER_STATUS_SUCCESS) {                                                                       \
      st = hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "%s failed: %s", #expr, hm_cusolver_status_name(s_)); \
      goto done;                                                                                               \
    }                                                                                                          \
  } while (0)

#define CUDA_GOTO(expr)                                                                                        \
  do {                                                                                                         \
    cudaError_t e_ = (expr);                                                                                   \
    if (e_ != cudaSuccess) {                                                                                   \
      st = hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "%s failed: %s (%s)", #expr,             \
                          cudaGetErrorString(e_), cudaGetErrorName(e_));                                       \
      goto done;                                                                                               \
    }                                                                                                          \
  } while (0)

extern "C" int hm_dense_cuda_eigh(int type, int64_t n, void *A, int64_t lda, void *B, int64_t ldb, int vectors,
                                  double *w, size_t limit) {
  const bool complex_ = type == 2, generalized = B != nullptr;
  const size_t elt = complex_ ? 16 : 8;
  const cudaDataType dt = complex_ ? CUDA_C_64F : CUDA_R_64F;
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t lower = CUBLAS_FILL_MODE_LOWER;
  const size_t matrix_bytes = (size_t)n * (size_t)n * elt;
  int st = HM_SUCCESS, info = 0, lwork = 0;
  size_t dev_work = 0, host_work = 0, free_b = 0, total_b = 0;
  double need = 0, avail = 0;
  char t1[32], t2[32];
  void *dA = nullptr, *dB = nullptr, *dwork = nullptr, *hwork = nullptr;
  double *dW = nullptr;
  int *dinfo = nullptr;
  cusolverDnHandle_t h = nullptr;
  cusolverDnParams_t p = nullptr;

  HM_CALL(hm_dense_cuda_handle(&h, &p));
  // Workspace sizes (the queries read no array), then the memory check, then allocations.
  if (!generalized) {
    SOLVER_GOTO(hm_cuda_solver()->cusolverDnXsyevd_bufferSize(h, p, jobz, lower, n, dt, nullptr, n, CUDA_R_64F, nullptr, dt, &dev_work,
                                            &host_work));
  } else if (!complex_) {
    SOLVER_GOTO(hm_cuda_solver()->cusolverDnDsygvd_bufferSize(h, CUSOLVER_EIG_TYPE_1, jobz, lower, (int)n, nullptr, (int)n, nullptr,
                                            (int)n, nullptr, &lwork));
    dev_work = (size_t)lwork * elt;
  } else {
    SOLVER_GOTO(hm_cuda_solver()->cusolverDnZhegvd_bufferSize(h, CUSOLVER_EIG_TYPE_1, jobz, lower, (int)n, nullptr, (int)n, nullptr,
                                            (int)n, nullptr, &lwork));
    dev_work = (size_t)lwork * elt;
  }
  CUDA_GOTO(cudaMemGetInfo(&free_b, &total_b));
  need = (double)matrix_bytes * (generalized ? 2 : 1) + 8.0 * (double)n + (double)dev_work + 256.0;
  avail = (double)(free_b < limit ? free_b : limit);
  if (need > avail) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                        "cuSOLVER for n = %lld needs %s of device memory, %s available on the device",
                        (long long)n, bytes_text(need, t1), bytes_text(avail, t2));
    goto done;
  }
  CUDA_GOTO(cudaMalloc(&dA, matrix_bytes));
  if (generalized) CUDA_GOTO(cudaMalloc(&dB, matrix_bytes));
  CUDA_GOTO(cudaMalloc((void **)&dW, sizeof(double) * (size_t)n));
  CUDA_GOTO(cudaMalloc(&dwork, dev_work ? dev_work : 1));
  CUDA_GOTO(cudaMalloc((void **)&dinfo, sizeof(int)));
  if (host_work) {
    hwork = malloc(host_work);
    if (!hwork) {
      st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %s of cuSOLVER host workspace",
                          bytes_text((double)host_work, t1));
      goto done;
    }
  }
  CUDA_GOTO(cudaMemcpy2D(dA, n * elt, A, (size_t)lda * elt, n * elt, (size_t)n, cudaMemcpyHostToDevice));
  if (generalized) CUDA_GOTO(cudaMemcpy2D(dB, n * elt, B, (size_t)ldb * elt, n * elt, (size_t)n, cudaMemcpyHostToDevice));

  if (!generalized) {
    SOLVER_GOTO(hm_cuda_solver()->cusolverDnXsyevd(h, p, jobz, lower, n, dt, dA, n, CUDA_R_64F, dW, dt, dwork, dev_work, hwork, host_work,
                                 dinfo));
  } else if (!complex_) {
    SOLVER_GOTO(hm_cuda_solver()->cusolverDnDsygvd(h, CUSOLVER_EIG_TYPE_1, jobz, lower, (int)n, (double *)dA, (int)n, (double *)dB, (int)n,
                                 dW, (double *)dwork, lwork, dinfo));
  } else {
    SOLVER_GOTO(hm_cuda_solver()->cusolverDnZhegvd(h, CUSOLVER_EIG_TYPE_1, jobz, lower, (int)n, (cuDoubleComplex *)dA, (int)n,
                                 (cuDoubleComplex *)dB, (int)n, dW, (cuDoubleComplex *)dwork, lwork, dinfo));
  }
  CUDA_GOTO(cudaMemcpy(&info, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
  if (generalized && info > n) {
    st = hm_error_raise(HM_ERR_NUMERIC, __FILE__, __LINE__, __func__,
                        "B is not positive definite: its leading minor of order %d is not (cuSOLVER potrf)",
                        (int)(info - n));
    goto done;
  }
  if (info != 0) {
    st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__, "cuSOLVER %s returned info = %d (%s)",
                        generalized ? (complex_ ? "zhegvd" : "dsygvd") : "Xsyevd", info,
                        info < 0 ? "an illegal argument" : "the eigenvalue iteration did not converge");
    goto done;
  }
  CUDA_GOTO(cudaMemcpy(w, dW, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
  if (vectors)
    CUDA_GOTO(cudaMemcpy2D(A, (size_t)lda * elt, dA, n * elt, n * elt, (size_t)n, cudaMemcpyDeviceToHost));
  if (generalized)
    CUDA_GOTO(cudaMemcpy2D(B, (size_t)ldb * elt, dB, n * elt, n * elt, (size_t)n, cudaMemcpyDeviceToHost));
done:
  // Release everything; a failure here is reported only where nothing failed before.
  {
    void *bufs[] = {dA, dB, dW, dwork, dinfo};
    for (void *b : bufs) {
      cudaError_t e = b ? cudaFree(b) : cudaSuccess;
      if (e != cudaSuccess && !st)
        st = hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "cudaFree failed: %s", cudaGetErrorString(e));
    }
  }
  free(hwork);
  return st;
}

// The current device's handle (gpu_state.cu makes each device current to free its state).
void hm_dense_cuda_release_state() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess || d < 0 || d >= max_devices) return;
  if (params[d]) hm_cuda_solver()->cusolverDnDestroyParams(params[d]);
  if (handles[d]) hm_cuda_solver()->cusolverDnDestroy(handles[d]);
  params[d] = nullptr;
  handles[d] = nullptr;
}
