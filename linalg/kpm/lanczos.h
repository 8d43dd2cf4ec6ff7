/* Spectral bounds of a Hermitian matrix from a few Lanczos steps (extreme Ritz values widened by
 * their residual estimates and a relative margin, clipped to the Gershgorin interval). */
#ifndef HAMLET_LANCZOS_H
#define HAMLET_LANCZOS_H
#include <stdint.h>
#include "hamlet/matrix.h"

int hm_lanczos_bounds(hm_matrix *H, int steps, uint64_t seed, double margin, double *emin, double *emax);
#endif
