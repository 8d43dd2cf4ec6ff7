/* Whether a lattice description is real: the condition for the real-arithmetic matrix-free operator
 * (HM_STENCIL_MATRIX_FREE_REAL). Real means every product term is real for every cell: the blocks'
 * entries (hoppings, on-site energies, and what physics put into them: spin-orbit, Zeeman), the
 * boundary factors (a twist other than 0 is a phase) and the Peierls phases of a field. Disorder and
 * vacancies are real always. */
#include <stdio.h>
#include "error_macros.h"
#include "hamlet/stencil.h"

int hm_stencil_complex_term(const hm_stencil *s, int *is_complex, char *term, size_t len) {
  HM_CHECK(s && is_complex && (term || len == 0), HM_ERR_ARGUMENT, "s, is_complex or term is NULL");
  HM_CHECK(s->orbitals >= 1 && s->nblocks >= 1 && s->shift && s->block, HM_ERR_ARGUMENT,
           "the description has %d orbitals, %d blocks (each must be >= 1) or no shift or block", s->orbitals,
           s->nblocks);
  *is_complex = 1;
  if (s->peierls) {
    if (len) snprintf(term, len, "a magnetic field: its Peierls phases");
    return HM_SUCCESS;
  }
  static const char axis[3] = {'x', 'y', 'z'};
  for (int a = 0; a < 3; a++)
    if (s->boundary[a] == HM_BC_TWISTED && s->twist[a] != 0) {
      if (len) snprintf(term, len, "a twist of %g rad along %c", s->twist[a], axis[a]);
      return HM_SUCCESS;
    }
  const int o = s->orbitals;
  for (int b = 0; b < s->nblocks; b++)
    for (int e = 0; e < o * o; e++) {
      const double im = s->block[2 * ((size_t)b * o * o + (size_t)e) + 1];
      if (im == 0) continue;
      const int32_t *R = s->shift + 3 * b;
      if (len)
        snprintf(term, len,
                 "the %s of R = (%d, %d, %d) from orbital %d to orbital %d has imaginary part %g (a complex "
                 "amplitude, spin-orbit or a Zeeman term with a y component)",
                 R[0] == 0 && R[1] == 0 && R[2] == 0 && e / o == e % o ? "on-site term" : "hopping", R[0], R[1], R[2],
                 e % o, e / o, im);
      return HM_SUCCESS;
    }
  *is_complex = 0;
  if (len) term[0] = '\0';
  return HM_SUCCESS;
}
