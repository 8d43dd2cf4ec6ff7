/* Multi-shift IDR(s) on the CUDA backend against the CPU backend (the fused shift update kernel
 * idr_shift_update and the seed's kernels): a random complex Hermitian-like sparse matrix with
 * fresh random values each run (seed printed; HAMLET_TEST_SEED replays it), 3 right-hand sides x 40 shifts;
 * every shift's true residual below tol on both, and the two solutions within 1e-7 relative: the
 * backends sum their reductions in different orders, so their iterations part at rounding level and
 * each solution is right only to its residual times the shift's condition number (the H100 measured
 * differences of 1e-9 to 5e-9 at tol 1e-9). Also the kernel alone: the CUDA idr_shift_update against
 * the CPU one on fresh random blocks with a list of active shifts (the others must stay bit for bit).
 * Then the same with polish forced on every shift (each stalls at 1e-3: all 120 systems finished by
 * the batched polish, in groups by memory) on both backends: all polished, same bounds.
 * Skips without a GPU. */
#include <string.h>
#include "idr_multishift_internal.h"
#include "idr_testlib.h"
#include "kernels.h"

enum { N = 3000, KB = 3, NS = 40 };

static uint64_t seed_of_run;

static int row_fn(int64_t i, int64_t *cols, double complex *vals, const void *par) {
  (void)par;
  static const int64_t dist[3] = {1, 17, 301};
  int c = 0;
  cols[c] = i;
  vals[c++] = 2 * idr_test_hash(seed_of_run, (uint64_t)i, (uint64_t)i);
  for (int d = 0; d < 3; d++)
    for (int sign = -1; sign <= 1; sign += 2) {
      const int64_t j = i + sign * dist[d];
      if (j < 0 || j >= N) continue;
      const int64_t lo = i < j ? i : j, hi = i < j ? j : i;
      const double complex h = idr_test_hash(seed_of_run + 1, (uint64_t)lo, (uint64_t)hi) +
                               I * idr_test_hash(seed_of_run + 2, (uint64_t)lo, (uint64_t)hi);
      cols[c] = j;
      vals[c++] = i < j ? h : conj(h);
    }
  return c;
}

/* stall_at > 0: every shift stalls there and is polished; returns the columns polish solved. */
static long solve_on(hm_backend backend, double stall_at, double complex *x_out, double *tru) {
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  hm_matrix *H;
  HM_TEST_OK(idr_test_matrix(ctx, N, HM_COMPLEX, row_fn, NULL, 8, &H));
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  hm_mvec *b, *x;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, KB, &b));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, KB * NS, &x));
  HM_TEST_OK(idr_test_fill(b, idr_test_random_entry, &seed_of_run));
  hm_operator *op;
  HM_TEST_OK(hm_operator_create_matrix(H, &op));
  double complex shifts[NS];
  for (int q = 0; q < NS; q++) shifts[q] = -(-5.0 + 10.0 * q / (NS - 1) + 0.2 * I);
  hm_idr_options opt;
  hm_idr_options_default(&opt);
  opt.tol = 1e-9;
  hm_idr_multishift *ms;
  HM_TEST_OK(hm_idr_multishift_create(op, &opt, NS, shifts, &ms));
  HM_TEST_OK(hm_idr_multishift_set_polish(ms, 0, stall_at));
  HM_TEST_OK(hm_idr_multishift_solve(ms, b, x));
  HM_TEST_OK(hm_idr_multishift_results(ms, NULL, NULL, NULL, tru));
  hm_idr_multishift_profile prof;
  HM_TEST_OK(hm_idr_multishift_get_profile(ms, &prof));
  HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x, x_out));
  hm_idr_multishift_destroy(&ms);
  hm_operator_destroy(&op);
  hm_mvec_destroy(&b);
  hm_mvec_destroy(&x);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return prof.polish_columns;
}

/* The fused update of 13 systems of 33 (11 shifts x 3 right-hand sides, m = 4) in blocks 13 wide,
 * the newest direction written over D_0, on both backends from the same random inputs; all the
 * memory compared (past the 13-wide blocks it must stay). */
