/* Stencil blocks of the current J_a = {S, v_a} / 2 of an on-site operator S per cell. Diagonal
 * (hm_current_blocks; spin_z: +1 on up, -1 on down orbitals): J_ij = (s_i + s_j) / 2 (v_a)_ij entry by
 * entry. Any Hermitian S (hm_current_blocks_operator; spin_x, spin_y on up/down pairs): S acts within a
 * cell, so each block V_R of v_a (orbital i of cell c to j of c + R) becomes (S V_R + V_R S) / 2. The
 * velocity's boundaries, twists and phases carry over. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
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

int hm_current_blocks_operator(int orbitals, int nblocks, const double *velocity_block, const double *S,
                               double *current_block) {
  HM_CHECK(orbitals >= 1 && nblocks >= 1, HM_ERR_ARGUMENT, "orbitals = %d and nblocks = %d must be >= 1", orbitals,
           nblocks);
  HM_CHECK(velocity_block && S && current_block, HM_ERR_ARGUMENT,
           "velocity_block, S and current_block must not be NULL");
  const int n = orbitals;
  const double complex *s = (const double complex *)S, *v = (const double complex *)velocity_block;
  double largest = 0;
  for (int i = 0; i < n * n; i++) {
    HM_CHECK(isfinite(creal(s[i])) && isfinite(cimag(s[i])), HM_ERR_ARGUMENT, "S[%d][%d] = %g%+gi: must be finite",
             i / n, i % n, creal(s[i]), cimag(s[i]));
    largest = fmax(largest, cabs(s[i]));
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      HM_CHECK(cabs(s[i * n + j] - conj(s[j * n + i])) <= 1e-12 * largest, HM_ERR_ARGUMENT,
               "S is not Hermitian: S[%d][%d] = %g%+gi, S[%d][%d] = %g%+gi (an observable's S = S^dagger)", i, j,
               creal(s[i * n + j]), cimag(s[i * n + j]), j, i, creal(s[j * n + i]), cimag(s[j * n + i]));
  double complex *out = (double complex *)current_block;
  for (int b = 0; b < nblocks; b++) {
    const double complex *V = v + (size_t)b * n * n;
    double complex *J = out + (size_t)b * n * n;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double complex acc = 0;
        for (int k = 0; k < n; k++) acc += s[i * n + k] * V[k * n + j] + V[i * n + k] * s[k * n + j];
        J[i * n + j] = acc / 2;
      }
  }
  return HM_SUCCESS;
}
