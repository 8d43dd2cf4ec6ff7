/* Shift-and-invert spectral transform for A x = lambda B x (B Hermitian positive definite, or the
 * identity): T = (A - sigma B)^-1 B is self-adjoint in the B inner product, and its eigenvalues
 * theta = 1 / (lambda - sigma) are largest in magnitude for the lambda nearest sigma, so an
 * eigensolver for the largest eigenvalues of T converges in few iterations on pairs that are tiny or
 * clustered in the original problem (ill-conditioned FEM matrices, penalty entries).
 * The inner solves use a sparse direct factorization of A - sigma B made on rank 0 (the matrix is
 * gathered there; blocks are gathered, solved and scattered back), or iterative solves distributed
 * like A on its backend (shifted_solve.h: Jacobi-preconditioned CG where A - sigma B is positive
 * definite, IDR(s) elsewhere), stopped at a tolerance tied to the outer residual. */
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

/* How the inner solves are made: auto = direct where the lower triangle of A - sigma B (bounded by
 * (nnz(A) + n) / 2 + (nnz(B) + n) / 2) is within the gather limit, iterative otherwise. */
typedef enum { HM_SHIFT_INVERT_AUTO = 0, HM_SHIFT_INVERT_DIRECT = 1, HM_SHIFT_INVERT_ITERATIVE = 2 } hm_shift_invert_inner;
/* The iterative inner tolerance: ||b - (A - sigma B) y|| <= tol_in ||b|| with tol_in = 0.01 r clamped
 * to [MIN, MAX], r = the outer residual given by hm_shift_invert_set_outer_residual (the driver
 * gives the outer tol first, then after each iteration the smallest residual still above it), never
 * growing, and 10 times tighter after each outer iteration that did not halve r. Measured
 * (bench/README.md): LOBPCG whose first products were solved loosely (tol_in = 0.1 r, up to 1e-3)
 * stalls at a residual floor of about 0.01 to 0.1 times that loosest tolerance, even with its
 * images recomputed, so the inner solves start at 0.01 times the outer tol. */
#define HM_SHIFT_INVERT_INNER_TOL_MAX 1e-6
#define HM_SHIFT_INVERT_INNER_TOL_MIN 1e-14

/* Collective: factorize A - sigma B (B may be NULL: the identity). A, B must outlive si. Errors
 * (singular shifted matrix, too large a matrix) are raised on every rank with rank 0's message. */
int hm_shift_invert_create(hm_matrix *A, hm_matrix *B, double sigma, hm_shift_invert **si);
/* Collective: the transform with the inner solve chosen by `inner`; inner_maxit bounds each
 * iterative solve (iterations per column). hm_shift_invert_create is inner = direct. */
int hm_shift_invert_create_inner(hm_matrix *A, hm_matrix *B, double sigma, hm_shift_invert_inner inner,
                                 int inner_maxit, hm_shift_invert **si);
/* The outer eigensolver's current residual (the smallest of the pairs not yet converged; before
 * the final Rayleigh-Ritz a tenth of its tol): sets the iterative inner tolerance. *refresh (may be
 * NULL) becomes 1 where the tolerance is now 100 times tighter than when it was last 1: the outer
 * solver should then recompute its images from its vectors (hm_lobpcg_request_refresh). */
int hm_shift_invert_set_outer_residual(hm_shift_invert *si, double residual, int *refresh);
/* Whether the inner solves are iterative, their iterations (per column, summed), the largest true
 * inner residual met and the current inner tolerance. Any pointer may be NULL. */
int hm_shift_invert_inner_info(const hm_shift_invert *si, int *iterative, int64_t *iterations, double *worst,
                               double *tol);
int hm_shift_invert_destroy(hm_shift_invert **si);
/* Collective: y = (A - sigma B)^-1 x, blocks of equal width over A's rows. */
int hm_shift_invert_solve(hm_shift_invert *si, hm_mvec *x, hm_mvec *y);
/* The operator LOBPCG iterates on in B's inner product (its B is the problem's B): y = B T x where
 * A - sigma B is definite (every theta has one sign), y = B T T x otherwise (theta^2: the pairs on
 * both sides of sigma are largest). op must be destroyed before si. */
int hm_shift_invert_operator(hm_shift_invert *si, hm_operator **op);
/* Which factorization ("cholmod-llt", "cholmod-ldlt", "umfpack-lu") or iterative solver ("cg-jacobi", "idr-jacobi"), whether A - sigma B is definite (1) or
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
/* Collective: the residuals of A y = lambda B y for the columns of Y and their lambda (Y->k of each),
 * relative rel and norm-relative nrm as hm_shift_invert_ritz gives them, with norms[0..1] the
 * Gershgorin estimates of ||A|| and ||B||. */
int hm_shift_invert_residuals(hm_shift_invert *si, hm_mvec *Y, const double *lambda, double *rel, double *nrm,
                              double *norms);
#endif
