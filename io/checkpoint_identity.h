/* The identity of the Hamiltonian a checkpoint belongs to: a hash of the deck's [hamiltonian]
 * section (keys normalised and sorted, plus the size and content of the files it names) and H
 * applied to a fixed probe vector p (counter-based random phases, so the same on any rank count):
 * |Hp| and <p|Hp>. A restart recomputes both from the deck it restarts and refuses a checkpoint
 * of another Hamiltonian (an edited /input, a changed matrix or grid file) with HM_ERR_INPUT. */
#ifndef HAMLET_CHECKPOINT_IDENTITY_H
#define HAMLET_CHECKPOINT_IDENTITY_H
#include <stdint.h>
#include "hamlet.h"

typedef struct {
  uint64_t deck_hash;                 /* FNV-1a 64 of the normalised section and its files */
  double probe_norm, probe_rayleigh;  /* |Hp|, Re <p|Hp> */
} hm_ham_identity;

/* Collective: the identity of H built from deck_text (rank 0 reads the named files). */
int hm_ham_identity_compute(hm_matrix *H, const char *deck_text, hm_ham_identity *id);
/* The identity is a value the caller keeps (one per Hamiltonian, no process-wide state) and passes
 * to each checkpoint writer: hm_kpm_checkpoint_write_identified, hm_state_checkpoint_write. */
/* Collective: hm_checkpoint_write (include/hamlet/checkpoint.h) whose file carries id (NULL: none). */
int hm_kpm_checkpoint_write_identified(hm_kpm *kpm, const char *path, const char *deck_text,
                                       const hm_ham_identity *id);
/* Collective: the checkpoint at path was written for the Hamiltonian `mine`, else HM_ERR_INPUT
 * naming what differs. */
int hm_checkpoint_identity_check(hm_context *ctx, const char *path, const hm_ham_identity *mine);
#endif
