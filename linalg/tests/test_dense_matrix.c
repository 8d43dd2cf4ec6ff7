/* hm_dense_eigh_matrix on any rank count (registered on 1, 2 and 4): sparse Hermitian matrices and
 * pencils with nonzeros far off the diagonal (halo columns on every rank), rows split unevenly.
 * Every path (ScaLAPACK, LAPACK gathered on rank 0, AUTO) against an independent reference (LAPACK
 * zheevd of the dense matrix from hm_test_dense; for pencils, the eigenvalues of L^-1 A L^-H formed
 * here), real and complex, standard and generalized, with eigenvectors: residuals A z - lambda B z
 * and Z^H B Z = I on each rank's rows; eigenvalues without vectors equal those with. Then memory
 * refusals (HAMLET_DENSE_MEMORY_LIMIT), B not positive definite, bad arguments. With the argument
 * "cuda" the same on a CUDA context with cuSOLVER in LAPACK's place. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "testing.h"
#include "dense_check.h"

static int rank, nranks;
/* "quick" (the 4-rank run on 2 cores): ScaLAPACK with vectors only, on two of the problems. */
static int quick;
/* "cuda": a CUDA context (skipped without a GPU); cuSOLVER on rank 0 takes LAPACK's place. */
static int cuda;

/* A deterministic hash of an unordered pair: the same entry on whichever rank builds it. */
static double pair_hash(int64_t i, int64_t j, int salt) {
  uint64_t a = (uint64_t)(i < j ? i : j), b = (uint64_t)(i < j ? j : i);
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)salt * 0x165667B19E3779F9ull;
  x ^= x >> 31; x *= 0xD6E8FEB86659FD93ull; x ^= x >> 32;
  return (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* Entry (i, j) of the test matrix: diagonal plus about 6 off-diagonal entries per row anywhere in
 * the row, Hermitian; spd = 1 makes it diagonally dominant with a positive diagonal. */
static int has_entry(int64_t i, int64_t j, int64_t n, int salt) {
  return i == j || pair_hash(i, j, salt) < 6.0 / (double)n;
}
static double complex entry(hm_scalar type, int64_t i, int64_t j, int salt, int spd) {
  if (i == j) return spd ? 8.0 + pair_hash(i, i, salt + 7) : 4.0 * pair_hash(i, i, salt + 7) - 2.0;
  double re = pair_hash(i, j, salt + 1) - 0.5, im = type == HM_COMPLEX ? pair_hash(i, j, salt + 2) - 0.5 : 0;
  return i > j ? re + I * im : re - I * im;
}

static hm_matrix *build(hm_context *ctx, const hm_dist *dist, hm_scalar type, int salt, int spd) {
  int64_t first, local, n;
  hm_dist_range(dist, &first, &local, &n);
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * (size_t)(local * n + 1));
  double *vals = malloc(sizeof(double) * 2 * (size_t)(local * n + 1));
  int64_t p = 0;
  for (int64_t r = 0; r < local; r++) {
    const int64_t i = first + r;
    for (int64_t j = 0; j < n; j++) {
      if (!has_entry(i, j, n, salt)) continue;
      double complex v = entry(type, i, j, salt, spd);
      cols[p] = j;
      if (type == HM_REAL) vals[p] = creal(v);
      else { vals[2 * p] = creal(v); vals[2 * p + 1] = cimag(v); }
      p++;
    }
    rowptr[r + 1] = p;
  }
  hm_matrix *M = NULL;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, type, rowptr, cols, vals, &M));
  free(rowptr); free(cols); free(vals);
  return M;
}

