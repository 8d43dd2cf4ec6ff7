/* LOBPCG checkpoints that restart bit for bit (internal: the driver writes them through
 * io/checkpoint_state.h). The state is what the next iteration reads: [X P] and its images A[X P]
 * (and B[X P] for a generalized problem) as the iteration updated them, not recomputed; the Ritz
 * values; np and the iteration; the history rows so far. */
#ifndef HAMLET_LOBPCG_CHECKPOINT_H
#define HAMLET_LOBPCG_CHECKPOINT_H
#include "hamlet/lobpcg.h"

/* The blocks (owned by lob: 2 or 3, each 2*block columns) and the scalars (malloc'd). */
int hm_lobpcg_checkpoint_state(hm_lobpcg *lob, int *nblocks, hm_mvec *blocks[3], int *nscalars, double **scalars);
/* Collective, after the blocks of hm_lobpcg_checkpoint_state were filled from a checkpoint: take
 * the scalars; refuses (HM_ERR_INPUT) sizes of another run, and an X block that is not finite
 * or not of full rank (X^H B X must be the identity). */
int hm_lobpcg_checkpoint_restore(hm_lobpcg *lob, int nscalars, const double *scalars);
#endif
