// Which device a thread's CUDA calls go to. Each CUDA context of hamlet has its device; the kernel
// table of that device (kernels_cuda.cu) makes it current before each call, and the files that keep
// state (scratch buffers, handles, staging, streams) keep one slot per device, indexed by the
// device current on the calling thread. The thread remembers the device it made current, so that
// the check on each call is an integer compare; hamlet leaves the device current after a call. A
// caller who calls cudaSetDevice on that thread between hamlet calls must set back the device it
// found (include/hamlet/context.h says so), or hamlet's next call would run on the caller's device.
#ifndef HAMLET_GPU_DEVICE_CUH
#define HAMLET_GPU_DEVICE_CUH
#include "cuda_check.h"

// Devices 0 .. kGpuMaxDevices - 1 of a node (one kernel table and state slot each).
constexpr int kGpuMaxDevices = 16;

// The device this thread last made current through hamlet, -1 before the first.
extern thread_local int hm_gpu_thread_device;

// Make device current on this thread (cudaSetDevice) and remember it.
int hm_gpu_switch_device(int device);

// Device current for hamlet's calls on this thread: the remembered one (the kernel table's check
// keeps it right), or CUDA's current device where this thread never went through the table (tests
// that call the gpu/ functions directly). Indexes the per-device state slots.
int hm_gpu_current_device();

// The check at the entry of each kernel-table call: one compare when the device is current.
inline int hm_gpu_enter_device(int device) {
  return device == hm_gpu_thread_device ? HM_SUCCESS : hm_gpu_switch_device(device);
}

// One T per device; here() is the current device's.
template <class T> struct hm_per_device {
  T slot[kGpuMaxDevices] = {};
  T &here() { return slot[hm_gpu_current_device()]; }
};
#endif
