/* A sparse direct factorization of one Hermitian matrix held by one process, behind one internal
 * interface, so the shift-and-invert transform does not know which library factorizes:
 * SuiteSparse's CHOLMOD LL^H where the matrix is positive definite, else CHOLMOD's unpivoted
 * LDL^H where a test solve shows no pivot growth, else UMFPACK (LU with partial pivoting). Both come with Debian's
 * libsuitesparse-dev; the build refuses without it (CMakeLists.txt), there is no fallback path. */
#ifndef HAMLET_SPARSE_FACTOR_H
#define HAMLET_SPARSE_FACTOR_H
#include <stdint.h>
#include "dense_internal.h" /* hm_dense_entry: one entry with its global row and column */

typedef struct hm_sparse_factor_s hm_sparse_factor;

/* Factorize the n x n Hermitian matrix whose lower triangle (i >= j) is given by `count` entries
 * (duplicates are summed). Fails with HM_ERR_NUMERIC and a message naming the zero pivot when the
 * matrix is singular. Not collective. */
int hm_sparse_factor_create(hm_scalar type, int64_t n, int64_t count, const hm_dense_entry *lower,
                            hm_sparse_factor **f);
/* X = M^-1 X in place for k right-hand sides, X row-major n x k scalars of the matrix's type. */
int hm_sparse_factor_solve(hm_sparse_factor *f, int k, double *X);
/* Y = M^-1 X, both row-major n x k (they may be the same array). The right-hand-side blocks and the
 * libraries' workspaces are kept in f between calls: f is not reentrant. */
int hm_sparse_factor_solve_into(hm_sparse_factor *f, int k, const double *X, double *Y);
/* "cholmod-llt", "cholmod-ldlt" or "umfpack-lu": which factorization was made (only LL^H proves
 * the matrix positive definite). */
const char *hm_sparse_factor_method(const hm_sparse_factor *f);
/* The library's cheap reciprocal condition estimate (ratio of the smallest to the largest pivot
 * magnitude, squared for LL^H): tiny values mean the shift lies very close to an eigenvalue. */
double hm_sparse_factor_rcond(const hm_sparse_factor *f);
/* Nonzeros of the factors (fill-in included). */
double hm_sparse_factor_nnz(const hm_sparse_factor *f);
void hm_sparse_factor_destroy(hm_sparse_factor **f);
#endif
