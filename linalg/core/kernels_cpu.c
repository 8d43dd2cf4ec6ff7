/* CPU (OpenMP) kernels: the reference every other backend is tested against. The block width k
 * is a compile-time constant for the common widths so that the inner loop over columns is
 * unrolled and vectorised; any other width takes the generic path. The parallel region opens in
 * the dispatcher, around the switch over k, and the inlined kernels hold only worksharing
 * constructs: GCC outlines a parallel region before it inlines, so a region inside the kernel
 * would be compiled once, for a run-time k (measured 2.6x slower for k = 1). */
#include <complex.h>
#include <string.h>
#include <omp.h>
#include "error_macros.h"
#include "host_alloc.h"
#include "kernels.h"
#include "kernels_cpu_block.h"
#include "kernels_cpu_idr.h"
#include "kernels_cpu_stencil.h"
#include "kernels_cpu_shift.h"
#include "row_sums.h"

/* ---- y = A x over a row list ---- */
/* Row i of A times the k complex columns of x, in two real accumulators over the 2k doubles of
 * a row: lin = sum Re(a) x, swp = sum Im(a) x; then (A x)_j = (lin_re - swp_im, lin_im + swp_re).
 * The inner loops are contiguous multiply-adds that vectorise fully (C's complex multiply would
 * call a NaN-handling routine instead). Columns go in chunks of at most HM_CHUNK doubles whose
 * accumulators fit in registers; the row's few entries are re-read from L1 per chunk. */
enum { HM_CHUNK = 16 };

HM_INLINE void chunk_product(const struct hm_csr_view *A, int32_t i, const int width, const int c0, const int C,
                             const double *x, double *lin, double *swp) {
  double l[C], w[C];
  for (int j = 0; j < C; j++) l[j] = w[j] = 0;
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
    const double ar = A->val[2 * p], ai = A->val[2 * p + 1];
    const double *xr = x + (size_t)A->col[p] * width + c0;
    for (int j = 0; j < C; j++) {
      l[j] += ar * xr[j];
      w[j] += ai * xr[j];
    }
  }
  for (int j = 0; j < C; j++) {
    lin[c0 + j] = l[j];
    swp[c0 + j] = w[j];
  }
}

HM_INLINE void complex_row_product(const struct hm_csr_view *A, int32_t i, const int k, const double *x,
                                   double *lin, double *swp) {
  const int width = 2 * k;
  if (k == 1) { /* one column: scalar complex arithmetic, in lin and swp as below (four add chains) */
    double lr = 0, li = 0, sr = 0, si = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      const double ar = A->val[2 * p], ai = A->val[2 * p + 1];
      const double *xr = x + 2 * (size_t)A->col[p];
      lr += ar * xr[0];
      li += ar * xr[1];
      sr += ai * xr[0];
      si += ai * xr[1];
    }
    lin[0] = lr; lin[1] = li; swp[0] = sr; swp[1] = si;
  } else if (width <= HM_CHUNK) {
    chunk_product(A, i, width, 0, width, x, lin, swp);
  } else if (width % HM_CHUNK == 0) {
    for (int c0 = 0; c0 < width; c0 += HM_CHUNK) chunk_product(A, i, width, c0, HM_CHUNK, x, lin, swp);
  } else { /* widths of no fast path */
    for (int j = 0; j < width; j++) lin[j] = swp[j] = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      const double ar = A->val[2 * p], ai = A->val[2 * p + 1];
      const double *xr = x + (size_t)A->col[p] * width;
      for (int j = 0; j < width; j++) {
        lin[j] += ar * xr[j];
        swp[j] += ai * xr[j];
      }
    }
  }
}

/* Row i of real A times the k columns of x into acc. */
HM_INLINE void real_row_product(const struct hm_csr_view *A, int32_t i, const int k, const double *x, double *acc) {
  for (int j = 0; j < k; j++) acc[j] = 0;
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
    const double a = A->val[p];
    const double *xr = x + (size_t)A->col[p] * k;
    for (int j = 0; j < k; j++) acc[j] += a * xr[j];
  }
}

/* The product kernels run inside the dispatcher's parallel region (see the top of the file). */
HM_INLINE void spmmv_complex(const struct hm_csr_view *A, const int k, const int32_t *rows, int32_t nrows,
                             const double *x, double *y) {
#pragma omp for schedule(static)
  for (int32_t q = 0; q < nrows; q++) {
    const int32_t i = rows[q];
    double lin[2 * k], swp[2 * k];
    complex_row_product(A, i, k, x, lin, swp);
    double *yi = y + 2 * (size_t)i * k;
    for (int j = 0; j < k; j++) {
      yi[2 * j] = lin[2 * j] - swp[2 * j + 1];
      yi[2 * j + 1] = lin[2 * j + 1] + swp[2 * j];
    }
  }
}