static void kernel_on_both(void) {
  enum { R = 5000, NV = 3, NSH = 11, M = 4, NCOL = 13 };
  const int cols[NCOL] = {0, 1, 2, 9, 11, 12, 13, 14, 20, 27, 28, 29, 32}, K = NV * NSH;
  const size_t len = 2 * (size_t)R * K, nvlen = 2 * (size_t)R * NV;
  const hm_kernels *gpu = hm_kernels_cuda(), *cpu = &hm_kernels_cpu;
  HM_TEST_ASSERT(gpu != NULL, "no CUDA kernel table although a device is visible");
  if (!gpu) return;
  double *h[M + 2], a[2 * NCOL], c[2 * M * NCOL];
  for (int b = 0; b < M + 2; b++) { /* D_0 .. D_3, x, v */
    h[b] = malloc(sizeof(double) * len);
    for (size_t i = 0; i < len; i++) h[b][i] = idr_test_hash(seed_of_run + 10 + (uint64_t)b, i, 0);
  }
  for (int i = 0; i < 2 * NCOL; i++) a[i] = idr_test_hash(seed_of_run + 20, (uint64_t)i, 1);
  for (int i = 0; i < 2 * M * NCOL; i++) c[i] = idr_test_hash(seed_of_run + 21, (uint64_t)i, 2);
  void *d[M + 2];
  for (int b = 0; b < M + 2; b++) {
    HM_TEST_OK(gpu->alloc(sizeof(double) * len, &d[b]));
    HM_TEST_OK(gpu->upload(d[b], h[b], sizeof(double) * (b == M + 1 ? nvlen : len)));
  }
  const double *Dc[M], *Dg[M];
  for (int l = 0; l < M; l++) {
    Dc[l] = h[l];
    Dg[l] = d[l];
  }
  HM_TEST_OK(gpu->idr_shift_update(HM_COMPLEX, R, NV, NSH, NCOL, cols, M, d[M + 1], a, Dg, c, d[0], d[M]));
  HM_TEST_OK(cpu->idr_shift_update(HM_COMPLEX, R, NV, NSH, NCOL, cols, M, h[M + 1], a, Dc, c, h[0], h[M]));
  double *back = malloc(sizeof(double) * len), worst = 0;
  for (int b = 0; b <= M; b += M) { /* Dnew (over D_0) and x: every column, listed or not */
    HM_TEST_OK(gpu->download(back, d[b], sizeof(double) * len));
    for (size_t i = 0; i < len; i++) worst = fmax(worst, fabs(back[i] - h[b][i]));
  }
  HM_TEST_ASSERT(worst < 1e-13, "idr_shift_update: CUDA and CPU differ by %.3e (seed %llu)", worst,
                 (unsigned long long)seed_of_run);
  free(back);
  for (int b = 0; b < M + 2; b++) {
    gpu->release(d[b]);
    free(h[b]);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  seed_of_run = hm_test_seed();
  kernel_on_both();
  const size_t len = (size_t)N * KB * NS;
  double complex *xc = malloc(sizeof(double complex) * len), *xg = malloc(sizeof(double complex) * len);
  double tc[KB * NS], tg[KB * NS];
  for (int forced = 0; forced <= 1; forced++) {
    const double stall_at = forced ? 1e-3 : 0;
    const long pc = solve_on(HM_BACKEND_CPU, stall_at, xc, tc), pg = solve_on(HM_BACKEND_CUDA, stall_at, xg, tg);
    HM_TEST_ASSERT(!forced || (pc == KB * NS && pg == KB * NS),
                   "forced polish solved %ld (cpu) and %ld (gpu) columns; expected all %d", pc, pg, KB * NS);
    for (int c = 0; c < KB * NS; c++) {
      double num = 0, den = 0;
      for (size_t i = 0; i < (size_t)N; i++) {
        const double complex d = xg[i * KB * NS + c] - xc[i * KB * NS + c];
        num += creal(d * conj(d));
        den += creal(xc[i * KB * NS + c] * conj(xc[i * KB * NS + c]));
      }
      HM_TEST_ASSERT(sqrt(num / den) < 1e-7 && tc[c] <= 1e-9 && tg[c] <= 1e-9,
                     "%ssystem %d (seed %llu): |x_gpu - x_cpu| / |x_cpu| = %.3e, true residuals %.3e (cpu) %.3e (gpu)",
                     forced ? "forced polish: " : "", c, (unsigned long long)seed_of_run, sqrt(num / den), tc[c], tg[c]);
    }
  }
  free(xc);
  free(xg);
  return hm_test_finish();
}
