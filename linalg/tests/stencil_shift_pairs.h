/* Random lattice descriptions of the stencil tests (test_stencil_free, test_stencil_real): a hop R and
 * its Hermitian partner -R appended as blocks nb and nb + 1 of the shift table, unless R or -R is
 * there already. The callers draw R and the blocks' entries themselves (each test its own stream). */
#ifndef HAMLET_STENCIL_SHIFT_PAIRS_H
#define HAMLET_STENCIL_SHIFT_PAIRS_H
#include <stdint.h>

/* Whether the pair was appended (blocks nb, nb + 1 of shift, 3 integers each). */
static int append_shift_pair(int32_t *shift, int nb, const int32_t R[3]) {
  for (int b = 0; b < nb; b++) {
    const int32_t *S = shift + 3 * b;
    if ((S[0] == R[0] && S[1] == R[1] && S[2] == R[2]) || (S[0] == -R[0] && S[1] == -R[1] && S[2] == -R[2])) return 0;
  }
  for (int a = 0; a < 3; a++) {
    shift[3 * nb + a] = R[a];
    shift[3 * (nb + 1) + a] = -R[a];
  }
  return 1;
}
#endif
