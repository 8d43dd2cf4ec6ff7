/* Density of states from KPM moments: damping kernel (Jackson or Lorentz), reconstruction on the
 * Chebyshev nodes with FFTW's DCT, optional interpolation onto a uniform energy grid, and the
 * stochastic error bar from the spread over the random vectors. */
#ifndef HAMLET_DOS_H
#define HAMLET_DOS_H
#include "export.h"
#include <stdint.h>

typedef enum { HM_KERNEL_JACKSON = 0, HM_KERNEL_LORENTZ = 1 } hm_kpm_kernel;
typedef enum { HM_NORM_STATES = 0, HM_NORM_UNIT = 1 } hm_dos_norm; /* integrates to N, or to 1 */

typedef struct {
  hm_kpm_kernel kernel;
  double lorentz_lambda; /* Lorentz kernel parameter (default 4) */
  int points;            /* 0: the 2M Chebyshev nodes; > 0: a uniform grid of this many energies */
  double emin, emax;     /* uniform grid ends; both 0: the spectral interval of the moments */
  hm_dos_norm norm;
} hm_dos_options;

typedef struct hm_dos_s hm_dos;

#ifdef __cplusplus
extern "C" {
#endif

HM_API int hm_dos_options_default(hm_dos_options *opt);
/* Not collective (pure arithmetic). mu_vec[R*M]: per-vector moments (row r = vector r) of
 * scale*(H - shift), each normalised to mu_r[0] = 1; n_global = N of H. */
HM_API int hm_dos_create(int moments, int vectors, const double *mu_vec, double scale, double shift,
                  int64_t n_global, const hm_dos_options *opt, hm_dos **dos);
HM_API int hm_dos_destroy(hm_dos **dos);
HM_API int hm_dos_size(const hm_dos *dos, int *points);
/* Copy out energy[points] (ascending), rho[points], error[points] (any may be NULL). */
HM_API int hm_dos_get(const hm_dos *dos, double *energy, double *rho, double *error);
/* The damping factors g[0..M-1] of a kernel (exposed for tests and users). */
HM_API int hm_kpm_kernel_factors(hm_kpm_kernel kernel, double lorentz_lambda, int moments, double *g);

#ifdef __cplusplus
}
#endif
#endif
