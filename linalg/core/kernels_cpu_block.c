/* CPU block kernels: the tall-skinny products go to BLAS gemm (row-major blocks are the
 * transposes BLAS sees in column-major, so no copy is made); the rest are plain OpenMP loops. */
#include <cblas.h>
#include <complex.h>
#include <limits.h>
#include <omp.h>
#include <string.h>
#include "blas_threads.h"
#include "error_macros.h"
#include "kernels_cpu_block.h"

/* The tall-skinny products are threaded here, over chunks of rows, each chunk one one-thread BLAS
 * call: BLAS's own threads split only the small dimensions of these shapes (few of them work), and
 * next to hamlet's OpenMP threads they oversubscribe the cores (measured: both slower than this). */
static int threaded_by_rows(int64_t n) {
  return omp_get_max_threads() > 1 && n >= 8192 && hm_blas_threads_controllable();
}

/* G = X^H Y[:, y0 : y0 + ny] over n rows, one BLAS call. One column on either side goes to gemv:
 * gemm packs the whole block for a single column (complex: 1.4 ms of a 2 ms Lanczos step at
 * N = 10^4, bench/README.md). */
static void gram_rows(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, int y0, int ny,
                      double *G) {
  const double *Yc = Y + (size_t)y0 * type; /* the columns are a submatrix of leading dimension ky */
  if (ny == 1 || kx == 1) {
    /* ny == 1: G = X^H y. kx == 1: G^T = Y^T conj(x) = conj(Y^H x), so Y^H x and then conjugated. */
    const int one_column_of_y = ny == 1, rows = (int)n, cols = one_column_of_y ? kx : ny;
    const double *M = one_column_of_y ? X : Yc, *v = one_column_of_y ? Yc : X;
    const int ldm = one_column_of_y ? kx : ky, incv = one_column_of_y ? ky : kx;
    if (type == HM_COMPLEX) {
      const double complex one = 1, zero = 0;
      cblas_zgemv(CblasRowMajor, CblasConjTrans, rows, cols, &one, M, ldm, v, incv, &zero, G, 1);
      if (!one_column_of_y)
        for (int j = 0; j < cols; j++) G[2 * j + 1] = -G[2 * j + 1];
    } else {
      cblas_dgemv(CblasRowMajor, CblasTrans, rows, cols, 1.0, M, ldm, v, incv, 0.0, G, 1);
    }
    return;
  }
  if (type == HM_COMPLEX) {
    const double complex one = 1, zero = 0;
    cblas_zgemm(CblasRowMajor, CblasConjTrans, CblasNoTrans, kx, ny, (int)n, &one, X, kx, Yc, ky, &zero, G, ny);
  } else {
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, kx, ny, (int)n, 1.0, X, kx, Yc, ky, 0.0, G, ny);
  }
}

/* Each thread's chunk gives a Gram block; they are summed in thread order (the result depends on
 * the thread count only by rounding). */
int hm_cpu_gram_columns(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, int y0, int ny,
                        double *G) {
  HM_CHECK(n <= INT_MAX, HM_ERR_ARGUMENT, "%lld local rows exceed BLAS's 32-bit sizes", (long long)n);
  if (kx == 0 || ny == 0) return HM_SUCCESS;
  const size_t block = (size_t)kx * (size_t)ny * (size_t)type;
  if (n == 0) {
    memset(G, 0, sizeof(double) * block);
    return HM_SUCCESS;
  }
  if (!threaded_by_rows(n)) {
    gram_rows(type, n, kx, X, ky, Y, y0, ny, G);
    return HM_SUCCESS;
  }
  double *partial;
  HM_MALLOC(partial, (size_t)omp_get_max_threads() * block);
  const int blas_threads = hm_blas_threads_single();
  int used = 1;
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp single
    used = nt;
    const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
    gram_rows(type, hi - lo, kx, X + (size_t)lo * (size_t)kx * type, ky, Y + (size_t)lo * (size_t)ky * type, y0, ny,
              partial + (size_t)t * block);
  }
  hm_blas_threads_restore(blas_threads);
  memcpy(G, partial, sizeof(double) * block);
  for (int t = 1; t < used; t++)
    for (size_t i = 0; i < block; i++) G[i] += partial[(size_t)t * block + i];
  free(partial);
  return HM_SUCCESS;
}

