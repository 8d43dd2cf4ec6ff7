/* Built without CUDA: there is no device to describe. */
#include <stdio.h>
#include "error_macros.h"
#include "gpu_names.h"

int hm_gpu_describe(int device, char *text, size_t len) {
  (void)device;
  if (len) text[0] = '\0';
  HM_RAISE(HM_ERR_BACKEND, "hamlet was built without CUDA");
}

int hm_gpu_versions(char *text, size_t len) {
  snprintf(text, len, "not compiled");
  return HM_SUCCESS;
}
