/* The distributed two-stage eigensolver (HM_DENSE_DISTRIBUTED) on matrices that break eigensolvers,
 * on any rank count (registered on 1, 2, 3, 4 and 6; "quick" runs fewer cases): random Hermitian
 * matrices of orders that are not multiples of the band width, Wilkinson's W+ and glued Wilkinson matrices (pairs agreeing to
 * many digits) hidden by a random unitary similarity and also as given (already tridiagonal), a
 * graded matrix (entries over 14 orders), exactly degenerate spectra, band widths from 1 to 16 and
 * the automatic one; pencils (A, B) with B's condition 10 to 10^8. Eigenvalues against LAPACK's zheevd
 * (zhegvd) of the same dense matrices (1e-12 ||A||; pencils 1e-12 (||A|| ||B^-1|| + |lambda| cond B)), residuals and
 * (B-)orthonormality of the eigenvectors at LAPACK's level, eigenvalues without vectors equal to
 * those with, the same on every rank; B not positive definite, bad arguments. "cuda": the same with
 * every rank's columns on its GPU (several ranks may share one), on fresh random inputs. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <omp.h>
#include "testing.h"
#include "dense_check.h"
#include "dense_distributed.h"
#include "dense_internal.h"

static int rank, nranks;
static uint64_t fresh; /* "cuda": fresh random inputs (hm_test_seed), else 0: the fixed cases */

typedef enum { RANDOM, WILKINSON, GLUED, GRADED, DEGENERATE } kind;
static const char *kind_names[] = {"random", "wilkinson", "glued wilkinson", "graded", "degenerate"};

static double unit(uint64_t *s) { /* [0, 1), the same sequence on every rank */
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 9007199254740992.0;
}

/* A random unitary (real orthogonal for real type) from the QR of a random matrix. */
static void random_unitary(hm_scalar type, int64_t n, uint64_t *seed, double complex *q) {
  double complex *tau = malloc(sizeof *tau * (size_t)n);
  for (int64_t i = 0; i < n * n; i++) q[i] = unit(seed) - 0.5 + (type == HM_COMPLEX ? I * (unit(seed) - 0.5) : 0);
  LAPACKE_zgeqrf(LAPACK_COL_MAJOR, (int)n, (int)n, q, (int)n, tau);
  LAPACKE_zungqr(LAPACK_COL_MAJOR, (int)n, (int)n, (int)n, q, (int)n, tau);
  free(tau);
}

/* a = q t q^H for a Hermitian t (both n x n). */
static void similar(int64_t n, const double complex *q, const double complex *t, double complex *a) {
  double complex *qt = calloc((size_t)(n * n), sizeof *qt);
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = 0; k < n; k++)
      if (t[j * n + k] != 0)
        for (int64_t i = 0; i < n; i++) qt[j * n + i] += q[k * n + i] * t[j * n + k];
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      double complex s = 0;
      for (int64_t k = 0; k < n; k++) s += qt[k * n + i] * conj(q[k * n + j]);
      a[j * n + i] = s;
    }
  for (int64_t j = 0; j < n; j++) /* exactly Hermitian */
    for (int64_t i = j; i < n; i++) a[i * n + j] = conj(a[j * n + i]), a[i * n + i] = creal(a[i * n + i]);
  free(qt);
}

/* The dense test matrix (column-major), the same on every rank. hidden: behind a random similarity. */
static void make(kind k, hm_scalar type, int64_t n, int hidden, uint64_t seed, double complex *a) {
  double complex *t = calloc((size_t)(n * n), sizeof *t);
  switch (k) {
    case RANDOM:
    case GRADED:
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = j; i < n; i++) {
          double complex v = unit(&seed) - 0.5 + (type == HM_COMPLEX && i != j ? I * (unit(&seed) - 0.5) : 0);
          if (k == GRADED) v *= pow(10.0, -7.0 * (double)(i + j) / (double)(n > 1 ? n - 1 : 1));
          t[j * n + i] = v, t[i * n + j] = conj(v);
        }
      break;
    case WILKINSON:
    case GLUED: { /* W+ of order 21 (glued: blocks of it joined by 1e-7), or of order n */
      const int64_t m = k == GLUED ? 21 : n;
      for (int64_t i = 0; i < n; i++) {
        const int64_t p = i % m;
        t[i * n + i] = fabs((double)p - (double)(m - 1) / 2);
        if (i + 1 < n) t[i * n + i + 1] = t[(i + 1) * n + i] = (i + 1) % m ? 1 : 1e-7;
      }
      break;
    }
    case DEGENERATE: /* -1, 0 and 2, each about n / 3 times */
      for (int64_t i = 0; i < n; i++) t[i * n + i] = (double)(i % 3 == 0 ? -1 : i % 3 == 1 ? 0 : 2);
      break;
  }
  if (hidden) {
    double complex *q = malloc(sizeof *q * (size_t)(n * n));
    random_unitary(type, n, &seed, q);
    similar(n, q, t, a);
    free(q);
  } else {
    memcpy(a, t, sizeof *t * (size_t)(n * n));
  }
  free(t);
}

