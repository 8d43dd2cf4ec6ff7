/* The supercell matrix of a structure's bonds: each rank makes its own rows from the bond list
 * (which every rank holds: it is the size of one structure cell). */
#include <stdlib.h>
#include "error_macros.h"
#include "random.h"
#include "structure.h"

enum { ONSITE_STREAM = 0x5354, BOND_STREAM = 0x424f, IMPURITY_STREAM = 0x494d }; /* the disorder's random streams */

/* Impurities and bond disorder are of atoms (all orbitals of an atom alike), on-site disorder of rows. */
static int impurity(const hm_structure_disorder *d, int64_t g) { /* g: the global atom */
  return d && d->impurities > 0 && hm_random_uniform(d->impurity_seed, IMPURITY_STREAM, (uint64_t)g) < d->impurities;
}

/* The on-site energy of global row g, of global atom ga. */
static double onsite_disorder(const hm_structure_disorder *d, int64_t g, int64_t ga) {
  if (!d) return 0;
  double e = impurity(d, ga) ? d->impurity_onsite : 0;
  if (d->onsite_w == 0) return e;
  if (!d->gaussian) return e + d->onsite_w * (hm_random_uniform(d->onsite_seed, ONSITE_STREAM, (uint64_t)g) - 0.5);
  double z;
  hm_random_gauss_entry(d->onsite_seed, ONSITE_STREAM, (uint64_t)g, 0, &z);
  return e + d->onsite_w * z;
}

/* 1 + e of the bond from global atom g to global atom col that wraps the supercell by w (cells): the same
 * number for the bond read from col's side (col, g, -w). */
static double bond_factor(const hm_structure_disorder *d, int64_t g, int64_t col, const int64_t w[3]) {
  if (!d) return 1;
  const double f = (impurity(d, g) ? d->impurity_hopping : 1) * (impurity(d, col) ? d->impurity_hopping : 1);
  if (d->bond == 0) return f;
  int sign = g < col ? 1 : g > col ? -1 : 0;
  for (int k = 0; k < 3 && !sign; k++) sign = w[k] > 0 ? 1 : w[k] < 0 ? -1 : 0;
  const int64_t lo = sign > 0 ? g : col, hi = sign > 0 ? col : g;
  uint64_t key = hm_mix64((uint64_t)lo) ^ hm_mix64((uint64_t)hi + 0x9e3779b97f4a7c15ULL);
  for (int k = 0; k < 3; k++) key = hm_mix64(key ^ (uint64_t)(sign * w[k] + 1024 * (k + 1)));
  return f * (1 + d->bond * (hm_random_uniform(d->bond_seed, BOND_STREAM, key) - 0.5));
}

/* H (axis < 0; real or complex type) or the velocity v_axis = i[H, X_axis]: i (x_j + R . cell - x_i)_axis t on
 * every bond (complex, no on-site term). */
