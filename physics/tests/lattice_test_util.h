/* Test-side references for lattice models: the dense matrix of an hm_stencil written straight from
 * the formula in include/hamlet/stencil.h (not through linalg), and a model's Bloch matrix. */
#ifndef HAMLET_LATTICE_TEST_UTIL_H
#define HAMLET_LATTICE_TEST_UTIL_H
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "lattice.h"
#include "random.h"

/* Dense column-major N x N matrix of s (N = orbitals * sites), malloc'd. */
static inline double complex *lattice_dense(const hm_stencil *s, int64_t *N_out) {
  const int64_t *n = s->cells;
  const int no = s->orbitals;
  const int64_t sites = n[0] * n[1] * n[2], N = sites * no;
  double complex *H = calloc((size_t)(N * N), sizeof *H);
  const double complex *block = (const double complex *)s->block;
  for (int64_t site = 0; site < sites; site++) {
    const int64_t c[3] = {site % n[0], (site / n[0]) % n[1], site / (n[0] * n[1])};
    for (int b = 0; b < s->nblocks; b++) {
      int64_t t[3], w[3];
      double complex f = 1;
      int dropped = 0;
      for (int a = 0; a < 3; a++) {
        t[a] = c[a] + s->shift[3 * b + a];
        w[a] = (int64_t)floor((double)t[a] / (double)n[a]);
        if (w[a] != 0 && s->boundary[a] == HM_BC_OPEN) dropped = 1;
        if (w[a] != 0 && s->boundary[a] == HM_BC_TWISTED) f *= cexp(I * s->twist[a] * (double)w[a]);
        t[a] -= w[a] * n[a];
      }
      if (dropped) continue;
      const int64_t target = t[0] + n[0] * (t[1] + n[1] * t[2]);
      for (int i = 0; i < no; i++)
        for (int j = 0; j < no; j++) {
          double phase = 0;
          if (s->peierls) {
            const double *G = s->peierls + (((size_t)b * no + i) * no + j) * 3;
            phase = G[0] * c[0] + G[1] * c[1] + G[2] * c[2];
            for (int a = 0; a < 3; a++) {
              if (!w[a]) continue;
              const double *V = s->wrap_phase + (((size_t)a * s->nblocks + b) * no + j) * 4;
              phase += w[a] * (V[0] * c[0] + V[1] * c[1] + V[2] * c[2]) + V[3];
            }
          }
          H[(target * no + j) * N + site * no + i] += f * block[((size_t)b * no + i) * no + j] * cexp(2 * M_PI * I * phase);
        }
    }
    for (int i = 0; i < no; i++) {
      const int64_t row = site * no + i;
      uint64_t counter = s->disorder_per_site ? (uint64_t)site : (uint64_t)row;
      if (s->disorder_w != 0)
        H[row * N + row] += s->disorder_w * (hm_random_uniform(s->disorder_seed, s->disorder_stream, counter) - 0.5);
    }
  }
  if (s->vacancy_p > 0)
    for (int64_t site = 0; site < sites; site++)
      if (hm_random_uniform(s->vacancy_seed, s->vacancy_stream, (uint64_t)site) < s->vacancy_p)
        for (int i = 0; i < no; i++)
          for (int64_t k = 0; k < N; k++) H[(site * no + i) * N + k] = H[k * N + site * no + i] = 0;
  *N_out = N;
  return H;
}

/* H(k) = sum_R H(R) exp(2 pi i k . R), k in reciprocal-lattice units (turns per cell), row-major. */
static inline void lattice_bloch(const hm_lattice *L, const double k[3], double complex *Hk) {
  const int n = L->orbitals;
  for (int e = 0; e < n * n; e++) Hk[e] = 0;
  for (int b = 0; b < L->nblocks; b++) {
    const int32_t *R = L->shift + 3 * b;
    double complex phase = cexp(2 * M_PI * I * (k[0] * R[0] + k[1] * R[1] + k[2] * R[2]));
    for (int e = 0; e < n * n; e++) Hk[e] += L->block[(size_t)b * n * n + e] * phase;
  }
}
#endif
