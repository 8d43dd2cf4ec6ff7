/* A CUDA driver (libcuda.so.1) that loads but fails: the runtime finds it through LD_LIBRARY_PATH
 * ahead of the real one, and every driver call it makes returns CUDA_ERROR_UNKNOWN, so
 * cudaGetDeviceCount fails with cudaErrorUnknown: a broken driver, not "no GPU". The
 * e2e_broken_cuda_driver test runs the GPU programs on it: each must fail (exit 1), not skip. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>

typedef int cu_result;
enum { CU_ERROR_UNKNOWN = 999 };

static cu_result unknown(void) { return CU_ERROR_UNKNOWN; }

cu_result cuInit(unsigned flags) {
  (void)flags;
  return CU_ERROR_UNKNOWN;
}

/* A recent version, so that the runtime goes on to cuInit instead of reporting an old driver. */
cu_result cuDriverGetVersion(int *version) {
  *version = 99000;
  return 0;
}

/* The runtime asks for the driver's entry points by name: these where defined here, else one that fails. */
cu_result cuGetProcAddress_v2(const char *symbol, void **fn, int version, unsigned long long flags, int *found) {
  (void)version;
  (void)flags;
  void *mine = dlsym(RTLD_DEFAULT, symbol);
  *fn = mine ? mine : (void *)unknown;
  if (found) *found = 0;
  return 0;
}

cu_result cuGetProcAddress(const char *symbol, void **fn, int version, unsigned long long flags) {
  return cuGetProcAddress_v2(symbol, fn, version, flags, 0);
}
