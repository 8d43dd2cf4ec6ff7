// CUDA block kernels: the tall-skinny products through cuBLAS gemm. A row-major n x k block is,
// to column-major cuBLAS, the k x n matrix B^T, so G = X^H Y (kx x ky row-major) is computed as
// its column-major transpose G^T = Y^T conj(X), and Y = beta Y + X C as Y^T = C^T X^T + beta Y^T.
// The small factors (G, C) travel between host and device; everything n-sized stays on the device.
#include <climits>
#include <cuda_runtime.h>
#include "gpu_state.h"
#include "async_upload.cuh"
#include "column_sums.cuh"
#include "cuda_check.h"
#include "cuda_libs.h"
#include "device_buffer.cuh"
#include "kernels_cuda_block.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 2048; // grid-stride beyond this

hm_device_buffers small_buffer; // device copy of a small factor (G or C)
double *small = nullptr;
hm_device_buffers residual_buffer; // ritz_residual: lambda, block partials, sums

int small_at_least(size_t doubles) {
  HM_CALL(hm_device_buffer_grow(&small_buffer, doubles));
  small = small_buffer.p;
  return HM_SUCCESS;
}

int grid_for(int64_t work) {
  int64_t b = (work + kThreads - 1) / kThreads;
  return (int)(b < 65535 ? (b > 0 ? b : 1) : 65535);
}

__global__ void copy_columns_kernel(int64_t n, int t, int ks, const double *src, int s0, int kd, double *dst, int d0,
                                    int count) {
  const int64_t width = (int64_t)count * t;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * width; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = e / width, j = e % width;
    dst[(i * kd + d0) * t + j] = src[(i * ks + s0) * t + j];
  }
}

struct SeriesTerms {
  const double *p[16];
};

// Series accumulators, acc[i, c ne + e] += sum_j C[j, e] X_j[i, c]: a block is columns (x) by rows
// (y), so each thread keeps one column, its (c, e) and coefficients, over a grid-stride loop of rows
// with no index division per entry (the 64-bit divisions of a flat index made this kernel compute
// bound); a warp writes adjacent accumulator entries and reads each X_j[i, c] once from cache.
template <bool Complex>
__global__ void series_accumulate_kernel(int64_t n, int w, int m, SeriesTerms X, int ne, const double *C, double *acc) {
  const int width = w * ne;
  for (int col = threadIdx.x; col < width; col += blockDim.x) {
    const int c = col / ne, e = col % ne;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.y + threadIdx.y; i < n; i += (int64_t)gridDim.x * blockDim.y) {
      if (Complex) {
        double2 sum = make_double2(0, 0);
        for (int j = 0; j < m; j++) {
          const double2 x = ((const double2 *)X.p[j])[i * w + c], k = ((const double2 *)C)[j * ne + e];
          sum.x += k.x * x.x - k.y * x.y;
          sum.y += k.x * x.y + k.y * x.x;
        }
        double2 *a = (double2 *)acc + i * width + col;
        const double2 old = *a;
        *a = make_double2(old.x + sum.x, old.y + sum.y);
      } else {
        double sum = 0;
        for (int j = 0; j < m; j++) sum += C[j * ne + e] * X.p[j][i * w + c];
        acc[i * width + col] += sum;
      }
    }
  }
}

template <bool Complex>
__global__ void scale_rows_kernel(int64_t n, int k, const double *d, const double *x, double *y) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * k; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = e / k;
    if (Complex) {
      const double dr = d[2 * i], di = d[2 * i + 1], xr = x[2 * e], xi = x[2 * e + 1];
      y[2 * e] = dr * xr - di * xi;
      y[2 * e + 1] = dr * xi + di * xr;
    } else {
      y[e] = d[i] * x[e];
    }
  }
}