/* This rank's rows of the dense a, all entries stored. */
static hm_matrix *distribute(hm_context *ctx, const hm_dist *dist, hm_scalar type, int64_t n, const double complex *a) {
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * (size_t)(local * n + 1));
  double *vals = malloc(sizeof(double) * 2 * (size_t)(local * n + 1));
  int64_t p = 0;
  for (int64_t r = 0; r < local; r++) {
    for (int64_t j = 0; j < n; j++, p++) {
      const double complex v = a[j * n + first + r];
      cols[p] = j;
      if (type == HM_REAL) vals[p] = creal(v);
      else vals[2 * p] = creal(v), vals[2 * p + 1] = cimag(v);
    }
    rowptr[r + 1] = p;
  }
  hm_matrix *M = NULL;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, type, rowptr, cols, vals, &M));
  free(rowptr); free(cols); free(vals);
  return M;
}

/* B = Q diag(d) Q^H with d from 1 down to 1 / cond, geometrically (cond < 0: one d negative). */
static void make_spd(hm_scalar type, int64_t n, double cond, uint64_t seed, double complex *bm) {
  double complex *q = malloc(sizeof *q * (size_t)(n * n)), *t = calloc((size_t)(n * n), sizeof *t);
  random_unitary(type, n, &seed, q);
  for (int64_t i = 0; i < n; i++) t[i * n + i] = pow(fabs(cond), -(double)i / (double)(n > 1 ? n - 1 : 1));
  if (cond < 0) t[(n / 2) * n + n / 2] = -0.5;
  similar(n, q, t, bm);
  free(q); free(t);
}

static void one_pencil(hm_context *ctx, kind k, hm_scalar type, int64_t n, int hidden, int block, double cond);
static void one(hm_context *ctx, kind k, hm_scalar type, int64_t n, int hidden, int block) {
  one_pencil(ctx, k, type, n, hidden, block, 0);
}

