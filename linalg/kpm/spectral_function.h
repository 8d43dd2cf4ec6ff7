/* Spectral functions A(k, E) by KPM (internal to hamlet: the app and hamlet post use it).
 * Start vectors are plane waves on a supercell of n1 x n2 x n3 cells (rows = orbitals x cell +
 * orbital, cell = c1 + n1 (c2 + n2 c3), the order of the ti and of lattice models):
 *   |k, o> = N_c^-1/2 sum_R e^{i k.(R + tau_o)} |R, o>,
 * summed over every cell (bulk) or over the cells of one layer c3 = l (a slab's layer). The orbital
 * position tau_o is in the phase (the periodic-zone convention). A(k, E) = sum_o <k,o|delta(E - H)|k,o>
 * uses only diagonal elements, on which tau_o (any gauge the positions give) is a constant phase per
 * column: A does not depend on it. k is cartesian (reciprocal of the lattice vectors' unit, 2 pi in). */
#ifndef HAMLET_SPECTRAL_FUNCTION_H
#define HAMLET_SPECTRAL_FUNCTION_H
#include <stdint.h>
#include "hamlet/dos.h"
#include "hamlet/mvec.h"

/* Columns of one KPM block of the app's batches (points x orbitals): bounds a batch's memory; the
 * ti's GPU traversal tiles are cut for it. */
enum { HM_SPECTRAL_MAX_WIDTH = 64 };

typedef struct {
  int64_t cells[3];        /* n1, n2, n3 */
  int orbitals;
  double lattice[9];       /* a1, a2, a3 (rows), cartesian */
  const double *positions; /* [orbitals][3] cartesian, within the cell */
} hm_spectral_geometry;

/* b_i . a_j = 2 pi delta_ij: recip[3i + d] = component d of b_i. Fails on a singular cell. */
int hm_spectral_reciprocal(const double lattice[9], double recip[9]);
/* The allowed point nearest to reduced coordinates frac (k = sum_i frac_i b_i) on the supercell's
 * grid: periodic direction i: frac_i = m / n_i; twisted (twist theta_i, radians): (m + theta_i / 2 pi)
 * / n_i; open: frac_i as given. boundary[i] as hm_boundary (0 periodic, 1 open, 2 twisted). */
void hm_spectral_nearest_allowed(const int64_t cells[3], const int boundary[3], const double twist[3],
                                 const double frac[3], double allowed[3]);
/* Collective: fills the columns of V (width = count x orbitals, V's type complex, rows as above)
 * with column j * orbitals + o = |k_j, o> restricted to layer[j] (c3 index, or -1 = every cell);
 * k[3j + d] cartesian. Each rank fills its own rows (no communication). */
int hm_spectral_start_fill(hm_mvec *V, const hm_spectral_geometry *g, int count, const double *k, const int *layer);
/* Not collective: A(E) of `count` start points from their orbital-summed moments mu[count][M]
 * (mu_0 = orbitals) of scale*(H - shift): each row is reconstructed like a unit-normalised DOS (the
 * LDOS arithmetic, hm_ldos_compute) and multiplied by `orbitals`, so that each integrates to
 * `orbitals`. energy[P] and A[count][P] (P from hm_ldos_points). */
int hm_spectral_reconstruct(int moments, int count, int orbitals, const double *mu, double scale, double shift,
                            const hm_dos_options *opt, double *energy, double *A);
#endif
