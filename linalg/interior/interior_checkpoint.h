/* ChebFD checkpoints that restart bit for bit (internal: the driver writes them through
 * io/checkpoint_state.h). The state is what the next pass reads: the active search block X and
 * the blocks of locked vectors as the passes left them, the locked values and residuals, the bounds, the
 * count estimate, the degree, the search size, the pass count and the loop's progress marks. */
#ifndef HAMLET_INTERIOR_CHECKPOINT_H
#define HAMLET_INTERIOR_CHECKPOINT_H
#include "hamlet/interior.h"

typedef int (*hm_interior_checkpoint_fn)(hm_interior *in, void *user);

/* Before run: call fn(in, user) collectively after every `every`-th pass and where `seconds` of
 * rank 0's clock passed since the last (0: off); ask stop(stop_user) after every pass (it must
 * answer the same on every rank): nonzero ends the run with HM_ERR_STOPPED and a consistent state
 * (checkpoint it). Any function may be NULL. */
int hm_interior_set_checkpoint(hm_interior *in, int every, double seconds, hm_interior_checkpoint_fn fn, void *user,
                               int (*stop)(void *), void *stop_user);
/* The blocks (*blocks a malloc'd list of *nblocks blocks owned by in: X, then the blocks of locked
 * vectors) and the scalars (malloc'd, *nscalars). */
int hm_interior_checkpoint_state(hm_interior *in, int *nblocks, hm_mvec ***blocks, int *nscalars, double **scalars);
/* Before run: take the scalars of a checkpoint (refused, HM_ERR_INPUT, where they are of another
 * matrix size, type, window, tol or seed) and make the blocks, *nblocks of them in the order of
 * hm_interior_checkpoint_state (*blocks a malloc'd list), for the caller to fill; run then continues with the
 * next pass. */
int hm_interior_checkpoint_restore(hm_interior *in, int nscalars, const double *scalars, int *nblocks,
                                   hm_mvec ***blocks);
#endif