// Ritz residual: threads of a block are (row rl < rb, column c < kc) pairs, columns innermost (a
// warp reads adjacent entries of a row), the grid's y the column chunks of kc. Each thread keeps
// its column's two sums over a grid-stride loop of rows; the block adds them over its rb rows by a
// tree in shared memory (a fixed order) and writes one partial pair per column: partials[block]
// holds the m sums of |R|^2 then the m of |BX|^2. lambda BX is rounded before the subtraction
// (__dmul_rn: never fused), the same two roundings as on the CPU.
template <bool Complex>
__global__ void ritz_residual_kernel(int64_t n, int ka, const double *__restrict__ AX, int kb,
                                     const double *__restrict__ BX, int m, const double *__restrict__ lambda, int kc,
                                     int rb, double *__restrict__ R, double *__restrict__ partials) {
  extern __shared__ double sh[]; // 2 * blockDim.x: the |R|^2 sums, then the |BX|^2 sums
  const int t = threadIdx.x, rl = t / kc, c = blockIdx.y * kc + t % kc, threads = blockDim.x;
  double rr = 0, bb = 0;
  if (c < m) {
    const double lam = lambda[c];
    for (int64_t i = blockIdx.x * (int64_t)rb + rl; i < n; i += (int64_t)gridDim.x * rb) {
      if (Complex) {
        const double2 a = ((const double2 *)AX)[i * ka + c], b = ((const double2 *)BX)[i * kb + c];
        const double2 r = make_double2(a.x - __dmul_rn(lam, b.x), a.y - __dmul_rn(lam, b.y));
        ((double2 *)R)[i * m + c] = r;
        rr = fma(r.x, r.x, fma(r.y, r.y, rr));
        bb = fma(b.x, b.x, fma(b.y, b.y, bb));
      } else {
        const double b = BX[i * kb + c], r = AX[i * ka + c] - __dmul_rn(lam, b);
        R[i * m + c] = r;
        rr = fma(r, r, rr);
        bb = fma(b, b, bb);
      }
    }
  }
  sh[t] = rr;
  sh[threads + t] = bb;
  __syncthreads();
  for (int s = rb / 2; s > 0; s >>= 1) {
    if (rl < s) {
      sh[t] += sh[t + s * kc];
      sh[threads + t] += sh[threads + t + s * kc];
    }
    __syncthreads();
  }
  if (rl == 0 && c < m) {
    partials[(size_t)blockIdx.x * 2 * m + c] = sh[t];
    partials[(size_t)blockIdx.x * 2 * m + m + c] = sh[threads + t];
  }
}

}  // namespace

static hm_per_device<cublasHandle_t> blas_handles; // a handle belongs to the device current at its creation

int hm_cuda_blas_handle(cublasHandle_t *h) {
  cublasHandle_t &handle = blas_handles.here();
  if (!handle) {
    const hm_cuda_libs *lib = hm_cuda_blas();
    if (!lib) return HM_ERR_CUDA; /* raised by the loader */
    HM_CALL_CUBLAS(lib->cublasCreate(&handle));
  }
  *h = handle;
  return HM_SUCCESS;
}

int hm_cuda_gram_columns(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, int y0, int ny,
                         double *G) {
  HM_CHECK(n <= INT_MAX, HM_ERR_ARGUMENT, "%lld local rows exceed cuBLAS's 32-bit sizes", (long long)n);
  if (kx == 0 || ny == 0) return HM_SUCCESS;
  const size_t len = (size_t)kx * ny * type;
  const double *Yc = Y + (size_t)y0 * type; // the columns: a submatrix of leading dimension ky
  cublasHandle_t h;
  HM_CALL(hm_cuda_blas_handle(&h));
  HM_CALL(small_at_least(len));
  if (type == HM_COMPLEX) {
    const cuDoubleComplex one = {1, 0}, zero = {0, 0};
    HM_CALL_CUBLAS(hm_cuda_blas()->cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, ny, kx, (int)n, &one, (const cuDoubleComplex *)Yc, ky,
                               (const cuDoubleComplex *)X, kx, &zero, (cuDoubleComplex *)small, ny));
  } else {
    const double one = 1, zero = 0;
    HM_CALL_CUBLAS(hm_cuda_blas()->cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, ny, kx, (int)n, &one, Yc, ky, X, kx, &zero, small, ny));
  }
  HM_CALL_CUDA(cudaMemcpy(G, small, len * sizeof(double), cudaMemcpyDeviceToHost));
  return HM_SUCCESS;
}

int hm_cuda_gram(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, double *G) {
  HM_CALL(hm_cuda_gram_columns(type, n, kx, X, ky, Y, 0, ky, G));
  return HM_SUCCESS;
}

int hm_cuda_block_update(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *C,
                         const double *beta, double *Y) {
  HM_CHECK(n <= INT_MAX, HM_ERR_ARGUMENT, "%lld local rows exceed cuBLAS's 32-bit sizes", (long long)n);
  if (n == 0) return HM_SUCCESS;
  const size_t len = (size_t)kx * ky * type;
  cublasHandle_t h;
  HM_CALL(hm_cuda_blas_handle(&h));
  HM_CALL(small_at_least(len));
  HM_CALL(upload_async(small, C, len));
  if (type == HM_COMPLEX) {
    const cuDoubleComplex one = {1, 0};
    HM_CALL_CUBLAS(hm_cuda_blas()->cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ky, (int)n, kx, &one, (const cuDoubleComplex *)small, ky,
                               (const cuDoubleComplex *)X, kx, (const cuDoubleComplex *)beta, (cuDoubleComplex *)Y, ky));
  } else {
    const double one = 1;
    HM_CALL_CUBLAS(hm_cuda_blas()->cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ky, (int)n, kx, &one, small, ky, X, kx, beta, Y, ky));
  }
  return HM_SUCCESS;
}

