/* Test problems of the LOBPCG tests, built distributed with entries that depend only on global
 * indices (so every rank count builds the same matrix):
 * - a random sparse Hermitian (real symmetric) matrix: diagonal spread over [0, spread], a few
 *   off-diagonals of size <= 1 (the pair (i, j) gets the same value from both rows);
 * - an SPD "mass-like" matrix: diagonal 2 + u, neighbours +-1 with entries in [-0.3, 0.3];
 * - the 1D Laplacian tridiag(-1, 2, -1) (Dirichlet), eigenvalues 2 - 2 cos(k pi / (n + 1));
 * - a badly scaled SPD matrix D T D, T = tridiag(-1, 3, -1) diagonally dominant, D = diag(10^(2 u)):
 *   Jacobi scaling undoes D;
 * and the exact eigenvalues of the FEM pencil K x = E M x of a box (lp_fem_box_exact). */
#ifndef HAMLET_LOBPCG_PROBLEMS_H
#define HAMLET_LOBPCG_PROBLEMS_H
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "testing.h"

static inline double lp_hash(uint64_t a, uint64_t b, uint64_t c) { /* uniform in [0, 1) */
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^ c * 0x94D049BB133111EBull;
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29; x *= 0x94D049BB133111EBull; x ^= x >> 32;
  return (double)(x >> 11) * 0x1.0p-53;
}

/* kind: 0 random Hermitian (spread), 1 SPD mass-like, 2 1D Laplacian, 3 badly scaled dominant. */
static inline int lp_build(hm_context *ctx, int kind, hm_scalar type, int64_t n, double spread, hm_matrix **A) {
  hm_dist *dist;
  int st = hm_dist_create(ctx, n, 1, 1.0, &dist);
  if (st) return st;
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  const int64_t offs[] = {1, 7, 23};
  const int noff = kind == 0 ? 3 : 1;
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = calloc((size_t)local * 7 + 1, sizeof *cols);
  double complex *vals = calloc((size_t)local * 7 + 1, sizeof *vals);
  double *rv = calloc((size_t)local * 7 * 2 + 1, sizeof *rv);
  int64_t nz = 0;
  for (int64_t l = 0; l < local; l++) {
    int64_t i = first + l;
    double scale_i = kind == 3 ? pow(10.0, 4 * lp_hash(5, (uint64_t)i, 0)) : 1.0;
    double diag = kind == 0 ? spread * lp_hash(1, (uint64_t)i, 0) : kind == 1 ? 2 + lp_hash(2, (uint64_t)i, 0) : 2.0;
    if (kind == 3) diag = 3.0 * scale_i;
    cols[nz] = i;
    vals[nz++] = diag;
    for (int s = 0; s < noff; s++)
      for (int dir = -1; dir <= 1; dir += 2) {
        int64_t j = i + dir * offs[s];
        if (kind == 0) j = (j % n + n) % n;
        else if (j < 0 || j >= n) continue;
        if (j == i) continue;
        int64_t lo = i < j ? i : j, hi = i < j ? j : i;
        double complex v;
        if (kind == 0) {
          v = 2 * lp_hash(3, (uint64_t)lo, (uint64_t)hi) - 1;
          if (type == HM_COMPLEX) v += I * (2 * lp_hash(4, (uint64_t)lo, (uint64_t)hi) - 1);
        } else if (kind == 1) {
          v = 0.6 * lp_hash(6, (uint64_t)lo, (uint64_t)hi) - 0.3;
        } else if (kind == 2) {
          v = -1;
        } else { /* symmetric scaling sqrt(s_i s_j) keeps dominance: |off| < diag */
          v = -sqrt(scale_i * pow(10.0, 4 * lp_hash(5, (uint64_t)j, 0)));
        }
        cols[nz] = j;
        vals[nz++] = i == lo ? v : conj(v);
      }
    rowptr[l + 1] = nz;
  }
  for (int64_t e = 0; e < nz; e++) {
    if (type == HM_COMPLEX) {
      rv[2 * e] = creal(vals[e]);
      rv[2 * e + 1] = cimag(vals[e]);
    } else {
      rv[e] = creal(vals[e]);
    }
  }
  st = hm_matrix_create_csr(ctx, dist, type, rowptr, cols, rv, A);
  free(rowptr); free(cols); free(vals); free(rv);
  hm_dist_destroy(&dist);
  return st;
}