int hm_cpu_gram(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, double *G) {
  HM_CALL(hm_cpu_gram_columns(type, n, kx, X, ky, Y, 0, ky, G));
  return HM_SUCCESS;
}

/* Y = beta Y + X C over n rows, one BLAS call. */
static void update_rows(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *C,
                        const double *beta, double *Y) {
  if (n == 0) return;
  if (ky == 1) { /* one column: gemv, no packing of X (see gram_rows) */
    if (type == HM_COMPLEX) {
      const double complex one = 1;
      cblas_zgemv(CblasRowMajor, CblasNoTrans, (int)n, kx, &one, X, kx, C, 1, beta, Y, 1);
    } else {
      cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)n, kx, 1.0, X, kx, C, 1, *beta, Y, 1);
    }
    return;
  }
  if (type == HM_COMPLEX) {
    const double complex one = 1;
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, ky, kx, &one, X, kx, C, ky, beta, Y, ky);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, ky, kx, 1.0, X, kx, C, ky, *beta, Y, ky);
  }
}

int hm_cpu_block_update(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *C,
                        const double *beta, double *Y) {
  HM_CHECK(n <= INT_MAX, HM_ERR_ARGUMENT, "%lld local rows exceed BLAS's 32-bit sizes", (long long)n);
  if (n == 0) return HM_SUCCESS;
  if (!threaded_by_rows(n)) {
    update_rows(type, n, kx, X, ky, C, beta, Y);
    return HM_SUCCESS;
  }
  const int blas_threads = hm_blas_threads_single();
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
    update_rows(type, hi - lo, kx, X + (size_t)lo * (size_t)kx * type, ky, C, beta, Y + (size_t)lo * (size_t)ky * type);
  }
  hm_blas_threads_restore(blas_threads);
  return HM_SUCCESS;
}

int hm_cpu_copy_columns(hm_scalar type, int64_t n, int ks, const double *src, int s0, int kd, double *dst, int d0,
                        int count) {
  const size_t t = (size_t)type, len = (size_t)count * t * sizeof(double);
  if (count == ks && count == kd) { /* whole rows: one contiguous range, copied in per-thread pieces */
    const size_t doubles = (size_t)n * len / sizeof(double);
#pragma omp parallel
    {
      const size_t T = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
      const size_t lo = doubles * me / T, hi = doubles * (me + 1) / T;
      if (hi > lo && dst != src) memmove(dst + lo, src + lo, (hi - lo) * sizeof(double));
    }
    return HM_SUCCESS;
  }
  if (len <= 8 * sizeof(double) && (dst + (size_t)n * kd * t <= src || src + (size_t)n * ks * t <= dst)) {
    /* a few columns between distinct blocks: a loop, not a memmove call per row */
    const size_t w = (size_t)count * t;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
      double *d = dst + ((size_t)i * kd + d0) * t;
      const double *s = src + ((size_t)i * ks + s0) * t;
      for (size_t j = 0; j < w; j++) d[j] = s[j];
    }
    return HM_SUCCESS;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) memmove(dst + ((size_t)i * kd + d0) * t, src + ((size_t)i * ks + s0) * t, len);
  return HM_SUCCESS;
}

