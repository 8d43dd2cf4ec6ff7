/* Hermitian methods refuse a Matrix Market `general` file that is not Hermitian, on any rank count
 * (an entry and its partner may sit on different ranks): KPM, LOBPCG and the dense solver fail with
 * HM_ERR_INPUT naming the largest |a_ij - conj(a_ji)|, where (1-based) and the file. A general file
 * that is Hermitian up to rounding is accepted; IDR accepts a non-symmetric matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testing.h"

enum { N = 12 };

/* Rank 0 writes a general file: the symmetric tridiagonal 2, -1 plus `extra` (text lines). */
static void write_file(const char *path, const char *field, const char *extra, int extra_lines, double noise) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    FILE *f = fopen(path, "w");
    const int is_complex = strcmp(field, "complex") == 0;
    fprintf(f, "%%%%MatrixMarket matrix coordinate %s general\n%d %d %d\n", field, N, N, 3 * N - 2 + extra_lines);
    for (int i = 1; i <= N; i++) {
      fprintf(f, is_complex ? "%d %d 2 0\n" : "%d %d 2\n", i, i);
      /* The lower entry carries rounding noise: equal to rounding, not bitwise. */
      if (i > 1) fprintf(f, is_complex ? "%d %d %.17g 0\n" : "%d %d %.17g\n", i, i - 1, -1.0 + noise);
      if (i < N) fprintf(f, is_complex ? "%d %d -1 0\n" : "%d %d -1\n", i, i + 1);
    }
    fputs(extra, f);
    fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Every Hermitian method refuses A (needle: the defect and where); IDR takes it. */
static void refused_by_all(hm_context *ctx, hm_matrix *A, const char *needle) {
  hm_kpm_options kopt;
  HM_TEST_OK(hm_kpm_options_default(&kopt));
  kopt.moments = 16;
  kopt.vectors = 1;
  hm_kpm *kpm = NULL;
  HM_TEST_FAILS(hm_kpm_create(A, &kopt, &kpm), HM_ERR_INPUT, needle);
  HM_TEST_ASSERT(kpm == NULL, "a refused KPM must leave its handle NULL");

  hm_operator *op = NULL;
  HM_TEST_OK(hm_operator_create_matrix(A, &op));
  hm_lobpcg_options lopt;
  HM_TEST_OK(hm_lobpcg_options_default(&lopt));
  lopt.nev = 1;
  lopt.block = 3;
  hm_lobpcg *lob = NULL;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &lopt, &lob), HM_ERR_INPUT, needle);
  HM_TEST_ASSERT(lob == NULL, "a refused LOBPCG must leave its handle NULL");

  double w[N];
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 0, HM_DENSE_AUTO, w, NULL), HM_ERR_INPUT, needle);

  hm_idr_options iopt;
  HM_TEST_OK(hm_idr_options_default(&iopt));
  hm_idr *idr = NULL;
  HM_TEST_OK(hm_idr_create(op, &iopt, &idr));
  HM_TEST_OK(hm_idr_destroy(&idr));
  HM_TEST_OK(hm_operator_destroy(&op));
  (void)ctx;
}

/* The dense solver accepts A, and its lowest eigenvalue is the tridiagonal's 2 - 2 cos(pi / (N + 1)). */
static void accepted(hm_matrix *A, const char *what) {
  double w[N];
  HM_TEST_OK(hm_dense_eigh_matrix(A, NULL, 0, HM_DENSE_AUTO, w, NULL));
  const double exact = 2 - 2 * cos(3.14159265358979323846 / (N + 1));
  HM_TEST_ASSERT(fabs(w[0] - exact) < 1e-12, "%s: lowest eigenvalue %.17g, expected %.17g", what, w[0], exact);
  hm_kpm_options kopt;
  HM_TEST_OK(hm_kpm_options_default(&kopt));
  kopt.moments = 16;
  kopt.vectors = 1;
  hm_kpm *kpm = NULL;
  HM_TEST_OK(hm_kpm_create(A, &kopt, &kpm));
  HM_TEST_OK(hm_kpm_destroy(&kpm));
}

