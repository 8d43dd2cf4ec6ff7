// The device side of the distributed eigensolver's calls (linalg/dense/dense_exec.h): cuBLAS products,
// cuSOLVER QR and tridiagonal divide and conquer, and the gathers that place an update's rows at a
// rank's columns. Each call makes its device current first; all run on the default stream, so the
// host copies that follow them see their results.
#include <cstdint>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "cuda_libs.h"
#include "dense_cuda_handle.h"
#include "device_buffer.cuh"
#include "gpu_device.cuh"
#include "gpu_state.h"
#include "../linalg/dense/dense_gpu.h"

#define DENSE_CUSOLVER(expr)                                                                       \
  do {                                                                                              \
    cusolverStatus_t s_ = (expr);                                                                    \
    if (s_ != CUSOLVER_STATUS_SUCCESS)                                                               \
      return hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "%s failed: %s", #expr,      \
                            hm_cusolver_status_name(s_));                                           \
  } while (0)

namespace {

hm_device_buffers qr_work; // geqrf's workspace, tau and info
hm_device_buffers gather_index; // gather_columns' index
hm_device_buffers secular_input; // secular_vectors' poles, weights, origins, offsets and row order

int blas(int device, cublasHandle_t *h) { // the shared handle of the device, made current
  HM_CALL(hm_gpu_enter_device(device));
  return hm_cuda_blas_handle(h);
}

unsigned grid_for(int64_t work) {
  const int64_t b = (work + 255) / 256;
  return (unsigned)(b < 65535 ? (b > 0 ? b : 1) : 65535);
}

__device__ int64_t global_of(int64_t l, int b, int rank, int P) { return ((l / b) * P + rank) * b + l % b; }

// dst[q][j] = src[q][global(l0 + j) - g0], s doubles per scalar.
__global__ void rows_at_columns_kernel(int s, int b, int rank, int P, int64_t l0, int64_t nlt, const double *src,
                                       int64_t ld, int64_t g0, int64_t k, double *dst) {
  const int64_t total = nlt * k * s;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t z = e % s, j = (e / s) % nlt, q = e / (s * nlt);
    dst[e] = src[s * (q * ld + global_of(l0 + j, b, rank, P) - g0) + z];
  }
}

// v (m x k) = unit lower trapezoidal part of A.
__global__ void unit_lower_kernel(int s, int64_t m, int64_t k, const double *A, int64_t lda, double *v) {
  const int64_t total = m * k * s;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t z = e % s, i = (e / s) % m, j = e / (s * m);
    v[e] = i > j ? A[s * (j * lda + i) + z] : (i == j && z == 0 ? 1.0 : 0.0);
  }
}

// dst[:, j] = src[:, idx[j]] (rows doubles per column).
__global__ void gather_columns_kernel(int64_t rows, int64_t count, const double *src, int64_t lds, const int64_t *idx,
                                      double *dst, int64_t ldd) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < rows * count; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = e % rows, j = e / rows;
    dst[j * ldd + i] = src[idx[j] * lds + i];
  }
}

// One block per column j (grid-stride over columns): s[r][j] = wt[p] / ((dl[p] - dl[o_j]) + off_j), p = perm[r],
// then the column scaled to unit norm (each thread rescales the entries it wrote).
__global__ void secular_vectors_kernel(int64_t K, int64_t cols, const double *dl, const double *wt,
                                       const int64_t *origin, const double *offset, const int64_t *perm, double *s,
                                       int64_t lds) {
  __shared__ double partial[256];
  for (int64_t j = blockIdx.x; j < cols; j += gridDim.x) {
    double *col = s + j * lds, sum = 0;
    const double pole = dl[origin[j]], off = offset[j];
    for (int64_t r = threadIdx.x; r < K; r += blockDim.x) {
      const int64_t p = perm[r];
      const double v = wt[p] / ((dl[p] - pole) + off);
      col[r] = v;
      sum += v * v;
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if ((int)threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
      __syncthreads();
    }
    const double scale = 1 / sqrt(partial[0]);
    for (int64_t r = threadIdx.x; r < K; r += blockDim.x) col[r] *= scale;
    __syncthreads(); // partial[0] read by all before the next column overwrites it
  }
}

// dst[i][j] (row-major, s doubles each) = src[j][i]: reads coalesced along a column; the scattered writes
// cost a few times the bytes, still milliseconds for n^2 entries.
__global__ void transpose_kernel(int s, int64_t rows, int64_t cols, const double *src, int64_t lds, double *dst) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < rows * cols * s; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t z = e % s, i = (e / s) % rows, j = e / (s * rows);
    dst[s * (i * cols + j) + z] = src[s * (j * lds + i) + z];
  }
}