int hm_cpu_series_accumulate(hm_scalar type, int64_t n, int w, int m, const double *const *X, int ne, const double *C,
                              double *acc) {
  HM_CHECK(m >= 0 && m <= 16, HM_ERR_ARGUMENT, "%d series terms at once: at most 16", m);
  const int64_t width = (int64_t)w * ne;
  if (type == HM_COMPLEX) {
    const double complex *Cc = (const double complex *)C;
    double complex *A = (double complex *)acc;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        double complex x[16];
        for (int j = 0; j < m; j++) x[j] = ((const double complex *)X[j])[i * w + c];
        for (int e = 0; e < ne; e++) {
          double complex sum = 0;
          for (int j = 0; j < m; j++) sum += Cc[j * ne + e] * x[j];
          A[i * width + (int64_t)c * ne + e] += sum;
        }
      }
  } else {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        double x[16];
        for (int j = 0; j < m; j++) x[j] = X[j][i * w + c];
        for (int e = 0; e < ne; e++) {
          double sum = 0;
          for (int j = 0; j < m; j++) sum += C[j * ne + e] * x[j];
          acc[i * width + (int64_t)c * ne + e] += sum;
        }
      }
  }
  return HM_SUCCESS;
}

int hm_cpu_scale_rows(hm_scalar type, int64_t n, int k, const double *d, const double *x, double *y) {
  if (type == HM_COMPLEX) {
    const double complex *dc = (const double complex *)d, *xc = (const double complex *)x;
    double complex *yc = (double complex *)y;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      for (int j = 0; j < k; j++) yc[i * k + j] = dc[i] * xc[i * k + j];
  } else {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      for (int j = 0; j < k; j++) y[i * k + j] = d[i] * x[i * k + j];
  }
  return HM_SUCCESS;
}

/* The Ritz residual rounds lambda BX before the subtraction (no fused multiply-add here), as the
 * block update it replaced did: LOBPCG's CPU iterates keep the same bits (past convergence they are
 * rounding noise amplified, so any other rounding would send them elsewhere). */
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")

/* One row of the Ritz residual: R = AX - lambda BX on m columns (t = 2: complex, lambda applied to
 * both parts), |R|^2 added to rr, |BX|^2 to bb. */
static inline void ritz_residual_row(int t, int m, const double *restrict a, const double *restrict b,
                                     const double *restrict lambda, double *restrict r, double *restrict rr,
                                     double *restrict bb) {
  if (t == 2) {
    for (int j = 0; j < m; j++) {
      const double bx = b[2 * j], by = b[2 * j + 1];
      const double rx = a[2 * j] - lambda[j] * bx, ry = a[2 * j + 1] - lambda[j] * by;
      r[2 * j] = rx;
      r[2 * j + 1] = ry;
      rr[j] += rx * rx + ry * ry;
      bb[j] += bx * bx + by * by;
    }
  } else {
    for (int j = 0; j < m; j++) {
      const double bv = b[j], rv = a[j] - lambda[j] * bv;
      r[j] = rv;
      rr[j] += rv * rv;
      bb[j] += bv * bv;
    }
  }
}

int hm_cpu_ritz_residual(hm_scalar type, int64_t n, int ka, const double *AX, int kb, const double *BX, int m,
                         const double *lambda, double *R, double *sums) {
  const int t = (int)type;
  const size_t stride = (size_t)2 * m + 8; /* per-thread sums, a cache line apart */
  double *partial;
  HM_MALLOC(partial, (size_t)omp_get_max_threads() * stride);
  int threads = 1;
#pragma omp parallel
  {
    double *mine = partial + (size_t)omp_get_thread_num() * stride;
    for (int j = 0; j < 2 * m; j++) mine[j] = 0;
#pragma omp single
    threads = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; i++) {
      const double *a = AX + (size_t)i * ka * t, *b = BX + (size_t)i * kb * t;
      double *r = R + (size_t)i * m * t;
      ritz_residual_row(t, m, a, b, lambda, r, mine, mine + m);
    }
  }
  /* Threads' sums added in thread order: the same bits for the same thread count. */
  for (int j = 0; j < 2 * m; j++) sums[j] = 0;
  for (int th = 0; th < threads; th++)
    for (int j = 0; j < 2 * m; j++) sums[j] += partial[(size_t)th * stride + j];
  free(partial);
  return HM_SUCCESS;
}

#pragma GCC pop_options