/* cond = 0: the standard problem; else the pencil with make_spd's B. */
static void one_pencil(hm_context *ctx, kind k, hm_scalar type, int64_t n, int hidden, int block, double cond) {
  char what[160];
  snprintf(what, sizeof what, "%s%s %s %s n=%lld band %d on %d ranks (B's condition %.0e)", kind_names[k],
           hidden ? "" : " (as given)", type == HM_REAL ? "real" : "complex", cond ? "pencil" : "matrix", (long long)n,
           block, nranks, cond);
  double complex *a = malloc(sizeof *a * (size_t)(n * n));
  make(k, type, n, hidden, fresh + 1000 * (uint64_t)k + (uint64_t)n + 7 * (uint64_t)block, a);
  double *ref = malloc(sizeof(double) * (size_t)n), *w = malloc(sizeof(double) * (size_t)n),
         *w0 = malloc(sizeof(double) * (size_t)n);
  double complex *bm = NULL;
  double binv = 1; /* ||B^-1|| */
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, n, 1, 1.0 + rank, &dist)); /* uneven rows */
  hm_matrix *A = distribute(ctx, dist, type, n, a), *B = NULL;
  if (cond) {
    bm = malloc(sizeof *bm * (size_t)(n * n));
    make_spd(type, n, cond, fresh + 77 + (uint64_t)n, bm);
    B = distribute(ctx, dist, type, n, bm);
    double complex *ac = malloc(sizeof *ac * (size_t)(n * n)), *bc = malloc(sizeof *bc * (size_t)(n * n));
    memcpy(ac, a, sizeof *ac * (size_t)(n * n));
    memcpy(bc, bm, sizeof *bc * (size_t)(n * n));
    HM_TEST_ASSERT(LAPACKE_zhegvd(LAPACK_COL_MAJOR, 1, 'N', 'L', (int)n, ac, (int)n, bc, (int)n, ref) == 0,
                   "%s: reference zhegvd failed", what);
    binv = cond;
    free(ac); free(bc);
  } else {
    HM_TEST_ASSERT(hm_test_eigh(n, a, ref, NULL) == 0, "%s: reference zheevd failed", what);
  }
  hm_mvec *Z;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, (int)n, &Z));
  HM_TEST_OK(hm_dense_distributed(A, B, 1, block, w, Z));
  HM_TEST_OK(hm_dense_distributed(A, B, 0, block, w0, NULL));
  double *wa = malloc(sizeof(double) * (size_t)n);
  HM_TEST_ASSERT(hm_test_eigh(n, a, wa, NULL) == 0, "%s: zheevd of A failed", what);
  const double norm = fmax(fabs(wa[0]), fabs(wa[n - 1])) * binv;
  free(wa);
  /* Relative to the bound of Cholesky-based solvers on pencils: eps (||A|| ||B^-1|| + |lambda| cond(B)). */
  double err = 0, err0 = 0;
  for (int64_t i = 0; i < n; i++) {
    const double scale = norm + (cond ? fabs(ref[i]) * cond : 0);
    err = fmax(err, fabs(w[i] - ref[i]) / scale), err0 = fmax(err0, fabs(w0[i] - ref[i]) / scale);
  }
  HM_TEST_ASSERT(err <= 1e-12 && err0 <= 1e-12, "%s: eigenvalues differ from LAPACK's by %.3g (without vectors %.3g) "
                 "relative to ||A|| ||B^-1|| + |lambda| cond(B), ||A|| ||B^-1|| = %.3g", what, err, err0, norm);
  /* LAPACK's level: residual and orthonormality a small multiple of n eps. */
  hm_test_dense_check_vectors(ctx, dist, type, A, B, Z, w, n, 1e-14 * (double)n * (cond ? sqrt(binv) : 1),
                              1e-14 * (double)n * (cond ? binv : 1), what);
  double lo_hi[2] = {w[0], -w[n - 1]}, all[2];
  MPI_Allreduce(lo_hi, all, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  HM_TEST_ASSERT(all[0] == w[0] && -all[1] == w[n - 1], "%s: ranks hold different eigenvalues", what);
  hm_mvec_destroy(&Z);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&B);
  hm_dist_destroy(&dist);
  free(a); free(bm); free(ref); free(w); free(w0);
}

/* The bulge chase on 1 and on 4 threads (pipelined sweeps) gives the same tridiagonal to the bit, on a
 * random band of each type (the sweeps' operations and their order on every entry do not change). */
static void chase_threads(void) {
  for (int t = 1; t <= 2; t++) {
    const int64_t n = 203;
    const int b = 9, s = t;
    hm_dense_columns c = {MPI_COMM_SELF, 0, 1, (hm_scalar)t, n, n, b, {-1}};
    double *band = calloc((size_t)(s * (b + 1) * n), sizeof(double));
    uint64_t seed = 99 + (uint64_t)t;
    for (int64_t j = 0; j < n; j++)
      for (int k = 0; k <= b && j + k < n; k++)
        for (int z = 0; z < s; z++) band[s * (k + (b + 1) * j) + z] = k == 0 && z == 1 ? 0 : unit(&seed) - 0.5;
    double d[2][203], e[2][203];
    for (int r = 0; r < 2; r++) {
      hm_dense_chase *q = NULL;
      omp_set_num_threads(r ? 4 : 1);
      HM_TEST_OK(hm_dense_chase_run(&c, band, d[r], e[r], &q));
      hm_dense_chase_free(&q);
    }
    omp_set_num_threads(1);
    HM_TEST_ASSERT(!memcmp(d[0], d[1], sizeof d[0]) && !memcmp(e[0], e[1], sizeof(double) * (size_t)(n - 1)),
                   "%s chase: 4 threads differ from 1", t == 1 ? "real" : "complex");
    free(band);
  }
}

