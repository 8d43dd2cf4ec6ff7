/* The CPU kernel table against plain loops summed in long double, on fresh random inputs (seed
 * from the clock, printed: replay with HAMLET_TEST_SEED), real and complex, on 1, 2 and 3 OpenMP
 * threads. What it guards: the k dispatch (every compiled width: 1, 2, 4, 8, 16, 32, 64 and two
 * others) of the product and the KPM step, and the row lanes of the sums (row_sums.h) at row
 * counts around the lane width and below the thread count: spmmv, kpm_step (and kpm_step_sum), dot, idr_multidot
 * (s = 1, 2, 3, 4, 8 with one system; s = 2 with three) and idr_update (with and without
 * smoothing); copy_columns of whole rows (one contiguous copy split over the threads) and of a
 * column range. The random matrix has 0 to 9 entries per row, the row list skips and permutes rows. */
#include <complex.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "kernels.h"
#include "random.h"

static uint64_t seed;
static uint64_t stream_counter;

static double *random_array(size_t n) {
  double *a = malloc(sizeof(double) * (n + 1));
  const uint64_t stream = ++stream_counter;
  for (size_t i = 0; i < n; i++) a[i] = hm_random_uniform(seed, stream, i) - 0.5;
  return a;
}

/* Largest |got - want| / (1 + max |want|) over n entries. */
static double rel_diff(size_t n, const double *got, const long double *want) {
  long double scale = 1, worst = 0;
  for (size_t i = 0; i < n; i++) scale = fmaxl(scale, fabsl(want[i]));
  for (size_t i = 0; i < n; i++) worst = fmaxl(worst, fabsl((long double)got[i] - want[i]));
  return (double)(worst / scale);
}

struct csr {
  int32_t n;
  int64_t *rowptr;
  int32_t *col;
  double *val;
  int32_t *rows, nrows; /* the listed rows: every row but each fifth, in reverse order */
};

static struct csr random_csr(int32_t n, int ts) {
  struct csr A = {n, malloc(sizeof(int64_t) * (n + 1)), NULL, NULL, malloc(sizeof(int32_t) * (n + 1)), 0};
  const uint64_t stream = ++stream_counter;
  A.rowptr[0] = 0;
  for (int32_t i = 0; i < n; i++) A.rowptr[i + 1] = A.rowptr[i] + (int64_t)(10 * hm_random_uniform(seed, stream, i));
  const int64_t nnz = A.rowptr[n];
  A.col = malloc(sizeof(int32_t) * (nnz + 1));
  for (int64_t p = 0; p < nnz; p++) A.col[p] = (int32_t)(n * hm_random_uniform(seed, stream, n + p));
  A.val = random_array((size_t)nnz * ts);
  for (int32_t i = n - 1; i >= 0; i--)
    if (i % 5 != 4) A.rows[A.nrows++] = i;
  return A;
}

static void free_csr(struct csr *A) {
  free(A->rowptr); free(A->col); free(A->val); free(A->rows);
}

/* Entry e of an array of type ts as a complex number. */
static long double complex entry(const double *a, int ts, size_t e) {
  return ts == 2 ? a[2 * e] + I * (long double)a[2 * e + 1] : a[e];
}

static void put(long double *a, int ts, size_t e, long double complex v) {
  a[ts * e] = creall(v);
  if (ts == 2) a[2 * e + 1] = cimagl(v);
}

static void add(long double *a, int ts, size_t e, long double complex v) {
  a[ts * e] += creall(v);
  if (ts == 2) a[2 * e + 1] += cimagl(v);
}

/* (A x)[i, j] for a listed row i */
static long double complex row_times(const struct csr *A, int ts, int k, const double *x, int32_t i, int j) {
  long double complex acc = 0;
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
    acc += entry(A->val, ts, p) * entry(x, ts, (size_t)A->col[p] * k + j);
  return acc;
}

