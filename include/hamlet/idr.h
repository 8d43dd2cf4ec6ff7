/* IDR(s): the biorthogonal induced-dimension-reduction solver of van Gijzen and Sonneveld (ACM TOMS
 * 38(1), 2011) for non-symmetric and complex systems Op x = b, with optional minimal-residual
 * smoothing (the reported residual norm never increases; Anzt et al. 2016), the "maintaining the
 * convergence" choice of omega, and right preconditioning.
 *
 * A batch: b and x of width k hold k independent systems (column j = system j) with the same
 * operator (a shifted operator may carry one shift per column). They advance together, so each
 * operator application serves all k (SpMM); each keeps its own recurrences and stops on its own.
 *
 * Counting: one iteration = one application of Op to a system's vector; an outer iteration (one
 * cycle of s steps in the IDR space plus one dimension-reduction step) is s + 1 iterations. The
 * residual is checked after every iteration; history entry 0 is the initial residual. */
#ifndef HAMLET_IDR_H
#define HAMLET_IDR_H
#include "export.h"
#include <stdint.h>
#include "operator.h"

typedef enum {
  HM_IDR_PRECOND_NONE = 0,
  HM_IDR_PRECOND_JACOBI = 1, /* K = diag: options.precond_diagonal holds the operator's diagonal */
  HM_IDR_PRECOND_USER = 2    /* options.precond_op applies y = K^-1 x */
} hm_idr_precond;

typedef struct hm_idr_s hm_idr;

/* Called on every rank, collectively, every checkpoint_every outer iterations (at the end of a
 * cycle, where the state of hm_idr_state_* is complete). A non-zero return stops the solve. */
typedef int (*hm_idr_checkpoint_fn)(hm_idr *idr, void *user);

typedef struct {
  int s;                     /* shadow space dimension, 1 <= s <= 64 and s <= rows */
  int smoothing;             /* 1: minimal-residual smoothing, 0: off */
  double tol;                /* stop when ||r_j|| <= tol ||b_j|| (recursive residual), tol >= 0 */
  int maxit;                 /* iterations (operator applications) per system, >= 1 */
  double omega_angle;        /* "maintaining the convergence": 0 <= angle < 1 (0 = minimal residual) */
  int residual_replacement;  /* every this many outer iterations r = b - Op x is recomputed; 0 = off */
  hm_idr_precond precond;
  hm_operator *precond_op;   /* HM_IDR_PRECOND_USER: y = K^-1 x (same distribution and type) */
  hm_mvec *precond_diagonal; /* HM_IDR_PRECOND_JACOBI: one column, the operator's diagonal (copied
                                and inverted at create; no zero entries). For z - A: z - diag(A) from
                                hm_matrix_diagonal + hm_mvec_axpby. One diagonal serves every system
                                of a batch (per-shift diagonals: a USER preconditioner). */
  uint64_t seed;             /* the shadow space P: entries from (seed, column, global row) */
  int history;               /* 1: keep the residual norm of every iteration per system */
  int checkpoint_every;      /* outer iterations between checkpoint calls; 0 = off */
  hm_idr_checkpoint_fn checkpoint;
  void *checkpoint_user;
  double checkpoint_seconds; /* wall seconds between checkpoint calls (rank 0's clock decides); 0 = off */
  /* Asked on every rank at step boundaries (the end of each outer iteration); must return the same value on every rank. Nonzero
   * makes the run return HM_ERR_STOPPED with its state consistent there (checkpoint it, restore
   * later). NULL = never stop. */
  int (*stop)(void *user);
  void *stop_user;
} hm_idr_options;

