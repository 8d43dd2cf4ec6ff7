/* Peierls phases of a uniform field B (flux quanta per unit area) in a gauge linear in the
 * fractional coordinates u (r = u1 a1 + u2 a2 + u3 a3):
 *   A(u) . du = (F31 u3) du1 + (F12 u1) du2 + (F23 u2) du3,   F_ab = B . (a_a x a_b),
 * whose curl gives every unit cell face its flux F_ab. A bond <i, c|H|j, c + R> gets
 * exp(2 pi i A(mid) . (u_i - u_j)) (exact for a linear gauge and a straight bond), which is
 * G . c + const with G_a = (M e_a) . d, d = u_i - u_j; const = (M m0) . d, m0 the midpoint at c = 0.
 * The supercell translations L_a = n_a e_a are axis-aligned in u, so the gauge transformation
 * chi_a(u) = (M L_a) . u that a wrapped hop picks up has no quadratic term (L_a . M L_a = 0), and a
 * corner hop's cross term n_a n_b M_ab is the (integer) flux through a supercell face: the
 * description needs only the terms linear in the cell index that hm_stencil carries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "lattice_field.h"

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

void hm_lattice_cell_flux(const hm_lattice *L, const double field[3], double flux[3]) {
  for (int a = 0; a < 3; a++) {
    double c[3];
    cross(L->cell[a], L->cell[(a + 1) % 3], c);
    flux[a] = dot(field, c); /* flux[0] = F12, flux[1] = F23, flux[2] = F31 */
  }
}

/* Fractional coordinates of a cartesian position: r = sum_a u_a a_a. */
static void fractional(const hm_lattice *L, const double r[3], double u[3]) {
  double c[3][3];
  for (int a = 0; a < 3; a++) cross(L->cell[(a + 1) % 3], L->cell[(a + 2) % 3], c[a]);
  double volume = dot(L->cell[0], c[0]);
  for (int a = 0; a < 3; a++) u[a] = dot(r, c[a]) / volume;
}

/* Integer flux through every supercell face whose two directions both wrap. */
static int check_commensurate(const hm_lattice *L, const hm_lattice_params *p, const double F[3]) {
  static const char *face[3] = {"(a1, a2)", "(a2, a3)", "(a3, a1)"};
  static const char *cells[3] = {"nx ny", "ny nz", "nz nx"};
  for (int a = 0; a < 3; a++) {
    const int b = (a + 1) % 3;
    if (p->boundary[a] == HM_BC_OPEN || p->boundary[b] == HM_BC_OPEN) continue;
    const double nn = (double)p->cells[a] * (double)p->cells[b], f = nn * F[a];
    if (fabs(f - nearbyint(f)) <= 1e-9 * fmax(1.0, fabs(f))) continue;
    double normal[3], lo[3], hi[3];
    cross(L->cell[a], L->cell[b], normal);
    const double area2 = dot(normal, normal);
    for (int c = 0; c < 3; c++) {
      lo[c] = p->field[c] + (floor(f) - f) / nn * normal[c] / area2;
      hi[c] = p->field[c] + (ceil(f) - f) / nn * normal[c] / area2;
    }
    HM_RAISE(HM_ERR_DECK,
             "field = %g %g %g gives %.6g flux quanta through the supercell face %s (%s B.(a%d x a%d)): it must be an "
             "integer where both directions are periodic or twisted; the nearest allowed fields are "
             "field = %.10g %.10g %.10g (%g quanta) and field = %.10g %.10g %.10g (%g quanta)",
             p->field[0], p->field[1], p->field[2], f, face[a], cells[a], a + 1, b + 1, lo[0], lo[1], lo[2], floor(f),
             hi[0], hi[1], hi[2], ceil(f));
  }
  return HM_SUCCESS;
}

int hm_lattice_field(const hm_lattice *L, const hm_lattice_params *p, hm_lattice_stencil *s) {
  double F[3];
  hm_lattice_cell_flux(L, p->field, F);
  HM_CALL(check_commensurate(L, p, F));
  /* M u = A(u): A_1 = F31 u3, A_2 = F12 u1, A_3 = F23 u2 */
  const double M[3][3] = {{0, 0, F[2]}, {F[0], 0, 0}, {0, F[1], 0}};
  const int n = L->orbitals, nb = L->nblocks;
  double *u = malloc(sizeof *u * 3 * (size_t)n);
  s->peierls = malloc(sizeof *s->peierls * 3 * (size_t)nb * (size_t)n * (size_t)n);
  s->wrap_phase = malloc(sizeof *s->wrap_phase * 4 * 3 * (size_t)nb * (size_t)n);
  if (!u || !s->peierls || !s->wrap_phase) {
    free(u);
    HM_RAISE(HM_ERR_MEMORY, "cannot hold the Peierls phases of %d blocks of %d orbitals", nb, n);
  }
  for (int i = 0; i < n; i++) fractional(L, L->position + 3 * i, u + 3 * i);
  double complex *block = (double complex *)s->block;
  for (int b = 0; b < nb; b++) {
    const int32_t *R = s->shift + 3 * b;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double d[3], m0[3], Mm0[3];
        for (int k = 0; k < 3; k++) {
          d[k] = u[3 * i + k] - u[3 * j + k] - R[k];
          m0[k] = 0.5 * (R[k] + u[3 * i + k] + u[3 * j + k]);
        }
        for (int k = 0; k < 3; k++) Mm0[k] = dot(M[k], m0);
        double *G = s->peierls + (((size_t)b * n + i) * n + j) * 3;
        for (int a = 0; a < 3; a++) G[a] = M[0][a] * d[0] + M[1][a] * d[1] + M[2][a] * d[2];
        block[((size_t)b * n + i) * n + j] *= cexp(2 * M_PI * I * dot(Mm0, d));
      }
    /* a hop wrapped w times in direction a: w chi_a(u_j unwrapped), chi_a(u) = n_a (M e_a) . u = V . c + K / w */
    for (int a = 0; a < 3; a++)
      for (int j = 0; j < n; j++) {
        double *V = s->wrap_phase + (((size_t)a * nb + b) * n + j) * 4, na = (double)p->cells[a];
        double target[3] = {R[0] + u[3 * j], R[1] + u[3 * j + 1], R[2] + u[3 * j + 2]};
        for (int k = 0; k < 3; k++) V[k] = na * M[k][a];
        /* the contract adds K unscaled by w: a hop of block b wraps only by w = sign(R_a) (|R_a| < n_a) */
        V[3] = (R[a] > 0 ? 1 : R[a] < 0 ? -1 : 0) * na * (M[0][a] * target[0] + M[1][a] * target[1] + M[2][a] * target[2]);
      }
  }
  free(u);
  return HM_SUCCESS;
}
