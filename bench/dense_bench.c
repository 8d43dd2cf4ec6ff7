/* Dense Hermitian eigensolver benchmark: dsyevd / zheevd with eigenvectors for each n given.
 *   mpiexec -n P bench_dense [--real|--complex] [--lapack1 | --gpu-only | --distributed-gpu] n...
 * On one rank: LAPACK on 1 thread (n <= 4096 unless --lapack1: it takes minutes beyond) and on all
 * threads (OpenBLAS), and where a GPU is visible hm_dense_eigh through cuSOLVER next to a plain
 * cusolverDnXsyevd call in the same run (with and without its host<->device copies), their ratio
 * against the target hm/plain <= 1.1. --gpu-only skips LAPACK (the GPU figures of large n in minutes, not hours). On several ranks: hm_dense_eigh_matrix through ScaLAPACK on
 * all ranks and hamlet's distributed two-stage solver (HM_DENSE_DISTRIBUTED) on the same ranks, against
 * LAPACK on one core (rank 0, the others waiting). --distributed-gpu: the distributed solver with every
 * rank's columns on its GPU (the ranks of a node share its GPUs round-robin), eigenvalues only and with
 * vectors, next to one plain cusolverDnXsyevd on rank 0's GPU in the same run. Every solver gets the same
 * matrix: a random sparse Hermitian one (diagonal + ~16 entries per row; the dense solvers' cost
 * does not depend on the sparsity), built as an hm_matrix and, for the local solvers, densely. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hamlet.h"
#ifdef HAMLET_BENCH_CUDA
#include <cuda_runtime.h>
#include <cusolverDn.h>
#endif

void openblas_set_num_threads(int threads); /* OpenBLAS (the BLAS hamlet links on Debian) */
/* The library's (linalg/dense/dense_distributed.h): this rank's seconds in the last distributed solve's
 * stages: band reduction, bulge chase, tridiagonal, Q2 back, Q1 back. */
void hm_dense_distributed_seconds(double seconds[5]);

static void print_stages(const char *what, int64_t n) {
  double t[8];
  hm_dense_distributed_seconds(t);
  printf("%s n=%-6lld   stages (rank 0): entries in %.3f  band %.3f  chase %.3f  tridiagonal %.3f  back Q2 %.3f  "
         "back Q1 %.3f  vectors out %.3f s; from the columns on the ranks' side %.3f s\n",
         what, (long long)n, t[5], t[0], t[1], t[2], t[3], t[4], t[7], t[0] + t[1] + t[2] + t[3] + t[4]);
}
int openblas_get_num_procs(void);

#define CK(x)                                                                                   \
  do {                                                                                          \
    if ((x) != 0) {                                                                             \
      fprintf(stderr, "%s:%d: %s failed:\n%s\n", __FILE__, __LINE__, #x, hm_error_message()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                             \
    }                                                                                           \
  } while (0)

static double hash01(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  x ^= x >> 31; x *= 0xD6E8FEB86659FD93ull; x ^= x >> 32;
  return (double)(x >> 11) / 9007199254740992.0;
}

/* Row i's entries (lower and upper, Hermitian): the diagonal, and for k < 8 the pair (i, c_k(i))
 * mirrored, with c_k(i) = hash-chosen columns; cols/vals sized 17. */
static int row_entries(int64_t n, int64_t i, hm_scalar type, int64_t *cols, double complex *vals) {
  int m = 0;
  cols[m] = i;
  vals[m++] = 4.0 * hash01((uint64_t)i, 1) - 2.0;
  /* Partners j of i: j = c_k(i) for the 8 k, and every i' with c_k(i') = i would be unbounded, so
   * use a symmetric rule: j = i +- d_k with d_k from a hash of k only (a banded random pattern). */
  for (int k = 0; k < 8; k++) {
    int64_t d = 1 + (int64_t)(hash01(k, 7) * (double)(n / 2));
    for (int s = -1; s <= 1; s += 2) {
      int64_t j = ((i + s * d) % n + n) % n;
      if (j == i) continue;
      uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
      double re = hash01(lo, hi) - 0.5, im = type == HM_COMPLEX ? hash01(hi, lo) - 0.5 : 0;
      cols[m] = j;
      vals[m++] = i > j ? re + I * im : re - I * im;
    }
  }
  return m;
}

static hm_matrix *build_matrix(hm_context *ctx, hm_dist *dist, hm_scalar type) {
  int64_t first, local, n;
  CK(hm_dist_range(dist, &first, &local, &n));
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * (size_t)(17 * local + 1));
  double *vals = malloc(sizeof(double) * 2 * (size_t)(17 * local + 1));
  int64_t c[17];
  double complex v[17];
  for (int64_t r = 0; r < local; r++) {
    int m = row_entries(n, first + r, type, c, v);
    for (int k = 0; k < m; k++) {
      int64_t p = rowptr[r] + k;
      cols[p] = c[k];
      if (type == HM_REAL) vals[p] = creal(v[k]);
      else { vals[2 * p] = creal(v[k]); vals[2 * p + 1] = cimag(v[k]); }
    }
    rowptr[r + 1] = rowptr[r] + m;
  }
  hm_matrix *A;
  CK(hm_matrix_create_csr(ctx, dist, type, rowptr, cols, vals, &A));
  free(rowptr); free(cols); free(vals);
  return A;
}

