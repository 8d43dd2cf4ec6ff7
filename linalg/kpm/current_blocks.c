/* Stencil blocks of the current J_a = {S, v_a} / 2 of an on-site operator S = diag(weight) per cell
 * (spin_z: +1 on up, -1 on down orbitals): S is diagonal, so J_ij = (s_i + s_j) / 2 (v_a)_ij entry by
 * entry, the same for every block; the velocity's boundaries, twists and phases carry over. */
#include <math.h>
#include "error_macros.h"
#include "hamlet/conductivity.h"

int hm_current_blocks(int orbitals, int nblocks, const double *velocity_block, const double *weight,
                      double *current_block) {
  HM_CHECK(orbitals >= 1 && nblocks >= 1, HM_ERR_ARGUMENT, "orbitals = %d and nblocks = %d must be >= 1", orbitals,
           nblocks);
  HM_CHECK(velocity_block && weight && current_block, HM_ERR_ARGUMENT,
           "velocity_block, weight and current_block must not be NULL");
  for (int i = 0; i < orbitals; i++)
    HM_CHECK(isfinite(weight[i]), HM_ERR_ARGUMENT, "weight of orbital %d = %g: must be finite", i, weight[i]);
  for (int b = 0; b < nblocks; b++)
    for (int i = 0; i < orbitals; i++)
      for (int j = 0; j < orbitals; j++) {
        const size_t e = 2 * (((size_t)b * orbitals + i) * orbitals + j);
        const double f = 0.5 * (weight[i] + weight[j]);
        current_block[e] = f * velocity_block[e];
        current_block[e + 1] = f * velocity_block[e + 1];
      }
  return HM_SUCCESS;
}
