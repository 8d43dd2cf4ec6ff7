/* hm_dense_eigh_distributed on ScaLAPACK-distributed arrays: real and complex, standard and generalized,
 * on every process grid of the rank count (1 x P, P x 1, and 2 x 2 on four), block sizes that do not
 * divide n and differ between rows and columns, the eigenvectors in a layout other than A's. The upper
 * triangles hold garbage (only the lower ones may be read). Against LAPACK's ?syevd / ?sygvd of the
 * full matrix on every rank: eigenvalues to 1e-12 ||A||, residual |A z - w B z| and |Z^H B Z - I| below
 * 1e-12 from the gathered eigenvectors. Then the bad arguments and the memory refusal. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "testing.h"
#include "hamlet/dense.h"
#include "dense_internal.h"
#include "scalapack.h"

static const int izero = 0;

static double hash(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull, x ^= x >> 33;
  return (double)(x >> 11) / 9007199254740992.0 - 0.5;
}

/* Entry (i, j) of A (which = 0) or of the positive definite B (which = 1), lower triangle; above it 1e3. */
static double complex entry(int which, hm_scalar type, int64_t n, int64_t i, int64_t j) {
  if (i < j) return 1e3 + 1e3 * I;
  const uint64_t k = (uint64_t)(i * n + j) * 2 + (uint64_t)which;
  double complex v = hash(k) + (type == HM_COMPLEX && i != j ? I * hash(k + 7919) : 0);
  if (which == 1) v = 0.1 * v + (i == j ? 2 : 0);
  return v;
}

typedef struct {
  int ctxt, nprow, npcol, myrow, mycol, mb, nb, mloc, nloc, desc[9];
} layout;

static void make_layout(int ctxt, int n, int mb, int nb, layout *g) {
  g->ctxt = ctxt, g->mb = mb, g->nb = nb;
  Cblacs_gridinfo(ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
  g->mloc = numroc_(&n, &mb, &g->myrow, &izero, &g->nprow);
  g->nloc = numroc_(&n, &nb, &g->mycol, &izero, &g->npcol);
  int lld = g->mloc > 1 ? g->mloc : 1, info;
  descinit_(g->desc, &n, &n, &mb, &nb, &izero, &izero, &ctxt, &lld, &info);
  HM_TEST_ASSERT(info == 0, "descinit: info %d", info);
}

static double *fill(const layout *g, int which, hm_scalar type, int64_t n) {
  const int s = (int)type, lld = g->desc[8];
  double *a = calloc((size_t)(s * lld * (g->nloc > 0 ? g->nloc : 1)), sizeof(double));
  for (int64_t lj = 0; lj < g->nloc; lj++)
    for (int64_t li = 0; li < g->mloc; li++) {
      const double complex v = entry(which, type, n, hm_dense_global_of(li, g->mb, g->myrow, g->nprow),
                                     hm_dense_global_of(lj, g->nb, g->mycol, g->npcol));
      a[s * (lj * lld + li)] = creal(v);
      if (s == 2) a[2 * (lj * lld + li) + 1] = cimag(v);
    }
  return a;
}

/* The full n x n matrix of a local array, on every rank. */
static double complex *gather(const layout *g, const double *a, hm_scalar type, int64_t n) {
  const int s = (int)type, lld = g->desc[8];
  double complex *full = calloc((size_t)(n * n), sizeof *full);
  for (int64_t lj = 0; lj < g->nloc; lj++)
    for (int64_t li = 0; li < g->mloc; li++) {
      const int64_t i = hm_dense_global_of(li, g->mb, g->myrow, g->nprow), j = hm_dense_global_of(lj, g->nb, g->mycol, g->npcol);
      full[j * n + i] = a[s * (lj * lld + li)] + (s == 2 ? I * a[2 * (lj * lld + li) + 1] : 0);
    }
  MPI_Allreduce(MPI_IN_PLACE, full, (int)(2 * n * n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return full;
}

static void one(hm_context *ctx, int ctxt, hm_scalar type, int64_t n, int pencil, int mb, int nb, int zmb, int znb) {
  layout ga, gz;
  make_layout(ctxt, (int)n, mb, nb, &ga);
  make_layout(ctxt, (int)n, zmb, znb, &gz);
  double *a = fill(&ga, 0, type, n), *b = pencil ? fill(&ga, 1, type, n) : NULL;
  double *z = calloc((size_t)((int)type * gz.desc[8] * (gz.nloc > 0 ? gz.nloc : 1)), sizeof(double));
  double *w = malloc(sizeof(double) * (size_t)n), *wr = malloc(sizeof(double) * (size_t)n);
  HM_TEST_OK(hm_dense_eigh_distributed(ctx, type, a, ga.desc, b, pencil ? ga.desc : NULL, 1, w, z, gz.desc));
  /* the reference: LAPACK on the full Hermitian matrices */
  double complex *A = calloc((size_t)(n * n), sizeof *A), *B = calloc((size_t)(n * n), sizeof *B);
  double normA = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = j; i < n; i++) {
      A[j * n + i] = entry(0, type, n, i, j), A[i * n + j] = conj(A[j * n + i]);
      B[j * n + i] = pencil ? entry(1, type, n, i, j) : i == j, B[i * n + j] = conj(B[j * n + i]);
      normA = fmax(normA, cabs(A[j * n + i]));
    }
  for (int64_t i = 0; i < n; i++) A[i * n + i] = creal(A[i * n + i]), B[i * n + i] = creal(B[i * n + i]);
  double complex *Ar = malloc(sizeof *Ar * (size_t)(n * n)), *Br = malloc(sizeof *Br * (size_t)(n * n));
  memcpy(Ar, A, sizeof *Ar * (size_t)(n * n)), memcpy(Br, B, sizeof *Br * (size_t)(n * n));
  int info = pencil ? LAPACKE_zhegvd(LAPACK_COL_MAJOR, 1, 'N', 'L', (int)n, Ar, (int)n, Br, (int)n, wr)
                    : LAPACKE_zheevd(LAPACK_COL_MAJOR, 'N', 'L', (int)n, Ar, (int)n, wr);
  HM_TEST_ASSERT(info == 0, "LAPACK info %d", info);
  double err = 0;
  for (int64_t i = 0; i < n; i++) err = fmax(err, fabs(w[i] - wr[i]));
  const char *what = type == HM_REAL ? "real" : "complex";
  HM_TEST_ASSERT(err < 1e-12 * normA * (double)n, "%s %s n=%lld on %d x %d, blocks %d x %d: eigenvalues off by %.3g",
                 what, pencil ? "pencil" : "matrix", (long long)n, ga.nprow, ga.npcol, mb, nb, err);
  /* the eigenvectors, gathered: A z = w B z and Z^H B Z = I */
  double complex *Z = gather(&gz, z, type, n);
  double resid = 0, orth = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      double complex az = 0, bz = 0;
      for (int64_t k = 0; k < n; k++) az += A[k * n + i] * Z[j * n + k], bz += B[k * n + i] * Z[j * n + k];
      resid = fmax(resid, cabs(az - w[j] * bz));
    }
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      double complex dot = 0;
      for (int64_t k = 0; k < n; k++) {
        double complex bzj = 0;
        for (int64_t q = 0; q < n; q++) bzj += B[q * n + k] * Z[j * n + q];
        dot += conj(Z[i * n + k]) * bzj;
      }
      orth = fmax(orth, cabs(dot - (i == j)));
    }
  HM_TEST_ASSERT(resid < 1e-12 * normA * (double)n && orth < 1e-12 * (double)n,
                 "%s %s n=%lld on %d x %d: residual %.3g, orthonormality %.3g", what, pencil ? "pencil" : "matrix",
                 (long long)n, ga.nprow, ga.npcol, resid, orth);
  free(a); free(b); free(z); free(w); free(wr); free(A); free(B); free(Ar); free(Br); free(Z);
}

