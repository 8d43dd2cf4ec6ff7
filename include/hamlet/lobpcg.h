/* Block LOBPCG (Knyazev) for A x = lambda B x, A Hermitian, B Hermitian positive definite (or the
 * identity): the nev smallest or largest eigenpairs with a block of `block` >= nev vectors.
 * The basis [X P W] is kept B-orthonormal (Hetmaniuk and Lehoucq; Duersch et al. 2018): the
 * preconditioned residuals W are B-orthogonalized twice against X and P and orthonormalized by
 * Cholesky QR, falling back to SVQB (dropping dependent directions) when their Gram matrix is
 * ill-conditioned; P is rebuilt from the Ritz coefficients and restarts when it loses rank;
 * converged pairs at the wanted end are hard-locked (see hm_lobpcg_convergence below), other
 * converged pairs soft-locked (they stay in the Rayleigh-Ritz basis, get no W and P).
 * All block work goes through hm_mvec / hm_operator calls (the backend's kernels: GPU blocks stay
 * in device memory); only the small projected problem is solved on the host with LAPACK. */
#ifndef HAMLET_LOBPCG_H
#define HAMLET_LOBPCG_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"
#include "operator.h"

typedef enum { HM_LOBPCG_SMALLEST = 0, HM_LOBPCG_LARGEST = 1 } hm_lobpcg_which;
typedef enum { HM_LOBPCG_PRECOND_NONE = 0, HM_LOBPCG_PRECOND_JACOBI = 1, HM_LOBPCG_PRECOND_USER = 2 } hm_lobpcg_precond;
/* Why hm_lobpcg_run stopped. */
typedef enum {
  HM_LOBPCG_NOT_RUN = 0,   /* hm_lobpcg_run not called yet */
  HM_LOBPCG_CONVERGED = 1, /* all nev residuals <= tol */
  HM_LOBPCG_MAXIT = 2,     /* maxit iterations done; the best estimates are kept */
  HM_LOBPCG_STAGNATED = 3  /* no new search direction left (basis lost rank), or the residual test passed where
                            * the eigenvalues' error bounds miss the tolerance; best estimates kept */
} hm_lobpcg_reason;

/* When a pair (lambda, x) counts as converged. r = Ax - lambda Bx; nA, nB estimate ||A||_2 and
 * ||B||_2 (nB = 1 for B = I) by 20 power steps on A and on B at the start (one vector each: cheap
 * next to the iteration; a lower bound within a few percent); with B = I, nA is raised to the
 * largest |Ritz value| seen if that is above.
 *  RELATIVE: ||r|| <= tol |lambda| ||Bx||  (||r|| <= tol ||Bx|| where lambda = 0).
 *  NORM:     ||r|| <= tol (nA + |lambda| nB) ||x||. The left side over (nA + |lambda| nB) ||x|| is
 *            the normwise backward error of the pair (Higham and Higham 1998): (lambda, x) is an
 *            exact pair of (A + E, B + F) with ||E|| <= tol nA, ||F|| <= tol nB. A test of
 *            tol nA ||x|| alone would drop the error of lambda B x, which dominates for pencils
 *            whose ||B|| |lambda| >> ||A|| (the largest eigenvalues of a nearly singular B). Right
 *            for graded matrices (condition 1e13) whose small eigenvalues are only defined to
 *            eps ||A||; wrong for penalty matrices: with one 1e15 entry, ||r|| <= 1e-8 ||A|| = 1e7
 *            accepts any vector for the eigenvalues near 100 (measured: eigenvalues off by 60%).
 *  AUTO:     RELATIVE, and NORM only for a pair whose relative residual rounding keeps from
 *            falling: it has not halved in 25 iterations (an observation, not a prediction from
 *            ||A||, which a penalty entry makes useless). So graded matrices and pencils stop at the
 *            rounding floor with a small backward error, penalty matrices go on to tol.
 * No test iterates below rounding: NORM stops at backward error HM_LOBPCG_ROUNDING where tol is
 * below it; RELATIVE stops where the relative residual stagnated at backward error
 * HM_LOBPCG_ROUNDING. The solver then reports the level reached (the driver prints it and writes it
 * to /eigen as reachable_tol) instead of iterating to maxit; hm_lobpcg_info's reason stays
 * CONVERGED. */
typedef enum { HM_LOBPCG_CONV_AUTO = 0, HM_LOBPCG_CONV_RELATIVE = 1, HM_LOBPCG_CONV_NORM = 2 } hm_lobpcg_convergence;
/* A backward error at rounding level for LOBPCG's updated products (measured 3e-14 .. 7e-14 on the
 * condition-1e13 test matrix of 300 rows, where the residuals stop falling; it grows with the size). */
#define HM_LOBPCG_ROUNDING 1e-13

typedef struct hm_lobpcg_s hm_lobpcg;

/* Called every checkpoint_every iterations (or checkpoint_seconds) on every rank, collectively,
 * between iterations: hm_lobpcg_state then gives a state hm_lobpcg_restore continues from.
 * A nonzero return stops the run with that status. */
typedef int (*hm_lobpcg_checkpoint_fn)(hm_lobpcg *lob, void *user);
/* Called on every rank after each iteration with the current estimates of the nev wanted pairs
 * (values and relative residuals, nev each) and how many of them converged. */
typedef void (*hm_lobpcg_progress_fn)(int iteration, int nev, const double *values, const double *residuals,
                                      int converged, void *user);

