/* hamlet post for /spectral: A(k, E) anew from a result's stored moments (new energy grid or kernel),
 * written to a copy or in place through a temporary copy renamed when complete. Serial. */
#ifndef HAMLET_SPECTRAL_POST_H
#define HAMLET_SPECTRAL_POST_H
#include <stddef.h>
#include "conductivity_post.h" /* hm_post_args */

/* Is `path` an HDF5 file with a /spectral group? (0 when not, or not readable: the caller goes on.) */
int hm_spectral_post_applies(const char *path);
/* a->nenergy > 0: a uniform grid [emin, emax]; else the run's grid. a->ntemp must be 0.
 * HM_ERR_INPUT: not a spectral result or temperatures given; HM_ERR_IO: cannot write. */
int hm_spectral_post(const hm_post_args *a, char *summary, size_t len);
#endif
