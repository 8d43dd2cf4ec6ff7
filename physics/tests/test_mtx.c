/* Matrix Market reader against matrices the test builds itself: for every field (real, integer,
 * complex, pattern) and symmetry (general, symmetric, skew-symmetric, Hermitian) a random sparse
 * n x n matrix M with that structure is written to a file (rank 0; lower triangle only where the
 * symmetry says so, with comments, blank lines, a split duplicate entry, mixed-case banner words,
 * CRLF line ends and a missing final newline sprinkled over the cases), read with hm_mtx_read on
 * every rank, gathered dense and compared with M entry by entry; hm_matrix_info must report M's
 * type and nonzero count, hm_mtx_info the header. Right-hand sides (array, real, integer,
 * complex) are read with hm_mtx_read_vector and compared row by row. Run on 1, 2 and 3 ranks. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"

enum { N = 11 };

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) { /* xorshift64*, in [0, 1), the same sequence on every rank (one seed) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

typedef struct {
  const char *field, *symmetry; /* as written in the banner */
  int crlf, split_duplicate, no_final_newline;
} kind;

static int is(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* M (column-major, M[i + N*j]) with the kind's structure; entries stored in the file are those
 * with (general) any i, j; (symmetric, Hermitian) i >= j; (skew) i > j. */
static void make_reference(const kind *k, double complex *M) {
  memset(M, 0, sizeof *M * N * N);
  const int general = is(k->symmetry, "general"), skew = is(k->symmetry, "skew-symmetric");
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      if (!general && i < j) continue;
      if (skew && i == j) continue;
      int keep = urand() < 0.35 || (i == N - 1 && j == 0); /* always one far corner: it crosses ranks */
      if (!keep) continue;
      double complex v;
      if (is(k->field, "pattern")) v = 1;
      else if (is(k->field, "integer")) v = (double)(1 + (int)(9 * urand())) * (urand() < 0.5 ? -1 : 1);
      else if (is(k->field, "complex")) v = CMPLX(2 * urand() - 1, 2 * urand() - 1);
      else v = 2 * urand() - 1;
      if (is(k->symmetry, "Hermitian") && i == j) v = creal(v);
      M[i + N * j] = v;
      if (i == j || general) continue;
      M[j + N * i] = skew ? -v : is(k->symmetry, "Hermitian") ? conj(v) : v;
    }
}

static int stored(const kind *k, int i, int j) {
  return is(k->symmetry, "general") || (is(k->symmetry, "skew-symmetric") ? i > j : i >= j);
}

static void write_value(FILE *f, const kind *k, double complex v) {
  if (is(k->field, "pattern")) return;
  if (is(k->field, "integer")) fprintf(f, " %d", (int)creal(v));
  else if (is(k->field, "complex")) fprintf(f, " %.17g %.17g", creal(v), cimag(v));
  else fprintf(f, " %.17g", creal(v));
}

/* The stored entries of M in Matrix Market coordinate form; returns the entry count written. */
static int64_t write_matrix(const char *path, const kind *k, const double complex *M) {
  const char *eol = k->crlf ? "\r\n" : "\n";
  int64_t count = 0;
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) count += M[i + N * j] != 0 && stored(k, i, j);
  int split = k->split_duplicate; /* the first entry goes out as two halves (exact in binary) */
  FILE *f = fopen(path, "w");
  fprintf(f, "%%%%MatrixMarket matrix Coordinate %s %s%s", k->field, k->symmetry, eol);
  fprintf(f, "%% written by test_mtx%s%%%s%s", eol, eol, eol);
  fprintf(f, "  %d %d %lld%s", N, N, (long long)(count + split), eol);
  int64_t written = 0;
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      double complex v = M[i + N * j];
      if (v == 0 || !stored(k, i, j)) continue;
      if (split) {
        fprintf(f, "%d %d", i + 1, j + 1);
        write_value(f, k, v / 2);
        fprintf(f, "%s%% the other half of this entry follows%s", eol, eol);
        v /= 2;
        split = 0;
      }
      if (written % 4 == 3) fprintf(f, "%s", eol); /* blank lines between entries */
      fprintf(f, "%d\t%d", i + 1, j + 1);
      write_value(f, k, v);
      if (!(k->no_final_newline && written == count - 1)) fprintf(f, "%s", eol);
      written++;
    }
  fclose(f);
  return count + k->split_duplicate;
}

