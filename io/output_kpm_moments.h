/* /kpm with moments the caller corrected (not a public function: apps only). */
#ifndef HAMLET_OUTPUT_KPM_MOMENTS_H
#define HAMLET_OUTPUT_KPM_MOMENTS_H
#include <stdint.h>
#include "hamlet/output.h"

/* Collective, like hm_output_write_kpm, but /kpm/moments and moments_per_vector are mu[M] and
 * mu_vec[R*M] (the same sizes as the kpm's) and the attribute N is n_global: e.g. the moments of
 * the remaining orbitals of a lattice with vacancies (the caller says so in its own attributes). */
int hm_output_write_kpm_moments(hm_output *out, hm_kpm *kpm, const hm_dos_options *dopt, const double *mu,
                                const double *mu_vec, int64_t n_global);
#endif
