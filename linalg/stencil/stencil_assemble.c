/* The assembled (CSR) storage of an hm_stencil: each rank writes its own rows from the formula of
 * include/hamlet/stencil.h (stencil_terms.h), then hm_matrix_create_csr sums the hops that land on
 * one column (rings of one or two cells) and measures the Hermitian defect as for any matrix. */
#include <complex.h>
#include <stdlib.h>
#include "error_macros.h"
#include "host_alloc.h"
#include "stencil_internal.h"

/* The non-zero entries of the blocks, grouped by row orbital: hop h of orbital i is (block, column
 * orbital) = (hop_b[first[i] + h], hop_j[first[i] + h]). */
typedef struct {
  int *first, *hop_b, *hop_j;
} hop_list;

static int list_hops(const hm_stencil_model *m, hop_list *l) {
  const int no = m->sc.orbitals, nb = m->sc.nblocks;
  l->first = calloc((size_t)no + 1, sizeof(int));
  l->hop_b = malloc(sizeof(int) * (size_t)nb * (size_t)no * (size_t)no + 1);
  l->hop_j = malloc(sizeof(int) * (size_t)nb * (size_t)no * (size_t)no + 1);
  HM_CHECK(l->first && l->hop_b && l->hop_j, HM_ERR_MEMORY, "could not allocate the hop list");
  int h = 0;
  for (int i = 0; i < no; i++) {
    l->first[i] = h;
    for (int b = 0; b < nb; b++)
      for (int j = 0; j < no; j++) {
        const double *e = m->block + 2 * (((size_t)b * no + i) * no + j);
        if (e[0] != 0.0 || e[1] != 0.0) {
          l->hop_b[h] = b;
          l->hop_j[h++] = j;
        }
      }
  }
  l->first[no] = h;
  return HM_SUCCESS;
}

static void free_hops(hop_list *l) {
  free(l->first);
  free(l->hop_b);
  free(l->hop_j);
}

/* Entries of global row `row` into cols / vals (when not NULL); returns their count. */
static int64_t row_entries(const hm_stencil_model *m, const hop_list *l, int64_t row, int64_t *cols,
                           double complex *vals) {
  const hm_stencil_scalars *sc = &m->sc;
  const int no = sc->orbitals;
  const int64_t site = row / no, i = row % no;
  if (hm_stencil_vacant(sc, (uint64_t)site)) return 0;
  const int64_t c[3] = {site % sc->n[0], (site / sc->n[0]) % sc->n[1], site / (sc->n[0] * sc->n[1])};
  int64_t count = 0;
  if (sc->disorder_w != 0.0) {
    if (cols) {
      cols[count] = row;
      vals[count] = hm_stencil_disorder(sc, (uint64_t)site, (uint64_t)row);
    }
    count++;
  }
  for (int h = l->first[i]; h < l->first[i + 1]; h++) {
    const int b = l->hop_b[h], j = l->hop_j[h];
    const int32_t *r = m->shift + 3 * b;
    int64_t t[3], w[3];
    int inside = 1;
    for (int a = 0; a < 3; a++) inside &= hm_stencil_wrap(c[a], r[a], sc->n[a], sc->boundary[a], &t[a], &w[a]);
    if (!inside) continue;
    const int64_t target = t[0] + sc->n[0] * (t[1] + sc->n[1] * t[2]);
    if (hm_stencil_vacant(sc, (uint64_t)target)) continue;
    if (cols) {
      const size_t e = ((size_t)b * no + (size_t)i) * no + (size_t)j;
      const double *G = m->peierls ? m->peierls + 3 * e : NULL;
      const double *wrap[3] = {NULL, NULL, NULL};
      if (m->wrap_phase)
        for (int a = 0; a < 3; a++) wrap[a] = m->wrap_phase + 4 * (((size_t)a * sc->nblocks + b) * no + j);
      const double phase = hm_stencil_phase(sc, c, w, G, wrap);
      cols[count] = target * no + j;
      vals[count] = CMPLX(m->block[2 * e], m->block[2 * e + 1]) * (phase != 0.0 ? cexp(I * phase) : 1.0);
    }
    count++;
  }
  return count;
}

int hm_stencil_assemble(hm_context *ctx, const hm_stencil_model *m, hm_matrix **A) {
  hm_dist *dist;
  HM_CALL(hm_stencil_dist(ctx, m, &dist));
  int64_t first, local;
  int st = hm_dist_range(dist, &first, &local, NULL);
  hop_list hops = {0};
  int64_t *rowptr = NULL, *cols = NULL;
  double complex *vals = NULL;
  if (!st) st = list_hops(m, &hops);
  if (!st) {
    rowptr = calloc((size_t)local + 1, sizeof *rowptr);
    if (!rowptr) st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %lld row pointers",
                                     (long long)local + 1);
  }
  if (!st) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < local; r++) rowptr[r + 1] = row_entries(m, &hops, first + r, NULL, NULL);
    for (int64_t r = 0; r < local; r++) rowptr[r + 1] += rowptr[r];
    cols = hm_alloc_large(sizeof *cols * (size_t)(rowptr[local] + 1));
    vals = hm_alloc_large(sizeof *vals * (size_t)(rowptr[local] + 1));
    if (!cols || !vals)
      st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %lld lattice matrix entries",
                          (long long)rowptr[local]);
  }
  /* hm_matrix_create_csr is collective: every rank goes in, a failed one with no rows would hang
   * the others, so the failure is agreed first. */
  MPI_Comm comm;
  int bad = st != 0, any_bad = bad;
  if (hm_context_comm(ctx, &comm) == HM_SUCCESS) MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  if (!st && any_bad)
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "another rank could not build its lattice rows");
  if (!st) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < local; r++) row_entries(m, &hops, first + r, cols + rowptr[r], vals + rowptr[r]);
    st = hm_matrix_create_csr(ctx, dist, HM_COMPLEX, rowptr, cols, vals, A);
    if (st) st = hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  free_hops(&hops);
  free(rowptr);
  free(cols);
  free(vals);
  hm_dist_destroy(&dist);
  return st;
}
