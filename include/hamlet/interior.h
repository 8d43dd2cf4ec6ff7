/* Interior eigenpairs by Chebyshev filter diagonalization (ChebFD; Pieper, Kreutzer, Alvermann et
 * al., J. Comput. Phys. 325 (2016)): every eigenpair of a Hermitian matrix with its eigenvalue in a
 * window [emin, emax], all copies of degenerate ones. The KPM density of states estimates the
 * number of eigenvalues in the window and sizes the search space; the search block is filtered
 * with the Jackson-damped Chebyshev expansion of the window's indicator (the fused Chebyshev block
 * step on the matrix), orthonormalized (Cholesky QR twice, SVQB where the Gram matrix is
 * ill-conditioned) and Rayleigh-Ritz projected; Ritz pairs inside the window whose residual is below
 * tol times the spectral scale are locked. The run ends when no unconverged Ritz value is left in
 * the window on two passes in a row and the search space keeps a margin of Ritz values outside
 * it (so a copy of a degenerate eigenvalue cannot hide behind a full search space).
 * Arithmetic follows the matrix's type (real for real matrices); block work runs on the matrix's
 * backend, only the small projected problems on the host. */
#ifndef HAMLET_INTERIOR_H
#define HAMLET_INTERIOR_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"
#include "mvec.h"

typedef struct hm_interior_s hm_interior;

typedef struct {
  double emin, emax;     /* the window, emin < emax */
  double tol;            /* locked when ||H x - lambda x|| <= tol * max(|spectral bound|) */
  int search;            /* search space columns; 0 = max(2 * estimate, estimate + 10), at least 8 */
  int degree;            /* filter degree; 0 = from the window's width relative to the spectrum */
  int dos_moments;       /* KPM moments of the count estimate; 0 = from the window (as the degree) */
  int dos_vectors;       /* random vectors of the count estimate, >= 1 */
  int max_passes;        /* filter passes at most, >= 1 */
  double memory_limit;   /* bytes the search space may take over all ranks; 0 = half the host's memory */
  uint64_t seed;         /* random-phase start block and count estimate */
  int lanczos_steps;     /* for the spectral bounds */
  int verbosity;         /* 0: silent; 1: one line per pass on rank 0 (stdout) */
} hm_interior_options;

#ifdef __cplusplus
extern "C" {
#endif

/* window [-1, 1], tol 1e-9, search and degree automatic, 32 count vectors, 200 passes, memory
 * limit automatic, seed 1, 40 Lanczos steps, silent. */
HM_API int hm_interior_options_default(hm_interior_options *opt);
/* Collective: H Hermitian (outlives the solver); the options are checked here. */
HM_API int hm_interior_create(hm_matrix *H, const hm_interior_options *opt, hm_interior **in);
HM_API int hm_interior_destroy(hm_interior **in);
/* Collective: bounds, count estimate, then filter passes until every pair in the window is found.
 * A search space above the memory limit is refused (HM_ERR_MEMORY, naming the estimate and the
 * bytes needed) before it is allocated. Returns 0 also when max_passes ran out: read converged. */
HM_API int hm_interior_run(hm_interior *in);
/* After run: pairs found in the window (0 for an empty window), the count estimate of the DOS,
 * the filter degree, the search space columns, the passes made and whether the run converged
 * (1) or stopped at max_passes (0). Any pointer may be NULL. */
HM_API int hm_interior_info(const hm_interior *in, int *found, double *estimate, int *degree, int *search,
                            int *passes, int *converged);
/* After run, this rank's wall seconds in the filter and in the rest of the passes (orthonormalization,
 * Rayleigh-Ritz, residuals and locking), and the vector-steps the filter made (columns times degree,
 * summed over passes). Any pointer may be NULL. */
HM_API int hm_interior_timing(const hm_interior *in, double *filter_seconds, double *other_seconds,
                              double *vector_steps);
/* The spectral interval [lo, hi] the filter was built on. */
HM_API int hm_interior_bounds(const hm_interior *in, double *lo, double *hi);
/* The found eigenvalues (ascending, found doubles). */
HM_API int hm_interior_values(const hm_interior *in, double *values);
/* Their residuals ||H x - lambda x|| / max(|spectral bound|) (found doubles). */
HM_API int hm_interior_residuals(const hm_interior *in, double *residuals);
/* Collective: the eigenvectors (orthonormal, in the order of the values) into V, a block of
 * found columns over H's rows and type. */
HM_API int hm_interior_vectors(hm_interior *in, hm_mvec *V);

#ifdef __cplusplus
}
#endif
#endif
