// CUDA products of the matrix-free lattice operator (stencil_cuda.cu); kernels_cuda.cu's spmmv and
// kpm_step come here when the view carries a stencil. rows must be one of E's two keys.
#ifndef HAMLET_STENCIL_CUDA_H
#define HAMLET_STENCIL_CUDA_H
#include "hamlet/context.h"
#include "stencil_exec.h"

int hm_cuda_stencil_spmmv(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, const double *x,
                          double *y);
int hm_cuda_stencil_kpm_step(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, double s,
                             double b, const double *V, double *W, double *dots);
// Frees the scratch of the KPM step's partial sums (hm_gpu_state_release).
void hm_stencil_cuda_release_state();
#endif
