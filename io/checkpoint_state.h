/* Checkpoints of the iterative solvers (LOBPCG, IDR(s)): the deck, the method, distributed blocks
 * (by global row, so any rank count restores them) and a vector of small state, written to
 * "<path>.tmp" and renamed, so a crash while writing keeps the previous checkpoint. The solver
 * says what its blocks and scalars are (hm_lobpcg_state, hm_idr_state_*); this file only stores
 * them. KPM checkpoints have their own format (include/hamlet/checkpoint.h). */
#ifndef HAMLET_CHECKPOINT_STATE_H
#define HAMLET_CHECKPOINT_STATE_H
#include "hamlet.h"
#include "checkpoint_identity.h"

/* Collective. blocks[i] is stored as "block<i>"; the file carries id, the Hamiltonian's identity
 * (NULL: none). */
int hm_state_checkpoint_write(hm_context *ctx, const char *path, const char *deck_text, const char *method,
                              int nblocks, hm_mvec *const *blocks, int nscalars, const double *scalars,
                              const hm_ham_identity *id);
/* Collective. The method must match the file's; *scalars is malloc'd (nscalars of them). */
int hm_state_checkpoint_read_scalars(hm_context *ctx, const char *path, const char *method, int *nscalars,
                                     double **scalars);
/* Collective. The block count must match the file's (an error names what differs). */
int hm_state_checkpoint_read_blocks(hm_context *ctx, const char *path, int nblocks, hm_mvec *const *blocks);
/* Collective: the method (malloc'd) of a solver checkpoint. */
int hm_state_checkpoint_method(hm_context *ctx, const char *path, char **method);
/* Collective: the deck text (malloc'd) of a KPM or a solver checkpoint, and whether it is a KPM one. */
int hm_checkpoint_read_deck(hm_context *ctx, const char *path, char **deck_text, int *is_kpm);
#endif
