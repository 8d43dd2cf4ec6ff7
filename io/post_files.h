/* What hamlet post's recomputations (conductivity_post.c, spectral_post.c, evolution_post.c) share:
 * copying the result file they rewrite, rewriting one group of the copy, and replacing one small
 * dataset or attribute of a group by a new one. */
#ifndef HAMLET_POST_FILES_H
#define HAMLET_POST_FILES_H
#include <hdf5.h>
#include "hamlet/context.h"

/* Byte copy of a file; HM_ERR_IO naming both paths on failure. */
int hm_post_copy_file(const char *from, const char *to);
/* Replace attribute name of group g by a new one: the text, or the value where text is NULL; 0 on success. */
int hm_post_replace_attr(hid_t g, const char *name, const char *text, double value);
/* Rewrite group `group` of a copy of `in`: fill(self, g, user) replaces what it recomputed (non-zero:
 * failed); the copy (dest.post.tmp, opened with MPI-IO on this process alone, as the writers need) is
 * renamed onto dest when complete and removed otherwise, HM_ERR_IO naming dest. */
typedef int (*hm_post_fill)(hm_context *self, hid_t g, void *user);
int hm_post_rewrite(const char *in, const char *dest, const char *group, hm_post_fill fill, void *user);
/* Replace dataset name of group g by a new one (unit and description as the run wrote them); 0 on
 * success, non-zero as hm_h5_write_small. */
int hm_post_replace_dataset(hm_context *self, hid_t g, const char *name, int ndim, const hsize_t *dims,
                            const double *data, const char *unit, const char *description);
#endif
