/* How LOBPCG judged convergence, for the driver's summary and /eigen (internal: the deck's users
 * read it in the output; library users have hm_lobpcg_residuals). */
#ifndef HAMLET_LOBPCG_REPORT_H
#define HAMLET_LOBPCG_REPORT_H
#include "hamlet/lobpcg.h"

typedef struct {
  hm_lobpcg_convergence test; /* as asked (AUTO decides per pair: see norm_pairs) */
  int norm_pairs;             /* wanted pairs judged by the NORM test at the last check */
  int locked;                 /* pairs hard-locked */
  double norm_a, norm_b;      /* the estimates of ||A||_2 and ||B||_2 the NORM test used */
  double reachable;           /* the level the pairs were allowed to stop at: tol, or above it where
                               * rounding cannot reach tol (then reported as such) */
} hm_lobpcg_report;

/* A lower bound of the smallest eigenvalue of B (> 0), for the error bounds of a pencil; B = I needs
 * none (1). Without it a pencil's pairs get no bound (NaN) and are judged by the residual test alone.
 * Before hm_lobpcg_run. */
int hm_lobpcg_set_b_min(hm_lobpcg *lob, double b_min);
/* After hm_lobpcg_run: the nev a-posteriori error bounds |lambda_j - lambda_true| <= bound[j] (NaN where
 * B's smallest eigenvalue is not known) and ok[j] = 1 where the bound meets the tolerance (both may
 * be NULL). From the residual r = A x - lambda B x of fresh products: ||r||_B^-1 / ||x||_B, with
 * ||r||_B^-1 <= ||r|| / sqrt(b_min), and where it is smaller the quadratic bound ||r||^2_B^-1 /
 * (||x||^2_B gap), gap = the distance to the nearest other Ritz value of the block less that value's
 * own bound (valid where no eigenvalue lies between the Ritz values: what the wanted end's pairs
 * assume anyway). The tolerance (tests AUTO and RELATIVE): bound[j] <= tol |lambda_j| +
 * HM_LOBPCG_ROUNDING (nA + |lambda_j| nB) ||x_j||^2 / ||x_j||^2_B: the relative accuracy tol, or the
 * error that rounding of the products alone leaves (which covers lambda near 0). A run whose pairs
 * passed the residual test but miss this is reported STAGNATED, those pairs not converged. The NORM
 * test keeps its meaning (a normwise backward error); its pairs get bounds all the same. */
int hm_lobpcg_error_bounds(const hm_lobpcg *lob, double *bound, int *ok);
/* The report after hm_lobpcg_run, and the nev normwise backward errors (may be NULL). */
int hm_lobpcg_convergence_report(const hm_lobpcg *lob, hm_lobpcg_report *report, double *backward);
/* 1: hard locking (default), 0: soft locking only (for the comparison in bench/README.md). Before
 * hm_lobpcg_run. */
int hm_lobpcg_set_hard_locking(hm_lobpcg *lob, int hard);
/* Recompute the images A [X P], B [X P] from the vectors at the next residual check (collective
 * in effect: call it on every rank). For operators whose accuracy grows during the run (inexact
 * inner solves tightened with the residual): the images updated by LOBPCG's recurrence keep the
 * errors of the looser products they were made from, which would hold the residuals there. */
int hm_lobpcg_request_refresh(hm_lobpcg *lob);
/* hm_lobpcg_create without the 20 power steps that estimate ||A|| for the NORM test: where each
 * product costs inner solves (shift-and-invert's T), ||A|| comes from the Ritz pairs instead, a lower
 * bound as the power estimate is: with B = I the largest |Ritz value| so far (||T|| once the top pair
 * converges), with B the largest |lambda_j| / ||x_j||^2 of the block. ||B|| is still estimated. */
int hm_lobpcg_create_norm_from_ritz(hm_operator *A, hm_operator *B, const hm_lobpcg_options *opt, hm_lobpcg **lob);
/* 1 (default): recompute the images at each lock event (the drift of a huge-entry A's images:
 * lobpcg_iterate.c); 0: not, for a bounded operator such as shift-and-invert's T, where each refresh
 * costs 2 x block inner solves. Before hm_lobpcg_run. */
int hm_lobpcg_set_refresh_on_lock(hm_lobpcg *lob, int refresh);
#endif