#ifdef __cplusplus
extern "C" {
#endif

/* s = 4, smoothing on, tol = 1e-8, maxit = 10000, omega_angle = 0.7, no residual replacement,
 * no preconditioner, seed = 1, history on, no checkpoints. */
HM_API int hm_idr_options_default(hm_idr_options *opt);
/* Checks the options and builds the shadow space (collective). A outlives idr. */
HM_API int hm_idr_create(hm_operator *A, const hm_idr_options *opt, hm_idr **idr);
HM_API int hm_idr_destroy(hm_idr **idr);
/* Collective: solve A x_j = b_j for the k columns of b. x is the initial guess on entry and the
 * solution on return (also when not converged: the last iterate). Returns HM_SUCCESS when every
 * system converged, else HM_ERR_BREAKDOWN (a system broke down: singular s x s system, omega = 0,
 * NaN) or HM_ERR_NOT_CONVERGED (maxit reached), with a message naming the systems; the results
 * below are valid in all three cases. After hm_idr_restore it continues the restored state (x is
 * then output only). */
HM_API int hm_idr_solve(hm_idr *idr, hm_mvec *b, hm_mvec *x);

/* ---- results of the last solve (arrays of k entries, k = width of that solve's b) ---- */
/* k, and the status of the last solve (as returned by hm_idr_solve). */
HM_API int hm_idr_info(const hm_idr *idr, int *k, int *status);
/* Per system: iterations done, converged (1/0), and status (HM_SUCCESS, HM_ERR_NOT_CONVERGED,
 * HM_ERR_BREAKDOWN). Any pointer may be NULL. */
HM_API int hm_idr_systems(const hm_idr *idr, int *iterations, int *converged, int *status);
/* Per system: the recursive relative residual ||r_j|| / ||b_j|| (smoothed when smoothing is on;
 * the last finite one where a system broke down) and the true one ||b_j - A x_j|| / ||b_j||,
 * recomputed at the end (+infinity, never NaN, where it is not a number). Either may be NULL.
 * A zero b_j gives x_j = 0 and residuals 0. */
HM_API int hm_idr_residuals(const hm_idr *idr, double *recursive, double *true_residual);
/* Relative residual norms of system j after 0, 1, ..., iterations[j] iterations (length =
 * iterations[j] + 1); values may be NULL to ask for the length only. Needs history on. */
HM_API int hm_idr_history(const hm_idr *idr, int system, double *values, int capacity, int *length);

/* ---- checkpoints: the state at the end of an outer iteration ----
 * nblocks blocks of width k owned by idr: 0 = x, 1 = r, 2..s+1 = G, s+2..2s+1 = U, and with
 * smoothing 2s+2 = xs - x, 2s+3 = rs - r; nscalars doubles of small state (omega, the s x s
 * matrices, iterations, statuses, residuals and history). */
HM_API int hm_idr_state_size(const hm_idr *idr, int *nblocks, int *nscalars);
HM_API int hm_idr_state_block(hm_idr *idr, int i, hm_mvec **block);
HM_API int hm_idr_state_get(const hm_idr *idr, double *scalars);
/* Restore before hm_idr_solve on a new idr made with the same operator and options: k systems,
 * the saved scalars (from hm_idr_state_get), then the caller fills the blocks (hm_idr_state_block +
 * hm_mvec_set) and calls hm_idr_solve with the same b. */
HM_API int hm_idr_restore(hm_idr *idr, int k, const double *scalars);


/* ---- multi-shift IDR(s): (A + shift_q I) x_(j,q) = b_j for nshifts complex shifts at once ----
 * The shifted systems share one Krylov space: IDR(s) runs on one seed system A + shift_seed I per
 * right-hand side (first the hardest shift: the smallest |Im shift|, the first of equals; at each
 * cycle it moves to the shift that lags, the one with the smallest |pi|), and every
 * other shift's residual stays collinear with the seed's (r_q = r / pi_q, with the seed's s + 1
 * recurrence coefficients and omega_q = omega / (1 + omega (shift_q - shift_seed))), so each shift
 * costs only its own s + 1 vector updates per step (one fused pass for all shifts), no operator
 * application. The seed continues while any of its shifts runs. A shift whose true residual stalls
 * above tol (the recurrences' rounding grows where |1 + omega (shift - seed)| is small) is finished
 * by IDR(s) on its own system from its iterate (its iterations include those). A shift stops when its residual
 * ||b - (A + shift) x|| / ||b|| (estimated as ||r|| / |pi|) is below tol; at the end every shift's
 * true residual is recomputed and reported, and decides its status.
 * Options: s, tol, maxit (seed iterations), omega_angle, seed, checkpoint_every/_seconds and stop
 * as hm_idr_options; smoothing, residual_replacement and history are not used; the checkpoint
 * callback of the options is not used (hm_idr_multishift_set_checkpoint sets its own). The start
 * is x = 0 (collinear residuals need one initial residual b for all shifts). A preconditioner is
 * not shift-invariant: precond other than HM_IDR_PRECOND_NONE is refused (HM_ERR_ARGUMENT); solve
 * such systems one shift at a time (hm_idr with a shifted operator). The operator must be complex.
 * Memory: (s + 1) blocks of width k * nshifts (per shift its s directions and its iterate) and
 * s + 3 blocks of width k for the seeds. */
typedef struct hm_idr_multishift_s hm_idr_multishift;
/* Called on every rank, collectively, where a checkpoint is due (end of an outer iteration). */
typedef int (*hm_idr_multishift_checkpoint_fn)(hm_idr_multishift *ms, void *user);

/* Collective: checks the options and shifts (1 <= nshifts <= 1000, finite), builds the shadow
 * space. A outlives ms; the shifts are copied. */
HM_API int hm_idr_multishift_create(hm_operator *A, const hm_idr_options *opt, int nshifts, const double _Complex *shifts,
                             hm_idr_multishift **ms);
HM_API int hm_idr_multishift_destroy(hm_idr_multishift **ms);
/* The checkpoint callback (needed when opt.checkpoint_every or checkpoint_seconds is set). */
HM_API int hm_idr_multishift_set_checkpoint(hm_idr_multishift *ms, hm_idr_multishift_checkpoint_fn fn, void *user);
/* Collective: b has k columns, x has k * nshifts columns; on return column q * k + j of x solves
 * (A + shift_q I) x = b_j (x is output only). Returns HM_SUCCESS when every shift converged (true
 * residual <= tol), else HM_ERR_NOT_CONVERGED or HM_ERR_BREAKDOWN with a message; results valid in
 * all three cases; HM_ERR_STOPPED when the stop callback asked (the state is complete: checkpoint
 * it). After hm_idr_multishift_restore it continues the restored state. */
HM_API int hm_idr_multishift_solve(hm_idr_multishift *ms, hm_mvec *b, hm_mvec *x);
/* k, the shift that right-hand side 0's seed system is at the end (it starts at the hardest shift and
 * moves to the one that lags), and the status of the last solve. Any pointer may be NULL. */
HM_API int hm_idr_multishift_info(const hm_idr_multishift *ms, int *k, int *seed_shift, int *status);
/* Per system (k * nshifts entries, index q * k + j): seed iterations when the shift stopped,
 * converged (1/0), the estimated residual ||r|| / (|pi| ||b||) and the true one recomputed at the
 * end. Any pointer may be NULL. */
HM_API int hm_idr_multishift_results(const hm_idr_multishift *ms, int *iterations, int *converged, double *estimated,
                              double *true_residual);
/* Checkpoints between outer iterations: nblocks blocks owned by ms (0 = seed residuals r, 1..s =
 * seed residual differences, s+1 = iterates x, s+2..2s+1 = the shifts' directions) and nscalars
 * doubles of small state. Restore on a new ms made with the same operator, options and shifts:
 * hm_idr_multishift_restore(k, scalars), fill the blocks, solve with the same b. */
HM_API int hm_idr_multishift_state_size(const hm_idr_multishift *ms, int *nblocks, int *nscalars);
HM_API int hm_idr_multishift_state_block(hm_idr_multishift *ms, int i, hm_mvec **block);
HM_API int hm_idr_multishift_state_get(const hm_idr_multishift *ms, double *scalars);
HM_API int hm_idr_multishift_restore(hm_idr_multishift *ms, int k, const double *scalars);

#ifdef __cplusplus
}
#endif
#endif