__global__ void widen_kernel(int64_t n, int64_t cols, const double *src, int64_t lds, double *dst, int64_t ldd) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * cols; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = e % n, j = e / n;
    dst[2 * (j * ldd + i)] = src[j * lds + i];
    dst[2 * (j * ldd + i) + 1] = 0;
  }
}

cublasOperation_t op(int type, char t) { return t == 'N' ? CUBLAS_OP_N : type == 2 ? CUBLAS_OP_C : CUBLAS_OP_T; }

// cusolverDnXstedc, where this CUDA has it (its compz enum: N = 10, I = 11, V = 12).
typedef cusolverStatus_t (*stedc_size_fn)(cusolverDnHandle_t, cusolverDnParams_t, int, int64_t, cudaDataType,
                                          const void *, const void *, cudaDataType, const void *, int64_t, cudaDataType,
                                          size_t *, size_t *);
typedef cusolverStatus_t (*stedc_fn)(cusolverDnHandle_t, cusolverDnParams_t, int, int64_t, cudaDataType, void *, void *,
                                     cudaDataType, void *, int64_t, cudaDataType, void *, size_t, void *, size_t, int *);
const int compz_identity = 11;

}  // namespace

extern "C" int hm_dense_cuda_alloc(int device, double **p, int64_t count) {
  HM_CALL(hm_gpu_enter_device(device));
  HM_CALL_CUDA(cudaMalloc((void **)p, sizeof(double) * (size_t)count));
  HM_CALL_CUDA(cudaMemset(*p, 0, sizeof(double) * (size_t)count));
  return HM_SUCCESS;
}

extern "C" void hm_dense_cuda_free(int device, double *p) {
  if (hm_gpu_enter_device(device) == HM_SUCCESS) cudaFree(p);
}

extern "C" void hm_dense_cuda_finish(int device) {
  if (hm_gpu_enter_device(device) == HM_SUCCESS) cudaDeviceSynchronize();
}

