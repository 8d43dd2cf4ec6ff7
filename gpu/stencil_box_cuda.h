// The matrix-free lattice operator's y = H x and fused KPM step for cells of 1 or 2 orbitals whose
// hops stay within one cell along each axis (graphene, Haldane, Qi-Wu-Zhang, Wannier models of
// first and second neighbours), staged through shared memory and streamed along the slabs
// (stencil_box_cuda.cu); stencil_cuda.cu comes here where hm_cuda_stencil_box_applies says so. rows
// are E's list `list`.
#ifndef HAMLET_STENCIL_BOX_CUDA_H
#define HAMLET_STENCIL_BOX_CUDA_H
#include "stencil_exec.h"

// Whether the box kernel serves E at width k with these vectors: where chosen (the operator's kernel choice,
// auto or box), complex vectors, 1 or 2 orbitals, every shift within one cell per axis and slabs
// along z or y (E->box_sums set), no field, no vacancies, no twisted boundary, k a multiple of 8,
// x and y 16-byte aligned, a slab of vector rows under 2 GiB; else the existing choice serves.
bool hm_cuda_stencil_box_applies(const hm_stencil_exec *E, int k, const double *x, const double *y);
// kpm: W = 2 s (H V - b V) - W with dots[0..k) += V.V and dots[k..2k) += Re W.V; else y = H x.
int hm_cuda_stencil_box_run(bool kpm, const hm_stencil_exec *E, int list, int k, double s, double b,
                            const double *x, double *y, double *dots);
void hm_stencil_box_cuda_release_state();
#endif
