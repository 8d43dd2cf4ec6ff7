/* The multi-shift IDR(s) update kernel (idr_shift_update) alone against the copy bandwidth of the
 * same run: n rows, K = nv x ns systems of which ncol are listed (spread evenly), m directions,
 * bytes = 16 n (ncol (m + 3) + nv) (each listed entry: m directions and x read, the new direction
 * and x written; v once per row), blocks ncol wide as the solver keeps them, then all K (the blocks
 * before any system stopped).
 *   bench_shift_update [--backend cpu|cuda] [--rows 102400] [--rhs 8] [--shifts 101] [--running 628]
 *                      [--m 4] [--reps 20] [--copy-mib 1024] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_copy.h"

#define CHECK(call)                                                                                      \
  do {                                                                                                   \
    int st_ = (call);                                                                                    \
    if (st_) {                                                                                           \
      fprintf(stderr, "%s failed (%d): %s\n", #call, st_, hm_error_message());                          \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                      \
    }                                                                                                    \
  } while (0)

/* Seconds per call of the update over reps calls (after one warm-up), the device drained at the end. */
static double time_update(const hm_kernels *kern, int64_t n, int nv, int ns, int ncol, const int *cols, int m,
                          double *const *blk, const double *a, const double *c, int reps) {
  const double *D[64];
  for (int l = 0; l < m; l++) D[l] = blk[l];
  double *v = blk[m], *x = blk[m + 1];
  CHECK(kern->idr_shift_update(HM_COMPLEX, n, nv, ns, ncol, cols, m, v, a, D, c, blk[0], x));
  char probe;
  CHECK(kern->download(&probe, x, 1));
  const double t = MPI_Wtime();
  for (int r = 0; r < reps; r++)
    CHECK(kern->idr_shift_update(HM_COMPLEX, n, nv, ns, ncol, cols, m, v, a, D, c, blk[0], x));
  CHECK(kern->download(&probe, x, 1));
  return (MPI_Wtime() - t) / reps;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_backend backend = HM_BACKEND_CPU;
  int64_t n = 102400;
  int nv = 8, ns = 101, ncol = 628, m = 4, reps = 20;
  size_t copy_mib = 1024;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend = !strcmp(argv[++i], "cuda") ? HM_BACKEND_CUDA : HM_BACKEND_CPU;
    else if (!strcmp(argv[i], "--rows") && i + 1 < argc) n = atol(argv[++i]);
    else if (!strcmp(argv[i], "--rhs") && i + 1 < argc) nv = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--shifts") && i + 1 < argc) ns = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--running") && i + 1 < argc) ncol = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--m") && i + 1 < argc) m = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--copy-mib") && i + 1 < argc) copy_mib = (size_t)atol(argv[++i]);
    else {
      fprintf(stderr, "unknown or incomplete option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  const int K = nv * ns;
  if (n < 1 || nv < 1 || ns < 1 || m < 1 || m > 62 || ncol < 1 || ncol > K || reps < 1) {
    fprintf(stderr, "--rows, --rhs, --shifts, --reps must be >= 1, --m 1..62, --running 1..rhs x shifts\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  hm_context *ctx;
  CHECK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  const hm_kernels *kern = ctx->kernels;
  double bw = 0;
  CHECK(bench_copy_bandwidth(ctx, copy_mib << 20, &bw));
  double *blk[64]; /* D_0 .. D_(m-1), v, x */
  for (int b = 0; b < m + 2; b++) {
    const size_t bytes = 16 * (size_t)n * (b == m ? nv : K);
    CHECK(kern->alloc(bytes, (void **)&blk[b]));
  }
  int *cols = malloc(sizeof(int) * K), *all = malloc(sizeof(int) * K);
  double *a = calloc(2 * (size_t)K, sizeof(double)), *c = calloc(2 * (size_t)K * m, sizeof(double));
  for (int p = 0; p < ncol; p++) cols[p] = (int)((long)p * K / ncol);
  for (int p = 0; p < K; p++) {
    all[p] = p;
    a[2 * p] = 1e-3;
  }
  printf("idr_shift_update: backend %s, %lld rows, %d systems (%d right-hand sides x %d shifts), m = %d, copy %.1f GB/s\n",
         backend == HM_BACKEND_CUDA ? "cuda" : "cpu", (long long)n, K, nv, ns, m, bw / 1e9);
  const char *name[2] = {"packed", "all"};
  for (int lay = 0; lay < 2; lay++) {
    const int nc = lay == 1 ? K : ncol;
    const int *list = lay == 1 ? all : cols;
    const double t = time_update(kern, n, nv, ns, nc, list, m, blk, a, c, reps);
    const double bytes = 16.0 * (double)n * ((double)nc * (m + 3) + nv);
    printf("  %-8s %5d listed: %9.1f us, %7.1f GB/s, %3.0f%% of the copy bandwidth\n", name[lay], nc, t * 1e6,
           bytes / t / 1e9, 100 * bytes / t / bw);
  }
  for (int b = 0; b < m + 2; b++) kern->release(blk[b]);
  free(cols);
  free(all);
  free(a);
  free(c);
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return 0;
}
