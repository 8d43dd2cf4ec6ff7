/* Shared by the GPU benchmark programs: checked calls that end the program with a clear message
 * (these are programs, not the library), a counter-based mixer for device-side fills, and the
 * device copy bandwidth the rooflines are taken from. */
#ifndef HAMLET_GPU_BENCH_COMMON_H
#define HAMLET_GPU_BENCH_COMMON_H
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <mpi.h>
#include "hamlet.h"
#include "../gpu/sell_cuda.h"
#include "gpu_bench_device.h"

[[noreturn]] static inline void die(const char *file, int line, const char *expr, const char *why) {
  fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, why);
  fflush(stderr);
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}
// An integer option value in [lo, hi]; anything else (or a missing value, s = NULL) goes to the
// program's usage(message), which ends it.
static inline long long bench_parse_int(void (*usage)(const char *), const char *opt, const char *s, long long lo,
                                        long long hi) {
  char *end = nullptr;
  errno = 0;
  const long long v = s ? strtoll(s, &end, 10) : 0;
  if (!s || errno || end == s || *end || v < lo || v > hi) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s needs an integer in [%lld, %lld], got \"%s\"", opt, lo, hi, s ? s : "(nothing)");
    usage(msg);
  }
  return v;
}

#define CK_CUDA(x)                                                              \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) die(__FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
  } while (0)
#define CK_LAUNCH() CK_CUDA(cudaGetLastError())
#define CK_SPARSE(x)                                                                            \
  do {                                                                                          \
    cusparseStatus_t s_ = (x);                                                                  \
    if (s_ != CUSPARSE_STATUS_SUCCESS) die(__FILE__, __LINE__, #x, cusparseGetErrorString(s_)); \
  } while (0)
#define CK_BLAS(x)                                                                           \
  do {                                                                                       \
    cublasStatus_t s_ = (x);                                                                 \
    if (s_ != CUBLAS_STATUS_SUCCESS) die(__FILE__, __LINE__, #x, cublasGetStatusString(s_)); \
  } while (0)
#define CK_HM(x)                                                   \
  do {                                                             \
    if ((x) != 0) die(__FILE__, __LINE__, #x, hm_error_message()); \
  } while (0)

__device__ __forceinline__ uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* 0 where a CUDA device is visible; else, after MPI_Finalize, the exit code: 77 (skip) where none is
 * visible, 1 where the device query fails or HAMLET_TEST_REQUIRE names gpu (gpu_bench_device.h). */
static inline int no_device() {
  const int code = bench_gpu_missing();
  if (code) MPI_Finalize();
  return code;
}

/* Read + write bytes per second of a device-to-device cudaMemcpy of `bytes`, best of 5. */
static inline double copy_bandwidth(size_t bytes) {
  void *a = nullptr, *b = nullptr;
  CK_CUDA(cudaMalloc(&a, bytes));
  CK_CUDA(cudaMalloc(&b, bytes));
  CK_CUDA(cudaMemset(a, 1, bytes));
  CK_CUDA(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); /* warm up */
  cudaEvent_t t0, t1;
  CK_CUDA(cudaEventCreate(&t0));
  CK_CUDA(cudaEventCreate(&t1));
  float best = 1e30f;
  for (int rep = 0; rep < 5; rep++) {
    CK_CUDA(cudaEventRecord(t0));
    CK_CUDA(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CK_CUDA(cudaEventRecord(t1));
    CK_CUDA(cudaEventSynchronize(t1));
    float ms = 0;
    CK_CUDA(cudaEventElapsedTime(&ms, t0, t1));
    best = std::min(best, ms);
  }
  CK_CUDA(cudaEventDestroy(t0));
  CK_CUDA(cudaEventDestroy(t1));
  CK_CUDA(cudaFree(a));
  CK_CUDA(cudaFree(b));
  return 2.0 * (double)bytes / (best * 1e-3);
}

/* Routes the library's products on a prepared matrix for the calls that follow: the SELL kernels,
 * the block KPM step (where the list has a block copy and the width allows it; else the CSR
 * kernels) or the CSR kernels, at every block width; the other tuning fields stay. */
enum bench_route { ROUTE_CSR, ROUTE_SELL, ROUTE_BLOCK };
static inline void route_products(bench_route r) {
  hm_sell_tuning t;
  hm_cuda_sell_tuning(nullptr, &t);
  t.spmmv_max_k = t.kpm_max_k = r == ROUTE_SELL ? 1 << 30 : 0;
  t.block_kpm_min_k = r == ROUTE_BLOCK ? 1 : 1 << 30;
  hm_cuda_sell_tuning(&t, nullptr);
}

#endif
