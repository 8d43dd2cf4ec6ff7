/* What hamlet post's recomputations (conductivity_post.c, spectral_post.c) share: copying the result
 * file they rewrite, and replacing one small dataset of a group by a new one. */
#ifndef HAMLET_POST_FILES_H
#define HAMLET_POST_FILES_H
#include <hdf5.h>
#include "hamlet/context.h"

/* Byte copy of a file; HM_ERR_IO naming both paths on failure. */
int hm_post_copy_file(const char *from, const char *to);
/* Replace dataset name of group g by a new one (unit and description as the run wrote them); 0 on
 * success, non-zero as hm_h5_write_small. */
int hm_post_replace_dataset(hm_context *self, hid_t g, const char *name, int ndim, const hsize_t *dims,
                            const double *data, const char *unit, const char *description);
#endif