static void check_matrix(hm_context *ctx, int nprocs, int rank, const kind *k) {
  char path[128];
  snprintf(path, sizeof path, "test_mtx_np%d_%s_%s.mtx", nprocs, k->field, k->symmetry);
  double complex *M = malloc(sizeof *M * N * N);
  make_reference(k, M);
  int64_t stored_entries = 0;
  if (rank == 0) stored_entries = write_matrix(path, k, M);
  MPI_Bcast(&stored_entries, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  const int complex_field = is(k->field, "complex");
  int64_t rows, cols, entries;
  hm_scalar type;
  int symmetry;
  HM_TEST_OK(hm_mtx_info(ctx, path, &rows, &cols, &entries, &type, &symmetry));
  const int expect_symmetry = is(k->symmetry, "general")          ? HM_MTX_GENERAL
                              : is(k->symmetry, "symmetric")      ? HM_MTX_SYMMETRIC
                              : is(k->symmetry, "skew-symmetric") ? HM_MTX_SKEW_SYMMETRIC
                                                                  : HM_MTX_HERMITIAN;
  HM_TEST_ASSERT(rows == N && cols == N && entries == stored_entries, "%s: header %lld x %lld, %lld entries", path,
                 (long long)rows, (long long)cols, (long long)entries);
  HM_TEST_ASSERT(type == (complex_field ? HM_COMPLEX : HM_REAL) && symmetry == expect_symmetry,
                 "%s: type %d symmetry %d", path, (int)type, symmetry);

  hm_matrix *A = NULL;
  HM_TEST_OK(hm_mtx_read(ctx, path, &A));
  if (A) {
    int64_t n, nnz, nonzeros = 0;
    HM_TEST_OK(hm_matrix_info(A, &n, &nnz, &type));
    for (int e = 0; e < N * N; e++) nonzeros += M[e] != 0;
    HM_TEST_ASSERT(n == N && nnz == nonzeros, "%s: size %lld nnz %lld, expected %d and %lld", path, (long long)n,
                   (long long)nnz, N, (long long)nonzeros);
    HM_TEST_ASSERT(type == (complex_field ? HM_COMPLEX : HM_REAL), "%s: matrix type %d", path, (int)type);
    double complex *D = NULL;
    HM_TEST_OK(hm_test_dense(A, &D, &n));
    double worst = 0;
    for (int e = 0; D && e < N * N; e++) worst = fmax(worst, cabs(D[e] - M[e]));
    HM_TEST_ASSERT(D && worst <= 1e-15, "%s: read matrix differs from the written one by %g", path, worst);
    free(D);
  }
  HM_TEST_OK(hm_matrix_destroy(&A));
  free(M);
}

/* A right-hand side of N rows in array format (field real, integer or complex). */
static void check_vector(hm_context *ctx, int nprocs, int rank, const char *field) {
  char path[128];
  snprintf(path, sizeof path, "test_mtx_np%d_vector_%s.mtx", nprocs, field);
  const int complex_field = is(field, "complex");
  double complex b[N];
  for (int i = 0; i < N; i++) {
    if (is(field, "integer")) b[i] = (double)((int)(200 * urand()) - 100);
    else b[i] = complex_field ? CMPLX(urand() - 0.5, urand() - 0.5) : urand() - 0.5;
  }
  if (rank == 0) {
    FILE *f = fopen(path, "w");
    fprintf(f, "%%%%MatrixMarket matrix array %s general\n%% right-hand side\n\n%d 1\n", field, N);
    for (int i = 0; i < N; i++) {
      if (is(field, "integer")) fprintf(f, "%d\n", (int)creal(b[i]));
      else if (complex_field) fprintf(f, "%.17g   %.17g\n", creal(b[i]), cimag(b[i]));
      else fprintf(f, "%.17g\n", creal(b[i]));
      if (i == 4) fprintf(f, "%% a comment between values\n\n");
    }
    fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  int64_t rows, cols, entries;
  hm_scalar type;
  int symmetry;
  HM_TEST_OK(hm_mtx_info(NULL, path, &rows, &cols, &entries, &type, &symmetry));
  HM_TEST_ASSERT(rows == N && cols == 1 && entries == N && symmetry == HM_MTX_GENERAL, "%s: header", path);

  hm_dist *dist = NULL;
  hm_mvec *v = NULL;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0 + rank, &dist)); /* uneven on purpose */
  HM_TEST_OK(hm_mtx_read_vector(ctx, path, dist, &v));
  if (v) {
    int64_t first, local;
    int k;
    HM_TEST_OK(hm_dist_range(dist, &first, &local, NULL));
    HM_TEST_OK(hm_mvec_size(v, NULL, &k));
    double values[2 * N];
    HM_TEST_OK(hm_mvec_get(v, values));
    double worst = 0;
    for (int64_t i = 0; i < local; i++) {
      double complex got = complex_field ? CMPLX(values[2 * i], values[2 * i + 1]) : values[i];
      worst = fmax(worst, cabs(got - b[first + i]));
    }
    HM_TEST_ASSERT(k == 1 && worst == 0, "%s: k = %d, values differ by %g", path, k, worst);
  }
  HM_TEST_OK(hm_mvec_destroy(&v));
  HM_TEST_OK(hm_dist_destroy(&dist));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rng_state = hm_test_seed() * 0x9e3779b97f4a7c15ull | 1; /* fresh cases each run; printed, HAMLET_TEST_SEED replays */
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));

  static const kind kinds[] = {
      {"real", "general", 0, 1, 0},          {"real", "symmetric", 1, 0, 0},
      {"real", "skew-symmetric", 0, 0, 1},   {"integer", "general", 0, 0, 0},
      {"integer", "symmetric", 0, 0, 0},     {"complex", "general", 0, 1, 0},
      {"complex", "symmetric", 0, 0, 0},     {"complex", "skew-symmetric", 1, 0, 0},
      {"complex", "Hermitian", 0, 0, 1},     {"pattern", "general", 0, 0, 1},
      {"pattern", "symmetric", 1, 0, 0},
  };
  for (size_t c = 0; c < sizeof kinds / sizeof kinds[0]; c++) check_matrix(ctx, nprocs, rank, &kinds[c]);
  check_vector(ctx, nprocs, rank, "real");
  check_vector(ctx, nprocs, rank, "integer");
  check_vector(ctx, nprocs, rank, "complex");

  HM_TEST_OK(hm_context_destroy(&ctx));
  return hm_test_finish();
}
