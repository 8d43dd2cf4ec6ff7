/* Thick-restart Lanczos (Wu and Simon; for Hermitian problems the same method as Krylov-Schur) for
 * the nev largest-magnitude eigenvalues theta of the shift-and-invert operator T = (A - sigma B)^-1 B
 * (shift_invert.h), which is self-adjoint in the B inner product whether or not A - sigma B is
 * definite: theta = 1 / (lambda - sigma) are largest for the lambda nearest sigma on both sides.
 * The basis V (ncv vectors and the next one) is kept B-orthonormal by classical Gram-Schmidt twice
 * with B V stored beside V, so each inner product is one Gram of the block, and one B product per
 * step (B v formed afresh from the orthogonalized v, not carried through the subtractions). At each restart the keep Ritz vectors of largest |theta| stay, with the arrowhead that
 * couples them to the next basis vector. A pair is converged where its Ritz estimate
 * |beta_m s_mi| <= tol |theta_i|; the caller checks the true residual of A x = lambda B x.
 * A single-vector Krylov space holds one direction per distinct eigenvalue; further copies of a
 * degenerate one enter only through rounding, so converged wanted pairs do not prove that none was
 * missed. Hence the verification (Lehoucq and Sorensen's locking with a new start vector): once the
 * nev wanted pairs converge they are locked (kept, uncoupled: their Ritz estimates are within tol)
 * and Lanczos continues from a fresh random vector B-orthogonal to them, on the deflated operator. A
 * missed copy (or value) at or above the cut (the nev-th locked |theta|) is the deflated operator's
 * most extreme eigenvalue, found first: it is locked, and the cut and the fresh vector renewed; the
 * run ends when both extreme Ritz values of the deflated run (converged to 1e-3 where beyond zero) lie
 * inside (-cut, cut) by more than their estimates.
 * Restart boundaries (after each thick restart) are where the run reports progress, writes
 * checkpoints (the kept Ritz vectors, the next Lanczos vector, their B images and the projected
 * matrix: a resumed run repeats the uninterrupted one bit for bit on the same ranks) and stops on
 * request. Internal (no public API yet); every call is collective and runs on any backend. */
#ifndef HAMLET_KRYLOV_SCHUR_H
#define HAMLET_KRYLOV_SCHUR_H
#include <stdint.h>
#include "hamlet/mvec.h"
#include "shift_invert.h"

/* The complete state at a restart boundary. blocks: V and B V, ncv + 1 columns each (the kept Ritz
 * vectors, the next Lanczos vector, zeros); scalars: a layout of krylov_schur.c's (the sizes, the
 * restarts and solves so far, the projected matrix), checked when resumed. */
typedef struct {
  hm_mvec *blocks[2];
  int nscalars;
  double *scalars;
} hm_krylov_schur_state;

typedef struct {
  int nev;       /* wanted pairs */
  int ncv;       /* basis size; 0: max(2 nev + 1, nev + 15), at most n */
  int keep;      /* Ritz vectors kept at a restart; 0: nev + (ncv - nev) / 2 */
  int maxit;     /* restarts at most */
  double tol;    /* on the Ritz estimate relative to |theta| */
  uint64_t seed; /* of the random-phase start vector */
  /* At each restart boundary and at the end (all optional, called on every rank): converged pairs
   * and the largest Ritz estimate relative to |theta| of the nev wanted. */
  void (*progress)(int restarts, int converged, int nev, double worst_estimate, void *user);
  void *progress_user;
  /* A checkpoint every checkpoint_every restarts and/or at the first boundary checkpoint_seconds
   * after the last (rank 0's clock decides); state is valid during the call only. A nonzero
   * status aborts the solve. */
  int checkpoint_every;
  double checkpoint_seconds;
  int (*checkpoint)(const hm_krylov_schur_state *state, void *user);
  void *checkpoint_user;
  /* Nonzero (the same on every rank): checkpoint (when checkpoint is set and none was just written)
   * and return HM_ERR_STOPPED, with info filled. */
  int (*stop)(void *user);
  void *stop_user;
  /* Continue from a saved state, in two calls: with state->blocks NULL, set nscalars and a malloc'd
   * scalars (the solver frees them); where those fit this problem, with the blocks (allocated by
   * the solver) to fill. A state of another problem size, nev or basis is refused with
   * HM_ERR_INPUT before its blocks are read. */
  int (*resume)(hm_krylov_schur_state *state, void *user);
  void *resume_user;
  /* Nonzero (the default): verify that no copy of a wanted eigenvalue was missed (above). */
  int verify;
} hm_krylov_schur_options;

typedef struct {
  int converged;  /* leading pairs whose estimate met tol (nev when done) */
  int restarts;
  int64_t solves; /* column solves (operator applications on one column) */
  int ncv;        /* the basis size used */
  int verified;   /* 1: the verification ended finding nothing more (0: off, maxit, or no room in ncv) */
  int copies;     /* pairs the verification found and locked (missed copies, or values, at the cut or above) */
  int64_t verify_solves; /* column solves since the verification began (included in solves) */
} hm_krylov_schur_info;

void hm_krylov_schur_options_default(hm_krylov_schur_options *opt, int nev);
/* Collective: theta (nev values, largest |theta| first), their Ritz estimates est (may be NULL), the
 * B-orthonormal Ritz vectors into the first nev columns of X (may be NULL; a block over A's rows
 * with at least nev columns) and info (may be NULL). Not converging within maxit restarts is no
 * error: info->converged says how many met tol. */
int hm_krylov_schur_solve(hm_shift_invert *si, const hm_krylov_schur_options *opt, double *theta, double *est,
                          hm_mvec *X, hm_krylov_schur_info *info);
#endif
