/* Velocity blocks v_a = i[H, X_a] of a stencil: <i,c|v|j,c+R> = i (x_j(c+R) - x_i(c)) <i,c|H|j,c+R>,
 * the displacement being the bond's own (R . a + tau_j - tau_i), so the result is again a stencil. */
#include <math.h>
#include "error_macros.h"
#include "hamlet/conductivity.h"

int hm_velocity_blocks(int orbitals, int nblocks, const int32_t *shift, const double *block, const double *lattice,
                       const double *positions, int direction, double *velocity_block) {
  HM_CHECK(orbitals >= 1 && nblocks >= 1, HM_ERR_ARGUMENT, "orbitals = %d, nblocks = %d: both must be >= 1", orbitals,
           nblocks);
  HM_CHECK(shift && block && lattice && positions && velocity_block, HM_ERR_ARGUMENT,
           "shift, block, lattice, positions and velocity_block must not be NULL");
  HM_CHECK(direction >= 0 && direction < 3, HM_ERR_ARGUMENT, "direction = %d: allowed are 0 (x), 1 (y), 2 (z)",
           direction);
  for (int k = 0; k < 9; k++)
    HM_CHECK(isfinite(lattice[k]), HM_ERR_ARGUMENT, "lattice[%d] = %g: lattice vectors must be finite", k, lattice[k]);
  for (int i = 0; i < 3 * orbitals; i++)
    HM_CHECK(isfinite(positions[i]), HM_ERR_ARGUMENT, "positions[%d] = %g: orbital positions must be finite", i,
             positions[i]);
  const size_t oo = (size_t)orbitals * (size_t)orbitals;
  for (int b = 0; b < nblocks; b++) {
    double cell = 0; /* (R_b . a)_direction */
    for (int k = 0; k < 3; k++) cell += shift[3 * b + k] * lattice[3 * k + direction];
    for (int i = 0; i < orbitals; i++)
      for (int j = 0; j < orbitals; j++) {
        const double d = cell + positions[3 * j + direction] - positions[3 * i + direction];
        const size_t e = 2 * (b * oo + (size_t)i * orbitals + j);
        const double re = block[e], im = block[e + 1];
        velocity_block[e] = -d * im; /* i d (re + i im) */
        velocity_block[e + 1] = d * re;
      }
  }
  return HM_SUCCESS;
}
