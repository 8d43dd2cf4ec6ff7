/* method = lobpcg with transform = shift_invert: the results of the original pencil in /eigen. */
#ifndef HAMLET_RUN_LOBPCG_TRANSFORM_H
#define HAMLET_RUN_LOBPCG_TRANSFORM_H
#include "hamlet/lobpcg.h"
#include "run_state.h"
#include "shift_invert.h"

/* Collective: map LOBPCG's pairs of T back (hm_shift_invert_ritz), write /eigen and print the summary. */
void run_write_shift_invert(run_state *s, hm_output *out, hm_lobpcg *lob, hm_shift_invert *si, hm_matrix *H);
/* /eigen/values, residuals, residuals_norm (nev each) and, where V is not NULL, vectors. */
void run_write_pairs(run_state *s, hm_output *out, const double *values, const double *rel, const double *nrm,
                     hm_mvec *V);
/* What run_write_transform read of the transform, for the summary lines. */
typedef struct {
  const char *method; /* factorization or iterative inner solver */
  int definite, iterative;
  int64_t solves, inner_iterations;
  double inner_worst;
} run_transform_info;
/* The transform's attributes of /eigen, shared by both outer methods (outer: the method that ran,
 * "lobpcg" or "krylov_schur", beside the deck's outer_requested; op: the operator the outer method
 * iterates on; norms: ||A||_est, ||B||_est). */
void run_write_transform(run_state *s, hm_output *out, hm_shift_invert *si, const char *outer, const char *op,
                         const double *norms, run_transform_info *ti);
/* Rank 0: the inner solves (iterative), the eigenvalues and the worst norm-relative residual. */
void run_print_transform_summary(const run_state *s, const run_transform_info *ti, const double *values,
                                 const double *nrm);
/* Whether the deck's outer (krylov_schur, lobpcg or auto; a restart: its checkpoint's method) runs Krylov-Schur. */
int run_outer_is_krylov_schur(const run_state *s);
/* Thick-restart Lanczos on the transform si (destroyed here), the setup phase begun at m (freed
 * here; the caller set the phases of run_lobpcg.c): /eigen written, returns the exit status. */
int run_krylov_schur(run_state *s, hm_matrix *H, hm_shift_invert *si, run_mark *m);
#endif
