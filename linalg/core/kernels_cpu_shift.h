/* CPU kernel of multi-shift IDR(s) (see idr_shift_update in kernels.h). */
#ifndef HAMLET_KERNELS_CPU_SHIFT_H
#define HAMLET_KERNELS_CPU_SHIFT_H
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The arguments both backends' idr_shift_update refuse alike (HM_ERR_ARGUMENT naming the bad one):
 * complex only, 0 <= m <= 64 directions, 0 <= ncol <= K = nv * ns listed systems in ascending order. */
int hm_idr_shift_update_check(hm_scalar type, int nv, int ns, int ncol, const int *cols, int m);

int hm_cpu_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int ncol, const int *cols, int m,
                            const double *v, const double *a, const double *const *D, const double *c, double *Dnew,
                            double *x);
#ifdef __cplusplus
}
#endif
#endif
