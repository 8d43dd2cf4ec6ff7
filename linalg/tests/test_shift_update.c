/* The multi-shift update kernel (idr_shift_update) of the CPU table against plain loops summed in
 * long double, on fresh random inputs (seed printed; HAMLET_TEST_SEED replays it): w = a v + sum_l c_l D_l,
 * D_new = w, x += w over blocks ncol wide (packed systems: column p is system cols[p], its v entry
 * cols[p] % nv), the newest direction written over one of the D_l (as the solver does). The packed
 * entries match to rounding; the memory past the n x ncol blocks stays bit for bit; m = 0 (the
 * starting steps) and an empty list. Bad lists (not ascending, out of range, NULL) fail with HM_ERR_ARGUMENT
 * and a message. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "kernels.h"
#include "random.h"

enum { N = 53, NV = 3, NS = 7, M = 4, K = NV * NS };

static uint64_t seed;

static void fill(double *a, size_t n, uint64_t stream) {
  for (size_t i = 0; i < n; i++) a[i] = hm_random_uniform(seed, stream, i) - 0.5;
}

/* One case: the ncol systems of cols, m directions, Dnew = D[m - 1] (or its own block for m = 0). */
static void check(int ncol, const int *cols, int m) {
  const size_t len = 2 * (size_t)N * K;
  double *v = malloc(sizeof(double) * 2 * N * NV), *x = malloc(sizeof(double) * len), *x0 = malloc(sizeof(double) * len);
  double *blocks[M + 1], *before[M + 1];
  double a[2 * K], c[2 * M * K];
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
  }
  double *Dnew = m > 0 ? blocks[m - 1] : blocks[M];
  const double *Dnew0 = m > 0 ? before[m - 1] : before[M];
  const double *D[M];
  for (int l = 0; l < m; l++) D[l] = blocks[l];
  HM_TEST_OK(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, N, NV, NS, ncol, cols, m, v, a, D, c, Dnew, x));
  double worst = 0;
  for (int p = 0; p < ncol; p++)
    for (int r = 0; r < N; r++) {
      const size_t e = 2 * ((size_t)r * ncol + p);
      const double *vr = v + 2 * ((size_t)r * NV + cols[p] % NV);
      long double wr = (long double)a[2 * p] * vr[0] - (long double)a[2 * p + 1] * vr[1];
      long double wi = (long double)a[2 * p] * vr[1] + (long double)a[2 * p + 1] * vr[0];
      for (int l = 0; l < m; l++) {
        const long double cr = c[2 * (l * ncol + p)], ci = c[2 * (l * ncol + p) + 1];
        wr += cr * before[l][e] - ci * before[l][e + 1];
        wi += cr * before[l][e + 1] + ci * before[l][e];
      }
      worst = fmax(worst, (double)fabsl(Dnew[e] - wr) + (double)fabsl(Dnew[e + 1] - wi));
      worst = fmax(worst, (double)fabsl(x[e] - (x0[e] + wr)) + (double)fabsl(x[e + 1] - (x0[e + 1] + wi)));
    }
  for (size_t e = 2 * (size_t)N * ncol; e < len; e++) /* past the n x ncol blocks */
    HM_TEST_ASSERT(x[e] == x0[e] && Dnew[e] == Dnew0[e], "entry %zu past the %d x %d block was changed", e, N, ncol);
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
  seed = hm_test_seed();
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
  const int descending[2] = {3, 1}, outside[1] = {K};
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, 2, descending, M, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "must ascend");
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, 1, outside, M, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "must ascend within 0 .. 20");
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, 2, NULL, M, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "with a list");
  HM_TEST_FAILS(hm_kernels_cpu.idr_shift_update(HM_COMPLEX, 1, NV, NS, K + 1, all, M, buf, buf, D, buf, buf, buf),
                HM_ERR_ARGUMENT, "0 <= ncol <= K");
  return hm_test_finish();
}
