/* Local Chern marker by KPM (Bianco and Resta, PRB 84, 241106 (2011)):
 *   C(r) = -(4 pi / A_cell) Im sum_o <r,o| P X Q Y P |r,o>,   Q = 1 - P,
 * with the Fermi projector P = theta(mu - H) expanded in Chebyshev polynomials of
 * H~ = scale (H - shift) (scale = 2 / (emax - emin), shift = (emax + emin) / 2) and damped by the
 * Jackson kernel:  P v = sum_{n < M} g_n c_n T_n(H~) v,  c_0 = 1 - phi / pi,
 * c_n = -2 sin(n phi) / (n pi),  phi = arccos(scale (mu - shift)) (clipped to [-1, 1]).
 * X and Y multiply each row by its position (the caller's numbers: site plus orbital position, in
 * the lattice's length unit). The marker needs open boundaries in x and y: on a periodic direction
 * X is not an operator of the torus, so callers refuse periodic x or y (or the user reads the
 * marker deep in the bulk of a large open flake). Every function is collective over H's ranks and
 * runs on H's backend (CPU or GPU) through the block operations of include/hamlet/mvec.h.
 *
 * The _temperature variants take a temperature T (energy units) for the projector's function:
 *  T = 0: the Jackson-damped step above (what the plain functions do). Robust for any mu, but it
 *    converges algebraically: against the exact step projector about 1e-4 at M = 2048 (8 x 8 flake).
 *  T > 0: the Fermi function P = 1 / (1 + exp((H - mu) / T)), expanded WITHOUT damping. It is
 *    analytic, so the series converges exponentially, like exp(-M pi T scale / sqrt(1 - x^2)) with
 *    x = scale (mu - shift); and for mu in a gap of the spectrum, at a distance d from the nearest
 *    eigenvalue, it equals the step projector to about exp(-d / T). Choose T = d / 30 and
 *    M >= ln(1 / tol) / (pi T scale) (tol 1e-11: M = 25 / (pi T scale)): on an 8 x 8 Qi-Wu-Zhang flake
 *    (d = 0.09, [emin, emax] = [-3.1, 3.1]) T = 0.003, M = 8346 give the exact projector's marker to
 *    2.4e-12 (test_marker_exact).
 *    Too few moments leave Gibbs oscillations of the undamped series (no kernel hides them). */
#ifndef HAMLET_MARKER_H
#define HAMLET_MARKER_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"
#include "mvec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PV = P V for every column (V and PV: blocks of H's type, distribution and width; distinct).
 * [emin, emax] must contain the spectrum; moments M >= 2. */
HM_API int hm_fermi_projector_apply(hm_matrix *H, double emin, double emax, double mu, int moments, const hm_mvec *V,
                             hm_mvec *PV);

/* marker[j] = -4 pi Im <e_j| P X Q Y P |e_j> for the unit vectors e_j of global rows rows[j]
 * (j < nrows, the same list on every rank; the result on every rank). Sum over a cell's orbitals and
 * divide by the cell area to get C(r). x[i], y[i]: positions of this rank's local rows (i from 0 to
 * the local row count of H's distribution). H must be complex (a real H has a zero marker).
 * Cost per row: two projector expansions (w = P e, then q = Y w - P Y w; the result is <w|X q>
 * since P is Hermitian), i.e. 2 (M - 1) products with H, done in blocks of up to 32 rows. */
HM_API int hm_marker_local(hm_matrix *H, const double *x, const double *y, double emin, double emax, double mu, int moments,
                    int nrows, const int64_t *rows, double *marker);

/* hm_fermi_projector_apply with P = f(H) at temperature T >= 0 (see above; T = 0: the same). */
HM_API int hm_fermi_projector_apply_temperature(hm_matrix *H, double emin, double emax, double mu, double temperature,
                                         int moments, const hm_mvec *V, hm_mvec *PV);

/* hm_marker_local with P = f(H) at temperature T >= 0 (see above; T = 0: the same). */
HM_API int hm_marker_local_temperature(hm_matrix *H, const double *x, const double *y, double emin, double emax, double mu,
                                double temperature, int moments, int nrows, const int64_t *rows, double *marker);

#ifdef __cplusplus
}
#endif
#endif
