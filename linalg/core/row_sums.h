/* Deterministic sums over the rows of blocks on the CPU (dots, shadow-space products, the IDR
 * update's norms). The threads split the rows statically and their sums are added in thread
 * order, so a run is reproducible for a given thread count. Within a thread, consecutive rows
 * add into HM_LANES independent partial sums: one chain of floating-point adds over the rows
 * waits about 4 cycles per row and ran the dots at a tenth of PETSc's VecDot (convection-diffusion
 * 100^3, one core); the lanes are added in a fixed order at the end. */
#ifndef HAMLET_ROW_SUMS_H
#define HAMLET_ROW_SUMS_H
#include <stdint.h>
#include <omp.h>

#define HM_INLINE static inline __attribute__((always_inline))
enum { HM_LANES = 4 };

/* acc[q] += sum over the lanes of lane[l][q] (lanes x len, row-major), lanes in order. */
HM_INLINE void hm_lanes_add(int lanes, int len, const double *lane, double *acc) {
  for (int q = 0; q < len; q++) {
    double t = 0;
    for (int l = 0; l < lanes; l++) t += lane[(size_t)l * len + q];
    acc[q] += t;
  }
}

/* Sums rows [i0, i1) of a kernel into acc (len doubles, zero on entry). */
typedef void hm_rows_sum_fn(int64_t i0, int64_t i1, void *ctx, double *acc);

/* sum[0:len] = the sums of fn over rows [0, n), split statically over the OpenMP threads. */
int hm_row_sums(int64_t n, int len, hm_rows_sum_fn *fn, void *ctx, double *sum);

/* Inside a parallel region: every thread's sums go to partial[], then one thread adds them in
 * thread order, so results do not depend on scheduling (same thread count, same bits). */
HM_INLINE void hm_add_thread_partials(const int k, const double *vv, const double *wv, double *partial,
                                      double *dots) {
  const int t = omp_get_thread_num(), nt = omp_get_num_threads();
  for (int j = 0; j < k; j++) {
    partial[(size_t)t * 2 * k + j] = vv[j];
    partial[(size_t)t * 2 * k + k + j] = wv[j];
  }
#pragma omp barrier
#pragma omp single
  for (int tt = 0; tt < nt; tt++)
    for (int j = 0; j < k; j++) {
      dots[j] += partial[(size_t)tt * 2 * k + j];
      dots[k + j] += partial[(size_t)tt * 2 * k + k + j];
    }
}

#endif