static void check_products(hm_scalar type, int32_t n, int k) {
  const int ts = (int)type;
  struct csr A = random_csr(n, ts);
  const struct hm_csr_view view = {n, A.rowptr, A.col, A.val, NULL, NULL};
  const size_t len = (size_t)n * k * ts;
  double *x = random_array(len), *y = random_array(len), *W = random_array(len);
  long double *want = calloc(len + 1, sizeof(long double)), *want_w = calloc(len + 1, sizeof(long double));
  long double *dots_want = calloc(2 * (size_t)k, sizeof(long double));
  const double scale = 0.7, shift = -0.2;
  HM_TEST_OK(hm_kernels_cpu.spmmv(type, &view, k, A.rows, A.nrows, x, y));
  for (int32_t q = 0; q < A.nrows; q++)
    for (int j = 0; j < k; j++) {
      const int32_t i = A.rows[q];
      const size_t e = (size_t)i * k + j;
      const long double complex ax = row_times(&A, ts, k, x, i, j), v = entry(x, ts, e);
      put(want, ts, e, ax);
      const long double complex w = 2 * scale * (ax - shift * v) - entry(W, ts, e);
      put(want_w, ts, e, w);
      dots_want[j] += creall(conjl(v) * v);
      dots_want[k + j] += creall(conjl(w) * v);
    }
  double worst = 0;
  for (int32_t q = 0; q < A.nrows; q++) {
    const size_t at = (size_t)A.rows[q] * k * ts;
    worst = fmax(worst, rel_diff((size_t)k * ts, y + at, want + at));
  }
  HM_TEST_ASSERT(worst < 1e-14, "spmmv %s k = %d n = %d: %.3g from the reference", ts == 2 ? "complex" : "real", k,
                 n, worst);
  double *dots = calloc(2 * (size_t)k, sizeof(double)), *W0 = malloc(sizeof(double) * (len + 1));
  memcpy(W0, W, sizeof(double) * len);
  HM_TEST_OK(hm_kernels_cpu.kpm_step(type, &view, k, A.rows, A.nrows, scale, shift, x, W, dots));
  worst = 0;
  for (int32_t q = 0; q < A.nrows; q++) {
    const size_t at = (size_t)A.rows[q] * k * ts;
    worst = fmax(worst, rel_diff((size_t)k * ts, W + at, want_w + at));
  }
  worst = fmax(worst, rel_diff(2 * (size_t)k, dots, dots_want));
  HM_TEST_ASSERT(worst < 1e-13, "kpm_step %s k = %d n = %d: %.3g from the reference", ts == 2 ? "complex" : "real",
                 k, n, worst);
  /* kpm_step_sum: the same W, and sum += c W_new on the complex view (a real block's columns in pairs; an odd
   * real block with a real c, column by column); rows not listed keep their sums */
  {
    const double c[2] = {0.3, ts == 2 || k % 2 == 0 ? -1.1 : 0};
    double *sum = random_array(len), *sum0 = malloc(sizeof(double) * (len + 1));
    memcpy(sum0, sum, sizeof(double) * len);
    memcpy(W, W0, sizeof(double) * len);
    memset(dots, 0, sizeof(double) * 2 * (size_t)k);
    HM_TEST_OK(hm_kernels_cpu.kpm_step_sum(type, &view, k, A.rows, A.nrows, scale, shift, x, W, dots, c, sum));
    long double *want_sum = calloc(len + 1, sizeof(long double));
    for (size_t e = 0; e < len; e++) want_sum[e] = sum0[e];
    for (int32_t q = 0; q < A.nrows && c[1] == 0; q++) /* a real c: entry by entry */
      for (size_t e = (size_t)A.rows[q] * k * ts; e < (size_t)(A.rows[q] + 1) * k * ts; e++)
        want_sum[e] += c[0] * want_w[e];
    for (int32_t q = 0; q < A.nrows && c[1] != 0; q++) /* the complex view: k ts / 2 numbers a row */
      for (size_t e = (size_t)A.rows[q] * k * ts / 2; e < (size_t)(A.rows[q] + 1) * k * ts / 2; e++) {
        const long double complex w = want_w[2 * e] + I * want_w[2 * e + 1];
        const long double complex v = (want_sum[2 * e] + I * want_sum[2 * e + 1]) + (c[0] + I * (long double)c[1]) * w;
        want_sum[2 * e] = creall(v), want_sum[2 * e + 1] = cimagl(v);
      }
    double werr = 0;
    for (int32_t q = 0; q < A.nrows; q++) {
      const size_t at = (size_t)A.rows[q] * k * ts;
      werr = fmax(werr, rel_diff((size_t)k * ts, W + at, want_w + at));
    }
    const double serr = rel_diff(len, sum, want_sum);
    HM_TEST_ASSERT(werr < 1e-13 && serr < 1e-13 && rel_diff(2 * (size_t)k, dots, dots_want) < 1e-13,
                   "kpm_step_sum %s k = %d n = %d: W %.3g, sum %.3g from the reference", ts == 2 ? "complex" : "real",
                   k, n, werr, serr);
    free(sum); free(sum0); free(want_sum);
  }
  free(x); free(y); free(W); free(W0); free(want); free(want_w); free(dots_want); free(dots);
  free_csr(&A);
}