static void bad_arguments(hm_context *ctx, int ctxt) {
  layout g;
  make_layout(ctxt, 10, 3, 3, &g);
  double *a = fill(&g, 0, HM_REAL, 10), w[10];
  int d[9];
  memcpy(d, g.desc, sizeof d);
  d[0] = 2;
  HM_TEST_FAILS(hm_dense_eigh_distributed(ctx, HM_REAL, a, d, NULL, NULL, 0, w, NULL, NULL), HM_ERR_ARGUMENT,
                "only 1 (block-cyclic)");
  memcpy(d, g.desc, sizeof d);
  d[3] = 9;
  HM_TEST_FAILS(hm_dense_eigh_distributed(ctx, HM_REAL, a, g.desc, a, d, 0, w, NULL, NULL), HM_ERR_ARGUMENT,
                "B is 10 x 9");
  HM_TEST_FAILS(hm_dense_eigh_distributed(ctx, HM_REAL, a, g.desc, NULL, NULL, 1, w, NULL, NULL), HM_ERR_ARGUMENT,
                "both given with vectors = 1");
  HM_TEST_FAILS(hm_dense_eigh_distributed(ctx, (hm_scalar)3, a, g.desc, NULL, NULL, 0, w, NULL, NULL), HM_ERR_ARGUMENT,
                "allowed HM_REAL");
  setenv("HAMLET_DENSE_MEMORY_LIMIT", "100", 1); /* refused before anything is allocated */
  HM_TEST_FAILS(hm_dense_eigh_distributed(ctx, HM_REAL, a, g.desc, NULL, NULL, 0, w, NULL, NULL), HM_ERR_MEMORY,
                "the distributed dense solver for n = 10");
  unsetenv("HAMLET_DENSE_MEMORY_LIMIT");
  free(a);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  int grids[3][2] = {{1, P}, {P, 1}, {2, 2}}, ngrids = P == 4 ? 3 : P > 1 ? 2 : 1;
  for (int k = 0; k < ngrids; k++) {
    int sys = Csys2blacs_handle(MPI_COMM_WORLD), ctxt = sys;
    Cblacs_gridinit(&ctxt, "Row", grids[k][0], grids[k][1]);
    for (hm_scalar t = HM_REAL; t <= HM_COMPLEX; t++) {
      one(ctx, ctxt, t, 37, 0, 3, 5, 4, 4);
      one(ctx, ctxt, t, 64, 1, 7, 2, 64, 64);
    }
    if (k == 0) bad_arguments(ctx, ctxt);
    Cblacs_gridexit(ctxt);
    Cfree_blacs_system_handle(sys);
  }
  HM_TEST_OK(hm_context_destroy(&ctx));
  return hm_test_finish();
}
