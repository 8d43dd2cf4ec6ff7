/* Shift-and-invert spectral transform for A x = lambda B x (B Hermitian positive definite, or the
 * identity): T = (A - sigma B)^-1 B is self-adjoint in the B inner product, and its eigenvalues
 * theta = 1 / (lambda - sigma) are largest in magnitude for the lambda nearest sigma, so an
 * eigensolver for the largest eigenvalues of T converges in few iterations on pairs that are tiny or
 * clustered in the original problem (ill-conditioned FEM matrices, penalty entries).
 * The inner solves use a sparse direct factorization of A - sigma B made on rank 0 (the matrix is
 * gathered there; blocks are gathered, solved and scattered back). */
#ifndef HAMLET_SHIFT_INVERT_H
#define HAMLET_SHIFT_INVERT_H
#include <stdint.h>
#include "hamlet/matrix.h"
#include "hamlet/mvec.h"
#include "hamlet/operator.h"

typedef struct hm_shift_invert_s hm_shift_invert;

/* Lower-triangle entries of A - sigma B gathered on rank 0 at most (HAMLET_SHIFT_INVERT_MAX_ENTRIES
 * overrides it): 10^8 entries are 3.2 GB of triplets before the factor's fill-in. */
#define HM_SHIFT_INVERT_MAX_ENTRIES 100000000LL

/* Collective: factorize A - sigma B (B may be NULL: the identity). A, B must outlive si. Errors
 * (singular shifted matrix, too large a matrix) are raised on every rank with rank 0's message. */
int hm_shift_invert_create(hm_matrix *A, hm_matrix *B, double sigma, hm_shift_invert **si);
int hm_shift_invert_destroy(hm_shift_invert **si);
/* Collective: y = (A - sigma B)^-1 x, blocks of equal width over A's rows. */
int hm_shift_invert_solve(hm_shift_invert *si, hm_mvec *x, hm_mvec *y);
/* The operator LOBPCG iterates on in B's inner product (its B is the problem's B): y = B T x where
 * A - sigma B is definite (every theta has one sign), y = B T T x otherwise (theta^2: the pairs on
 * both sides of sigma are largest). op must be destroyed before si. */
int hm_shift_invert_operator(hm_shift_invert *si, hm_operator **op);
/* Which factorization ("cholmod-llt", "umfpack-lu"), whether A - sigma B is definite (1) or
 * indefinite (0), the reciprocal pivot ratio, the factor's nonzeros, and the inner solves done
 * (columns). Any pointer may be NULL. */
int hm_shift_invert_info(const hm_shift_invert *si, const char **method, int *definite, double *rcond,
                         double *factor_nnz, int64_t *solves);
/* The pencil and shift the transform was made for (B NULL: the identity). */
int hm_shift_invert_problem(const hm_shift_invert *si, hm_matrix **A, hm_matrix **B, double *sigma);

/* Collective: the nev eigenpairs nearest sigma from the block X (B-orthonormal, k >= nev columns
 * spanning LOBPCG's Ritz space on T) by a Rayleigh-Ritz of T there (theta with its sign, so
 * lambda = sigma + 1 / theta on both sides of sigma), ascending in lambda: values, the true
 * residuals of the original problem, relative rel = ||Ax - lambda Bx|| / (|lambda| ||Bx||) and
 * norm-relative nrm = ||Ax - lambda Bx|| / ((||A||_est + |lambda| ||B||_est) ||x||) with Gershgorin
 * estimates of the norms (norms[0] = ||A||_est, norms[1] = ||B||_est), and the vectors into V (nev
 * columns, B-orthonormal) where V is not NULL. */
int hm_shift_invert_ritz(hm_shift_invert *si, hm_mvec *X, int nev, double *values, double *rel, double *nrm,
                         double *norms, hm_mvec *V);
#endif
