// Device descriptions for `hamlet info`: name, memory, compute capability, PCI address.
#include <stdio.h>
#include "cuda_check.h"
#include "gpu_names.h"

extern "C" int hm_gpu_describe(int device, char *text, size_t len) {
  cudaDeviceProp p;
  HM_CALL_CUDA(cudaGetDeviceProperties(&p, device));
  snprintf(text, len, "%s, %.1f GiB, compute %d.%d, PCI %04x:%02x:%02x.0", p.name,
           (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.major, p.minor, p.pciDomainID, p.pciBusID,
           p.pciDeviceID);
  return HM_SUCCESS;
}

extern "C" int hm_gpu_versions(char *text, size_t len) {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver); /* 0 when no driver is loaded: reported, not an error */
  cudaGetLastError();
  if (driver)
    snprintf(text, len, "runtime %d.%d, driver %d.%d", runtime / 1000, runtime % 1000 / 10, driver / 1000,
             driver % 1000 / 10);
  else
    snprintf(text, len, "runtime %d.%d, no driver loaded", runtime / 1000, runtime % 1000 / 10);
  return HM_SUCCESS;
}