/* Reference eigenvalues: zheevd of A, or of L^-1 A L^-H with B = L L^H (zpotrf + ztrsm here). */
static void reference(hm_matrix *A, hm_matrix *B, double *w) {
  double complex *a, *b = NULL;
  int64_t n;
  HM_TEST_OK(hm_test_dense(A, &a, &n));
  if (B) {
    HM_TEST_OK(hm_test_dense(B, &b, &n));
    HM_TEST_ASSERT(LAPACKE_zpotrf(LAPACK_COL_MAJOR, 'L', (int)n, b, (int)n) == 0, "reference zpotrf failed");
    /* a <- L^-1 a L^-H: two triangular solves. */
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < j; i++) b[j * n + i] = 0;
    double complex *t = malloc(sizeof *t * (size_t)(n * n));
    for (int pass = 0; pass < 2; pass++) {
      /* L x = a column by column, then transpose-conjugate and repeat. */
      for (int64_t c = 0; c < n; c++)
        for (int64_t i = 0; i < n; i++) {
          double complex s = a[c * n + i];
          for (int64_t k = 0; k < i; k++) s -= b[k * n + i] * a[c * n + k];
          a[c * n + i] = s / b[i * n + i];
        }
      for (int64_t c = 0; c < n; c++)
        for (int64_t i = 0; i < n; i++) t[i * n + c] = conj(a[c * n + i]);
      memcpy(a, t, sizeof *t * (size_t)(n * n));
    }
    free(t);
  }
  HM_TEST_ASSERT(hm_test_eigh(n, a, w, NULL) == 0, "reference zheevd failed");
  free(a); free(b);
}

static void solve_all_ways(hm_context *ctx, hm_scalar type, int generalized, int64_t n) {
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, n, 1, 1.0 + rank, &dist)); /* uneven: rank r gets ~ (r + 1) shares */
  hm_matrix *A = build(ctx, dist, type, 11 * (int)type, 0), *B = generalized ? build(ctx, dist, type, 5, 1) : NULL;
  double *ref = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n), *w0 = malloc(sizeof(double) * n);
  reference(A, B, ref);
  const hm_dense_method methods[] = {HM_DENSE_SCALAPACK, cuda ? HM_DENSE_CUSOLVER : HM_DENSE_LAPACK, HM_DENSE_AUTO};
  const char *names[] = {"scalapack", cuda ? "cusolver" : "lapack", "auto"};
  /* AUTO (ScaLAPACK on several ranks, else LAPACK) once: every ScaLAPACK call costs seconds on
   * oversubscribed cores (its many small collectives). */
  const int ways = quick ? 1 : type == HM_REAL && !generalized ? 3 : 2;
  for (int k = 0; k < ways; k++) {
    char what[128];
    snprintf(what, sizeof what, "%s %s %s n=%lld on %d ranks", names[k], type == HM_REAL ? "real" : "complex",
             generalized ? "pencil" : "matrix", (long long)n, nranks);
    hm_mvec *Z;
    HM_TEST_OK(hm_mvec_create(ctx, dist, type, (int)n, &Z));
    HM_TEST_OK(hm_dense_eigh_matrix(A, B, 1, methods[k], w, Z));
    double err = 0;
    for (int64_t i = 0; i < n; i++) err = fmax(err, fabs(w[i] - ref[i]));
    HM_TEST_ASSERT(err < 1e-11, "%s: eigenvalues differ from the reference by %.3g", what, err);
    hm_test_dense_check_vectors(ctx, dist, type, A, B, Z, w, n, 1e-13, 1e-11, what);
    /* The same eigenvalues on every rank. */
    double lo_hi[2] = {w[0], -w[n - 1]}, all[2];
    MPI_Allreduce(lo_hi, all, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    HM_TEST_ASSERT(all[0] == w[0] && -all[1] == w[n - 1], "%s: ranks hold different eigenvalues", what);
    if (k < 2 && !quick) {
      HM_TEST_OK(hm_dense_eigh_matrix(A, B, 0, methods[k], w0, NULL));
      double d = 0;
      for (int64_t i = 0; i < n; i++) d = fmax(d, fabs(w[i] - w0[i]));
      HM_TEST_ASSERT(d < 1e-11, "%s: eigenvalues without vectors differ by %.3g", what, d);
    }
    hm_mvec_destroy(&Z);
  }
  free(ref); free(w); free(w0);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&B);
  hm_dist_destroy(&dist);
}