/* Relative residuals ||A v - l B v|| / (|l| ||B v||) of k vectors, and the largest deviation of
 * V^H B V from the identity, computed here from the eigenvectors alone. */
static inline void lp_check_vectors(hm_matrix *A, hm_matrix *B, hm_mvec *V, const double *lambda, int k, double *res,
                             double *orth) {
  const hm_dist *dist;
  hm_scalar type;
  hm_context *ctx;
  hm_matrix_dist(A, &dist);
  hm_matrix_info(A, NULL, NULL, &type);
  hm_operator *op;
  hm_operator_create_matrix(A, &op);
  hm_operator_context(op, &ctx);
  hm_operator_destroy(&op);
  hm_mvec *AV, *BV;
  hm_mvec_create(ctx, dist, type, k, &AV);
  hm_mvec_create(ctx, dist, type, k, &BV);
  hm_matrix_apply(A, V, AV);
  if (B) hm_matrix_apply(B, V, BV);
  else hm_mvec_copy_columns(V, 0, BV, 0, k);
  double *bn = malloc(sizeof(double) * k), *rn = malloc(sizeof(double) * k);
  double *al = calloc(2 * (size_t)k, sizeof(double)), *be = calloc(2 * (size_t)k, sizeof(double));
  double complex *G = malloc(sizeof(double complex) * k * k);
  double *g = malloc(sizeof(double) * 2 * k * k);
  hm_mvec_gram(V, BV, g);
  *orth = 0;
  for (int a = 0; a < k; a++)
    for (int b = 0; b < k; b++) {
      double complex x = type == HM_COMPLEX ? CMPLX(g[2 * (a * k + b)], g[2 * (a * k + b) + 1]) : g[a * k + b];
      *orth = fmax(*orth, cabs(x - (a == b)));
    }
  hm_mvec_norms(BV, bn);
  for (int j = 0; j < k; j++) {
    al[j * type] = -lambda[j];
    be[j * type] = 1;
  }
  hm_mvec_axpby(AV, al, BV, be);
  hm_mvec_norms(AV, rn);
  for (int j = 0; j < k; j++) res[j] = rn[j] / (fabs(lambda[j]) * bn[j]);
  free(bn); free(rn); free(al); free(be); free(G); free(g);
  hm_mvec_destroy(&AV);
  hm_mvec_destroy(&BV);
}
static inline int lp_ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The (e - 1)^3 eigenvalues (ascending, malloc'ed) of the FEM pencil of an lx x ly x lz box of e^3
 * Q1 hexahedra (V = 0): sums over directions of the 1D Q1 values (3 / h^2) (1 - cos t) / (2 + cos t),
 * t = j pi / e, j = 1 .. e - 1. */
static inline double *lp_fem_box_exact(double lx, double ly, double lz, int e) {
  const double len[3] = {lx, ly, lz};
  double *q = malloc(sizeof(double) * 3 * (size_t)e);
  double *exact = malloc(sizeof(double) * (size_t)(e - 1) * (e - 1) * (e - 1));
  for (int a = 0; a < 3; a++)
    for (int j = 1; j < e; j++) {
      const double h = len[a] / e, t = j * M_PI / e;
      q[a * e + j] = 3.0 / (h * h) * (1 - cos(t)) / (2 + cos(t));
    }
  int c = 0;
  for (int i = 1; i < e; i++)
    for (int j = 1; j < e; j++)
      for (int k = 1; k < e; k++) exact[c++] = q[i] + q[e + j] + q[2 * e + k];
  free(q);
  qsort(exact, (size_t)c, sizeof(double), lp_ascending);
  return exact;
}

/* The FEM pencil K, M of an lx x ly x lz box of e^3 Q1 hexahedra (V = 0) and its exact eigenvalues
 * (lp_fem_box_exact: ascending, malloc'ed). */
static inline double *lp_fem_box(hm_context *ctx, double lx, double ly, double lz, int e, hm_matrix **K,
                                 hm_matrix **M) {
  hm_fem_params p;
  hm_fem_params_default(&p);
  p.ex = p.ey = p.ez = e;
  p.lx = lx, p.ly = ly, p.lz = lz;
  HM_TEST_OK(hm_fem_build(ctx, &p, K, M));
  return lp_fem_box_exact(lx, ly, lz, e);
}

#endif
