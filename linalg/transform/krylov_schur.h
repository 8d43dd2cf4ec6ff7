/* Thick-restart Lanczos (Wu and Simon; for Hermitian problems the same method as Krylov-Schur) for
 * the nev largest-magnitude eigenvalues theta of the shift-and-invert operator T = (A - sigma B)^-1 B
 * (shift_invert.h), which is self-adjoint in the B inner product whether or not A - sigma B is
 * definite: theta = 1 / (lambda - sigma) are largest for the lambda nearest sigma on both sides.
 * The basis V (ncv vectors and the next one) is kept B-orthonormal by classical Gram-Schmidt twice
 * with B V stored beside V, so each inner product is one Gram of the block, and one B product per
 * step (B v formed afresh from the orthogonalized v, not carried through the subtractions). At each restart the keep Ritz vectors of largest |theta| stay, with the arrowhead that
 * couples them to the next basis vector. A pair is converged where its Ritz estimate
 * |beta_m s_mi| <= tol |theta_i|; the caller checks the true residual of A x = lambda B x.
 * Internal (no public API yet); every call is collective and runs on any backend (hm_mvec ops). */
#ifndef HAMLET_KRYLOV_SCHUR_H
#define HAMLET_KRYLOV_SCHUR_H
#include <stdint.h>
#include "hamlet/mvec.h"
#include "shift_invert.h"

typedef struct {
  int nev;       /* wanted pairs */
  int ncv;       /* basis size; 0: max(2 nev + 1, nev + 15), at most n */
  int keep;      /* Ritz vectors kept at a restart; 0: nev + (ncv - nev) / 2 */
  int maxit;     /* restarts at most */
  double tol;    /* on the Ritz estimate relative to |theta| */
  uint64_t seed; /* of the random-phase start vector */
} hm_krylov_schur_options;

typedef struct {
  int converged;  /* leading pairs whose estimate met tol (nev when done) */
  int restarts;
  int64_t solves; /* column solves (operator applications on one column) */
  int ncv;        /* the basis size used */
} hm_krylov_schur_info;

void hm_krylov_schur_options_default(hm_krylov_schur_options *opt, int nev);
/* Collective: theta (nev values, largest |theta| first), their Ritz estimates est (may be NULL), the
 * B-orthonormal Ritz vectors into the first nev columns of X (may be NULL; a block over A's rows
 * with at least nev columns) and info (may be NULL). Not converging within maxit restarts is no
 * error: info->converged says how many met tol. */
int hm_krylov_schur_solve(hm_shift_invert *si, const hm_krylov_schur_options *opt, double *theta, double *est,
                          hm_mvec *X, hm_krylov_schur_info *info);
#endif
