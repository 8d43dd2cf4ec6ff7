/* IDR(s) benchmark: IDR(s) with smoothing, s = 1, 2, 4, 8, a fixed number of outer iterations
 * (tol = 0), on a real 3D convection-diffusion matrix and on the shifted TI system z - H (complex),
 * each time per outer iteration next to the memory-roofline bound of Anzt et al. 2016: one outer
 * iteration moves 22 + 9s^2/2 + 55s/2 vectors and reads the matrix s + 1 times (vector = 8n or 16n
 * bytes, matrix = 12 or 20 bytes per stored nonzero), at a bandwidth given (--bw GB/s) or measured
 * by a copy in the backend's memory in the same run. Then batches of k = 8, 16, 32 shifted TI
 * systems (one SpMM per step for all k) against k solves one after another, time per system.
 *   bench_idr [--backend cpu|cuda] [--convdiff 100] [--ti 64 64 40] [--outer 100] [--bw GB/s]
 *             [--copy-mib 512] [--batch-outer 20] [--batch-s 4] [--s 1,2,4,8]
 * (--batch-outer 0 skips the batches; --s picks the shadow space dimensions of the two sweeps.)
 * The GPU sizes of the benchmark case: --backend cuda --convdiff 172 (5.1 million rows) --ti 200 100 40 (3.2 million). */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hamlet.h"
#include "bench_copy.h"
#include "kernels.h"
#include "objects.h"