static void check_sums(hm_scalar type, int64_t n, int s, int k, int smoothing) {
  const int ts = (int)type;
  const size_t len = (size_t)n * k * ts;
  double *P = random_array((size_t)n * s * ts), *Y = random_array(len);
  /* dot: column dots conj(P[:, j]) Y[:, j] with P read as an n x k block */
  double *X = random_array(len);
  long double want[2 * 64 * 8] = {0};
  double got[2 * 64 * 8];
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < k; j++) add(want, ts, j, conjl(entry(X, ts, (size_t)i * k + j)) * entry(Y, ts, (size_t)i * k + j));
  HM_TEST_OK(hm_kernels_cpu.dot(type, n, k, X, Y, got));
  HM_TEST_ASSERT(rel_diff((size_t)k * ts, got, want) < 1e-14, "dot %s k = %d n = %lld: %.3g",
                 ts == 2 ? "complex" : "real", k, (long long)n, rel_diff((size_t)k * ts, got, want));
  /* multidot: G[a k + j] = sum_i conj(P[i, a]) Y[i, j] */
  memset(want, 0, sizeof want);
  for (int64_t i = 0; i < n; i++)
    for (int a = 0; a < s; a++)
      for (int j = 0; j < k; j++)
        add(want, ts, (size_t)a * k + j, conjl(entry(P, ts, (size_t)i * s + a)) * entry(Y, ts, (size_t)i * k + j));
  HM_TEST_OK(hm_kernels_cpu.idr_multidot(type, n, s, P, k, Y, got));
  HM_TEST_ASSERT(rel_diff((size_t)s * k * ts, got, want) < 1e-14, "idr_multidot %s s = %d k = %d n = %lld: %.3g",
                 ts == 2 ? "complex" : "real", s, k, (long long)n, rel_diff((size_t)s * k * ts, got, want));
  /* update: r -= b g, x += b u, dr = sig dr + b g, dx = sig dx - b u; dots ||r||^2, <dr|r>, ||dr||^2 */
  double *g = random_array(len), *u = random_array(len), *r = random_array(len), *x = random_array(len);
  double *dr = smoothing ? random_array(len) : NULL, *dx = smoothing ? random_array(len) : NULL;
  double *beta = random_array((size_t)k * ts), *sigma = random_array((size_t)k * ts);
  long double *r_want = calloc(len + 1, sizeof(long double)), *dr_want = calloc(len + 1, sizeof(long double));
  memset(want, 0, sizeof want);
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < k; j++) {
      const size_t e = (size_t)i * k + j;
      const long double complex bj = entry(beta, ts, j), rn = entry(r, ts, e) - bj * entry(g, ts, e);
      put(r_want, ts, e, rn);
      long double complex d3[3] = {conjl(rn) * rn, 0, 0};
      if (smoothing) {
        const long double complex dn = entry(sigma, ts, j) * entry(dr, ts, e) + bj * entry(g, ts, e);
        put(dr_want, ts, e, dn);
        d3[1] = conjl(dn) * rn;
        d3[2] = conjl(dn) * dn;
      }
      for (int m = 0; m < 3; m++) add(want, ts, 3 * (size_t)j + m, d3[m]);
    }
  HM_TEST_OK(hm_kernels_cpu.idr_update(type, n, k, beta, sigma, g, u, r, x, dr, dx, got));
  double worst = fmax(rel_diff(len, r, r_want), rel_diff(3 * (size_t)k * ts, got, want));
  if (smoothing) worst = fmax(worst, rel_diff(len, dr, dr_want));
  HM_TEST_ASSERT(worst < 1e-14, "idr_update %s k = %d n = %lld smoothing %d: %.3g", ts == 2 ? "complex" : "real", k,
                 (long long)n, smoothing, worst);
  free(P); free(Y); free(X); free(g); free(u); free(r); free(x); free(dr); free(dx); free(beta); free(sigma);
  free(r_want); free(dr_want);
}

/* dst[:, d0:d0+count] = src[:, s0:s0+count], whole rows (count = ks = kd) and a range. */
static void check_copy(hm_scalar type, int64_t n, int ks, int s0, int kd, int d0, int count) {
  const int ts = (int)type;
  double *src = random_array((size_t)n * ks * ts), *dst = random_array((size_t)n * kd * ts);
  double *want = malloc(sizeof(double) * ((size_t)n * kd * ts + 1));
  memcpy(want, dst, sizeof(double) * (size_t)n * kd * ts);
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < count * ts; j++) want[((size_t)i * kd + d0) * ts + j] = src[((size_t)i * ks + s0) * ts + j];
  HM_TEST_OK(hm_kernels_cpu.copy_columns(type, n, ks, src, s0, kd, dst, d0, count));
  HM_TEST_ASSERT(memcmp(dst, want, sizeof(double) * (size_t)n * kd * ts) == 0,
                 "copy_columns n = %lld ks = %d s0 = %d kd = %d d0 = %d count = %d: not the reference", (long long)n, ks,
                 s0, kd, d0, count);
  free(src); free(dst); free(want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  seed = hm_test_seed();
  const int widths[] = {1, 2, 3, 4, 8, 16, 32, 64, 65};
  const int32_t sizes[] = {0, 1, 3, 4, 5, 7, 11, 203};
  for (int threads = 1; threads <= 3; threads++) {
    omp_set_num_threads(threads);
    for (int t = 0; t < 2; t++) {
      const hm_scalar type = t ? HM_COMPLEX : HM_REAL;
      for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) check_products(type, 97, widths[w]);
      for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        check_products(type, sizes[z], 1);
        for (int s = 1; s <= 8; s *= 2) check_sums(type, sizes[z], s, 1, z % 2);
        check_sums(type, sizes[z], 3, 1, 1);
        check_sums(type, sizes[z], 2, 3, z % 2 == 0);
        check_copy(type, sizes[z], 1, 0, 1, 0, 1);
        check_copy(type, sizes[z], 3, 0, 3, 0, 3);
        check_copy(type, sizes[z], 5, 1, 3, 2, 1);
      }
    }
  }
  return hm_test_finish();
}
