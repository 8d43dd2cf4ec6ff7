// CUDA probe: device count, device binding, and a checked axpy self-test.
#include "cuda_check.h"
#include "gpu_device.cuh"
#include "gpu_probe.h"

#include "../linalg/core/gpu_probe.h"

__global__ void axpy_kernel(size_t n, double a, const double *x, double *y) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

extern "C" int hm_gpu_compiled(void) { return 1; }

extern "C" int hm_gpu_device_count(int *count) {
  *count = 0;
  cudaError_t e = cudaGetDeviceCount(count);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
    cudaGetLastError(); /* not an error: this node has no usable GPU */
    *count = 0;
    return HM_SUCCESS;
  }
  HM_CALL_CUDA(e);
  return HM_SUCCESS;
}

extern "C" int hm_gpu_select(int node_rank, int *device) {
  int count = 0;
  HM_CALL(hm_gpu_device_count(&count));
  HM_CHECK(count > 0, HM_ERR_BACKEND, "no CUDA device is visible");
  *device = node_rank % count;
  HM_CALL(hm_gpu_bind(*device));
  return HM_SUCCESS;
}

// A device this build has no kernels for (its SASS and PTX are all for other architectures) would
// fail at the first launch with "no kernel image"; say so at binding, naming what to rebuild with.
static int check_kernel_image(int device) {
  cudaFuncAttributes attributes;
  const cudaError_t e = cudaFuncGetAttributes(&attributes, axpy_kernel);
  if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();
    cudaDeviceProp prop;
    HM_CALL_CUDA(cudaGetDeviceProperties(&prop, device));
    HM_CHECK(0, HM_ERR_BACKEND,
             "CUDA device %d (%s) has compute capability %d.%d, and this hamlet was built for CUDA architectures "
             "%s only: rebuild with -DCMAKE_CUDA_ARCHITECTURES=%d%d (or add it to the list)",
             device, prop.name, prop.major, prop.minor, HAMLET_CUDA_ARCHITECTURES, prop.major, prop.minor);
  }
  HM_CALL_CUDA(e);
  return HM_SUCCESS;
}

extern "C" int hm_gpu_bind(int device) {
  int count = 0;
  HM_CALL(hm_gpu_device_count(&count));
  HM_CHECK(count > 0, HM_ERR_ARGUMENT, "CUDA device %d asked, but 0 CUDA devices are visible here", device);
  HM_CHECK(device >= 0 && device < count, HM_ERR_ARGUMENT,
           "CUDA device %d asked, but %d CUDA device%s visible here: allowed 0 to %d", device, count,
           count == 1 ? " is" : "s are", count - 1);
  HM_CHECK(device < kGpuMaxDevices, HM_ERR_ARGUMENT, "CUDA device %d: hamlet uses devices 0 to %d of a node",
           device, kGpuMaxDevices - 1);
  HM_CALL(hm_gpu_switch_device(device));
  HM_CALL(check_kernel_image(device));
  return HM_SUCCESS;
}

extern "C" int hm_gpu_axpy_selftest(size_t n, double a, const double *x, double *y) {
  double *dx = nullptr, *dy = nullptr;
  HM_CALL_CUDA(cudaMalloc(&dx, n * sizeof(double)));
  HM_CALL_CUDA(cudaMalloc(&dy, n * sizeof(double)));
  HM_CALL_CUDA(cudaMemcpy(dx, x, n * sizeof(double), cudaMemcpyHostToDevice));
  HM_CALL_CUDA(cudaMemcpy(dy, y, n * sizeof(double), cudaMemcpyHostToDevice));
  unsigned blocks = (unsigned)((n + 255) / 256);
  axpy_kernel<<<blocks, 256>>>(n, a, dx, dy);
  HM_CALL_CUDA(cudaGetLastError());
  HM_CALL_CUDA(cudaDeviceSynchronize());
  HM_CALL_CUDA(cudaMemcpy(y, dy, n * sizeof(double), cudaMemcpyDeviceToHost));
  HM_CALL_CUDA(cudaFree(dx));
  HM_CALL_CUDA(cudaFree(dy));
  return HM_SUCCESS;
}
