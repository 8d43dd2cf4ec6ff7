// The matrix-free lattice operator's fused KPM step on the FP64 tensor cores (stencil_mma_cuda.cu),
// for 4-orbital cells at widths that are multiples of 8; stencil_cuda.cu comes here where
// hm_cuda_stencil_mma_applies says so.
#ifndef HAMLET_STENCIL_MMA_CUDA_H
#define HAMLET_STENCIL_MMA_CUDA_H
#include "stencil_exec.h"

// Whether the tensor-core step serves E at width k: 4 orbitals, no field, vacancies or twists, k a
// multiple of 32 (kernel = site or =small turns it off, =mma on at every multiple of 8), a walk
// of at most 2^31 positions, a device of compute capability 8.0 or later.
bool hm_cuda_stencil_mma_applies(const hm_stencil_exec *E, int k);
int hm_cuda_stencil_mma_kpm_step(const hm_stencil_exec *E, int list, int k, double s, double b, const double *V,
                                 double *W, double *dots);
void hm_stencil_mma_cuda_release_state();
#endif