/* A complex Hermitian general file: every Hermitian method takes it. */
static void accepted_complex(hm_matrix *A) {
  double w[N];
  HM_TEST_OK(hm_dense_eigh_matrix(A, NULL, 0, HM_DENSE_AUTO, w, NULL));
  hm_kpm_options kopt;
  HM_TEST_OK(hm_kpm_options_default(&kopt));
  kopt.moments = 16;
  kopt.vectors = 1;
  hm_kpm *kpm = NULL;
  HM_TEST_OK(hm_kpm_create(A, &kopt, &kpm));
  HM_TEST_OK(hm_kpm_destroy(&kpm));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  char dir[] = "/tmp/hm_herm_XXXXXX", path[256], needle[512];
  if (rank == 0 && !mkdtemp(dir)) return 1;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  hm_matrix *A = NULL;

  /* Real: a_{1,12} = 3 has partner a_{12,1} = 1 (rows 1 and 12 on different ranks from 2 ranks on),
   * a_{6,2} = 0.5 has none. The largest defect is |3 - 1| = 2, first found at (1, 12). */
  snprintf(path, sizeof path, "%s/real_nonsym.mtx", dir);
  write_file(path, "real", "1 12 3\n12 1 1\n6 2 0.5\n", 3, 0);
  HM_TEST_OK(hm_mtx_read(ctx, path, &A));
  snprintf(needle, sizeof needle, "symmetric matrix, but the matrix of %s is not: the largest |a_ij - conj(a_ji)| is 2 "
           "at (i, j) = (1, 12) (1-based)", path);
  refused_by_all(ctx, A, needle);
  HM_TEST_OK(hm_matrix_destroy(&A));

  /* A missing partner alone: |0.5 - 0| at (2, 6), whichever side holds it. */
  snprintf(path, sizeof path, "%s/real_missing.mtx", dir);
  write_file(path, "real", "2 6 0.5\n", 1, 0);
  HM_TEST_OK(hm_mtx_read(ctx, path, &A));
  refused_by_all(ctx, A, "the largest |a_ij - conj(a_ji)| is 0.5 at (i, j) = (2, 6)");
  HM_TEST_OK(hm_matrix_destroy(&A));

  /* Complex: a_{1,2} and a_{2,1} both 1 + 2i (symmetric, not Hermitian): |(1+2i) - conj(1+2i)| = 4. */
  snprintf(path, sizeof path, "%s/complex_symmetric.mtx", dir);
  write_file(path, "complex", "1 2 1 2\n2 1 1 2\n", 2, 0);
  HM_TEST_OK(hm_mtx_read(ctx, path, &A));
  refused_by_all(ctx, A, "needs a Hermitian matrix, but the matrix of");
  refused_by_all(ctx, A, "is 4 at (i, j) = (1, 2)");
  HM_TEST_OK(hm_matrix_destroy(&A));

  /* General files Hermitian to rounding (1e-16 relative noise on the lower entries) are accepted. */
  snprintf(path, sizeof path, "%s/real_rounded.mtx", dir);
  write_file(path, "real", "", 0, 1e-16);
  HM_TEST_OK(hm_mtx_read(ctx, path, &A));
  accepted(A, "real general, symmetric to rounding");
  HM_TEST_OK(hm_matrix_destroy(&A));
  snprintf(path, sizeof path, "%s/complex_hermitian.mtx", dir);
  write_file(path, "complex", "3 9 0 1e-3\n9 3 0 -1e-3\n", 2, 0);
  HM_TEST_OK(hm_mtx_read(ctx, path, &A));
  accepted_complex(A);
  HM_TEST_OK(hm_matrix_destroy(&A));

  /* A matrix built in memory is checked as well (no file to name). */
  hm_dist *dist = NULL;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0, &dist));
  int64_t first, local;
  HM_TEST_OK(hm_dist_range(dist, &first, &local, NULL));
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * (size_t)local + 8);
  double *vals = malloc(sizeof *vals * (size_t)local + 8);
  for (int64_t r = 0; r < local; r++) { /* a cyclic shift: a_{i, i+1 mod N} = 1, not symmetric */
    cols[r] = (first + r + 1) % N;
    vals[r] = 1;
    rowptr[r + 1] = r + 1;
  }
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, vals, &A));
  refused_by_all(ctx, A, "but the matrix is not: the largest |a_ij - conj(a_ji)| is 1 at (i, j) = (1, 2)");
  HM_TEST_OK(hm_matrix_destroy(&A));
  free(rowptr);
  free(cols);
  free(vals);
  HM_TEST_OK(hm_dist_destroy(&dist));

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const char *names[] = {"real_nonsym", "real_missing", "complex_symmetric", "real_rounded", "complex_hermitian"};
    for (int i = 0; i < 5; i++) {
      snprintf(path, sizeof path, "%s/%s.mtx", dir, names[i]);
      unlink(path);
    }
    rmdir(dir);
  }
  HM_TEST_OK(hm_context_destroy(&ctx));
  return hm_test_finish();
}
