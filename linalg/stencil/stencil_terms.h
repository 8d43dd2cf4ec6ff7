/* The terms of include/hamlet/stencil.h's product as inline functions that the assembler, the CPU
 * kernels and the CUDA kernels share, so the three apply one formula. */
#ifndef HAMLET_STENCIL_TERMS_H
#define HAMLET_STENCIL_TERMS_H
#include <math.h>
#include <stdint.h>
#include "random.h"

#define HM_STENCIL_FN HM_RANDOM_FN

/* The scalars of an hm_stencil (no pointers): what every product needs besides the blocks. */
typedef struct {
  int64_t n[3];
  int orbitals, nblocks;
  int boundary[3];
  double twist[3];
  double disorder_w;
  uint64_t disorder_seed, disorder_stream;
  int disorder_per_site;
  double vacancy_p;
  uint64_t vacancy_seed, vacancy_stream;
  int field; /* Peierls phases present */
} hm_stencil_scalars;

/* Coordinate c + r on a direction of n cells: the wrapped coordinate and the number of periods w
 * it wrapped by (floor division). Returns 0 when the hop leaves an open boundary. */
HM_STENCIL_FN int hm_stencil_wrap(int64_t c, int32_t r, int64_t n, int boundary, int64_t *target, int64_t *w) {
  const int64_t t = c + r;
  const int64_t q = t >= 0 ? t / n : -((-t + n - 1) / n);
  *w = q;
  *target = t - q * n;
  return q == 0 || boundary != 1 /* HM_BC_OPEN */;
}

HM_STENCIL_FN int hm_stencil_vacant(const hm_stencil_scalars *s, uint64_t site) {
  return s->vacancy_p > 0.0 && hm_random_uniform(s->vacancy_seed, s->vacancy_stream, site) < s->vacancy_p;
}

/* d(c, i): the random on-site energy of row `row` of site `site`. */
HM_STENCIL_FN double hm_stencil_disorder(const hm_stencil_scalars *s, uint64_t site, uint64_t row) {
  if (s->disorder_w == 0.0) return 0.0;
  const uint64_t counter = s->disorder_per_site ? site : row;
  return s->disorder_w * (hm_random_uniform(s->disorder_seed, s->disorder_stream, counter) - 0.5);
}

/* The phase (radians) of hop (b, i, j) from cell c whose target wrapped by w[3] periods: the twists
 * and, with a field, 2 pi (G . c + sum over wrapped a of (w_a V_a . c + K_a)). G = peierls of the
 * entry (3 doubles) and wrap[a] = wrap_phase of (a, b, j) (4 doubles: V, K); both NULL without a
 * field. */
HM_STENCIL_FN double hm_stencil_phase(const hm_stencil_scalars *s, const int64_t c[3], const int64_t w[3],
                                      const double *G, const double *const wrap[3]) {
  double turns = 0.0, radians = 0.0;
  for (int a = 0; a < 3; a++) {
    if (w[a] != 0 && s->boundary[a] == 2 /* HM_BC_TWISTED */) radians += s->twist[a] * (double)w[a];
    if (G) turns += G[a] * (double)c[a];
  }
  if (G)
    for (int a = 0; a < 3; a++)
      if (w[a] != 0)
        turns += (double)w[a] * (wrap[a][0] * (double)c[0] + wrap[a][1] * (double)c[1] + wrap[a][2] * (double)c[2]) +
                 wrap[a][3];
  turns -= floor(turns); /* large cell indices: keep the fraction exact before scaling */
  /* 6.283185307179586 is 2 pi as a double. */
  return radians + 6.283185307179586 * turns;
}
#endif
