/* CPU kernel of multi-shift IDR(s) (see idr_shift_update in kernels.h). */
#ifndef HAMLET_KERNELS_CPU_SHIFT_H
#define HAMLET_KERNELS_CPU_SHIFT_H
#include "kernels.h"

int hm_cpu_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int nact, const int *act, int m,
                            const double *v, const double *a, const double *const *D, const double *c, double *Dnew,
                            double *x);
#endif
