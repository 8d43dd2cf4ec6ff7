/* The test suite's rule for a GPU benchmark's smoke test, for programs that use the CUDA runtime
 * directly: only "no GPU visible" is a skip. The same rule as the unit tests' probe
 * (tests/support/testing.c, the library's hm_gpu_device_count): no device or no driver is no GPU;
 * any other failure of the device query is a broken driver or runtime, a failure. */
#ifndef HAMLET_GPU_BENCH_DEVICE_H
#define HAMLET_GPU_BENCH_DEVICE_H
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

// Does HAMLET_TEST_REQUIRE (comma-separated names) name `what`?
static inline bool bench_test_requires(const char *what) {
  const char *list = getenv("HAMLET_TEST_REQUIRE");
  const size_t n = strlen(what);
  for (const char *p = list; p && *p;) {
    const size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, what, n) == 0) return true;
    p += len + (p[len] == ',');
  }
  return false;
}

/* 0 where a CUDA device is visible; else the program's exit code, the reason printed: 77 (ctest's
 * skip) where none is visible, 1 where HAMLET_TEST_REQUIRE names gpu then, 1 where the query fails. */
static inline int bench_gpu_missing() {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e == cudaSuccess && devices > 0) return 0;
  if (e != cudaSuccess && e != cudaErrorNoDevice && e != cudaErrorInsufficientDriver) {
    printf("FAIL: the CUDA device query failed (not \"no device\"): %s: %s\n", cudaGetErrorName(e),
           cudaGetErrorString(e));
    return 1;
  }
  const char *why = e == cudaSuccess ? "0 devices" : cudaGetErrorString(e);
  if (bench_test_requires("gpu")) {
    printf("FAIL: no CUDA device visible (%s), but HAMLET_TEST_REQUIRE=%s requires the GPU\n", why,
           getenv("HAMLET_TEST_REQUIRE"));
    return 1;
  }
  printf("no CUDA device visible (%s): skipped\n", why);
  return 77;
}
#endif
