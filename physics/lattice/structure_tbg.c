/* Commensurate twisted bilayer graphene cells. The bottom layer's lattice point n1 a1 + n2 a2 lies
 * in the cell t1 = m a1 + (m + r) a2, t2 = -(m + r) a1 + (2m + r) a2 where its fractional
 * coordinates (n1, n2) adj(T) / D are in [0, 1); integers decide it, so each layer has exactly D =
 * 3m^2 + 3mr + r^2 points. The top layer is the bottom one turned by theta, which takes (m + r) a1 +
 * m a2 onto t1: in its own basis the cell is T' = [[m + r, m], [-m, 2m + r]]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "structure.h"

void hm_tbg_params_default(hm_tbg_params *p) {
  p->a = 2.46;
  p->d_aa = p->d_ab = 3.35;
  p->vacuum = 20;
}

/* One layer's 2 D atoms: the lattice points with D f = n adj in [0, D)^2, A at f and B at f + delta
 * (wrapped), at height z(r). adj is the cell matrix's adjugate in the layer's own basis. */
static void fill_layer(int m, int r, const long adj[2][2], const double delta[2], const double t[2][3],
                       const hm_tbg_params *p, const double G[3][2], double sign, int64_t *count, hm_structure *s) {
  const long D = 3L * m * m + 3L * m * r + (long)r * r, range = 3L * m + 2L * r;
  for (long n1 = -range; n1 <= range; n1++)
    for (long n2 = -range; n2 <= range; n2++) {
      const long F1 = n1 * adj[0][0] + n2 * adj[1][0], F2 = n1 * adj[0][1] + n2 * adj[1][1];
      if (F1 < 0 || F1 >= D || F2 < 0 || F2 >= D) continue;
      for (int b = 0; b < 2; b++) {
        double f1 = (double)F1 / (double)D + b * delta[0], f2 = (double)F2 / (double)D + b * delta[1];
        f1 -= floor(f1);
        f2 -= floor(f2);
        double *x = s->pos + 3 * *count;
        x[0] = f1 * t[0][0] + f2 * t[1][0];
        x[1] = f1 * t[0][1] + f2 * t[1][1];
        double sum = 0;
        for (int j = 0; j < 3; j++) sum += cos(G[j][0] * x[0] + G[j][1] * x[1]);
        const double d = p->d_ab + (p->d_aa - p->d_ab) * (1.0 / 3 + 2.0 / 9 * sum);
        x[2] = p->vacuum / 2 + sign * d / 2;
        snprintf(s->species[*count], HM_SPECIES_LEN, "C");
        (*count)++;
      }
    }
}

int hm_structure_tbg(int m, int r, const hm_tbg_params *p, hm_structure *s, double *theta_degrees) {
  memset(s, 0, sizeof *s);
  HM_CHECK(m >= 1 && r >= 1 && m <= 2000 && r <= 2000, HM_ERR_ARGUMENT,
           "twisted bilayer (m, r) = (%d, %d): want integers 1 <= m, r <= 2000", m, r);
  HM_CHECK(p->a > 0 && p->d_aa > 0 && p->d_ab > 0 && isfinite(p->a + p->d_aa + p->d_ab), HM_ERR_ARGUMENT,
           "twisted bilayer: lattice constant %g and distances %g, %g must be positive", p->a, p->d_aa, p->d_ab);
  HM_CHECK(p->vacuum > 2 * fmax(p->d_aa, p->d_ab), HM_ERR_ARGUMENT,
           "twisted bilayer: the cell height %g must exceed twice the interlayer distance", p->vacuum);
  const long D = 3L * m * m + 3L * m * r + (long)r * r;
  const double c = (3.0 * m * m + 3.0 * m * r + 0.5 * r * r) / (double)D, theta = acos(c);
  const double a1[2] = {p->a, 0}, a2[2] = {p->a / 2, p->a * sqrt(3) / 2};
  double t[2][3] = {{m * a1[0] + (m + r) * a2[0], m * a1[1] + (m + r) * a2[1], 0},
                    {-(m + r) * a1[0] + (2 * m + r) * a2[0], -(m + r) * a1[1] + (2 * m + r) * a2[1], 0}};
  /* reciprocal vectors of (t1, t2): b_i . t_j = 2 pi delta_ij; G = b1, b2, -(b1 + b2) */
  const double area = t[0][0] * t[1][1] - t[0][1] * t[1][0];
  const double b1[2] = {2 * M_PI * t[1][1] / area, -2 * M_PI * t[1][0] / area};
  const double b2[2] = {-2 * M_PI * t[0][1] / area, 2 * M_PI * t[0][0] / area};
  const double G[3][2] = {{b1[0], b1[1]}, {b2[0], b2[1]}, {-b1[0] - b2[0], -b1[1] - b2[1]}};
  s->natoms = 4 * D;
  s->pos = malloc(sizeof(double) * 3 * (size_t)s->natoms);
  s->species = calloc((size_t)s->natoms, sizeof *s->species);
  if (!s->pos || !s->species) {
    hm_structure_free(s);
    return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "twisted bilayer: %ld atoms", 4 * D);
  }
  const long adj_bottom[2][2] = {{2L * m + r, -(long)(m + r)}, {(long)m + r, m}};
  const long adj_top[2][2] = {{2L * m + r, -(long)m}, {m, (long)m + r}};
  const double delta_bottom[2] = {(3.0 * m + 2.0 * r) / (3.0 * D), -r / (3.0 * D)};
  const double delta_top[2] = {(3.0 * m + r) / (3.0 * D), r / (3.0 * D)};
  int64_t count = 0;
  fill_layer(m, r, adj_bottom, delta_bottom, (const double(*)[3])t, p, G, -1, &count, s);
  const int64_t bottom = count;
  fill_layer(m, r, adj_top, delta_top, (const double(*)[3])t, p, G, 1, &count, s);
  if (bottom != 2 * D || count != 4 * D) {
    hm_structure_free(s);
    return hm_error_raise(HM_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                          "twisted bilayer (%d, %d): %lld and %lld atoms in the layers, want %ld each", m, r,
                          (long long)bottom, (long long)(count - bottom), 2 * D);
  }
  memcpy(s->cell[0], t[0], sizeof t[0]);
  memcpy(s->cell[1], t[1], sizeof t[1]);
  s->cell[2][2] = p->vacuum;
  s->pbc[0] = s->pbc[1] = 1;
  s->pbc[2] = 0;
  *theta_degrees = theta * 180 / M_PI;
  return HM_SUCCESS;
}
