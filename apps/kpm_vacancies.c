/* A lattice's vacant sites are decoupled zero modes of H (their rows and columns are zero). For a
 * random-phase vector (|v_i|^2 = 1 on every row) each vacant orbital adds exactly T_n(x0),
 * x0 = scale * (0 - shift), to <v|T_n(scale (H - shift))|v>. Removing that and dividing by the
 * remaining orbitals gives, per vector, the moments of the lattice without its vacant sites. */
#include <stddef.h>
#include "kpm_vacancies.h"

void kpm_remove_vacant(int moments, int vectors, double *mu, double *mu_vec, double scale, double shift,
                       int64_t n_global, int64_t vacant) {
  const double x0 = -scale * shift, n = (double)n_global, v = (double)vacant, left = n - v;
  double t_prev = 1, t = x0; /* T_0(x0), T_1(x0) */
  for (int k = 0; k < moments; k++) {
    const double tk = k == 0 ? 1 : t;
    for (int r = 0; r < vectors; r++) mu_vec[(size_t)r * moments + k] = (n * mu_vec[(size_t)r * moments + k] - v * tk) / left;
    mu[k] = (n * mu[k] - v * tk) / left;
    if (k >= 1) { /* T_(k+1) = 2 x0 T_k - T_(k-1) */
      const double next = 2 * x0 * t - t_prev;
      t_prev = t;
      t = next;
    }
  }
}