int hm_cuda_copy_columns(hm_scalar type, int64_t n, int ks, const double *src, int s0, int kd, double *dst, int d0,
                         int count) {
  if (n == 0 || count == 0) return HM_SUCCESS;
  copy_columns_kernel<<<grid_for(n * count * type), kThreads>>>(n, (int)type, ks, src, s0, kd, dst, d0, count);
  HM_CHECK_LAUNCH("copy_columns");
  return HM_SUCCESS;
}

int hm_cuda_series_accumulate(hm_scalar type, int64_t n, int w, int m, const double *const *X, int ne, const double *C,
                               double *acc) {
  HM_CHECK(m >= 0 && m <= 16, HM_ERR_ARGUMENT, "%d series terms at once: at most 16", m);
  if (n == 0 || m == 0) return HM_SUCCESS;
  const size_t len = (size_t)m * ne * type;
  HM_CALL(small_at_least(len));
  HM_CALL(upload_async(small, C, len));
  SeriesTerms terms{};
  for (int j = 0; j < m; j++) terms.p[j] = X[j];
  const int width = w * ne, columns = width < kThreads ? width : kThreads, rows = kThreads / columns;
  const int64_t need = (n + rows - 1) / rows;
  const dim3 block(columns, rows), grid((unsigned)(need < 65535 ? need : 65535));
  if (type == HM_COMPLEX) series_accumulate_kernel<true><<<grid, block>>>(n, w, m, terms, ne, small, acc);
  else series_accumulate_kernel<false><<<grid, block>>>(n, w, m, terms, ne, small, acc);
  HM_CHECK_LAUNCH("series_accumulate");
  return HM_SUCCESS;
}

int hm_cuda_scale_rows(hm_scalar type, int64_t n, int k, const double *d, const double *x, double *y) {
  if (n == 0) return HM_SUCCESS;
  if (type == HM_COMPLEX) scale_rows_kernel<true><<<grid_for(n * k), kThreads>>>(n, k, d, x, y);
  else scale_rows_kernel<false><<<grid_for(n * k), kThreads>>>(n, k, d, x, y);
  HM_CHECK_LAUNCH("scale_rows");
  return HM_SUCCESS;
}

int hm_cuda_ritz_residual(hm_scalar type, int64_t n, int ka, const double *AX, int kb, const double *BX, int m,
                          const double *lambda, double *R, double *sums) {
  if (m == 0) return HM_SUCCESS;
  // Block shape: kc columns (all m up to kThreads) by rb rows, rb a power of two.
  const int kc = m < kThreads ? m : kThreads, chunks = (m + kc - 1) / kc;
  int rb = 1;
  while (kc * rb * 2 <= kThreads) rb *= 2;
  const int64_t need = (n + rb - 1) / rb;
  const int blocks = (int)(need < kMaxBlocks ? (need > 0 ? need : 1) : kMaxBlocks), threads = kc * rb;
  HM_CALL(hm_device_buffer_grow(&residual_buffer, (size_t)m + (size_t)(blocks + 1) * 2 * m));
  double *dlambda = residual_buffer.p, *partials = dlambda + m, *dsums = partials + (size_t)blocks * 2 * m;
  HM_CALL(upload_async(dlambda, lambda, (size_t)m));
  const dim3 grid(blocks, chunks);
  const size_t shared = 2 * sizeof(double) * threads;
  if (type == HM_COMPLEX)
    ritz_residual_kernel<true><<<grid, threads, shared>>>(n, ka, AX, kb, BX, m, dlambda, kc, rb, R, partials);
  else
    ritz_residual_kernel<false><<<grid, threads, shared>>>(n, ka, AX, kb, BX, m, dlambda, kc, rb, R, partials);
  HM_CHECK_LAUNCH("ritz_residual");
  HM_CALL(column_sums(false, blocks, 2 * m, partials, dsums));
  HM_CALL_CUDA(cudaMemcpy(sums, dsums, sizeof(double) * 2 * m, cudaMemcpyDeviceToHost));
  return HM_SUCCESS;
}

void hm_kernels_cuda_block_release_state() {
  cublasHandle_t &handle = blas_handles.here();
  if (handle) hm_cuda_blas()->cublasDestroy(handle);
  handle = nullptr;
  hm_device_buffer_free(&small_buffer);
  small = nullptr;
  hm_device_buffer_free(&residual_buffer);
  upload_slots_release();
}
