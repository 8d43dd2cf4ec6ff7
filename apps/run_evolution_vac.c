/* method = evolution, [evolution] transport = vac: per time row the cross moments of the velocity
 * auto-correlation (hm_evolution_cross_moments), from the propagated state psi = U(t) phi and, per
 * direction, the propagated phi_L = U(t) v_a phi; their sums over the energies are io/evolution_vac.c's. */
#include "run_evolution.h"

void evolution_vac_row(const run_state *s, hm_matrix *H, hm_evolution *const *left, hm_mvec *const *phi_left,
                       hm_mvec *work, hm_mvec *psi, const int *dirs, double emin, double emax, evolution_rows *r,
                       int t) {
  for (int a = 0; a < r->nd; a++) {
    APP_CALL(hm_evolution_get_state(left[a], phi_left[a]));
    APP_CALL(hm_matrix_apply(s->msd_velocity[dirs[a]], phi_left[a], work));
    APP_CALL(hm_evolution_cross_moments(H, emin, emax, r->M, psi, work,
                                        r->vac + ((size_t)a * (r->T + 1) + t) * r->R * r->M));
  }
}