static void refusals(hm_context *ctx) {
  const int64_t n = 32;
  hm_dist *dist, *other;
  HM_TEST_OK(hm_dist_create(ctx, n, 1, 1.0, &dist));
  HM_TEST_OK(hm_dist_create(ctx, n, 1, 1.0 + rank, &other));
  hm_matrix *A = build(ctx, dist, HM_REAL, 3, 0), *B = build(ctx, dist, HM_REAL, 4, 1);
  hm_matrix *C = build(ctx, dist, HM_COMPLEX, 3, 0), *notpd = build(ctx, dist, HM_REAL, 4, 0);
  double w[32];
  hm_mvec *Z, *Zc, *Znarrow, *Zother;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, (int)n, &Z));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, (int)n, &Zc));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 5, &Znarrow));
  HM_TEST_OK(hm_mvec_create(ctx, other, HM_REAL, (int)n, &Zother));

  /* Memory: every path refuses under a small cap and says how much it needs and has. */
  setenv("HAMLET_DENSE_MEMORY_LIMIT", "4000", 1);
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 1, HM_DENSE_SCALAPACK, w, Z), HM_ERR_MEMORY, "3.91 KiB available");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, B, 1, HM_DENSE_LAPACK, w, Z), HM_ERR_MEMORY, "needs");
  unsetenv("HAMLET_DENSE_MEMORY_LIMIT");
  if (!quick) HM_TEST_OK(hm_dense_eigh_matrix(A, B, 1, HM_DENSE_SCALAPACK, w, Z));

  /* B not positive definite: every rank gets the error. */
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, notpd, 0, HM_DENSE_SCALAPACK, w, NULL), HM_ERR_NUMERIC, "not positive definite");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, notpd, 1, HM_DENSE_LAPACK, w, Z), HM_ERR_NUMERIC, "not positive definite");

  /* Bad arguments. */
  HM_TEST_FAILS(hm_dense_eigh_matrix(NULL, NULL, 0, HM_DENSE_AUTO, w, NULL), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 0, HM_DENSE_AUTO, NULL, NULL), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 3, HM_DENSE_AUTO, w, Z), HM_ERR_ARGUMENT, "vectors = 3");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 1, 7, w, Z), HM_ERR_ARGUMENT, "method 7");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 0, HM_DENSE_AUTO, w, Z), HM_ERR_ARGUMENT, "vectors = 0");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 1, HM_DENSE_AUTO, w, NULL), HM_ERR_ARGUMENT, "Z is NULL");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 1, HM_DENSE_AUTO, w, Znarrow), HM_ERR_ARGUMENT, "5 columns");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 1, HM_DENSE_AUTO, w, Zc), HM_ERR_ARGUMENT, "Z is complex");
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, C, 0, HM_DENSE_AUTO, w, NULL), HM_ERR_ARGUMENT, "B is complex");
  if (nranks > 1) {
    HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 1, HM_DENSE_AUTO, w, Zother), HM_ERR_ARGUMENT, "distributed differently");
    hm_matrix *Bother = build(ctx, other, HM_REAL, 4, 1);
    HM_TEST_FAILS(hm_dense_eigh_matrix(A, Bother, 0, HM_DENSE_AUTO, w, NULL), HM_ERR_ARGUMENT, "distributed differently");
    hm_matrix_destroy(&Bother);
  }
  hm_mvec_destroy(&Z); hm_mvec_destroy(&Zc); hm_mvec_destroy(&Znarrow); hm_mvec_destroy(&Zother);
  hm_matrix_destroy(&A); hm_matrix_destroy(&B); hm_matrix_destroy(&C); hm_matrix_destroy(&notpd);
  hm_dist_destroy(&dist); hm_dist_destroy(&other);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  quick = argc > 1 && !strcmp(argv[1], "quick");
  cuda = argc > 1 && !strcmp(argv[1], "cuda");
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  /* Small orders: enough for several blocks per process row and column on 4 ranks. */
  solve_all_ways(ctx, HM_REAL, 0, 41);
  if (!quick) solve_all_ways(ctx, HM_COMPLEX, 0, 37);
  if (!quick) solve_all_ways(ctx, HM_REAL, 1, 33);
  solve_all_ways(ctx, HM_COMPLEX, 1, 30);
  refusals(ctx);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
