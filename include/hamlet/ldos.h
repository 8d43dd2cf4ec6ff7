/* Local density of states (LDOS) from KPM moments of local start vectors:
 *   rho_s(E) = sum_o <s,o| delta(E - H) |s,o>
 * for sites s with `orbitals` orbitals each. Make the moments with hm_kpm_set_start, the start block
 * being the unit vectors e_(s,o) in column s*orbitals + o; hm_kpm_moments' mu_vec then holds each
 * orbital's moments <e|T_n|e> (mu_0 = 1). Every orbital's term is reconstructed exactly like a DOS
 * (hm_dos_create with one vector and the unit normalisation: same kernel, Chebyshev nodes or uniform
 * grid), so each orbital's term integrates to 1 and a site's LDOS to `orbitals`. */
#ifndef HAMLET_LDOS_H
#define HAMLET_LDOS_H
#include "export.h"
#include "dos.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of energies hm_ldos_compute returns: opt->points, or 2*moments (the Chebyshev nodes). */
HM_API int hm_ldos_points(int moments, const hm_dos_options *opt, int *points);
/* Not collective (pure arithmetic). mu_vec[(sites*orbitals)*moments]: row s*orbitals + o = the
 * moments of orbital o of site s, each with mu_0 = 1, of scale*(H - shift). Fills energy[points]
 * (ascending) and rho[points*sites] (rho[p*sites + s] = LDOS of site s at energy[p], states per
 * unit energy). opt: kernel, lorentz_lambda, points, emin, emax as for hm_dos; opt->norm is not
 * used. */
HM_API int hm_ldos_compute(int moments, int sites, int orbitals, const double *mu_vec, double scale, double shift,
                    const hm_dos_options *opt, double *energy, double *rho);

#ifdef __cplusplus
}
#endif
#endif
