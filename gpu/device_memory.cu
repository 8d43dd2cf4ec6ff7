// Bytes the CUDA backend's alloc handed out, in use and at peak. cudaFree is not told a size, so
// each allocation's size is remembered until its release; a mutex because OpenMP threads and the
// energy poller may not allocate, but nothing forbids a user's threads from doing so.
#include <cuda_runtime.h>
#include <mutex>
#include <unordered_map>
#include "device_memory.h"
#include "device_memory_count.h"

namespace {
std::mutex lock;
std::unordered_map<const void *, size_t> sizes;
size_t in_use = 0, peak = 0;
} // namespace

void hm_device_memory_count_alloc(const void *p, size_t bytes) {
  std::lock_guard<std::mutex> guard(lock);
  sizes[p] = bytes;
  in_use += bytes;
  if (in_use > peak) peak = in_use;
}

void hm_device_memory_count_release(const void *p) {
  std::lock_guard<std::mutex> guard(lock);
  auto it = sizes.find(p);
  if (it == sizes.end()) return;
  in_use -= it->second;
  sizes.erase(it);
}

extern "C" size_t hm_device_memory_in_use(void) {
  std::lock_guard<std::mutex> guard(lock);
  return in_use;
}

extern "C" size_t hm_device_memory_peak(void) {
  std::lock_guard<std::mutex> guard(lock);
  return peak;
}

extern "C" void hm_device_memory_free(size_t *free_bytes) {
  size_t total = 0;
  *free_bytes = 0;
  if (cudaMemGetInfo(free_bytes, &total) != cudaSuccess) {
    cudaGetLastError(); // a query that failed leaves no sticky error behind
    *free_bytes = 0;
  }
}
