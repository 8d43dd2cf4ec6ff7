/* The assembled (CSR) storage of an hm_stencil: each rank writes its own rows from the formula of
 * include/hamlet/stencil.h (with the matrix-free kernels' arithmetic, stencil_exec.h), then hm_matrix_create_csr sums the hops that land on
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
  const int no = m->ex.orbitals, nb = m->ex.nblocks;
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
  const hm_stencil_exec *E = &m->ex;
  const int no = E->orbitals;
  const int64_t site = row / no, i = row % no;
  if (hm_stencil_vacant(E, site)) return 0;
  const int64_t c[3] = {site % E->cells[0], (site / E->cells[0]) % E->cells[1], site / (E->cells[0] * E->cells[1])};
  int64_t count = 0;
  if (E->disorder_w != 0.0) {
    if (cols) {
      cols[count] = row;
      vals[count] = hm_stencil_disorder(E, site, (int)i);
    }
    count++;
  }
  for (int h = l->first[i]; h < l->first[i + 1]; h++) {
    const int b = l->hop_b[h], j = l->hop_j[h];
    int64_t w[3];
    double angle;
    /* E's slab table holds global rows: the target is the global row of the cell's orbital 0. */
    const int64_t target = hm_stencil_target(E, m->shift + 3 * b, c, w, &angle);
    if (target < 0 || hm_stencil_vacant(E, target / no)) continue;
    if (cols) {
      const double *e = m->block + 2 * (((size_t)b * no + (size_t)i) * no + (size_t)j);
      if (E->has_peierls) angle += 6.283185307179586 * hm_stencil_peierls_turns(E, b, (int)i, j, c, w); /* 2 pi */
      cols[count] = target + j;
      vals[count] = CMPLX(e[0], e[1]) * (angle != 0.0 ? cexp(I * angle) : 1.0);
    }
    count++;
  }
  return count;
}

/* Whole slabs per rank, as the matrix-free storage distributes them. */
static int slab_dist(hm_context *ctx, const hm_stencil_exec *E, hm_dist **dist) {
  const int64_t slab_rows = E->slab_sites * E->orbitals;
  HM_CALL(hm_dist_create(ctx, slab_rows * E->cells[E->slow], slab_rows, 1.0, dist));
  return HM_SUCCESS;
}

int hm_stencil_assemble(hm_context *ctx, const hm_stencil_model *m, hm_matrix **A) {
  hm_dist *dist;
  HM_CALL(slab_dist(ctx, &m->ex, &dist));
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
