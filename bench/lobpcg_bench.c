/* LOBPCG benchmark: 100 iterations (tol = 0, so it never stops early) at nev = 16 and 32, no
 * preconditioner, on the 3D 7-point Laplacian of an L^3 grid (default L = 100: n = 10^6), built
 * distributed here, or (--fem E) on the FEM pencil K x = lambda M x of hm_fem_build: Q1 elements,
 * E per direction on the unit cube, V = 0, (E-1)^3 unknowns (E = 101: n = 10^6). The backend from
 * the command line. Prints time per iteration and flops per iteration from the usual count
 * 2 nnz nv + 36 n nv^2 (nv = block = nev; FEM: nnz = nnz(K) + nnz(M), both products count).
 * The per-iteration time runs from the start block's Rayleigh-Ritz to the last iteration (the
 * start is timed apart). --tol t stops at residual t instead (for checks); --values prints all nev
 * eigenvalues after each line; --check (FEM, with a tol) compares them with the exact values of the
 * Q1 pencil and exits 1 when one differs by more than 1e-6 (relative).
 *   bench_lobpcg [--backend cpu|cuda] [--L 100 | --fem E] [--iterations 100] [--nev 16,32] [--tol 0]
 *                [--values] [--check] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hamlet.h"
#include "bench_copy.h"
#ifdef HAMLET_BENCH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

/* The 7-point Laplacian with Dirichlet boundaries, rows of this rank. */
#ifdef HAMLET_BENCH_CUDA
#define CK_DEV(ok, what)                                                      \
  do {                                                                        \
    if (!(ok)) {                                                              \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, what);         \
      MPI_Abort(MPI_COMM_WORLD, 1);                                           \
    }                                                                         \
  } while (0)

/* cuBLAS DGEMM on 8192^3 (best of 3 after a warm-up): the GPU's flop rate measured in this run,
 * to read the achieved rate against. */
static double dgemm_rate(void) {
  const size_t m = 8192, bytes = m * m * sizeof(double);
  double *a, *b, *c;
  CK_DEV(cudaMalloc((void **)&a, bytes) == cudaSuccess && cudaMalloc((void **)&b, bytes) == cudaSuccess &&
             cudaMalloc((void **)&c, bytes) == cudaSuccess,
         "cudaMalloc of the DGEMM operands");
  CK_DEV(cudaMemset(a, 0, bytes) == cudaSuccess && cudaMemset(b, 0, bytes) == cudaSuccess, "cudaMemset");
  cublasHandle_t h;
  CK_DEV(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  const double one = 1, zero = 0;
  double best = 0;
  for (int rep = 0; rep < 4; rep++) { /* rep 0 warms up */
    CK_DEV(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize");
    const double t = MPI_Wtime();
    CK_DEV(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)m, (int)m, &one, a, (int)m, b, (int)m, &zero, c,
                       (int)m) == CUBLAS_STATUS_SUCCESS, "cublasDgemm");
    CK_DEV(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize");
    if (rep > 0) best = fmax(best, 2.0 * (double)m * (double)m * (double)m / (MPI_Wtime() - t) * 1e-9);
  }
  cublasDestroy(h);
  cudaFree(a); cudaFree(b); cudaFree(c);
  return best;
}
#endif

static int laplacian_3d(hm_context *ctx, int64_t L, hm_matrix **A) {
  const int64_t n = L * L * L;
  hm_dist *dist;
  int st = hm_dist_create(ctx, n, 1, 1.0, &dist);
  if (st) return st;
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t *rowptr = malloc(sizeof(int64_t) * (local + 1)), *cols = malloc(sizeof(int64_t) * (7 * local + 1));
  double *vals = malloc(sizeof(double) * (7 * local + 1));
  int64_t nz = 0;
  rowptr[0] = 0;
  for (int64_t l = 0; l < local; l++) {
    int64_t i = first + l, x = i % L, y = (i / L) % L, z = i / (L * L);
    const int64_t nb[6][3] = {{x, y, z - 1}, {x, y - 1, z}, {x - 1, y, z}, {x + 1, y, z}, {x, y + 1, z}, {x, y, z + 1}};
    for (int q = 0; q < 6; q++) {
      if (q == 3) { cols[nz] = i; vals[nz++] = 6.0; }
      const int64_t *c = nb[q];
      if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= L || c[1] >= L || c[2] >= L) continue;
      cols[nz] = c[0] + L * (c[1] + L * c[2]);
      vals[nz++] = -1.0;
    }
    rowptr[l + 1] = nz;
  }
  st = hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, vals, A);
  free(rowptr); free(cols); free(vals);
  hm_dist_destroy(&dist);
  return st;
}

