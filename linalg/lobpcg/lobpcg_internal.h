/* LOBPCG internals shared by its files: the solver's state and the block helpers.
 * Blocks: XP = [X P] (X the Ritz vectors, P the directions, np of its m columns used, the rest
 * zero), their A and B images AXP, BXP, and W (preconditioned residuals of the active columns)
 * with AW, BW. One block for [X P] makes the Rayleigh-Ritz Gram matrices and updates one call
 * each instead of two. W shrinks with soft locking and rank loss: it is used through views (the
 * same buffer read as a narrower row-major block), which is why these files see the hm_mvec
 * layout. Every block operation is an hm_mvec / hm_operator call (the backend's kernels). */
#ifndef HAMLET_LOBPCG_INTERNAL_H
#define HAMLET_LOBPCG_INTERNAL_H
#include <complex.h>
#include <math.h>
#include "hamlet/lobpcg.h"
#include "objects.h"

struct hm_lobpcg_s {
  hm_operator *A, *B, *T;
  hm_lobpcg_options opt;
  hm_context *ctx;
  const hm_dist *dist;
  hm_scalar type;
  int m, nev;
  /* 2m columns: XP, AXP, BXP and the update targets XP2, AXP2, BXP2; m columns: R, W, AW, BW.
   * With B = I the B images alias the blocks themselves (BXP = XP, BXP2 = XP2, BW = W). */
  hm_mvec *XP, *AXP, *BXP, *XP2, *AXP2, *BXP2, *R, *W, *AW, *BW;
  hm_mvec *Xs, *Ps;        /* X and P for checkpoints (made by hm_lobpcg_state) */
  hm_mvec *dinv;           /* Jacobi: 1 / |diag| */
  int np, iteration, started, nconv, last_checkpoint;
  hm_lobpcg_reason reason;
  double *lambda, *res;    /* m each */
  int *active;             /* m flags: not converged (gets a W column and a P direction) */
  /* Convergence test and locking (lobpcg.h): the first nlock columns of X are hard-locked (converged
   * pairs at the wanted end, out of the Rayleigh-Ritz problem, residuals projected off them);
   * hard_locking = 0 keeps every column in the Rayleigh-Ritz problem (soft locking only). */
  int nlock, hard_locking;
  double norm_a, norm_b;   /* ||A||_2, ||B||_2 by power steps at the start (norm_b = 1 for B = I); with
                            * norm_from_ritz, norm_a is the Ritz bound of residuals() (0 before) */
  int norm_from_ritz;      /* hm_lobpcg_create_norm_from_ritz: no power steps on A */
  double ritz_max;         /* largest |Ritz value| of every Rayleigh-Ritz problem so far */
  double *backward;        /* m: ||r|| / ((nA + |lambda| nB) ||x||) */
  int *test_norm;          /* m flags: the pair's test is NORM (AUTO: accepted by it) */
  double *best_res;        /* m: the smallest relative residual since it last halved */
  int *improved_at;        /* m: the iteration it last halved at (stagnation: AUTO, RELATIVE) */
  int refreshed_at;        /* the iteration the images were last recomputed from the vectors (-1: never) */
  int refresh_requested;   /* hm_lobpcg_request_refresh: the operator became more accurate */
  int refresh_on_lock;     /* 1: recompute the images at each lock event (hm_lobpcg_set_refresh_on_lock) */
  double reachable;        /* the loosest level a wanted pair was allowed to stop at (tol when none) */
  double *hist_val, *hist_res; /* hist_rows x nev, grown as iterations go (NaN = not recorded) */
  int hist_rows;
  double t_checkpoint;
  /* A-posteriori error bounds (lobpcg_bounds.c): a lower bound of lambda_min(B) (1 for B = I; NaN:
   * not known, no bounds), and per wanted pair the bound and whether it meets the tolerance */
  double b_min;
  double *bound;
  int *bound_ok;
  int verified;            /* the bounds were made after the last run */
};

/* The first k columns' worth of owner's buffer read as a k-column block. */
struct hm_mvec_s hm_lobpcg_view(const hm_mvec *owner, int k);
/* y = Op x on k-column views of the owners x, y. */
int hm_lobpcg_apply(hm_operator *op, hm_mvec *x, int k, hm_mvec *y);
/* G (col-major, leading dimension ld) at (r0, c0) = the first rows x cols of X^H Y (one global
 * reduction). */
int hm_lobpcg_gram(const hm_lobpcg *L, const hm_mvec *X, const hm_mvec *Y, double complex *G, int ld, int r0, int c0,
                   int rows, int cols);
/* The same with the columns y0 .. y0 + cols - 1 of Y (only those are read). */
int hm_lobpcg_gram_columns(const hm_lobpcg *L, const hm_mvec *X, const hm_mvec *Y, int y0, double complex *G, int ld,
                           int r0, int c0, int rows, int cols);
/* Y = beta Y + X C, C (X->k x Y->k): its first `rows` rows are sign * the rows r0.. of the
 * col-major M (ld), the other rows zero; beta is 0 or 1. */
int hm_lobpcg_update(const hm_lobpcg *L, hm_mvec *Y, double beta, const hm_mvec *X, const double complex *M, int ld,
                     int r0, int rows, double sign);
/* v = 0. */
int hm_lobpcg_zero(const hm_lobpcg *L, hm_mvec *v);
/* With B = I, point the B images at the blocks. */
void hm_lobpcg_alias_b(hm_lobpcg *L);
void hm_lobpcg_swap(hm_mvec **a, hm_mvec **b);

/* The ||A|| of the NORM test: the power estimate (or, with norm_from_ritz and B, the largest
 * |lambda_j| / ||x_j||^2 of the block), and with B = I the largest |Ritz value| if above. All are
 * lower bounds of ||A||_2 (Rayleigh quotients), so the NORM test never gets looser than with the true norm. */
static inline double hm_lobpcg_norm_a(const hm_lobpcg *L) { return L->B ? L->norm_a : fmax(L->norm_a, L->ritz_max); }

/* The start block made B-orthonormal and rotated to Ritz vectors (lobpcg_iterate.c). */
int hm_lobpcg_start(hm_lobpcg *L);
/* Recompute images and estimates from XP (restore). */
int hm_lobpcg_reload(hm_lobpcg *L);
/* Room for `rows` history rows (new rows NaN). */
int hm_lobpcg_grow_history(hm_lobpcg *L, int rows);
/* Iterate to convergence, maxit or stagnation. */
int hm_lobpcg_iterate(hm_lobpcg *L);
/* Collective, after the iteration: the error bounds of the nev wanted pairs from fresh products,
 * and a CONVERGED run whose pairs' bounds miss the tolerance made STAGNATED (lobpcg_bounds.c). */
int hm_lobpcg_verify(hm_lobpcg *L);
#endif