HM_INLINE void spmmv_real(const struct hm_csr_view *A, const int k, const int32_t *rows, int32_t nrows,
                          const double *x, double *y) {
#pragma omp for schedule(static)
  for (int32_t q = 0; q < nrows; q++) {
    const int32_t i = rows[q];
    double acc[k];
    real_row_product(A, i, k, x, acc);
    for (int j = 0; j < k; j++) y[(size_t)i * k + j] = acc[j];
  }
}

/* ---- fused KPM step: W = 2 s (A - b) V - W, dots <V|V>, Re<W|V> per column; with a sum block (not NULL)
 * also sum += c W (new W) on the complex view, c = c[0] + i c[1] ---- */

HM_INLINE void kpm_complex(const struct hm_csr_view *A, const int k, const int32_t *rows, int32_t nrows,
                           double s, double b, const double *V, double *W, double *dots,
                           double *partial, const double *c, double *acc) {
  double vv[k], wv[k];
  for (int j = 0; j < k; j++) vv[j] = wv[j] = 0;
#pragma omp for schedule(static)
  for (int32_t q = 0; q < nrows; q++) {
    const int32_t i = rows[q];
    double lin[2 * k], swp[2 * k];
    complex_row_product(A, i, k, V, lin, swp);
    const double *vi = V + 2 * (size_t)i * k;
    double *wi = W + 2 * (size_t)i * k;
    for (int j = 0; j < k; j++) {
      const double vr = vi[2 * j], vm = vi[2 * j + 1];
      const double wr = 2.0 * s * (lin[2 * j] - swp[2 * j + 1] - b * vr) - wi[2 * j];
      const double wm = 2.0 * s * (lin[2 * j + 1] + swp[2 * j] - b * vm) - wi[2 * j + 1];
      wi[2 * j] = wr;
      wi[2 * j + 1] = wm;
      vv[j] += vr * vr + vm * vm;
      wv[j] += wr * vr + wm * vm;
      if (acc) {
        double *ai = acc + 2 * ((size_t)i * k + j);
        ai[0] += c[0] * wr - c[1] * wm;
        ai[1] += c[0] * wm + c[1] * wr;
      }
    }
  }
  hm_add_thread_partials(k, vv, wv, partial, dots);
}

HM_INLINE void kpm_real(const struct hm_csr_view *A, const int k, const int32_t *rows, int32_t nrows,
                        double s, double b, const double *V, double *W, double *dots,
                        double *partial, const double *c, double *sum) {
  double vv[k], wv[k];
  for (int j = 0; j < k; j++) vv[j] = wv[j] = 0;
#pragma omp for schedule(static)
  for (int32_t q = 0; q < nrows; q++) {
    const int32_t i = rows[q];
    double acc[k];
    real_row_product(A, i, k, V, acc);
    const double *vi = V + (size_t)i * k;
    double *wi = W + (size_t)i * k;
    for (int j = 0; j < k; j++) {
      const double w = 2.0 * s * (acc[j] - b * vi[j]) - wi[j];
      wi[j] = w;
      vv[j] += vi[j] * vi[j];
      wv[j] += w * vi[j];
    }
    if (sum) { /* the columns in (re, im) pairs; an odd last column only with a real c */
      int j = 0;
      for (; j + 1 < k; j += 2) {
        double *si = sum + (size_t)i * k + j;
        si[0] += c[0] * wi[j] - c[1] * wi[j + 1];
        si[1] += c[0] * wi[j + 1] + c[1] * wi[j];
      }
      if (j < k) sum[(size_t)i * k + j] += c[0] * wi[j];
    }
  }
  hm_add_thread_partials(k, vv, wv, partial, dots);
}

/* Dispatch a width to a constant-k instance. */
#define HM_DISPATCH_K(k, CALL)                      \
  switch (k) {                                      \
    case 1: CALL(1); break;                         \
    case 2: CALL(2); break;                         \
    case 4: CALL(4); break;                         \
    case 8: CALL(8); break;                         \
    case 16: CALL(16); break;                       \
    case 32: CALL(32); break;                       \
    case 64: CALL(64); break;                       \
    default: CALL(k); break;                        \
  }

