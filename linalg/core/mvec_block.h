/* Internal block operations of the solvers (not public API: their shapes follow one solver's
 * needs). Implemented in mvec_block.c beside the public block operations. */
#ifndef HAMLET_MVEC_BLOCK_H
#define HAMLET_MVEC_BLOCK_H
#include "objects.h"
#include "hamlet/mvec.h"

/* LOBPCG's residuals in one pass over the blocks: R = AX - BX diag(lambda) on the first R->k
 * columns of AX and BX (blocks over R's rows with at least R->k columns each; R distinct from
 * both), with the global column norms rnorm[j] = ||R[:, j]|| and bnorm[j] = ||BX[:, j]||, j < R->k,
 * from one reduction. lambda: R->k real values. */
int hm_mvec_ritz_residual(const hm_mvec *AX, const hm_mvec *BX, const double *lambda, hm_mvec *R, double *rnorm,
                          double *bnorm);
/* G = X^H Y[:, y0 : y0 + ny] (X->k x ny scalars of the type, row-major, like hm_mvec_gram), one
 * reduction; only those columns of Y are read. */
int hm_mvec_gram_columns(const hm_mvec *X, const hm_mvec *Y, int y0, int ny, void *G);
/* Columns col0 .. col0 + v->k - 1 of the random-phase block of hm_mvec_random_phase (KPM's passes:
 * vector r is the same whatever pass holds it). */
int hm_mvec_random_phase_columns(hm_mvec *v, uint64_t seed, int col0);
/* The Gaussian block (hm_random_gauss_entry of (seed, column, global row)): the same on any number of
 * ranks and on the GPU (to rounding of log and cos); for start vectors that must not be orthogonal
 * to an eigenvector (Lanczos bounds). */
int hm_mvec_random_gauss(hm_mvec *v, uint64_t seed);
/* Y = Y C in place (C: k x k scalars of the type, row-major, on the host), piece by piece of `piece`
 * rows (0: about 64 MiB of work space): a search space times its Rayleigh-Ritz vectors needs no
 * second block. */
int hm_mvec_multiply_in_place(hm_mvec *Y, const void *C, int64_t piece);
/* Keep the columns j of Y with keep[j] != 0, in their order, and narrow Y to them in place (a block
 * without halo rows; the allocation keeps its size); pieces as above. */
int hm_mvec_keep_columns(hm_mvec *Y, const int *keep, int64_t piece);
/* Chebyshev series accumulated at several energies: acc[:, c ne + e] += sum_{j < m} C[j ne + e] X_j[:, c]
 * for the m <= 16 blocks X_j of one width w (acc: w ne columns; C: m x ne host scalars of the type),
 * one pass over the accumulators for m terms. */
int hm_mvec_series_accumulate(hm_mvec *acc, int m, hm_mvec *const *X, const void *C);
#endif
