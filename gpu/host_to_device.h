// Host-to-device copies that go through page-locked staging when large (host_to_device.cu).
#ifndef HAMLET_HOST_TO_DEVICE_H
#define HAMLET_HOST_TO_DEVICE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
// dst (device) = src (host, pageable or not); returns with the data in place.
int hm_cuda_upload_bytes(void *dst, const void *src, size_t bytes);
#ifdef __cplusplus
}
#endif
#endif