static void refusals(hm_context *ctx) {
  const int64_t n = 12;
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, n, 1, 1.0, &dist));
  double complex *a = malloc(sizeof *a * (size_t)(n * n));
  make(RANDOM, HM_REAL, n, 0, 3, a);
  hm_matrix *A = distribute(ctx, dist, HM_REAL, n, a);
  double w[12], wd[12];
  double complex *bm = malloc(sizeof *bm * (size_t)(n * n));
  make_spd(HM_REAL, n, -10, 5, bm);
  hm_matrix *notpd = distribute(ctx, dist, HM_REAL, n, bm);
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, notpd, 0, HM_DENSE_DISTRIBUTED, w, NULL), HM_ERR_NUMERIC, "not positive definite");
  hm_matrix_destroy(&notpd);
  free(bm);
  HM_TEST_FAILS(hm_dense_eigh(HM_REAL, n, a, n, NULL, 0, 0, HM_DENSE_DISTRIBUTED, w), HM_ERR_ARGUMENT,
                "needs a distributed matrix");
  /* Memory: refused under a small cap, saying what it needs and has. */
  setenv("HAMLET_DENSE_MEMORY_LIMIT", "1000", 1);
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 1, HM_DENSE_DISTRIBUTED, w, NULL), HM_ERR_ARGUMENT, "Z is NULL");
  hm_mvec *Z;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, (int)n, &Z));
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 1, HM_DENSE_DISTRIBUTED, w, Z), HM_ERR_MEMORY, "1000 B available there");
  unsetenv("HAMLET_DENSE_MEMORY_LIMIT");
  hm_mvec_destroy(&Z);
  /* Through the public call: the same eigenvalues as ScaLAPACK's. */
  HM_TEST_OK(hm_dense_eigh_matrix(A, NULL, 0, HM_DENSE_DISTRIBUTED, w, NULL));
  HM_TEST_OK(hm_dense_eigh_matrix(A, NULL, 0, HM_DENSE_SCALAPACK, wd, NULL));
  for (int i = 0; i < n; i++) HM_TEST_ASSERT(fabs(w[i] - wd[i]) < 1e-13, "eigenvalue %d: %.17g, ScaLAPACK %.17g", i, w[i], wd[i]);
  hm_matrix_destroy(&A);
  hm_dist_destroy(&dist);
  free(a);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  /* "quick" (4 and 6 ranks on CI's 2 cores, where every collective crawls): one case of each kind.
   * "cuda": every rank's columns on its GPU (skipped without one), fresh random inputs, larger orders. */
  int quick = 0, cuda = 0;
  for (int i = 1; i < argc; i++) quick |= !strcmp(argv[i], "quick"), cuda |= !strcmp(argv[i], "cuda");
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  if (cuda) fresh = hm_test_seed();
  const hm_scalar types[] = {HM_REAL, HM_COMPLEX};
  for (int t = 0; t < 2; t++) {
    const hm_scalar type = types[t];
    for (int64_t n = 1; n <= 9; n += 4) one(ctx, RANDOM, type, n, 1, 3);
    one(ctx, RANDOM, type, 97, 1, 8);
    if (!quick) one(ctx, RANDOM, type, 150, 1, 16);
    if (!quick) one(ctx, RANDOM, type, 61, 1, 1);
    if (!quick) one(ctx, RANDOM, type, 130, 1, 0);
    if (!quick) one(ctx, WILKINSON, type, 21, 1, 4);
    one(ctx, WILKINSON, type, 41, 0, 5);
    one(ctx, GLUED, type, 105, 1, 6);
    if (!quick) one(ctx, GLUED, type, 84, 0, 3);
    one(ctx, GRADED, type, 90, 1, 7);
    one(ctx, DEGENERATE, type, 120, 1, 9);
    one_pencil(ctx, RANDOM, type, 77, 1, 6, 10);
    one_pencil(ctx, GLUED, type, 63, 1, 4, 1e8);
    if (!quick) one_pencil(ctx, RANDOM, type, 100, 1, 0, 1e4);
    if (cuda) one(ctx, RANDOM, type, 601, 1, 0);
    if (cuda) one(ctx, GLUED, type, 515, 1, 32);
  }
  refusals(ctx);
  chase_threads();
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
