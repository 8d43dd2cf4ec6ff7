/* The multi-shift update kernel (idr_shift_update) of the CPU table against plain loops summed in
 * long double, on fresh random inputs (seed from the clock, printed): w = a v + sum_l c_l D_l,
 * D_new = w, x += w over the listed systems only, each D_l holding them packed at random ascending
 * columns (a superset's layout, as the solver leaves a block written when more systems ran), and the
 * newest direction written over one of the D_l, packed in place (as the solver does). The listed
 * systems match to rounding; the other columns of x, and D_new's columns past the list, stay bit for
 * bit; m = 0 (the starting steps) and an empty list. Bad lists (not ascending, out of range, NULL)
 * fail with HM_ERR_ARGUMENT and a message. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "testing.h"
#include "kernels.h"
#include "random.h"

enum { N = 53, NV = 3, NS = 7, M = 4, K = NV * NS };

static uint64_t seed;

static void fill(double *a, size_t n, uint64_t stream) {
  for (size_t i = 0; i < n; i++) a[i] = hm_random_uniform(seed, stream, i) - 0.5;
}

/* pos[p]: the column of cols[p] in a random ascending superset of cols (each other system kept with
 * probability 1/2): where a block written by an earlier, longer list holds them. */
static void packed_columns(int ncol, const int *cols, uint64_t stream, int *pos) {
  int at = 0, p = 0;
  for (int c = 0; c < K && p < ncol; c++) {
    if (c == cols[p]) pos[p++] = at++;
    else if (hm_random_uniform(seed, stream, (uint64_t)c) < 0.5) at++;
  }
}

/* One case: the ncol systems of cols, m directions, Dnew = D[m - 1] (or its own block for m = 0). */
static void check(int ncol, const int *cols, int m) {
  const size_t len = 2 * (size_t)N * K;
  double *v = malloc(sizeof(double) * 2 * N * NV), *x = malloc(sizeof(double) * len), *x0 = malloc(sizeof(double) * len);
  double *blocks[M + 1], *before[M + 1];
  double a[2 * K], c[2 * M * K];
  int pos[M * K];
  fill(v, 2 * N * NV, 1);
  fill(x, len, 2);
  fill(a, 2 * K, 3);
  fill(c, 2 * M * K, 4);
  memcpy(x0, x, sizeof(double) * len);
  for (int l = 0; l <= M; l++) {
    blocks[l] = malloc(sizeof(double) * len);
    before[l] = malloc(sizeof(double) * len);
    fill(blocks[l], len, 10 + (uint64_t)l);
    memcpy(before[l], blocks[l], sizeof(double) * len);
    if (l < m) packed_columns(ncol, cols, 20 + (uint64_t)l, pos + (size_t)l * ncol);
  }
  double *Dnew = m > 0 ? blocks[m - 1] : blocks[M];
  const double *Dnew0 = m > 0 ? before[m - 1] : before[M];
  const double *D[M];
  for (int l = 0; l < m; l++) D[l] = blocks[l];
  HM_TEST_OK(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, N, NV, NS, ncol, cols, m, pos, v, a, D, c, Dnew, x));
  double worst = 0;
  for (int col = 0, p = 0; col < K; col++) {
    const int on = p < ncol && cols[p] == col;
    for (int r = 0; r < N; r++) {
      const size_t e = 2 * ((size_t)r * K + col), f = 2 * ((size_t)r * K + p);
      if (!on) {
        HM_TEST_ASSERT(x[e] == x0[e] && x[e + 1] == x0[e + 1], "system %d (not listed) was changed at row %d", col, r);
        continue;
      }
      const double *vr = v + 2 * ((size_t)r * NV + col % NV);
      long double wr = (long double)a[2 * p] * vr[0] - (long double)a[2 * p + 1] * vr[1];
      long double wi = (long double)a[2 * p] * vr[1] + (long double)a[2 * p + 1] * vr[0];
      for (int l = 0; l < m; l++) {
        const long double cr = c[2 * (l * ncol + p)], ci = c[2 * (l * ncol + p) + 1];
        const size_t d = 2 * ((size_t)r * K + pos[l * ncol + p]);
        wr += cr * before[l][d] - ci * before[l][d + 1];
        wi += cr * before[l][d + 1] + ci * before[l][d];
      }
      worst = fmax(worst, (double)fabsl(Dnew[f] - wr) + (double)fabsl(Dnew[f + 1] - wi));
      worst = fmax(worst, (double)fabsl(x[e] - (x0[e] + wr)) + (double)fabsl(x[e + 1] - (x0[e + 1] + wi)));
    }
    p += on;
  }
  for (size_t e = 0; e < len; e++)
    HM_TEST_ASSERT((int)(e / 2 % K) < ncol || Dnew[e] == Dnew0[e], "D_new's column %d (past the list of %d) changed",
                   (int)(e / 2 % K), ncol);
  HM_TEST_ASSERT(worst < 1e-14, "ncol %d, m %d: largest difference %.3e from the long double reference (seed %llu)",
                 ncol, m, worst, (unsigned long long)seed);
  for (int l = 0; l <= M; l++) {
    free(blocks[l]);
    free(before[l]);
  }
  free(v);
  free(x);
  free(x0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  seed = (uint64_t)time(NULL);
  printf("seed %llu\n", (unsigned long long)seed);
  int all[K], some[K], nsome = 0;
  for (int col = 0; col < K; col++) {
    all[col] = col;
    if (hm_random_uniform(seed, 5, (uint64_t)col) < 0.6) some[nsome++] = col;
  }
  const int last[1] = {K - 1}, one_shift[NV] = {3 * NV, 3 * NV + 1, 3 * NV + 2};
  check(nsome, some, M);
  check(nsome, some, 0);
  check(K, all, M);
  check(NV, one_shift, 2);
  check(1, last, 2);
  check(0, NULL, M);
  double buf[2 * K * (M + 1)] = {0};
  const double *D[M] = {buf, buf, buf, buf};
  const int descending[2] = {3, 1}, outside[1] = {K}, ok[2] = {1, 4}, pos_down[2 * M] = {0, 1, 0, 1, 2, 1, 0, 1};
  const int pos_ok[2 * M] = {0, 1, 0, 1, 0, 1, 0, 1};
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, 2, descending, M, pos_ok, buf, buf, D, buf, buf,
                                                buf), HM_ERR_ARGUMENT, "must ascend");
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, 1, outside, M, pos_ok, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "must ascend within 0 .. 20");
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, 2, NULL, M, pos_ok, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "with both lists");
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, 2, ok, M, NULL, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "with both lists");
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, 2, ok, M, pos_down, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "direction 2's columns must ascend");
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, K + 1, all, M, pos_ok, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "0 <= ncol <= K");
  return hm_test_finish();
}