typedef struct {
  int nev;                    /* eigenpairs wanted, >= 1 */
  int block;                  /* block size >= nev (extra vectors speed up convergence); 0 = nev + max(2, nev/4) */
  double tol;                 /* stop when every wanted pair passes the convergence test at tol; 0 = run maxit */
  int maxit;                  /* iterations, >= 1 */
  hm_lobpcg_which which;
  hm_lobpcg_precond precond;
  /* Preconditioners approximate (A - sigma B)^-1 near the wanted end: they help the smallest
   * eigenvalues of a matrix whose diagonal dominates (FEM, Laplacians); T must be Hermitian
   * positive definite. */
  hm_matrix *precond_matrix;  /* JACOBI: residuals scaled by 1/|diag| of this matrix (usually the matrix of A) */
  hm_operator *precond_op;    /* USER: y = T x */
  uint64_t seed;              /* random-phase start block: entries depend on (seed, column, global row) */
  int history;                /* 1: keep the estimates and residuals of every iteration */
  int verbosity;              /* 0: silent; 1: one line per iteration on rank 0 (stdout) */
  int checkpoint_every;       /* iterations between checkpoints; 0 = off */
  double checkpoint_seconds;  /* wall seconds between checkpoints (rank 0's clock decides); 0 = off */
  hm_lobpcg_checkpoint_fn checkpoint;
  void *checkpoint_user;
  hm_lobpcg_progress_fn progress;
  void *progress_user;
  /* Asked on every rank at step boundaries (between iterations, where checkpoints are taken); must return the same value on every rank. Nonzero
   * makes the run return HM_ERR_STOPPED with its state consistent there (checkpoint it, restore
   * later). NULL = never stop. */
  int (*stop)(void *user);
  void *stop_user;
  hm_lobpcg_convergence convergence; /* the test of a converged pair (above); default AUTO */
} hm_lobpcg_options;

#ifdef __cplusplus
extern "C" {
#endif

/* nev = 1, block = 0 (automatic), tol = 1e-8, maxit = 500, smallest, no preconditioner, seed 1,
 * history on, silent, no checkpoints. */
HM_API int hm_lobpcg_options_default(hm_lobpcg_options *opt);
/* Collective. A Hermitian; B Hermitian positive definite over the same rows, or NULL (B = I).
 * A, B and the preconditioner must outlive the solver. The start block is random (opt->seed);
 * hm_lobpcg_set_start replaces its first columns. */
HM_API int hm_lobpcg_create(hm_operator *A, hm_operator *B, const hm_lobpcg_options *opt, hm_lobpcg **lob);
HM_API int hm_lobpcg_destroy(hm_lobpcg **lob);
/* The options the solver was made with (block resolved). */
HM_API int hm_lobpcg_options_get(const hm_lobpcg *lob, hm_lobpcg_options *opt);
/* Before hm_lobpcg_run: the first k columns of the start block (1 <= k <= block) are X0's; they
 * need not be independent (dependent columns are replaced by random ones). */
HM_API int hm_lobpcg_set_start(hm_lobpcg *lob, const hm_mvec *X0);
/* Collective: iterate until the nev wanted pairs converge, maxit is reached or the basis stagnates
 * (continues a restored state). Returns 0 in all three cases: read hm_lobpcg_info's reason. */
HM_API int hm_lobpcg_run(hm_lobpcg *lob);
/* Iterations done, wanted pairs converged (<= nev), why the run stopped. Any pointer may be NULL. */
HM_API int hm_lobpcg_info(const hm_lobpcg *lob, int *iterations, int *converged, hm_lobpcg_reason *reason);
/* The nev current eigenvalue estimates (ascending for smallest, descending for largest). */
HM_API int hm_lobpcg_eigenvalues(const hm_lobpcg *lob, double *values);
/* The nev relative residuals ||Ax - lambda Bx|| / (|lambda| ||Bx||) of the current estimates
 * (||Ax - lambda Bx|| / ||Bx|| where lambda = 0). */
HM_API int hm_lobpcg_residuals(const hm_lobpcg *lob, double *residuals);
/* Collective: the first k eigenvectors (B-orthonormal) into V, a block of k <= block columns over
 * A's rows and type. */
HM_API int hm_lobpcg_eigenvectors(hm_lobpcg *lob, hm_mvec *V);
/* Per-iteration history (option history = 1): rows 0..iterations (row i after i iterations; row 0
 * is the start block's Rayleigh-Ritz), nev values each, row-major: values and residuals hold
 * (iterations + 1) * nev doubles; either may be NULL. Rows before a restore are NaN. */
HM_API int hm_lobpcg_history(const hm_lobpcg *lob, double *values, double *residuals);

/* Checkpoint support: copies, made at this call, of the Ritz block X (block columns,
 * B-orthonormal) and the direction block P (block columns, the first np used, the rest zero),
 * both owned by lob (valid until the next call or hm_lobpcg_destroy), and the iteration. Any
 * output pointer may be NULL. */
HM_API int hm_lobpcg_state(hm_lobpcg *lob, hm_mvec **X, hm_mvec **P, int *np, int *iteration);
/* Collective. Restore after hm_lobpcg_create: the caller has set the blocks X and P given by
 * hm_lobpcg_state (on this lob) to the saved values; np and iteration as saved. AX, BX, AP, BP
 * and the estimates are recomputed; hm_lobpcg_run then continues. */
HM_API int hm_lobpcg_restore(hm_lobpcg *lob, int np, int iteration);

#ifdef __cplusplus
}
#endif
#endif
