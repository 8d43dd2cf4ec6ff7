// CUDA kernels of IDR(s) (see the idr entries of hm_kernels in kernels.h).
#ifndef HAMLET_KERNELS_CUDA_IDR_H
#define HAMLET_KERNELS_CUDA_IDR_H
#include "kernels.h"

int hm_cuda_idr_combine(hm_scalar type, int64_t n, int k, int m, const double *const *X, const double *c,
                        const double *a, const double *W, double *Y);
int hm_cuda_idr_update(hm_scalar type, int64_t n, int k, const double *beta, const double *sigma, const double *g,
                       const double *u, double *r, double *x, double *dr, double *dx, double *dots);
int hm_cuda_idr_multidot(hm_scalar type, int64_t n, int s, const double *P, int k, const double *Y, double *G);
int hm_cuda_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int ncol, const int *cols, int m,
                             const double *v, const double *a, const double *const *D, const double *c, double *Dnew,
                             double *x);
#endif