/* Wall time when iteration 0 (after the start block's Rayleigh-Ritz) and the last one reported:
 * the per-iteration time leaves the start out. */
typedef struct {
  double t0, t_last;
} clock_marks;

static void on_progress(int iteration, int nev, const double *values, const double *residuals, int converged,
                        void *user) {
  (void)nev; (void)values; (void)residuals; (void)converged;
  clock_marks *c = user;
  if (iteration == 0) c->t0 = MPI_Wtime();
  c->t_last = MPI_Wtime();
}

/* The FEM pencil with no potential: K = stiffness / 2, M = mass. */
static int fem_pencil(hm_context *ctx, int64_t E, hm_matrix **K, hm_matrix **M) {
  hm_fem_params p;
  int st = hm_fem_params_default(&p);
  if (st) return st;
  p.ex = p.ey = p.ez = E;
  p.lx = p.ly = p.lz = 1.0;
  p.potential = HM_FEM_POTENTIAL_NONE;
  return hm_fem_build(ctx, &p, K, M);
}

static int ascending(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The lowest k eigenvalues of the Q1 pencil with V = 0 on the unit cube, exactly: the pencil is a
 * Kronecker sum, lambda = sum_d mu(k_d) / 2 with the 1D values mu(k) = (6/h^2)(1 - cos t)/(2 + cos t),
 * t = k pi / E, 1 <= k_d <= E-1. */
static void fem_exact(int64_t E, int k, double *lowest) {
  const int64_t m = E - 1;
  const double h = 1.0 / (double)E;
  double *mu = malloc(sizeof(double) * m), *all = malloc(sizeof(double) * m * m * m);
  for (int64_t i = 0; i < m; i++) {
    const double t = (double)(i + 1) * M_PI / (double)E;
    mu[i] = 0.5 * (6.0 / (h * h)) * (1.0 - cos(t)) / (2.0 + cos(t));
  }
  for (int64_t a = 0; a < m; a++)
    for (int64_t b = 0; b < m; b++)
      for (int64_t c = 0; c < m; c++) all[a + m * (b + m * c)] = mu[a] + mu[b] + mu[c];
  qsort(all, (size_t)(m * m * m), sizeof(double), ascending);
  for (int j = 0; j < k; j++) lowest[j] = all[j];
  free(mu);
  free(all);
}

#define CHECK(call)                                                            \
  do {                                                                         \
    int st_ = (call);                                                          \
    if (st_) {                                                                 \
      fprintf(stderr, "%s failed:\n%s", #call, hm_error_message());            \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_backend backend = HM_BACKEND_CPU;
  int64_t L = 100, fem = 0;
  int iterations = 100, nevs[8] = {16, 32}, nnev = 2, print_values = 0, check = 0, failed = 0;
  double tol = 0;
  const char *usage = "usage: bench_lobpcg [--backend cpu|cuda] [--L 100 | --fem E] [--iterations 100] [--nev 16,32] "
                      "[--tol 0] [--values] [--check]\n";
  for (int a = 1; a < argc; a += 2) {
    if (!strcmp(argv[a], "--values") || !strcmp(argv[a], "--check")) {
      if (argv[a][2] == 'v') print_values = 1;
      else check = 1;
      a--;
      continue;
    }
    if (a + 1 >= argc) {
      fprintf(stderr, "option %s needs a value\n%s", argv[a], usage);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!strcmp(argv[a], "--backend")) backend = !strcmp(argv[a + 1], "cuda") ? HM_BACKEND_CUDA : !strcmp(argv[a + 1], "auto") ? HM_BACKEND_AUTO : HM_BACKEND_CPU;
    else if (!strcmp(argv[a], "--L")) L = atoll(argv[a + 1]);
    else if (!strcmp(argv[a], "--fem")) fem = atoll(argv[a + 1]);
    else if (!strcmp(argv[a], "--tol")) tol = atof(argv[a + 1]);
    else if (!strcmp(argv[a], "--iterations")) iterations = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--nev")) {
      nnev = 0;
      for (char *t = strtok(argv[a + 1], ","); t && nnev < 8; t = strtok(NULL, ",")) nevs[nnev++] = atoi(t);
    } else {
      fprintf(stderr, "unknown option %s\n%s", argv[a], usage);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hm_context *ctx;
  CHECK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  hm_backend used;
  hm_context_backend(ctx, &used);
  hm_matrix *A = NULL, *B = NULL; /* B: the FEM mass matrix; NULL for the Laplacian (B = I) */
  int64_t n, nnz;
  hm_operator *op, *opB = NULL;
  if (fem) {
    CHECK(fem_pencil(ctx, fem, &A, &B));
    int64_t nnzK, nnzM;
    hm_matrix_info(A, &n, &nnzK, NULL);
    hm_matrix_info(B, NULL, &nnzM, NULL);
    nnz = nnzK + nnzM; /* each iteration multiplies the new block by K and by M */
    CHECK(hm_operator_create_matrix(B, &opB));
    if (rank == 0)
      printf("LOBPCG, FEM Q1 E = %lld elements per direction, unit cube, V = 0, K x = lambda M x (n = %lld, "
             "nnz = %lld: K %lld + M %lld), backend %s, %d ranks, %d iterations\n",
             (long long)fem, (long long)n, (long long)nnz, (long long)nnzK, (long long)nnzM,
             used == HM_BACKEND_CUDA ? "cuda" : "cpu", size, iterations);
  } else {
    CHECK(laplacian_3d(ctx, L, &A));
    hm_matrix_info(A, &n, &nnz, NULL);
    if (rank == 0)
      printf("LOBPCG, 3D 7-point Laplacian L = %lld (n = %lld, nnz = %lld), backend %s, %d ranks, %d iterations\n",
             (long long)L, (long long)n, (long long)nnz, used == HM_BACKEND_CUDA ? "cuda" : "cpu", size, iterations);
  }
  CHECK(hm_operator_create_matrix(A, &op));
  double dgemm_gflops = 0;
#ifdef HAMLET_BENCH_CUDA
  if (used == HM_BACKEND_CUDA && rank == 0) {
    double copy;
    CHECK(bench_copy_bandwidth(ctx, (size_t)1 << 30, &copy));
    dgemm_gflops = dgemm_rate();
    printf("device rates measured in this run: copy %.0f GB/s (read + write), cuBLAS DGEMM 8192^3 %.0f Gflop/s\n",
           copy * 1e-9, dgemm_gflops);
  }
#endif
  for (int c = 0; c < nnev; c++) {
    hm_lobpcg_options opt;
    hm_lobpcg_options_default(&opt);
    opt.nev = opt.block = nevs[c];
    opt.tol = tol;
    opt.maxit = iterations;
    opt.history = 0;
    clock_marks marks = {0, 0};
    opt.progress = on_progress;
    opt.progress_user = &marks;
    hm_lobpcg *lob;
    CHECK(hm_lobpcg_create(op, opB, &opt, &lob));
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    CHECK(hm_lobpcg_run(lob));
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    int it;
    double *values = malloc(sizeof(double) * nevs[c]), *res = malloc(sizeof(double) * nevs[c]);
    hm_lobpcg_info(lob, &it, NULL, NULL);
    hm_lobpcg_eigenvalues(lob, values);
    hm_lobpcg_residuals(lob, res);
    const double nv = nevs[c], flops = 2.0 * (double)nnz * nv + 36.0 * (double)n * nv * nv;
    const double per = (marks.t_last - marks.t0) / (it > 0 ? it : 1);
    if (rank == 0)
      printf("nev = %2d: %d iterations in %.3f s (%.3f s with the start block): %.3f ms per iteration, %.3g Gflop per "
             "iteration, %.1f Gflop/s; lambda[0] = %.10f (residual %.2e)\n",
             nevs[c], it, marks.t_last - marks.t0, t, 1e3 * per, flops * 1e-9, flops / per * 1e-9, values[0], res[0]);
    if (rank == 0 && dgemm_gflops > 0)
      printf("nev = %2d: %.1f Gflop/s is %.1f%% of the DGEMM rate measured above\n", nevs[c], flops / per * 1e-9,
             100.0 * flops / per * 1e-9 / dgemm_gflops);
    if (rank == 0 && print_values) {
      printf("values:");
      for (int k = 0; k < nevs[c]; k++) printf(" %.12f", values[k]);
      printf("\n");
    }
    if (check && fem) {
      double *exact = malloc(sizeof(double) * nevs[c]), worst = 0;
      fem_exact(fem, nevs[c], exact);
      for (int k = 0; k < nevs[c]; k++) worst = fmax(worst, fabs(values[k] - exact[k]) / fabs(exact[k]));
      if (rank == 0)
        printf("check nev = %d: max relative difference from the exact Q1 eigenvalues %.2e (%s)\n", nevs[c], worst,
               worst <= 1e-6 ? "ok" : "FAILED");
      failed |= !(worst <= 1e-6);
      free(exact);
    }
    free(values);
    free(res);
    hm_lobpcg_destroy(&lob);
  }
  hm_operator_destroy(&op);
  hm_operator_destroy(&opB);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&B);
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return failed;
}
