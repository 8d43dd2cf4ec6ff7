// The matrix-free lattice operator's y = H x and fused KPM step for the TI's shape, staged through
// shared memory by an asynchronous pipeline (stencil_staged_cuda.cu); stencil_cuda.cu comes here
// where hm_cuda_stencil_staged_applies says so. rows are E's list `list`.
#ifndef HAMLET_STENCIL_STAGED_CUDA_H
#define HAMLET_STENCIL_STAGED_CUDA_H
#include "stencil_exec.h"

// Whether the staged kernel serves E at width k with these vectors: where chosen (the operator's kernel choice,
// auto or staged), 4 orbitals, no field, no vacancies, no twisted boundary, every block's shift 0
// or a unit face step (E->face_hops), slabs along z (a 3D box), k = 1, 2, 4, 8 or a multiple of 16,
// x and y 16-byte aligned, a slab of vector rows under 2 GiB; else the existing choice serves.
bool hm_cuda_stencil_staged_applies(const hm_stencil_exec *E, int k, const double *x, const double *y);
// kpm: W = 2 s (H V - b V) - W with dots[0..k) += V.V and dots[k..2k) += Re W.V; else y = H x.
int hm_cuda_stencil_staged_run(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b,
                               const double *x, double *y, double *dots);
void hm_stencil_staged_cuda_release_state();
#endif
