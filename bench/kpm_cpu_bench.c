/* CPU KPM benchmark: the fused, blocked augmented SpMMV for R = 1, 4, 16, 32 on a TI lattice larger
 * than cache, each figure next to its memory-roofline bound from a STREAM-like copy measured in
 * the same run, and a plain unfused, unblocked KPM step (SpMV + separate vector sweeps) for peer.
 *   bench_kpm_cpu [--nx 64 --ny 64 --nz 40] [--steps 20] [--copy-mib 512]
 * Minimum traffic per step (Kreutzer et al., eq. 4): 20 bytes per nonzero (complex value + 32-bit
 * column) + 48 R N bytes (read V, read and write W); flops per step: R (8 nnz + 16 N). */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "hamlet.h"
#include "objects.h"
#include "kernels.h"

static double copy_bandwidth(size_t bytes) {
  size_t n = bytes / sizeof(double);
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) { a[i] = (double)i; b[i] = 0; }
  double best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    double t = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) b[i] = a[i];
    t = omp_get_wtime() - t;
    if (t < best) best = t;
  }
  volatile double sink = b[n / 2];
  (void)sink;
  free(a); free(b);
  return 2.0 * (double)n * sizeof(double) / best; /* read + write */
}

/* Plain KPM step for one vector: y = H v; w = 2 s (y - b v) - w; then the two dots, each a sweep. */
static void plain_step(const struct hm_csr_view *A, const int32_t *rows, int32_t n, double s, double b,
                       double complex *v, double complex *w, double complex *y, double *dots) {
  hm_kernels_cpu.spmmv(HM_COMPLEX, A, 1, rows, n, (const double *)v, (double *)y);
#pragma omp parallel for schedule(static)
  for (int32_t i = 0; i < n; i++) w[i] = 2 * s * (y[i] - b * v[i]) - w[i];
  double vv = 0, wv = 0;
#pragma omp parallel for reduction(+ : vv) schedule(static)
  for (int32_t i = 0; i < n; i++) vv += creal(v[i]) * creal(v[i]) + cimag(v[i]) * cimag(v[i]);
#pragma omp parallel for reduction(+ : wv) schedule(static)
  for (int32_t i = 0; i < n; i++) wv += creal(w[i]) * creal(v[i]) + cimag(w[i]) * cimag(v[i]);
  dots[0] += vv;
  dots[1] += wv;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = 64; p.ny = 64; p.nz = 40;
  int steps = 20;
  size_t copy_mib = 512;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--nx")) p.nx = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--ny")) p.ny = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--nz")) p.nz = atoll(argv[i + 1]);
    else if (!strcmp(argv[i], "--steps")) steps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--copy-mib")) copy_mib = (size_t)atol(argv[i + 1]);
  }
  hm_context *ctx;
  hm_matrix *H;
  if (hm_context_create(MPI_COMM_SELF, HM_BACKEND_CPU, &ctx) || hm_ti_build(ctx, &p, &H)) {
    fprintf(stderr, "%s", hm_error_message());
    return 1;
  }
  struct hm_csr_view A = {H->csr.nrows, H->csr.rowptr, H->csr.col, H->csr.val, NULL, NULL};
  const int32_t N = H->csr.nrows;
  const double nnz = (double)H->nnz_global;
  const int32_t *rows = H->interior_rows; /* one rank: every row, in the builder's traversal order */
  const double bw = copy_bandwidth(copy_mib << 20);
  const double s = 0.2, b = 0.1;
  printf("CPU KPM benchmark: TI %lld x %lld x %lld, N = %d, nnz = %.0f (%.2f per row), %d threads, %d steps\n",
         (long long)p.nx, (long long)p.ny, (long long)p.nz, N, nnz, nnz / N, omp_get_max_threads(), steps);
  printf("copy bandwidth (read + write, %zu MiB arrays): %.2f GB/s\n\n", copy_mib, bw / 1e9);
  printf("%-22s %4s %12s %10s %10s %12s %12s %9s\n", "kernel", "R", "us/vec-step", "GFlop/s", "B/flop",
         "GB/s", "roofline us", "of roof");
  double plain_us = 0, fused32_us = 0, fused1_frac = 0;
  const int widths[] = {1, 4, 16, 32};
  for (int wi = 0; wi < 4; wi++) {
    const int R = widths[wi];
    size_t len = (size_t)N * R;
    double complex *V = malloc(len * sizeof *V), *W = malloc(len * sizeof *W);
    for (size_t i = 0; i < len; i++) { V[i] = cexp(I * 0.37 * (double)i); W[i] = 0; }
    double dots[64];
    hm_kernels_cpu.kpm_step(HM_COMPLEX, &A, R, rows, N, s, b, (double *)V, (double *)W, dots); /* warm up */
    double t = omp_get_wtime();
    for (int it = 0; it < steps; it++) {
      hm_kernels_cpu.kpm_step(HM_COMPLEX, &A, R, rows, N, s, b, (double *)V, (double *)W, dots);
      double complex *tmp = V; V = W; W = tmp;
    }
    t = (omp_get_wtime() - t) / steps;
    double bytes = 20 * nnz + 48.0 * R * N, flops = R * (8 * nnz + 16.0 * N), roof = bytes / bw;
    double us = 1e6 * t / R;
    printf("%-22s %4d %12.3f %10.2f %10.3f %12.2f %12.3f %8.0f%%\n", "fused blocked", R, us, flops / t / 1e9,
           bytes / flops, bytes / t / 1e9, 1e6 * roof / R, 100 * roof / t);
    if (R == 1) fused1_frac = roof / t;
    if (R == 32) fused32_us = us;
    free(V); free(W);
  }
  {
    double complex *v = malloc(sizeof *v * N), *w = calloc(N, sizeof *w), *y = malloc(sizeof *y * N);
    for (int32_t i = 0; i < N; i++) v[i] = cexp(I * 0.37 * i);
    double dots[2] = {0, 0};
    plain_step(&A, rows, N, s, b, v, w, y, dots);
    double t = omp_get_wtime();
    for (int it = 0; it < steps; it++) {
      plain_step(&A, rows, N, s, b, v, w, y, dots);
      double complex *tmp = v; v = w; w = tmp;
    }
    t = (omp_get_wtime() - t) / steps;
    /* plain traffic: matrix + v (spmv) + y write, then v, y, w read + w write, then two dot sweeps */
    double bytes = 20 * nnz + 16.0 * N * (1 + 1 + 3 + 1 + 2 + 2), flops = 8 * nnz + 16.0 * N;
    plain_us = 1e6 * t;
    printf("%-22s %4d %12.3f %10.2f %10.3f %12.2f %12.3f %8.0f%%\n", "plain (spmv + sweeps)", 1, plain_us,
           flops / t / 1e9, bytes / flops, bytes / t / 1e9, 1e6 * (20 * nnz + 48.0 * N) / bw,
           100 * (20 * nnz + 48.0 * N) / bw / t);
    free(v); free(w); free(y);
  }
  printf("\nfused R=32 vs plain, per vector-step: %.2fx faster (target >= 3x)\n", plain_us / fused32_us);
  printf("fused R=1 reaches %.0f%% of the copy-bandwidth roofline (target >= 70%%)\n", 100 * fused1_frac);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return 0;
}
