/* KPM checkpoints in HDF5: the run's deck text, the interval, moments so far (per vector), the two
 * current block vectors (written collectively, rows by rank), seed and progress. Written to
 * "<path>.tmp" and renamed, so the previous checkpoint survives a crash during writing. */
#ifndef HAMLET_CHECKPOINT_H
#define HAMLET_CHECKPOINT_H
#include "export.h"
#include "kpm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over the context of kpm. deck_text may be NULL (stored as ""). */
HM_API int hm_checkpoint_write(hm_kpm *kpm, const char *path, const char *deck_text);
/* Collective. The deck text stored in a checkpoint (malloc'd; free() it) and the interval. */
HM_API int hm_checkpoint_read_header(hm_context *ctx, const char *path, char **deck_text,
                              double *emin, double *emax);
/* Collective. Load moments and vectors into a kpm made with hm_kpm_create on the same matrix,
 * moments, vectors and seed, and bounds HM_BOUNDS_GIVEN at the stored interval. Any mismatch is
 * an error naming the field. */
HM_API int hm_checkpoint_restore(hm_kpm *kpm, const char *path);

#ifdef __cplusplus
}
#endif
#endif
