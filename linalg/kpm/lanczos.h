/* Spectral bounds of a Hermitian matrix from a few Lanczos steps, safe for any start vector:
 * the extreme Ritz values widened by their residual estimates and a relative margin, clipped to the
 * Gershgorin interval, and the whole Gershgorin interval where the Krylov space became invariant
 * (its Ritz values then are exact but may miss the rest of the spectrum). */
#ifndef HAMLET_LANCZOS_H
#define HAMLET_LANCZOS_H
#include <stdint.h>
#include "hamlet/matrix.h"

/* From a Gaussian start vector of the seed (orthogonal to an eigenvector with probability zero). */
int hm_lanczos_bounds(hm_matrix *H, int steps, uint64_t seed, double margin, double *emin, double *emax);
/* From the given start vector v0 (one column of H's type and rows; not changed), e.g. an adversarial
 * one in the tests; *invariant (may be NULL) is set to 1 where the Krylov space became invariant
 * before it filled the rows (the Gershgorin interval was then taken). */
int hm_lanczos_bounds_from(hm_matrix *H, int steps, const hm_mvec *v0, double margin, double *emin, double *emax,
                           int *invariant);
#endif