static int assemble(hm_context *ctx, const hm_structure *s, const hm_bonds *b,
                    const int64_t cells[3], const int boundary[3], const hm_structure_disorder *dis, hm_scalar type,
                    int axis, hm_matrix **H) {
  *H = NULL;
  static const char *const direction[3] = {"a1 (nx)", "a2 (ny)", "a3 (nz)"};
  for (int k = 0; k < 3; k++) {
    HM_CHECK(cells[k] >= 1, HM_ERR_ARGUMENT, "structure supercell: %lld cells along %s; want >= 1",
             (long long)cells[k], direction[k]);
    HM_CHECK(s->pbc[k] || cells[k] == 1, HM_ERR_DECK,
             "structure supercell: %lld cells along %s, but the structure is not periodic along it (pbc F): want 1",
             (long long)cells[k], direction[k]);
    HM_CHECK(boundary[k] == HM_BC_PERIODIC || boundary[k] == HM_BC_OPEN, HM_ERR_DECK,
             "structure supercell: boundary along %s must be periodic or open", direction[k]);
  }
  const int64_t sites = cells[0] * cells[1] * cells[2], per = b->rows, n = per * sites;
  hm_dist *dist;
  HM_CALL(hm_dist_create(ctx, n, 1, 1.0, &dist));
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int onsite = axis < 0 && dis && (dis->onsite_w != 0 || dis->impurities > 0);
  for (int64_t i = 0; axis < 0 && i < per; i++) onsite |= b->onsite[i] != 0;
  const int w = type == HM_COMPLEX ? 2 : 1;
  int64_t nnz = 0;
  for (int64_t g = first; g < first + local; g++) {
    const int64_t i = g % per;
    nnz += b->start[i + 1] - b->start[i] + onsite;
  }
  int64_t *rowptr = malloc(sizeof(int64_t) * (size_t)(local + 1)), *cols = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
  double *vals = calloc((size_t)w * (size_t)(nnz + 1), sizeof(double));
  int st = HM_SUCCESS;
  if (!rowptr || !cols || !vals) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "%lld entries of the structure's rows",
                        (long long)nnz);
    goto done;
  }
  int64_t e = 0;
  rowptr[0] = 0;
  for (int64_t r = 0; r < local; r++) {
    const int64_t g = first + r, i = g % per, site = g / per;
    const int64_t c[3] = {site % cells[0], (site / cells[0]) % cells[1], site / (cells[0] * cells[1])};
    const int64_t ga = b->atom[i] + s->natoms * site;
    if (onsite) cols[e] = g, vals[w * e++] = b->onsite[i] + onsite_disorder(dis, g, ga);
    for (int64_t q = b->start[i]; q < b->start[i + 1]; q++) {
      int64_t target = 0, stride = 1, keep = 1, wrap[3];
      for (int k = 0; k < 3; k++) {
        int64_t x = c[k] + b->image[q][k];
        wrap[k] = x >= 0 ? x / cells[k] : -((-x + cells[k] - 1) / cells[k]);
        if (wrap[k] && (boundary[k] == HM_BC_OPEN || !s->pbc[k])) keep = 0;
        x -= wrap[k] * cells[k];
        target += x * stride;
        stride *= cells[k];
      }
      if (!keep) continue;
      cols[e] = b->j[q] + per * target;
      const double t = b->t[q] * bond_factor(dis, ga, b->atom[b->j[q]] + s->natoms * target, wrap);
      if (axis < 0) {
        vals[w * e++] = t;
        continue;
      }
      const int64_t j = b->atom[b->j[q]], at = b->atom[i];
      const double d = s->pos[3 * j + axis] - s->pos[3 * at + axis] + b->image[q][0] * s->cell[0][axis] +
                       b->image[q][1] * s->cell[1][axis] + b->image[q][2] * s->cell[2][axis];
      vals[2 * e++ + 1] = d * t; /* i d t */
    }
    rowptr[r + 1] = e;
  }
  st = hm_matrix_create_csr(ctx, dist, type, rowptr, cols, vals, H);
done:
  free(rowptr);
  free(cols);
  free(vals);
  hm_dist_destroy(&dist);
  return st;
}

int hm_structure_matrix(hm_context *ctx, const hm_structure *s, const hm_bonds *b,
                        const int64_t cells[3], const int boundary[3], const hm_structure_disorder *disorder,
                        hm_scalar type, hm_matrix **H) {
  HM_CHECK(type == HM_REAL || type == HM_COMPLEX, HM_ERR_ARGUMENT, "type %d: want HM_REAL or HM_COMPLEX", (int)type);
  return assemble(ctx, s, b, cells, boundary, disorder, type, -1, H);
}

int hm_structure_velocity(hm_context *ctx, const hm_structure *s, const hm_bonds *b, const int64_t cells[3],
                          const int boundary[3], const hm_structure_disorder *disorder, int axis, hm_matrix **V) {
  HM_CHECK(axis >= 0 && axis < 3, HM_ERR_ARGUMENT, "axis %d: want 0, 1 or 2 (x, y, z)", axis);
  return assemble(ctx, s, b, cells, boundary, disorder, HM_COMPLEX, axis, V);
}
