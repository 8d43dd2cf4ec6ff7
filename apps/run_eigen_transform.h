/* method = lobpcg with transform = shift_invert: the results of the original pencil in /eigen. */
#ifndef HAMLET_RUN_EIGEN_TRANSFORM_H
#define HAMLET_RUN_EIGEN_TRANSFORM_H
#include "hamlet/lobpcg.h"
#include "run_state.h"
#include "shift_invert.h"

/* Collective: map LOBPCG's pairs of T back (hm_shift_invert_ritz), write /eigen and print the summary. */
void run_write_shift_invert(run_state *s, hm_output *out, hm_lobpcg *lob, hm_shift_invert *si, hm_matrix *H);
/* outer = krylov_schur: thick-restart Lanczos on the transform, /eigen written and the exit status. */
int run_krylov_schur(run_state *s, hm_matrix *H, hm_matrix *M);
#endif
