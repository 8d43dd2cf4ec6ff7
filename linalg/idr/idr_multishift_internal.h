/* The multi-shift IDR(s) object shared by idr_multishift.c (options, results, checkpoints) and
 * idr_multishift_solve.c (the iteration). */
#ifndef HAMLET_IDR_MULTISHIFT_INTERNAL_H
#define HAMLET_IDR_MULTISHIFT_INTERNAL_H
#include <complex.h>
#include "idr_internal.h"

/* per-system state besides HM_SUCCESS (confirmed: frozen), HM_ERR_NOT_CONVERGED, HM_ERR_BREAKDOWN:
 * MS_RUNNING, or MS_CLAIMED (its estimate is below its target; still updated until the claims are
 * checked against the true residuals). */
enum { MS_RUNNING = -1, MS_CLAIMED = -2 };


/* Where a solve's work went (internal: bench_multishift reads it): operator applications and
 * shift-column updates counted in columns, reductions, host wall seconds per part (on a GPU a part's
 * asynchronous kernels may be charged to the next part that waits on the device; t_total is exact). */
typedef struct {
  long seed_steps, seed_products, check_products, shift_columns, reductions;
  long repacks;         /* the blocks rebuilt narrower (idr_multishift_packed.c) */
  long running_columns; /* of the shift columns updated, those of systems still moving (the rest stopped,
                         * packed until the next repack) */
  long polish_solves, polish_columns, polish_iterations; /* batched polish solves, the columns they solved,
                                                          * the iterations summed over those columns */
  long stalled_columns, maxit_columns; /* systems sent to polish: their true residual stalled above tol,
                                        * or still running when the seed reached maxit */
  double t_seed, t_shift, t_check, t_polish, t_total;
  double t_host_coef, t_host_omega; /* host work while the device waits: the shifts' coefficients (from a
                                     * step's last reduction to the update's launch), the omega choice */
} hm_idr_multishift_profile;

struct hm_idr_multishift_s {
  hm_idr *base;          /* options, shadow space P, context (no state of its own is used) */
  hm_operator *A;
  const hm_kernels *kern;
  int s, ns, seed;       /* shadow dimension, shifts, index of the seed shift */
  double complex *shift; /* [ns] */
  hm_idr_multishift_checkpoint_fn checkpoint;
  void *checkpoint_user;

  /* the state of a solve of k right-hand sides (K = k ns systems, column q k + j) */
  int k, K;
  hm_mvec *r, **dR, *x, **dX; /* seeds: r and the last s residual differences (k wide); shifts (K wide) */
  hm_mvec *v, *t, *work;      /* k wide */
  int n, oldest, outer;       /* seed steps done, ring slot of the oldest difference, outer iterations */
  int *seedof;                /* [k] each right-hand side's seed shift */
  double complex *rel;        /* [K] shift_q - shift of rhs j's seed */
  int *stepof;                /* [s] step that formed slot l's difference (dR_l = r_(n'+1) - r_n'); -1 empty */
  double complex *M, *m;      /* [k][s][s] P^H dR, [k][s] P^H r */
  double complex *omega;      /* [k] */
  double complex *pi;         /* [K][s+1]: pi_n, pi_(n-1), ..., pi_(n-s) (r_q = r / pi_q) */
  double *bnorm, *rnorm2, *est, *tru, *target; /* [k], [k], [K], [K], [K] */
  int *its, *state;           /* [K] */
  int npacked;                /* the width of x and of every dX while a solve runs (idr_multishift_packed.c) */
  int *cols;                  /* [K] the system in column p < npacked (ascending) */
  int *at;                    /* [K] the column of system c, -1: packed out (its x in xout) */
  hm_mvec *xout;              /* during a solve, the caller's x: where packed-out systems' x go */
  int *want;                  /* [K] scratch: the systems whose true residual is computed */
  int restored, status;
  double *a, *coef, *buf;     /* host scratch in the kernels' layout */
  hm_idr_multishift_profile prof; /* of the last solve */
  int polish_max_columns;     /* the most columns of one batched polish solve; 0: set by memory (polish) */
  double test_stall_at;       /* tests only (0: off): shifts claim at this estimate and stall at their check */
};

/* The profile of the last solve (zero before one). */
int hm_idr_multishift_get_profile(const hm_idr_multishift *ms, hm_idr_multishift_profile *prof);

int hm_idr_multishift_alloc_state(hm_idr_multishift *ms, int k);

/* The layout of x and the dX blocks (idr_multishift_packed.c). While a solve runs, the blocks hold
 * only the systems that still move, packed, so that the fused update streams only them; callers
 * (checkpoints, restores, results) see every system in its own column of K-wide blocks. */
/* Every system in its own column (as allocated or restored). */
void hm_idr_multishift_unpacked(hm_idr_multishift *ms);
/* At the end of an outer iteration: where at least 1/16 of the packed systems no longer move, their
 * x go to xout and every block is rebuilt with the others only. */
int hm_idr_multishift_repack(hm_idr_multishift *ms);
/* Every system back in its own column of K-wide blocks: x (packed-out ones from xout) and the dX
 * (a packed-out system's directions zero: it never moves again). */
int hm_idr_multishift_unpack(hm_idr_multishift *ms);

/* The polish of stalled systems (internal: tests and bench_multishift). max_columns: the most
 * (shift, right-hand side) columns of one batched polish solve (0: by memory, the default).
 * stall_at (tests only; 0: off): every shift claims convergence once its estimate is <= stall_at
 * and, if its true residual is then above tol, is declared stalled, so that polish finishes all of
 * them. */
int hm_idr_multishift_set_polish(hm_idr_multishift *ms, int max_columns, double stall_at);

#endif
