/* The Green's-function run (run_green.c, method = idr with problem = green): what it keeps per
 * energy, its checkpoints per finished energy (run_green_checkpoint.c), and the IDR(s) options it
 * shares with the linear systems of run_idr.c. */
#ifndef HAMLET_RUN_GREEN_H
#define HAMLET_RUN_GREEN_H
#include <complex.h>
#include "run_state.h"

/* The phases of method = idr (linear systems and Green's functions). */
enum { PHASE_BUILD, PHASE_SETUP, PHASE_SOLVE, PHASE_CHECKPOINT, PHASE_IO, PHASES };

/* What the Green's-function run keeps per energy e and system j = 4 site + orbital. */
typedef struct {
  int ne, ns, k;
  double complex *z, *G;            /* [ne], [ne][k] */
  double *energy, *rho;             /* [ne], [ne][ns] */
  double *iterations, *converged, *true_residual; /* [ne][k] */
  int all_converged;
  int multishift; /* solved by multi-shift IDR(s) (green_multishift_chosen) */
} green_results;

/* The deck's IDR(s) options (run_idr.c; the preconditioner is set by the caller), and Jacobi with
 * diag, a one-column block holding the operator's diagonal. */
void run_idr_options(run_state *s, hm_idr_options *opt);
void run_idr_jacobi(hm_mvec *diag, hm_idr_options *opt);
/* /solver's attributes of the deck's solver options and whether every system converged. */
void run_idr_write_solver(run_state *s, hm_output *out, int converged);
/* Collective: the Green's functions of the deck's energies and sites, written; an exit code. */
int run_green(run_state *s, hm_matrix *H);
/* Collective: checkpoint the energies 0 .. done-1 (their results as computed, bit for bit). */
int green_checkpoint_write(run_state *s, const green_results *g, int done);
/* Collective: the finished energies of the checkpoint s->args->checkpoint_path into g; *done of them. */
void green_checkpoint_restore(run_state *s, green_results *g, int *done);
/* Does this run solve all energies by one multi-shift IDR(s) ([solver] multishift; not with a
 * preconditioner: says so on rank 0 where multishift = yes)? */
int green_multishift_chosen(run_state *s);
/* Collective: every energy of g by multi-shift IDR(s) over the site vectors B (g's energies, z, G,
 * rho, iterations, converged, true residuals filled). Returns 1 if stopped (checkpoint written). */
int green_multishift(run_state *s, hm_matrix *H, hm_mvec *B, green_results *g);
#endif
