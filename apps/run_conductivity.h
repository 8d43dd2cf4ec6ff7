/* method = conductivity: its phases, checkpoints (run_conductivity_checkpoint.c) and the single-shot expansion. */
#ifndef HAMLET_RUN_CONDUCTIVITY_H
#define HAMLET_RUN_CONDUCTIVITY_H
#include "run_state.h"

/* The phases of a conductivity run (run_conductivity.c names them). */
enum { PHASE_BUILD, PHASE_BOUNDS, PHASE_MOMENTS, PHASE_SIGMA, PHASE_CHECKPOINT, PHASE_IO, PHASES };

/* The deck's options for hm_conductivity and the single shot (moments, vectors, seed, trace, bounds) and
 * the stop poll between chunks or start vectors (run_conductivity.c). */
void conductivity_options_of(run_state *s, hm_conductivity_options *opt);

/* expansion = single_shot (run_conductivity_single_shot.c): sigma_aa(E) at T = 0 of the deck's components
 * with the velocities v[a], into /conductivity; m: the phase mark to continue from. An exit code. */
int run_conductivity_single_shot(run_state *s, hm_matrix *H, hm_matrix *const v[3], const int64_t cells[3],
                                 int orbitals, const double lattice[9], run_mark *m);

/* What a restart reads: the interval and the hm_conductivity_restore arguments (pointers into
 * values, which the caller frees). */
typedef struct {
  double emin, emax;
  int starts_done, chunks_done, block, chunk;
  double *values, *sum, *part, *per;
} conductivity_saved;

/* Values a checkpoint holds (M moments, C components, B start vectors per block, R per-vector
 * blocks: 0 for the exact trace); a solver checkpoint holds at most CONDUCTIVITY_CHECKPOINT_MAX. */
#define CONDUCTIVITY_CHECKPOINT_MAX ((size_t)1 << 30)
#define CONDUCTIVITY_BLOCK_MAX 16 /* hm_conductivity_block: min(start vectors, 16) */
size_t conductivity_checkpoint_values(int M, int C, int B, int R);
/* Collective: the state of c to the run's checkpoint; its time and energy go to `phase`. */
int conductivity_checkpoint_write(run_state *s, hm_conductivity *c, int phase);
/* Collective: the restart's checkpoint, checked against the deck's sizes (M moments, C components,
 * `starts` start vectors); a mismatch ends the run with exit 2. */
void conductivity_checkpoint_read(run_state *s, int M, int C, int starts, conductivity_saved *saved);
#endif