static int cpu_spmmv(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
                     const double *x, double *y) {
  if (A->stencil) return hm_cpu_stencil_spmmv(type, A->stencil, k, rows, x, y);
  if (nrows == 0) return HM_SUCCESS;
#pragma omp parallel
  if (type == HM_COMPLEX) {
#define CALL(K) spmmv_complex(A, K, rows, nrows, x, y)
    HM_DISPATCH_K(k, CALL)
#undef CALL
  } else {
#define CALL(K) spmmv_real(A, K, rows, nrows, x, y)
    HM_DISPATCH_K(k, CALL)
#undef CALL
  }
  return HM_SUCCESS;
}

/* The step over CSR rows, with the sum where acc is not NULL (two instances: the branch leaves the loops). */
static int csr_kpm_step(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
                        double s, double b, const double *V, double *W, double *dots, const double *c, double *acc) {
  if (nrows == 0) return HM_SUCCESS;
  double *partial;
  HM_MALLOC(partial, (size_t)omp_get_max_threads() * 2 * (size_t)k);
#pragma omp parallel
  if (type == HM_COMPLEX && acc) {
#define CALL(K) kpm_complex(A, K, rows, nrows, s, b, V, W, dots, partial, c, acc)
    HM_DISPATCH_K(k, CALL)
#undef CALL
  } else if (type == HM_COMPLEX) {
#define CALL(K) kpm_complex(A, K, rows, nrows, s, b, V, W, dots, partial, NULL, NULL)
    HM_DISPATCH_K(k, CALL)
#undef CALL
  } else if (acc) {
#define CALL(K) kpm_real(A, K, rows, nrows, s, b, V, W, dots, partial, c, acc)
    HM_DISPATCH_K(k, CALL)
#undef CALL
  } else {
#define CALL(K) kpm_real(A, K, rows, nrows, s, b, V, W, dots, partial, NULL, NULL)
    HM_DISPATCH_K(k, CALL)
#undef CALL
  }
  free(partial);
  return HM_SUCCESS;
}

static int cpu_kpm_step(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
                        double s, double b, const double *V, double *W, double *dots) {
  if (A->stencil) return hm_cpu_stencil_kpm_step(type, A->stencil, k, rows, s, b, V, W, dots);
  return csr_kpm_step(type, A, k, rows, nrows, s, b, V, W, dots, NULL, NULL);
}

static int cpu_kpm_step_sum(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
                            double s, double b, const double *V, double *W, double *dots, const double c[2],
                            double *acc) {
  HM_CHECK(!A->stencil, HM_ERR_ARGUMENT, "kpm_step_sum reads CSR rows; this matrix is matrix-free");
  HM_CHECK(type == HM_COMPLEX || k % 2 == 0 || c[1] == 0, HM_ERR_ARGUMENT,
           "kpm_step_sum of a real block of %d columns with a complex c: want (re, im) pairs", k);
  return csr_kpm_step(type, A, k, rows, nrows, s, b, V, W, dots, c, acc);
}

/* acc[j] += x[i, j] y[i, j] for row i; complex: acc[2j] + i acc[2j + 1] += conj(x[i, j]) y[i, j] */
HM_INLINE void dot_row(hm_scalar type, int64_t i, const int k, const double *x, const double *y, double *acc) {
  if (type == HM_COMPLEX) {
    const double *xi = x + 2 * (size_t)i * k, *yi = y + 2 * (size_t)i * k;
    for (int j = 0; j < k; j++) {
      acc[2 * j] += xi[2 * j] * yi[2 * j] + xi[2 * j + 1] * yi[2 * j + 1];
      acc[2 * j + 1] += xi[2 * j] * yi[2 * j + 1] - xi[2 * j + 1] * yi[2 * j];
    }
  } else {
    for (int j = 0; j < k; j++) acc[j] += x[(size_t)i * k + j] * y[(size_t)i * k + j];
  }
}

/* Rows [i0, i1), sums added into acc (k or 2k doubles), in HM_LANES row lanes (row_sums.h). */
HM_INLINE void dot_rows(hm_scalar type, int64_t i0, int64_t i1, const int k, const double *x, const double *y,
                        double *acc) {
  double lane[HM_LANES][(int)type * k];
  memset(lane, 0, sizeof lane);
  int64_t i = i0;
  for (; i + HM_LANES <= i1; i += HM_LANES)
    for (int l = 0; l < HM_LANES; l++) dot_row(type, i + l, k, x, y, lane[l]);
  for (int l = 0; i < i1; i++, l++) dot_row(type, i, k, x, y, lane[l]);
  hm_lanes_add(HM_LANES, (int)type * k, &lane[0][0], acc);
}

