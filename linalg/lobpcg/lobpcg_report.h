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
