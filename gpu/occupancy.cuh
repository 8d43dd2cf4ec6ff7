// Resident blocks of a kernel: per SM at a block size and the device's SM count, asked of the
// runtime once per (kernel, block size, carve-out) and remembered, since the solvers launch these
// kernels every iteration. A carve-out other than kCarveoutUnset is set on the kernel (it changes
// the occupancy) whenever it differs from the one set last, so a benchmark that switches back and
// forth launches each time with the carve-out it asked for. One cache per file that includes this
// header, like async_upload.cuh, and per device (devices may differ; an attribute is set per device).
#ifndef HAMLET_OCCUPANCY_CUH
#define HAMLET_OCCUPANCY_CUH
#include <vector>
#include <cuda_runtime.h>
#include "cuda_check.h"
#include "gpu_device.cuh"

namespace {

constexpr int kCarveoutUnset = -2; // leave the kernel's shared-memory carve-out as it is

struct ResidentBlocks {
  const void *fn;
  int threads, carveout, per_sm, sms;
};
hm_per_device<std::vector<ResidentBlocks>> resident_seen;

struct CarveoutSet {
  const void *fn;
  int carveout;
};
hm_per_device<std::vector<CarveoutSet>> carveout_set;

inline int set_carveout(const void *fn, int carveout) {
  if (carveout == kCarveoutUnset) return HM_SUCCESS;
  for (CarveoutSet &c : carveout_set.here())
    if (c.fn == fn) {
      if (c.carveout != carveout)
        HM_CALL_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
      c.carveout = carveout;
      return HM_SUCCESS;
    }
  HM_CALL_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  carveout_set.here().push_back({fn, carveout});
  return HM_SUCCESS;
}

inline int resident_blocks(const void *fn, int threads, int carveout, int *per_sm, int *sms) {
  HM_CALL(set_carveout(fn, carveout));
  for (const ResidentBlocks &r : resident_seen.here())
    if (r.fn == fn && r.threads == threads && r.carveout == carveout) {
      *per_sm = r.per_sm;
      *sms = r.sms;
      return HM_SUCCESS;
    }
  int blocks = 0, device = 0, count = 0;
  HM_CALL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, 0));
  HM_CALL_CUDA(cudaGetDevice(&device));
  HM_CALL_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  *per_sm = blocks > 0 ? blocks : 1;
  *sms = count > 0 ? count : 1;
  resident_seen.here().push_back({fn, threads, carveout, *per_sm, *sms});
  return HM_SUCCESS;
}

}  // namespace
#endif
