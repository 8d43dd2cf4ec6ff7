/* Thread split and ordered addition of row sums (row_sums.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "row_sums.h"

/* Per-thread partial sums in cache lines of their own (no false sharing): a multiple of 8 doubles. */
static size_t padded(size_t doubles) { return (doubles + 7) / 8 * 8 + 8; }

int hm_row_sums(int64_t n, int len, hm_rows_sum_fn *fn, void *ctx, double *sum) {
  const size_t stride = padded((size_t)len);
  double *partial;
  HM_MALLOC(partial, (size_t)omp_get_max_threads() * stride);
  int used = 1;
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
#pragma omp single
    used = T;
    double *acc = partial + (size_t)t * stride;
    memset(acc, 0, sizeof(double) * (size_t)len);
    fn(n * t / T, n * (t + 1) / T, ctx, acc);
  }
  memcpy(sum, partial, sizeof(double) * (size_t)len);
  for (int t = 1; t < used; t++)
    for (int q = 0; q < len; q++) sum[q] += partial[(size_t)t * stride + q];
  free(partial);
  return HM_SUCCESS;
}