extern "C" int hm_dense_cuda_free_bytes(int device, double *bytes) {
  size_t free_b = 0, total_b = 0;
  HM_CALL(hm_gpu_enter_device(device));
  HM_CALL_CUDA(cudaMemGetInfo(&free_b, &total_b));
  *bytes = (double)free_b;
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_copy_block(int device, char dir, double *dst, int64_t ldd, const double *src, int64_t lds,
                                        int64_t rows, int64_t cols) {
  HM_CALL(hm_gpu_enter_device(device));
  const cudaMemcpyKind kind = dir == 'D' ? cudaMemcpyDeviceToHost : dir == 'U' ? cudaMemcpyHostToDevice
                                                                               : cudaMemcpyDeviceToDevice;
  const size_t w = sizeof(double);
  if (cols == 1 || (ldd == rows && lds == rows)) { // contiguous: no pitch (cudaMemcpy2D caps it)
    HM_CALL_CUDA(cudaMemcpy(dst, src, w * (size_t)(rows * cols), kind));
    return HM_SUCCESS;
  }
  HM_CALL_CUDA(cudaMemcpy2D(dst, w * (size_t)ldd, src, w * (size_t)lds, w * (size_t)rows, (size_t)cols, kind));
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_gemm(int device, int type, char ta, char tb, int64_t m, int64_t n, int64_t k,
                                  const double *alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                                  const double *beta, double *C, int64_t ldc) {
  cublasHandle_t h;
  HM_CALL(blas(device, &h));
  // cuBLAS refuses leading dimensions below the rows of an empty operand; k = 0 is C = beta C.
  const int64_t one = 1, la = lda > one ? lda : one, lb = ldb > one ? ldb : one;
  if (type == 1)
    HM_CALL_CUBLAS(hm_cuda_blas()->cublasDgemm(h, op(type, ta), op(type, tb), (int)m, (int)n, (int)k, alpha, A, (int)la,
                                             B, (int)lb, beta, C, (int)ldc));
  else
    HM_CALL_CUBLAS(hm_cuda_blas()->cublasZgemm(h, op(type, ta), op(type, tb), (int)m, (int)n, (int)k,
                                             (const cuDoubleComplex *)alpha, (const cuDoubleComplex *)A, (int)la,
                                             (const cuDoubleComplex *)B, (int)lb, (const cuDoubleComplex *)beta,
                                             (cuDoubleComplex *)C, (int)ldc));
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_rows_at_columns(int device, int type, int b, int rank, int P, int64_t l0, int64_t nlt,
                                             const double *src, int64_t ld, int64_t g0, int64_t k, double *dst) {
  HM_CALL(hm_gpu_enter_device(device));
  rows_at_columns_kernel<<<grid_for(nlt * k * type), 256>>>(type, b, rank, P, l0, nlt, src, ld, g0, k, dst);
  HM_CHECK_LAUNCH("rows_at_columns");
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_unit_lower(int device, int type, int64_t m, int64_t k, const double *A, int64_t lda,
                                        double *v) {
  HM_CALL(hm_gpu_enter_device(device));
  unit_lower_kernel<<<grid_for(m * k * type), 256>>>(type, m, k, A, lda, v);
  HM_CHECK_LAUNCH("unit_lower");
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_trsm(int device, int type, char side, char trans, int64_t m, int64_t n, const double *L,
                                  int64_t ldl, double *X, int64_t ldx) {
  cublasHandle_t h;
  HM_CALL(blas(device, &h));
  const cublasSideMode_t sd = side == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
  const cublasDiagType_t nu = CUBLAS_DIAG_NON_UNIT;
  const double one[2] = {1, 0};
  if (type == 1)
    HM_CALL_CUBLAS(hm_cuda_blas()->cublasDtrsm(h, sd, lo, op(type, trans), nu, (int)m, (int)n, one, L, (int)ldl, X, (int)ldx));
  else
    HM_CALL_CUBLAS(hm_cuda_blas()->cublasZtrsm(h, sd, lo, op(type, trans), nu, (int)m, (int)n, (const cuDoubleComplex *)one,
                                             (const cuDoubleComplex *)L, (int)ldl, (cuDoubleComplex *)X, (int)ldx));
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_rot(int device, int64_t len, double *a, double *b, double c, double s) {
  cublasHandle_t h;
  HM_CALL(blas(device, &h));
  HM_CALL_CUBLAS(hm_cuda_blas()->cublasDrot(h, (int)len, a, 1, b, 1, &c, &s));
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_gather_columns(int device, int64_t rows, int64_t count, const double *src, int64_t lds,
                                            const int64_t *idx, double *dst, int64_t ldd) {
  HM_CALL(hm_gpu_enter_device(device));
  HM_CALL(hm_device_buffer_grow(&gather_index, (size_t)count)); // int64 in doubles' room
  int64_t *didx = (int64_t *)gather_index.p;
  HM_CALL_CUDA(cudaMemcpy(didx, idx, sizeof(int64_t) * (size_t)count, cudaMemcpyHostToDevice));
  gather_columns_kernel<<<grid_for(rows * count), 256>>>(rows, count, src, lds, didx, dst, ldd);
  HM_CHECK_LAUNCH("gather_columns");
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_secular_vectors(int device, int64_t K, int64_t cols, const double *dl, const double *wt,
                                             const int64_t *origin, const double *offset, const int64_t *perm,
                                             double *s, int64_t lds) {
  HM_CALL(hm_gpu_enter_device(device));
  HM_CALL(hm_device_buffer_grow(&secular_input, (size_t)(3 * K + 2 * cols))); // int64 in doubles' room
  double *in = secular_input.p;
  const size_t k = sizeof(double) * (size_t)K, c = sizeof(double) * (size_t)cols;
  HM_CALL_CUDA(cudaMemcpy(in, dl, k, cudaMemcpyHostToDevice));
  HM_CALL_CUDA(cudaMemcpy(in + K, wt, k, cudaMemcpyHostToDevice));
  HM_CALL_CUDA(cudaMemcpy(in + 2 * K, perm, k, cudaMemcpyHostToDevice));
  HM_CALL_CUDA(cudaMemcpy(in + 3 * K, origin, c, cudaMemcpyHostToDevice));
  HM_CALL_CUDA(cudaMemcpy(in + 3 * K + cols, offset, c, cudaMemcpyHostToDevice));
  secular_vectors_kernel<<<(unsigned)(cols < 65535 ? cols : 65535), 256>>>(
      K, cols, in, in + K, (const int64_t *)(in + 3 * K), in + 3 * K + cols, (const int64_t *)(in + 2 * K), s, lds);
  HM_CHECK_LAUNCH("secular_vectors");
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_transpose(int device, int type, int64_t rows, int64_t cols, const double *src,
                                       int64_t lds, double *dst) {
  HM_CALL(hm_gpu_enter_device(device));
  transpose_kernel<<<grid_for(rows * cols * type), 256>>>(type, rows, cols, src, lds, dst);
  HM_CHECK_LAUNCH("transpose");
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_widen(int device, int64_t n, int64_t cols, const double *src, int64_t lds, double *dst,
                                   int64_t ldd) {
  HM_CALL(hm_gpu_enter_device(device));
  widen_kernel<<<grid_for(n * cols), 256>>>(n, cols, src, lds, dst, ldd);
  HM_CHECK_LAUNCH("widen");
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_geqrf(int device, int type, int64_t m, int64_t k, double *A, int64_t lda, double *tau,
                                   int *info) {
  HM_CALL(hm_gpu_enter_device(device));
  cusolverDnHandle_t h;
  cusolverDnParams_t p;
  HM_CALL(hm_dense_cuda_handle(&h, &p));
  const hm_cuda_libs *lib = hm_cuda_solver();
  int lwork = 0;
  if (type == 1) DENSE_CUSOLVER(lib->cusolverDnDgeqrf_bufferSize(h, (int)m, (int)k, A, (int)lda, &lwork));
  else DENSE_CUSOLVER(lib->cusolverDnZgeqrf_bufferSize(h, (int)m, (int)k, (cuDoubleComplex *)A, (int)lda, &lwork));
  // One buffer: workspace (lwork scalars), tau (k scalars), info (one double's room).
  HM_CALL(hm_device_buffer_grow(&qr_work, (size_t)type * (size_t)(lwork + k) + 1));
  double *work = qr_work.p, *dtau = work + (size_t)type * lwork, *dinfo = dtau + (size_t)type * k;
  if (type == 1)
    DENSE_CUSOLVER(lib->cusolverDnDgeqrf(h, (int)m, (int)k, A, (int)lda, dtau, work, lwork, (int *)dinfo));
  else
    DENSE_CUSOLVER(lib->cusolverDnZgeqrf(h, (int)m, (int)k, (cuDoubleComplex *)A, (int)lda, (cuDoubleComplex *)dtau,
                                         (cuDoubleComplex *)work, lwork, (int *)dinfo));
  HM_CALL_CUDA(cudaMemcpy(tau, dtau, sizeof(double) * (size_t)(type * k), cudaMemcpyDeviceToHost));
  HM_CALL_CUDA(cudaMemcpy(info, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
  return HM_SUCCESS;
}

extern "C" int hm_dense_cuda_has_stedc(void) {
  return hm_cuda_solver_optional("cusolverDnXstedc") && hm_cuda_solver_optional("cusolverDnXstedc_bufferSize");
}

extern "C" int hm_dense_cuda_stedc(int device, int64_t n, double *d, double *e, double *z, int *info) {
  HM_CALL(hm_gpu_enter_device(device));
  const stedc_size_fn size_of = (stedc_size_fn)hm_cuda_solver_optional("cusolverDnXstedc_bufferSize");
  const stedc_fn stedc = (stedc_fn)hm_cuda_solver_optional("cusolverDnXstedc");
  HM_CHECK(size_of && stedc, HM_ERR_CUDA, "this CUDA's cuSOLVER has no cusolverDnXstedc");
  cusolverDnHandle_t h;
  cusolverDnParams_t p;
  HM_CALL(hm_dense_cuda_handle(&h, &p));
  size_t dev_bytes = 0, host_bytes = 0;
  const cudaDataType r = CUDA_R_64F;
  DENSE_CUSOLVER(size_of(h, p, compz_identity, n, r, nullptr, nullptr, r, z, n, r, &dev_bytes, &host_bytes));
  char *dwork = nullptr, *hwork = nullptr;
  const size_t at = (dev_bytes + 255) / 256 * 256; // d, e and info after the workspace, aligned
  cudaError_t ce = cudaMalloc((void **)&dwork, at + sizeof(double) * (size_t)(2 * n + 2));
  if (ce == cudaSuccess && host_bytes) hwork = (char *)malloc(host_bytes);
  if (ce != cudaSuccess || (host_bytes && !hwork)) {
    cudaGetLastError();
    cudaFree(dwork);
    HM_RAISE(HM_ERR_MEMORY, "could not allocate cusolverDnXstedc's workspace (%zu bytes on the device, %zu on the host)",
             dev_bytes, host_bytes);
  }
  double *dd = (double *)(dwork + at), *de = dd + n + 1;
  int *dinfo = (int *)(de + n), st = HM_SUCCESS;
  cusolverStatus_t ss;
  if ((ce = cudaMemcpy(dd, d, sizeof(double) * (size_t)n, cudaMemcpyHostToDevice)) != cudaSuccess ||
      (n > 1 && (ce = cudaMemcpy(de, e, sizeof(double) * (size_t)(n - 1), cudaMemcpyHostToDevice)) != cudaSuccess))
    st = hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "upload of the tridiagonal: %s", cudaGetErrorString(ce));
  else if ((ss = stedc(h, p, compz_identity, n, r, dd, de, r, z, n, r, dwork, dev_bytes, hwork, host_bytes, dinfo)) !=
           CUSOLVER_STATUS_SUCCESS)
    st = hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "cusolverDnXstedc failed: %s", hm_cusolver_status_name(ss));
  else if ((ce = cudaMemcpy(info, dinfo, sizeof(int), cudaMemcpyDeviceToHost)) != cudaSuccess ||
           (ce = cudaMemcpy(d, dd, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost)) != cudaSuccess)
    st = hm_error_raise(HM_ERR_CUDA, __FILE__, __LINE__, __func__, "download of the eigenvalues: %s", cudaGetErrorString(ce));
  cudaFree(dwork);
  free(hwork);
  return st;
}

void hm_dense_exec_cuda_release_state() {
  hm_device_buffer_free(&qr_work);
  hm_device_buffer_free(&gather_index);
  hm_device_buffer_free(&secular_input);
}
