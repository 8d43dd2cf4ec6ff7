/* hm_mvec: a block of k vectors over an hm_dist, row-major (the k entries of a row are adjacent). */
#ifndef HAMLET_MVEC_H
#define HAMLET_MVEC_H
#include "export.h"
#include <stdint.h>
#include "dist.h"

typedef struct hm_mvec_s hm_mvec;

#ifdef __cplusplus
extern "C" {
#endif

HM_API int hm_mvec_create(hm_context *ctx, const hm_dist *dist, hm_scalar type, int k, hm_mvec **v);
HM_API int hm_mvec_destroy(hm_mvec **v);
HM_API int hm_mvec_size(const hm_mvec *v, int64_t *local_rows, int *k);
/* Copy the local rows in / out: local_rows * k scalars, row-major (double or double _Complex). */
HM_API int hm_mvec_set(hm_mvec *v, const void *values);
HM_API int hm_mvec_get(const hm_mvec *v, void *values);
/* Random-phase entries exp(2 pi i phi) (complex) or +-1 (real); phi depends only on
 * (seed, column, global row), so the vectors do not depend on the rank count. */
HM_API int hm_mvec_random_phase(hm_mvec *v, uint64_t seed);
/* Collective: dots[j] = <x_j | y_j> for every column j (k scalars of x's type). */
HM_API int hm_mvec_dot(const hm_mvec *x, const hm_mvec *y, void *dots);
/* The row distribution (owned by v) and the scalar type. */
HM_API int hm_mvec_dist(const hm_mvec *v, const hm_dist **dist);
HM_API int hm_mvec_type(const hm_mvec *v, hm_scalar *type);
HM_API int hm_mvec_context(const hm_mvec *v, hm_context **ctx); /* the context the block was made in */

/* ---- block operations (the building blocks of LOBPCG and IDR(s)) ----
 * Small matrices and scalars are host arrays of the blocks' type, row-major. Blocks combined in
 * one call share their distribution and type. */
/* Collective: G = X^H Y, kx x ky (G[a*ky + b] = <X_a|Y_b>), with one global reduction. */
HM_API int hm_mvec_gram(const hm_mvec *X, const hm_mvec *Y, void *G);
/* Y = beta Y + X C: C is kx x ky, beta one scalar. X and Y must be distinct blocks. */
HM_API int hm_mvec_update(hm_mvec *Y, const void *beta, const hm_mvec *X, const void *C);
/* y_j = alpha_j x_j + beta_j y_j for every column j (k scalars each); x may be y. A column with
 * beta_j = 0 does not read y_j (as in BLAS): alpha = beta = 0 clears y even where it held NaN. */
HM_API int hm_mvec_axpby(hm_mvec *y, const void *alpha, const hm_mvec *x, const void *beta);
/* Collective: norms[j] = ||x_j||_2 (k doubles). */
HM_API int hm_mvec_norms(const hm_mvec *x, double *norms);
/* Columns [d0, d0 + count) of dst = columns [s0, s0 + count) of src (blocks of any widths). */
HM_API int hm_mvec_copy_columns(const hm_mvec *src, int s0, hm_mvec *dst, int d0, int count);
/* y_ij = d_i x_ij with d a one-column block (e.g. the inverse diagonal: Jacobi); y may be x. */
HM_API int hm_mvec_scale_rows(hm_mvec *y, const hm_mvec *d, const hm_mvec *x);

#ifdef __cplusplus
}
#endif
#endif
