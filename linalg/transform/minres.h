/* MINRES (Paige and Saunders) for a Hermitian, possibly indefinite S: y = S^-1 b for every column
 * of a block at once, each column with its own Lanczos and Givens scalars (all real for Hermitian
 * S), one product of the whole block per iteration, a column stopping on its own. Shift-and-invert's
 * inner solve where A - sigma B is indefinite: unlike IDR(s), whose shadow-space recurrences can
 * stall on such systems (a real-matrix case stalled at relative residual 1 on one
 * host's rounding and converged on another), MINRES's residual never grows. Only block operations
 * (hm_mvec_*) and the caller's product: it runs on any backend. */
#ifndef HAMLET_MINRES_H
#define HAMLET_MINRES_H
#include "hamlet/mvec.h"

typedef int (*hm_minres_apply)(hm_mvec *x, hm_mvec *y, void *user); /* y = S x, any width */

/* Collective. y = S^-1 b from y = 0 until the recursive residual |eta_j| <= tol ||b_j|| or maxit
 * iterations; its[j] the iterations column j took, est[j] its last relative residual estimate.
 * Fails with HM_ERR_NOT_CONVERGED naming the worst column where maxit is reached (y holds the
 * iterates). */
int hm_minres_solve(hm_minres_apply apply, void *user, double tol, int maxit, const hm_mvec *b, hm_mvec *y,
                    int *its, double *est);
#endif
