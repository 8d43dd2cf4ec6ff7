/* CPU products of the matrix-free lattice operator (kernels_cpu_stencil.c); kernels_cpu.c's spmmv
 * and kpm_step come here when the view carries a stencil. rows must be one of E's two keys. */
#ifndef HAMLET_KERNELS_CPU_STENCIL_H
#define HAMLET_KERNELS_CPU_STENCIL_H
#include "hamlet/context.h"
#include "stencil_exec.h"

int hm_cpu_stencil_spmmv(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, const double *x,
                         double *y);
int hm_cpu_stencil_kpm_step(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, double s,
                            double b, const double *V, double *W, double *dots);
#endif
