/* Time evolution psi(t + dt) = exp(-i H dt) psi(t) of a block of complex vectors by the Chebyshev
 * expansion of the propagator: with H = a Ht + b, Ht's spectrum in [-1, 1],
 *   exp(-i H dt) = e^{-i b dt} sum_n (2 - delta_n0) (-i)^n J_n(a dt) T_n(Ht),
 * summed up to the order whose neglected tail is below the stated accuracy. Units: hbar = 1 and the
 * energy unit of H (t in 1 / energy). The terms run on the fused KPM step (CPU or GPU, over MPI). */
#ifndef HAMLET_EVOLUTION_H
#define HAMLET_EVOLUTION_H
#include "export.h"
#include <stdint.h>
#include "kpm.h"
#include "matrix.h"

typedef struct hm_evolution_s hm_evolution;

typedef struct {
  double dt;               /* time step, > 0 */
  double accuracy;         /* bound on the neglected Chebyshev tail per step and unit-norm column, [1e-15, 0.1] */
  hm_bounds_method bounds; /* how the spectral interval is found (as for KPM) */
  int lanczos_steps;       /* for HM_BOUNDS_LANCZOS */
  double bounds_margin;    /* relative widening of the interval (Lanczos and Gershgorin) */
  double emin, emax;       /* for HM_BOUNDS_GIVEN: an interval that contains the spectrum */
  uint64_t seed;           /* of the Lanczos start vector */
} hm_evolution_options;

#ifdef __cplusplus
extern "C" {
#endif

HM_API int hm_evolution_options_default(hm_evolution_options *opt);
/* Collective: find the interval and the expansion for `vectors` complex columns over H's rows; the
 * state starts at zero (set it with hm_evolution_set_state). H must be Hermitian and outlive ev. */
HM_API int hm_evolution_create(hm_matrix *H, int vectors, const hm_evolution_options *opt, hm_evolution **ev);
HM_API int hm_evolution_destroy(hm_evolution **ev);
/* The state := psi (complex, `vectors` columns, H's distribution; copied); the clock restarts at 0. */
HM_API int hm_evolution_set_state(hm_evolution *ev, const hm_mvec *psi);
/* psi := the current state (a complex block shaped as for hm_evolution_set_state). */
HM_API int hm_evolution_get_state(const hm_evolution *ev, hm_mvec *psi);
/* Collective: advance the state by `steps` time steps (steps >= 0). */
HM_API int hm_evolution_step(hm_evolution *ev, int steps);
/* The columns, steps done, the time reached (steps done x dt) and the expansion order per step
 * (terms summed). Any pointer may be NULL. */
HM_API int hm_evolution_info(const hm_evolution *ev, int *vectors, int *steps_done, double *time, int *order);
/* The interval [emin, emax] that was mapped onto [-1, 1]. */
HM_API int hm_evolution_interval(const hm_evolution *ev, double *emin, double *emax);
/* Collective: norms[j] = ||psi_j|| of the current state (`vectors` doubles), the unitarity check. */
HM_API int hm_evolution_norms(const hm_evolution *ev, double *norms);

/* Collective: from now on each step also advances chi(t) = [X, U(t)] psi(0), the commutator of an
 * operator X (a position, for the Kubo-Greenwood mean-square displacement) with the propagator, given
 * V = i[H, X] (for a position: the velocity; Hermitian, complex also for a real H, H's distribution;
 * it must outlive ev), so that [X, H] = i V:
 *   chi(t + dt) = U(dt) chi(t) + [X, U(dt)] psi(t),
 *   [X, U(dt)] = sum_n c_n [X, T_n(Ht)], [X, T_{n+1}] = 2 [X, Ht] T_n + 2 Ht [X, T_n] - [X, T_{n-1}],
 * with [X, Ht] = i V scaled as Ht is. X itself is never formed, so periodic boundaries need no care.
 * Each term costs two more products with H and one with V. chi is zero after this call and after
 * hm_evolution_set_state (the clock at 0). */
HM_API int hm_evolution_set_commutator(hm_evolution *ev, hm_matrix *V);
/* chi := the given block (a restart: after hm_evolution_set_state); shaped as the state. */
HM_API int hm_evolution_set_commutator_state(hm_evolution *ev, const hm_mvec *chi);
/* chi := the current [X, U(t)] psi(0) (a complex block shaped as the state). */
HM_API int hm_evolution_get_commutator_state(const hm_evolution *ev, hm_mvec *chi);

/* Collective: mu[j M + n] = Re <A_j|T_n(Ht)|B_j> for n < moments and every column j of the complex
 * blocks A and B (same width, H's distribution), with Ht = scale (H - shift), scale = 2 / (emax - emin),
 * shift = (emax + emin) / 2 (hm_kpm's mapping of [emin, emax] onto [-1, 1]; the interval must hold H's
 * spectrum). Undamped and unnormalised: with A = U(t) phi and B = V U(t) V phi they are the moments of
 * the velocity auto-correlation Re <phi|delta(E - H) V(t) V(0)|phi>, V(t) = U^+(t) V U(t). One
 * recurrence on B (moments - 1 products with H) and one global reduction. */
HM_API int hm_evolution_cross_moments(hm_matrix *H, double emin, double emax, int moments, const hm_mvec *A,
                                      const hm_mvec *B, double *mu);

#ifdef __cplusplus
}
#endif
#endif