#define CHECK(expr)                                                              \
  do {                                                                           \
    int st_ = (expr);                                                            \
    if (st_) {                                                                   \
      fprintf(stderr, "%s failed (%d):\n%s\n", #expr, st_, hm_error_message()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                              \
    }                                                                            \
  } while (0)

/* Seconds for solving with IDR(s) from x = 0 until maxit; outer iterations done in *outer. */
static double time_solve(hm_operator *op, hm_idr_options *opt, hm_mvec *b, hm_mvec *x, double *outer) {
  hm_idr *idr;
  CHECK(hm_idr_create(op, opt, &idr));
  int k;
  hm_mvec_size(b, NULL, &k);
  double zero[64] = {0};
  CHECK(hm_mvec_axpby(x, zero, x, zero));
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  int st = hm_idr_solve(idr, b, x);
  t = MPI_Wtime() - t;
  if (st && st != HM_ERR_NOT_CONVERGED) fprintf(stderr, "note: %s\n", hm_error_message());
  hm_error_clear();
  int its[64];
  CHECK(hm_idr_systems(idr, its, NULL, NULL));
  *outer = (double)its[0] / (opt->s + 1);
  hm_idr_destroy(&idr);
  return t;
}

static int svals[8] = {1, 2, 4, 8}, nsvals = 4;

static void sweep(const char *name, hm_operator *op, hm_mvec *b, hm_mvec *x, int64_t n, int64_t nnz, int complex_,
                  int outer, double bw, int rank) {
  const double vec = (complex_ ? 16.0 : 8.0) * (double)n, mat = (complex_ ? 20.0 : 12.0) * (double)nnz;
  if (rank == 0) printf("%s: n = %lld, nnz = %lld\n  s   us/outer  bound_us  %%bound  vectors/outer\n", name,
                        (long long)n, (long long)nnz);
  for (int si = 0; si < nsvals; si++) {
    const int s = svals[si];
    hm_idr_options opt;
    hm_idr_options_default(&opt);
    opt.s = s;
    opt.smoothing = 1;
    opt.tol = 0;
    opt.maxit = outer * (s + 1);
    opt.history = 0;
    double done;
    const double t = time_solve(op, &opt, b, x, &done);
    const double vectors = 22 + 4.5 * s * s + 27.5 * s;
    const double bound = (vectors * vec + (s + 1) * mat) / bw;
    const double per = done > 0 ? t / done : 0;
    if (rank == 0)
      printf("  %d  %9.1f %9.1f  %5.0f%%  %6.1f%s\n", s, 1e6 * per, 1e6 * bound, per > 0 ? 100 * bound / per : 0,
             vectors, done < outer ? "  (stopped early)" : "");
  }
}

/* Batches: k shifts E_j + 0.05 i at once against one after another (op, b, x: one system). */
static void batches(hm_context *ctx, hm_matrix *H, const hm_dist *dist, hm_operator *op1, hm_mvec *b1, hm_mvec *x1,
                    int batch_s, int batch_outer, int rank) {
  hm_idr_options opt;
  hm_idr_options_default(&opt);
  opt.s = batch_s;
  opt.tol = 0;
  opt.maxit = batch_outer * (batch_s + 1);
  opt.history = 0;
  double done;
  const double t1 = time_solve(op1, &opt, b1, x1, &done);
  if (rank == 0)
    printf("\nbatched shifted TI, IDR(%d), %d outer iterations: one system %.3f s\n   k   s/system  speedup vs one after another\n",
           batch_s, batch_outer, t1);
  const int ks[3] = {8, 16, 32};
  for (int q = 0; q < 3; q++) {
    const int k = ks[q];
    double complex zs[32];
    for (int j = 0; j < k; j++) zs[j] = -1.0 + 2.0 * j / k + 0.05 * I;
    hm_operator *op;
    hm_mvec *b, *x;
    CHECK(hm_operator_create_shifted(H, k, zs, &op));
    CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, k, &b));
    CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, k, &x));
    CHECK(hm_mvec_random_phase(b, 7));
    const double tk = time_solve(op, &opt, b, x, &done);
    if (rank == 0) printf("  %2d  %9.4f  %6.2fx\n", k, tk / k, t1 / (tk / k));
    hm_mvec_destroy(&b);
    hm_mvec_destroy(&x);
    hm_operator_destroy(&op);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_backend backend = HM_BACKEND_CPU;
  int64_t cd_n = 100, ti[3] = {64, 64, 40};
  int outer = 100, batch_outer = 20, batch_s = 4;
  double bw = 0;
  size_t copy_mib = 512;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
      i++;
      backend = !strcmp(argv[i], "cuda") ? HM_BACKEND_CUDA : !strcmp(argv[i], "auto") ? HM_BACKEND_AUTO : HM_BACKEND_CPU;
    } else if (!strcmp(argv[i], "--convdiff") && i + 1 < argc) cd_n = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--ti") && i + 3 < argc) {
      for (int d = 0; d < 3; d++) ti[d] = atoll(argv[++i]);
    } else if (!strcmp(argv[i], "--outer") && i + 1 < argc) outer = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--bw") && i + 1 < argc) bw = atof(argv[++i]) * 1e9;
    else if (!strcmp(argv[i], "--copy-mib") && i + 1 < argc) copy_mib = (size_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "--batch-outer") && i + 1 < argc) batch_outer = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--batch-s") && i + 1 < argc) batch_s = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--s") && i + 1 < argc) {
      nsvals = 0;
      for (char *tok = strtok(argv[++i], ","); tok && nsvals < 8; tok = strtok(NULL, ",")) {
        svals[nsvals] = atoi(tok);
        if (svals[nsvals] < 1 || svals[nsvals] > 64) {
          fprintf(stderr, "--s: each shadow space dimension must be 1..64, not %s\n", tok);
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
        nsvals++;
      }
    }
    else {
      fprintf(stderr, "unknown or incomplete option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  hm_context *ctx;
  CHECK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  int rank, size;
  hm_context_rank(ctx, &rank, &size);
  hm_context_backend(ctx, &backend);
  const int measured = bw <= 0;
  if (measured) {
    CHECK(bench_copy_bandwidth(ctx, copy_mib << 20, &bw));
    bw *= size; /* all ranks stream at once */
  }
  if (rank == 0)
    printf("IDR(s) benchmark: backend %s, %d ranks, bandwidth %.1f GB/s (%s)\n\n",
           backend == HM_BACKEND_CUDA ? "cuda" : "cpu", size, bw / 1e9,
           measured ? "copy measured in this run, read + write" : "--bw");

  /* real convection-diffusion */
  hm_convdiff_params cp;
  hm_convdiff_params_default(&cp);
  cp.n = cd_n;
  hm_matrix *A;
  CHECK(hm_convdiff_build(ctx, &cp, &A));
  int64_t n, nnz;
  CHECK(hm_matrix_info(A, &n, &nnz, NULL));
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  hm_operator *op;
  CHECK(hm_operator_create_matrix(A, &op));
  hm_mvec *b, *x;
  CHECK(hm_mvec_create(ctx, dist, HM_REAL, 1, &b));
  CHECK(hm_mvec_create(ctx, dist, HM_REAL, 1, &x));
  CHECK(hm_mvec_random_phase(b, 7));
  sweep("convection-diffusion (real)", op, b, x, n, nnz, 0, outer, bw, rank);
  hm_mvec_destroy(&b);
  hm_mvec_destroy(&x);
  hm_operator_destroy(&op);
  hm_matrix_destroy(&A);

  /* shifted TI system z - H, z = 0.2 + 0.05 i */
  hm_ti_params tp;
  hm_ti_params_default(&tp);
  tp.nx = ti[0]; tp.ny = ti[1]; tp.nz = ti[2];
  hm_matrix *H;
  CHECK(hm_ti_build(ctx, &tp, &H));
  CHECK(hm_matrix_info(H, &n, &nnz, NULL));
  hm_matrix_dist(H, &dist);
  const double complex z = 0.2 + 0.05 * I;
  CHECK(hm_operator_create_shifted(H, 1, &z, &op));
  CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &b));
  CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &x));
  CHECK(hm_mvec_random_phase(b, 7));
  if (rank == 0) printf("\n");
  sweep("shifted TI z - H (complex)", op, b, x, n, nnz, 1, outer, bw, rank);

  if (batch_outer > 0) batches(ctx, H, dist, op, b, x, batch_s, batch_outer, rank);
  hm_mvec_destroy(&b);
  hm_mvec_destroy(&x);
  hm_operator_destroy(&op);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return 0;
}
