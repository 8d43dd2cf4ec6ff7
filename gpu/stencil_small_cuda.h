// The matrix-free lattice operator's products for cells of few orbitals (stencil_small_cuda.cu):
// graphene-like and Wannier-like models, 1 and 2 orbitals (4 where kernel = small forces it), complex
// or real; stencil_cuda.cu comes here where hm_cuda_stencil_small_applies says so. rows are E's list `list`.
#ifndef HAMLET_STENCIL_SMALL_CUDA_H
#define HAMLET_STENCIL_SMALL_CUDA_H
#include "stencil_exec.h"

// Whether this kernel serves E at width k (hm_small_serves, stencil_small_plan.h): 1 or 2 orbitals
// (4 with kernel = small; never with =site or =mma; real operators only with kernel = small), no
// field, k dividing 256, the cell's tables within 40 KiB of shared memory; else the per-site kernel
// serves.
bool hm_cuda_stencil_small_applies(const hm_stencil_exec *E, int k);
// kpm: W = 2 s (H V - b V) - W with dots[0..k) += V.V and dots[k..2k) += Re W.V; else y = H x.
int hm_cuda_stencil_small_run(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b,
                              const double *x, double *y, double *dots);
void hm_stencil_small_cuda_release_state();
#endif
