/* Spectral functions A(k, E) by KPM: the LDOS machinery (kpm.h, ldos.h) with plane-wave start vectors.
 * Start vectors are plane waves on a supercell of n1 x n2 x n3 cells (rows = orbitals x cell +
 * orbital, cell = c1 + n1 (c2 + n2 c3), the order of the ti and of lattice models):
 *   |k, o> = N_c^-1/2 sum_R e^{i k.(R + tau_o)} |R, o>,
 * summed over every cell (bulk) or over the cells of one layer c3 = l (a slab's layer). The orbital
 * position tau_o is in the phase (the periodic-zone convention). A(k, E) = sum_o <k,o|delta(E - H)|k,o>
 * uses only diagonal elements, on which tau_o (any gauge the positions give) is a constant phase per
 * column: A does not depend on it. k is cartesian (reciprocal of the lattice vectors' unit, 2 pi in).
 *
 * The library route (what `method = spectral` does):
 *   1. hm_spectral_reciprocal: b_i from the lattice vectors a_i;
 *   2. hm_spectral_nearest_allowed: move each wanted point (reduced coordinates) onto the supercell's
 *      grid; k = sum_i allowed_i b_i;
 *   3. hm_kpm_create with vectors = points x orbitals, an hm_mvec of that width (complex, H's
 *      distribution) filled by hm_spectral_start_fill, hm_kpm_set_start, hm_kpm_run;
 *   4. hm_kpm_moments' mu_vec: column j x orbitals + o = <k_j,o|T_n|k_j,o> (each plane wave has norm 1);
 *      sum it over o into mu[j][M] and hm_spectral_reconstruct gives A[j][E] (energies: hm_ldos_points). */
#ifndef HAMLET_SPECTRAL_H
#define HAMLET_SPECTRAL_H
#include "export.h"
#include <stdint.h>
#include "dos.h"
#include "mvec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* b_i . a_j = 2 pi delta_ij. lattice[3i + d] = component d of a_i (cartesian); recip[3i + d] = component
 * d of b_i. Fails on a singular cell. */
HM_API int hm_spectral_reciprocal(const double lattice[9], double recip[9]);
/* The allowed point nearest to reduced coordinates frac (k = sum_i frac_i b_i) on the grid of a
 * supercell of cells[i] cells along a_i: periodic direction i: allowed_i = m / n_i; twisted (twist_i,
 * radians): (m + twist_i / 2 pi) / n_i; open: frac_i as given. boundary[i] an hm_boundary (stencil.h:
 * 0 periodic, 1 open, 2 twisted); twist[i] is read only where boundary[i] is twisted. */
HM_API int hm_spectral_nearest_allowed(const int64_t cells[3], const int boundary[3], const double twist[3],
                                const double frac[3], double allowed[3]);
/* Collective: fills the columns of V (complex, width = count x orbitals, rows = cells x orbitals in
 * the order above) with column j x orbitals + o = |k_j, o> restricted to layer[j] (c3 index, or
 * -1 = every cell). Supercell: cells[3]; lattice[9] as for hm_spectral_reciprocal; positions[3 o + d]:
 * cartesian tau_o; k[3j + d] cartesian. Each rank fills its own rows (no communication). */
HM_API int hm_spectral_start_fill(hm_mvec *V, const int64_t cells[3], int orbitals, const double lattice[9],
                           const double *positions, int count, const double *k, const int *layer);
/* Not collective: A(E) of `count` start points from their orbital-summed moments mu[count][M]
 * (mu_0 = orbitals) of scale*(H - shift): each row is reconstructed like a unit-normalised DOS (the
 * LDOS arithmetic, hm_ldos_compute) and multiplied by `orbitals`, so that each integrates to
 * `orbitals`. energy[P] and A[count][P] (P from hm_ldos_points). */
HM_API int hm_spectral_reconstruct(int moments, int count, int orbitals, const double *mu, double scale, double shift,
                            const hm_dos_options *opt, double *energy, double *A);

#ifdef __cplusplus
}
#endif
#endif
