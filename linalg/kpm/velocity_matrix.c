/* The velocity operator of an assembled matrix whose rows are (cell, orbital) of a box of cells:
 * V_ij = i (r_j - r_i)_a H_ij with the displacement of the nearest image (cell differences wrapped
 * into [-n/2, n/2] per direction), so periodic and twisted boundaries give each bond its own
 * length. The global column of a halo entry comes from one halo exchange of the row numbers. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "halo.h"
#include "hamlet/conductivity.h"

static int64_t nearest(int64_t d, int64_t n) {
  d %= n;
  if (2 * d > n) d -= n;
  if (2 * d < -n) d += n;
  return d;
}

int hm_matrix_create_velocity(hm_matrix *H, const int64_t *cells, int orbitals, const double *lattice,
                              const double *positions, int direction, hm_matrix **V) {
  HM_CHECK(H && cells && lattice && positions && V, HM_ERR_ARGUMENT,
           "H, cells, lattice, positions and V must not be NULL");
  *V = NULL;
  HM_CHECK(direction >= 0 && direction < 3, HM_ERR_ARGUMENT, "direction = %d: allowed are 0 (x), 1 (y), 2 (z)",
           direction);
  HM_CHECK(orbitals >= 1 && cells[0] >= 1 && cells[1] >= 1 && cells[2] >= 1, HM_ERR_ARGUMENT,
           "cells %lld x %lld x %lld, orbitals %d: all must be >= 1", (long long)cells[0], (long long)cells[1],
           (long long)cells[2], orbitals);
  const int64_t n = H->dist.n_global, first = H->dist.first, local = H->dist.local;
  HM_CHECK(n == cells[0] * cells[1] * cells[2] * orbitals, HM_ERR_ARGUMENT,
           "H has %lld rows, but %lld x %lld x %lld cells of %d orbitals make %lld", (long long)n,
           (long long)cells[0], (long long)cells[1], (long long)cells[2], orbitals,
           (long long)(cells[0] * cells[1] * cells[2] * orbitals));
  HM_CHECK(H->csr.rowptr, HM_ERR_ARGUMENT, "H has no assembled entries (matrix-free): use hm_velocity_blocks");
  /* global row numbers of the halo slots */
  const int32_t nh = H->halo.nhalo;
  int64_t *global = malloc(sizeof(int64_t) * (size_t)(local + nh + 1));
  double *rows = malloc(sizeof(double) * (size_t)(local + nh + 1));
  HM_CHECK(global && rows, HM_ERR_MEMORY, "no memory for %lld row numbers", (long long)(local + nh));
  hm_mvec *x = NULL;
  int st;
  for (int64_t i = 0; i < local; i++) rows[i] = (double)(first + i);
  HM_CALL_GOTO(st, done, hm_mvec_create(H->ctx, &H->dist, HM_REAL, 1, &x));
  HM_CALL_GOTO(st, done, hm_mvec_set(x, rows));
  HM_CALL_GOTO(st, done, hm_halo_begin(H, x));
  HM_CALL_GOTO(st, done, hm_halo_end(H));
  if (nh > 0) HM_CALL_GOTO(st, done, H->ctx->kernels->download(rows + local, x->data + local, sizeof(double) * nh));
  for (int64_t i = 0; i < local + nh; i++) global[i] = (int64_t)rows[i];
  const int64_t nnz = H->csr.rowptr[local];
  int64_t *cols = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
  double complex *val = malloc(sizeof(double complex) * (size_t)(nnz + 1));
  if (!cols || !val) {
    free(cols);
    free(val);
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "no memory for %lld entries", (long long)nnz);
    goto done;
  }
  for (int64_t i = 0; i < local; i++) {
    const int64_t r = first + i, si = r / orbitals, oi = r % orbitals;
    const int64_t ci[3] = {si % cells[0], (si / cells[0]) % cells[1], si / (cells[0] * cells[1])};
    for (int64_t p = H->csr.rowptr[i]; p < H->csr.rowptr[i + 1]; p++) {
      const int64_t g = global[H->csr.col[p]], sj = g / orbitals, oj = g % orbitals;
      const int64_t cj[3] = {sj % cells[0], (sj / cells[0]) % cells[1], sj / (cells[0] * cells[1])};
      double d = positions[3 * oj + direction] - positions[3 * oi + direction];
      for (int a = 0; a < 3; a++) d += (double)nearest(cj[a] - ci[a], cells[a]) * lattice[3 * a + direction];
      const double complex h = H->type == HM_COMPLEX ? H->csr.val[2 * p] + I * H->csr.val[2 * p + 1] : H->csr.val[p];
      cols[p] = g;
      val[p] = I * d * h;
    }
  }
  st = hm_matrix_create_csr(H->ctx, &H->dist, HM_COMPLEX, H->csr.rowptr, cols, val, V);
  if (st) st = hm_error_trace(st, __FILE__, __LINE__, __func__);
  free(cols);
  free(val);
done:
  hm_mvec_destroy(&x);
  free(global);
  free(rows);
  return st;
}