/* The same matrix, dense column-major (lower triangle filled, which is what the solvers read). */
static double *build_dense(int64_t n, hm_scalar type) {
  double *a = calloc((size_t)(n * n * type), sizeof(double));
  if (!a) { fprintf(stderr, "no memory for a dense %lld x %lld matrix\n", (long long)n, (long long)n); MPI_Abort(MPI_COMM_WORLD, 1); }
  int64_t c[17];
  double complex v[17];
  for (int64_t i = 0; i < n; i++) {
    int m = row_entries(n, i, type, c, v);
    for (int k = 0; k < m; k++) {
      if (c[k] > i) continue;
      size_t at = (size_t)(c[k] * n + i);
      if (type == HM_REAL) a[at] += creal(v[k]);
      else { a[2 * at] += creal(v[k]); a[2 * at + 1] += cimag(v[k]); }
    }
  }
  return a;
}

/* Seconds of hm_dense_eigh with vectors on a fresh copy of a0. */
static double time_local(hm_scalar type, int64_t n, const double *a0, hm_dense_method method, double *w) {
  const size_t bytes = sizeof(double) * (size_t)(n * n * type);
  double *a = malloc(bytes);
  memcpy(a, a0, bytes);
  double t = MPI_Wtime();
  CK(hm_dense_eigh(type, n, a, n, NULL, 0, 1, method, w));
  t = MPI_Wtime() - t;
  free(a);
  return t;
}

static double max_diff(int64_t n, const double *a, const double *b) {
  double m = 0;
  for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

#ifdef HAMLET_BENCH_CUDA
#define CK_CUDA(x)                                                                                         \
  do {                                                                                                     \
    cudaError_t e_ = (x);                                                                                  \
    if (e_ != cudaSuccess) { fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e_)); MPI_Abort(MPI_COMM_WORLD, 1); } \
  } while (0)
