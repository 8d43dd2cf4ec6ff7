/* The supercell matrix of a structure's bonds: each rank makes its own rows from the bond list
 * (which every rank holds: it is the size of one structure cell). */
#include <stdlib.h>
#include "error_macros.h"
#include "structure.h"

int hm_structure_matrix(hm_context *ctx, const hm_structure *s, const hm_bonds *b, const hm_hopping_rule *rule,
                        const int64_t cells[3], const int boundary[3], hm_matrix **H) {
  *H = NULL;
  static const char *const axis[3] = {"a1 (nx)", "a2 (ny)", "a3 (nz)"};
  for (int k = 0; k < 3; k++) {
    HM_CHECK(cells[k] >= 1, HM_ERR_ARGUMENT, "structure supercell: %lld cells along %s; want >= 1",
             (long long)cells[k], axis[k]);
    HM_CHECK(s->pbc[k] || cells[k] == 1, HM_ERR_DECK,
             "structure supercell: %lld cells along %s, but the structure is not periodic along it (pbc F): want 1",
             (long long)cells[k], axis[k]);
    HM_CHECK(boundary[k] == HM_BC_PERIODIC || boundary[k] == HM_BC_OPEN, HM_ERR_DECK,
             "structure supercell: boundary along %s must be periodic or open", axis[k]);
  }
  const int64_t sites = cells[0] * cells[1] * cells[2], n = s->natoms * sites;
  hm_dist *dist;
  HM_CALL(hm_dist_create(ctx, n, 1, 1.0, &dist));
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t nnz = 0;
  for (int64_t g = first; g < first + local; g++) {
    const int64_t i = g % s->natoms;
    nnz += b->start[i + 1] - b->start[i] + (rule->onsite != 0);
  }
  int64_t *rowptr = malloc(sizeof(int64_t) * (size_t)(local + 1)), *cols = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
  double *vals = malloc(sizeof(double) * (size_t)(nnz + 1));
  int st = HM_SUCCESS;
  if (!rowptr || !cols || !vals) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "%lld entries of the structure's rows",
                        (long long)nnz);
    goto done;
  }
  int64_t e = 0;
  rowptr[0] = 0;
  for (int64_t r = 0; r < local; r++) {
    const int64_t g = first + r, i = g % s->natoms, site = g / s->natoms;
    const int64_t c[3] = {site % cells[0], (site / cells[0]) % cells[1], site / (cells[0] * cells[1])};
    if (rule->onsite != 0) cols[e] = g, vals[e++] = rule->onsite;
    for (int64_t q = b->start[i]; q < b->start[i + 1]; q++) {
      int64_t target = 0, stride = 1, keep = 1;
      for (int k = 0; k < 3; k++) {
        int64_t x = c[k] + b->image[q][k];
        if (x < 0 || x >= cells[k]) {
          if (boundary[k] == HM_BC_OPEN || !s->pbc[k]) keep = 0;
          x %= cells[k];
          if (x < 0) x += cells[k];
        }
        target += x * stride;
        stride *= cells[k];
      }
      if (!keep) continue;
      cols[e] = b->j[q] + s->natoms * target;
      vals[e++] = b->t[q];
    }
    rowptr[r + 1] = e;
  }
  st = hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, vals, H);
done:
  free(rowptr);
  free(cols);
  free(vals);
  hm_dist_destroy(&dist);
  return st;
}
