// CUDA block kernels of the solvers (see the block entries of hm_kernels in kernels.h).
#ifndef HAMLET_KERNELS_CUDA_BLOCK_H
#define HAMLET_KERNELS_CUDA_BLOCK_H
#include "kernels.h"

int hm_cuda_gram(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, double *G);
int hm_cuda_gram_columns(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, int y0, int ny,
                         double *G);
int hm_cuda_block_update(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *C,
                         const double *beta, double *Y);
int hm_cuda_copy_columns(hm_scalar type, int64_t n, int ks, const double *src, int s0, int kd, double *dst, int d0,
                         int count);
int hm_cuda_series_accumulate(hm_scalar type, int64_t n, int w, int m, const double *const *X, int ne, const double *C,
                               double *acc);
int hm_cuda_scale_rows(hm_scalar type, int64_t n, int k, const double *d, const double *x, double *y);
int hm_cuda_ritz_residual(hm_scalar type, int64_t n, int ka, const double *AX, int kb, const double *BX, int m,
                          const double *lambda, double *R, double *sums);
#endif
