/* Distributed build of the 3D convection-diffusion-reaction operator (include/hamlet/convdiff.h).
 * Each rank fills only its own rows of the 7-point stencil: count, prefix sum, fill. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "hamlet/convdiff.h"

/* n^3 stays below 2^50 rows, as for the other builders: index arithmetic never overflows. */
#define HM_CONVDIFF_MAX_N 100000

int hm_convdiff_params_default(hm_convdiff_params *p) {
  HM_CHECK(p, HM_ERR_ARGUMENT, "p is NULL");
  memset(p, 0, sizeof *p);
  p->n = 39;
  p->eps = 1.0;
  p->beta[0] = 0.0;
  p->beta[1] = 250.0 / sqrt(5.0);
  p->beta[2] = 500.0 / sqrt(5.0);
  p->r = 0.0;
  return HM_SUCCESS;
}

static int check_params(const hm_convdiff_params *p) {
  HM_CHECK(p, HM_ERR_ARGUMENT, "convection-diffusion params are NULL");
  HM_CHECK(p->n >= 1 && p->n <= HM_CONVDIFF_MAX_N, HM_ERR_ARGUMENT,
           "convection-diffusion grid n = %lld: allowed are 1 <= n <= %d interior nodes per direction",
           (long long)p->n, HM_CONVDIFF_MAX_N);
  HM_CHECK(isfinite(p->eps) && p->eps > 0, HM_ERR_ARGUMENT,
           "convection-diffusion eps = %g: the diffusion must be finite and > 0", p->eps);
  static const char axis[3] = {'x', 'y', 'z'};
  for (int d = 0; d < 3; d++)
    HM_CHECK(isfinite(p->beta[d]), HM_ERR_ARGUMENT, "convection-diffusion beta_%c = %g must be finite", axis[d],
             p->beta[d]);
  HM_CHECK(isfinite(p->r), HM_ERR_ARGUMENT, "convection-diffusion reaction r = %g must be finite", p->r);
  return HM_SUCCESS;
}

/* Entries of the row of node g: the diagonal and each neighbour that is an interior node. */
static int64_t row_count(int64_t n, int64_t g) {
  int64_t c[3] = {g % n, (g / n) % n, g / (n * n)}, count = 1;
  for (int d = 0; d < 3; d++) count += (c[d] > 0) + (c[d] < n - 1);
  return count;
}

static void fill_row(const hm_convdiff_params *p, int64_t g, int64_t *cols, double *vals) {
  const int64_t n = p->n, c[3] = {g % n, (g / n) % n, g / (n * n)}, stride[3] = {1, n, n * n};
  const double h = 1.0 / (double)(n + 1), diffusion = p->eps / (h * h);
  int w = 0;
  cols[w] = g;
  vals[w++] = 6.0 * diffusion + p->r;
  for (int d = 0; d < 3; d++) {
    const double convection = p->beta[d] / (2.0 * h);
    if (c[d] > 0) {
      cols[w] = g - stride[d];
      vals[w++] = -diffusion - convection;
    }
    if (c[d] < n - 1) {
      cols[w] = g + stride[d];
      vals[w++] = -diffusion + convection;
    }
  }
}

int hm_convdiff_build(hm_context *ctx, const hm_convdiff_params *p, hm_matrix **A) {
  HM_CHECK(ctx && A, HM_ERR_ARGUMENT, "ctx or A is NULL");
  MPI_Comm comm;
  HM_CALL(hm_context_comm(ctx, &comm));
  *A = NULL;
  HM_CALL(check_params(p));
  const int64_t n = p->n;
  hm_dist *dist;
  HM_CALL(hm_dist_create(ctx, n * n * n, 1, 1.0, &dist));
  int64_t first, local;
  HM_CALL(hm_dist_range(dist, &first, &local, NULL));

  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr);
  int64_t *cols = malloc(sizeof *cols * (size_t)(7 * local + 1));
  double *vals = malloc(sizeof *vals * (size_t)(7 * local + 1));
  int bad = !rowptr || !cols || !vals, any_bad = 0;
  /* Every rank must learn of a failed allocation before the collective matrix creation. */
  int st = MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  if (st != MPI_SUCCESS) {
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Allreduce of the allocation status failed");
  } else if (any_bad) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                        bad ? "could not allocate %lld convection-diffusion rows on this rank"
                            : "another rank could not allocate its convection-diffusion rows (%lld here)",
                        (long long)local);
  } else {
    for (int64_t i = 0; i < local; i++) rowptr[i + 1] = rowptr[i] + row_count(n, first + i);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < local; i++) fill_row(p, first + i, cols + rowptr[i], vals + rowptr[i]);
    st = hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, vals, A);
    if (st) st = hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  free(rowptr);
  free(cols);
  free(vals);
  hm_dist_destroy(&dist);
  return st;
}