struct dot_args {
  hm_scalar type;
  int k;
  const double *x, *y;
};

/* One thread's rows; one column and the scalar type as constants, so the sums stay in registers. */
static void dot_thread(int64_t i0, int64_t i1, void *ctx, double *acc) {
  const struct dot_args *a = ctx;
  if (a->type == HM_COMPLEX) {
    if (a->k == 1) dot_rows(HM_COMPLEX, i0, i1, 1, a->x, a->y, acc);
    else dot_rows(HM_COMPLEX, i0, i1, a->k, a->x, a->y, acc);
  } else {
    if (a->k == 1) dot_rows(HM_REAL, i0, i1, 1, a->x, a->y, acc);
    else dot_rows(HM_REAL, i0, i1, a->k, a->x, a->y, acc);
  }
}

static int cpu_dot(hm_scalar type, int64_t n, int k, const double *x, const double *y, double *dots) {
  struct dot_args args = {type, k, x, y};
  HM_CALL(hm_row_sums(n, k * (int)type, dot_thread, &args, dots));
  return HM_SUCCESS;
}

static int cpu_axpby(hm_scalar type, int64_t n, int k, const double *alpha, const double *x, const double *beta,
                     double *y) {
  if (type == HM_COMPLEX) {
    const double complex *a = (const double complex *)alpha, *bt = (const double complex *)beta;
    const double complex *xc = (const double complex *)x;
    double complex *yc = (double complex *)y;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      for (int j = 0; j < k; j++) yc[i * k + j] = a[j] * xc[i * k + j] + (bt[j] != 0 ? bt[j] * yc[i * k + j] : 0);
  } else {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
      for (int j = 0; j < k; j++) y[i * k + j] = alpha[j] * x[i * k + j] + (beta[j] != 0 ? beta[j] * y[i * k + j] : 0);
  }
  return HM_SUCCESS;
}

static int cpu_pack_rows(hm_scalar type, int k, const int32_t *rows, int32_t n, const double *x, double *buf) {
  const size_t len = (size_t)k * (size_t)type;
#pragma omp parallel for schedule(static)
  for (int32_t q = 0; q < n; q++) memcpy(buf + q * len, x + (size_t)rows[q] * len, len * sizeof(double));
  return HM_SUCCESS;
}

/* ---- host memory ---- */
/* Zeroed blocks. From HM_HUGE_ALLOC_MIN bytes on, on huge pages, zeroed by all threads in the static
 * split the kernels use (their pages land where those threads run): calloc's 4 KiB pages, faulted in
 * one by one by the first kernel, cost 40% of a conductivity run on a VM's cores. */
static int cpu_alloc(size_t bytes, void **p) {
  if (bytes < HM_HUGE_ALLOC_MIN) {
    *p = calloc(bytes ? bytes : 1, 1);
  } else if ((*p = hm_alloc_large(bytes))) {
    char *c = *p;
#pragma omp parallel
    {
      const size_t T = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
      const size_t lo = bytes * me / T, hi = bytes * (me + 1) / T;
      memset(c + lo, 0, hi - lo);
    }
  }
  HM_CHECK(*p, HM_ERR_MEMORY, "could not allocate %zu bytes of host memory", bytes);
  return HM_SUCCESS;
}
static void cpu_release(void *p) { free(p); }
static int cpu_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) memcpy(dst, src, bytes);
  return HM_SUCCESS;
}

const hm_kernels hm_kernels_cpu = {
    .name = "cpu",
    .device_memory = 0,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .upload = cpu_copy,
    .download = cpu_copy,
    .copy = cpu_copy,
    .host_alloc = cpu_alloc,
    .host_release = cpu_release,
    .spmmv = cpu_spmmv,
    .kpm_step = cpu_kpm_step,
    .kpm_step_sum = cpu_kpm_step_sum,
    .dot = cpu_dot,
    .axpby = cpu_axpby,
    .pack_rows = cpu_pack_rows,
    .gram = hm_cpu_gram,
    .block_update = hm_cpu_block_update,
    .copy_columns = hm_cpu_copy_columns,
    .scale_rows = hm_cpu_scale_rows,
    .idr_combine = hm_cpu_idr_combine,
    .idr_update = hm_cpu_idr_update,
    .idr_multidot = hm_cpu_idr_multidot,
    .ritz_residual = hm_cpu_ritz_residual,
    .gram_columns = hm_cpu_gram_columns,
    .series_accumulate = hm_cpu_series_accumulate,
    .idr_shift_update = hm_cpu_idr_shift_update,
};