#define CK_SOLVER(x)                                                                                       \
  do {                                                                                                     \
    cusolverStatus_t s_ = (x);                                                                             \
    if (s_ != CUSOLVER_STATUS_SUCCESS) { fprintf(stderr, "%s failed: %d\n", #x, (int)s_); MPI_Abort(MPI_COMM_WORLD, 1); } \
  } while (0)

static int gpu_visible(void) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) { cudaGetLastError(); return 0; } /* no GPU here */
  if (e != cudaSuccess) { /* any other failure is a broken driver or runtime, not "no GPU" */
    fprintf(stderr, "the CUDA device query failed (not \"no device\"): %s\n", cudaGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return count > 0;
}

/* A plain cusolverDnXsyevd with vectors (handle made beforehand): total seconds with the copies,
 * and the solver's seconds alone. */
static void time_plain_cusolver(hm_scalar type, int64_t n, const double *a0, double *w, double *total, double *solver) {
  cusolverDnHandle_t h;
  cusolverDnParams_t p;
  CK_SOLVER(cusolverDnCreate(&h));
  CK_SOLVER(cusolverDnCreateParams(&p));
  const cudaDataType dt = type == HM_REAL ? CUDA_R_64F : CUDA_C_64F;
  const size_t bytes = sizeof(double) * (size_t)(n * n * type);
  size_t dwork = 0, hwork = 0;
  void *dA, *dbuf, *hbuf = NULL;
  double *dW;
  int *dinfo, info = 0;
  CK_SOLVER(cusolverDnXsyevd_bufferSize(h, p, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, dt, NULL, n,
                                        CUDA_R_64F, NULL, dt, &dwork, &hwork));
  CK_CUDA(cudaMalloc(&dA, bytes));
  CK_CUDA(cudaMalloc(&dbuf, dwork ? dwork : 1));
  CK_CUDA(cudaMalloc((void **)&dW, sizeof(double) * (size_t)n));
  CK_CUDA(cudaMalloc((void **)&dinfo, sizeof(int)));
  if (hwork) hbuf = malloc(hwork);
  double *back = malloc(bytes);
  CK_CUDA(cudaDeviceSynchronize());
  double t0 = MPI_Wtime();
  CK_CUDA(cudaMemcpy(dA, a0, bytes, cudaMemcpyHostToDevice));
  double t1 = MPI_Wtime();
  CK_SOLVER(cusolverDnXsyevd(h, p, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, dt, dA, n, CUDA_R_64F, dW, dt,
                             dbuf, dwork, hbuf, hwork, dinfo));
  CK_CUDA(cudaMemcpy(&info, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
  double t2 = MPI_Wtime();
  CK_CUDA(cudaMemcpy(w, dW, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
  CK_CUDA(cudaMemcpy(back, dA, bytes, cudaMemcpyDeviceToHost));
  *total = MPI_Wtime() - t0;
  *solver = t2 - t1;
  if (info) fprintf(stderr, "plain cusolverDnXsyevd: info = %d\n", info);
  free(back); free(hbuf);
  CK_CUDA(cudaFree(dA)); CK_CUDA(cudaFree(dbuf)); CK_CUDA(cudaFree(dW)); CK_CUDA(cudaFree(dinfo));
  cusolverDnDestroyParams(p);
  cusolverDnDestroy(h);
}
#endif

static void run_one_rank(hm_scalar type, int64_t n, int lapack1, int lapack) {
  const char *what = type == HM_REAL ? "dsyevd" : "zheevd";
  const int threads = openblas_get_num_procs();
  double *a = build_dense(n, type), *w_ref = malloc(sizeof(double) * (size_t)n), *w = malloc(sizeof(double) * (size_t)n);
  double t1 = -1;
  if (lapack1) {
    openblas_set_num_threads(1);
    t1 = time_local(type, n, a, HM_DENSE_LAPACK, w_ref);
    printf("%s n=%-6lld lapack   1 thread       %10.3f s\n", what, (long long)n, t1);
  }
  openblas_set_num_threads(threads);
  double tn = -1;
  if (lapack) {
    tn = time_local(type, n, a, HM_DENSE_LAPACK, lapack1 ? w : w_ref);
    printf("%s n=%-6lld lapack %3d threads      %10.3f s", what, (long long)n, threads, tn);
    if (lapack1) printf("   %.2fx the 1-thread speed, |dw| %.1e", t1 / tn, max_diff(n, w, w_ref));
    printf("\n");
  }
#ifdef HAMLET_BENCH_CUDA
  if (gpu_visible()) {
    double total, solver, *w2 = malloc(sizeof(double) * (size_t)n);
    /* Warm up both (context, handles, library loading) on a small problem first. */
    double *small = build_dense(256, type), *w_small = malloc(sizeof(double) * 256); /* w holds only n */
    time_local(type, 256, small, HM_DENSE_CUSOLVER, w_small);
    time_plain_cusolver(type, 256, small, w_small, &total, &solver);
    free(small);
    free(w_small);
    double th = time_local(type, n, a, HM_DENSE_CUSOLVER, w);
    time_plain_cusolver(type, n, a, w2, &total, &solver);
    if (lapack) printf("%s n=%-6lld hm_dense_eigh cusolver %10.3f s   |dw| vs lapack %.1e\n", what, (long long)n, th,
                       max_diff(n, w, w_ref));
    else printf("%s n=%-6lld hm_dense_eigh cusolver %10.3f s   |dw| vs plain cusolver %.1e\n", what, (long long)n, th,
                max_diff(n, w, w2));
    printf("%s n=%-6lld plain Xsyevd + copies  %10.3f s   (solver alone %.3f s)\n", what, (long long)n, total, solver);
    printf("%s n=%-6lld ratio hm / plain       %10.3f     (target <= 1.1; vs solver alone %.3f)", what, (long long)n,
           th / total, th / solver);
    if (lapack) printf("; lapack %d threads / hm %.1fx", threads, tn / th);
    printf("\n");
    free(w2);
  } else {
    printf("%s n=%-6lld no GPU visible: cuSOLVER skipped\n", what, (long long)n);
  }
#endif
  free(a); free(w_ref); free(w);
}

/* Seconds of one hm_dense_eigh_matrix on all ranks (w: eigenvalues; Z: vectors, or NULL for values only). */
static double time_solve(hm_matrix *A, hm_dense_method method, double *w, hm_mvec *Z) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t = MPI_Wtime();
  CK(hm_dense_eigh_matrix(A, NULL, Z != NULL, method, w, Z));
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - t;
}

static void run_ranks(hm_context *ctx, int rank, int size, hm_scalar type, int64_t n, int lapack1) {
  const char *what = type == HM_REAL ? "dsyevd" : "zheevd";
  hm_dist *dist;
  CK(hm_dist_create(ctx, n, 1, 1.0, &dist));
  hm_matrix *A = build_matrix(ctx, dist, type);
  hm_mvec *Z;
  CK(hm_mvec_create(ctx, dist, type, (int)n, &Z));
  double *w = malloc(sizeof(double) * (size_t)n), *w1 = malloc(sizeof(double) * (size_t)n);
  const double t = time_solve(A, HM_DENSE_SCALAPACK, w, Z);
  if (rank == 0) printf("%s n=%-6lld scalapack %3d ranks     %10.3f s\n", what, (long long)n, size, t);
  double *wd = malloc(sizeof(double) * (size_t)n);
  const double td = time_solve(A, HM_DENSE_DISTRIBUTED, wd, Z);
  if (rank == 0)
    printf("%s n=%-6lld distributed %3d ranks   %10.3f s   %.2fx scalapack, |dw| %.1e\n", what, (long long)n, size, td,
           t / td, max_diff(n, w, wd));
  if (rank == 0) print_stages(what, n);
  free(wd);
  if (lapack1 && rank == 0) {
    openblas_set_num_threads(1);
    double *a = build_dense(n, type);
    double t1 = time_local(type, n, a, HM_DENSE_LAPACK, w1);
    printf("%s n=%-6lld lapack   1 core         %10.3f s   scalapack speed-up %.2fx on %d ranks, |dw| %.1e\n", what,
           (long long)n, t1, t1 / t, size, max_diff(n, w, w1));
    free(a);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(w); free(w1);
  hm_mvec_destroy(&Z);
  hm_matrix_destroy(&A);
  hm_dist_destroy(&dist);
}

#ifdef HAMLET_BENCH_CUDA
int hm_dense_cuda_has_stedc(void); /* the library's (linalg/dense/dense_gpu.h): cusolverDnXstedc present? */

static void run_distributed_gpu(hm_context *ctx, int rank, int size, hm_scalar type, int64_t n) {
  const char *what = type == HM_REAL ? "dsyevd" : "zheevd";
  hm_dist *dist;
  CK(hm_dist_create(ctx, n, 1, 1.0, &dist));
  hm_matrix *A = build_matrix(ctx, dist, type);
  hm_mvec *Z;
  CK(hm_mvec_create(ctx, dist, type, (int)n, &Z));
  double *w = malloc(sizeof(double) * (size_t)n), *w0 = malloc(sizeof(double) * (size_t)n);
  const double t0 = time_solve(A, HM_DENSE_DISTRIBUTED, w0, NULL), tv = time_solve(A, HM_DENSE_DISTRIBUTED, w, Z);
  if (rank == 0) {
    printf("%s n=%-6lld distributed %d GPU ranks  values %8.3f s   vectors %8.3f s   |dw| values vs vectors %.1e"
           "   (tridiagonal: %s)\n", what, (long long)n, size, t0, tv, max_diff(n, w, w0),
           hm_dense_cuda_has_stedc() ? "cusolverDnXstedc" : "hamlet's divide and conquer");
    print_stages(what, n);
    double *a = build_dense(n, type), *wc = malloc(sizeof(double) * (size_t)n), total, solver;
    time_plain_cusolver(type, n, a, wc, &total, &solver);
    printf("%s n=%-6lld plain Xsyevd + copies  %10.3f s   (solver alone %.3f s)   distributed / plain %.2f, |dw| %.1e\n",
           what, (long long)n, total, solver, tv / total, max_diff(n, w, wc));
    free(a); free(wc);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(w); free(w0);
  hm_mvec_destroy(&Z);
  hm_matrix_destroy(&A);
  hm_dist_destroy(&dist);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, types = 3, force_lapack1 = 0, lapack = 1, distributed_gpu = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int64_t sizes[16];
  int count = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--real")) types = 1;
    else if (!strcmp(argv[i], "--complex")) types = 2;
    else if (!strcmp(argv[i], "--lapack1")) force_lapack1 = 1;
    else if (!strcmp(argv[i], "--gpu-only")) lapack = 0;
    else if (!strcmp(argv[i], "--distributed-gpu")) distributed_gpu = 1;
    else if (count < 16 && atoll(argv[i]) > 0) sizes[count++] = atoll(argv[i]);
    else {
      if (!rank)
        fprintf(stderr, "usage: bench_dense [--real|--complex] [--lapack1 | --gpu-only | --distributed-gpu] n...\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (!count) sizes[count++] = 1024;
  hm_context *ctx;
#ifdef HAMLET_BENCH_CUDA
  if (distributed_gpu) {
    if (!gpu_visible()) { /* a skip for ctest (77), unless the run requires the GPU */
      const char *need = getenv("HAMLET_TEST_REQUIRE");
      if (!rank) printf("--distributed-gpu: no GPU visible\n");
      MPI_Finalize();
      return need && strstr(need, "gpu") ? 1 : 77;
    }
    CK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CUDA, &ctx));
    for (int t = HM_REAL; t <= HM_COMPLEX; t++) /* warm-up: handles, libraries */
      if (types & t) run_distributed_gpu(ctx, rank, size, (hm_scalar)t, 256);
    for (int c = 0; c < count; c++)
      for (int t = HM_REAL; t <= HM_COMPLEX; t++)
        if (types & t) run_distributed_gpu(ctx, rank, size, (hm_scalar)t, sizes[c]), fflush(stdout);
    hm_context_destroy(&ctx);
    MPI_Finalize();
    return 0;
  }
#endif
  if (distributed_gpu) {
    if (!rank) fprintf(stderr, "--distributed-gpu: this bench_dense was built without CUDA\n");
    MPI_Finalize();
    return 1;
  }
  CK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  for (int c = 0; c < count; c++)
    for (int t = HM_REAL; t <= HM_COMPLEX; t++) {
      if (!(types & t)) continue;
      const int lapack1 = lapack && (force_lapack1 || sizes[c] <= 4096);
      if (size == 1) run_one_rank((hm_scalar)t, sizes[c], lapack1, lapack);
      else run_ranks(ctx, rank, size, (hm_scalar)t, sizes[c], lapack1);
      fflush(stdout);
    }
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return 0;
}
