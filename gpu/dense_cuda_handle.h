// The dense paths' cuSOLVER handle of the current device (dense_cuda.cu keeps one per device) and the
// name of a cuSOLVER status, for gpu/'s dense files.
#ifndef HAMLET_DENSE_CUDA_HANDLE_H
#define HAMLET_DENSE_CUDA_HANDLE_H
#include <cusolverDn.h>
int hm_dense_cuda_handle(cusolverDnHandle_t *h, cusolverDnParams_t *p);
const char *hm_cusolver_status_name(cusolverStatus_t s);
#endif
