/* Shared by the time-evolution tests: distributed matrices from a dense global copy that every rank
 * builds alike, random states, and the exact propagator of a small matrix by its eigenvectors. */
#ifndef HAMLET_EVOLUTION_TESTLIB_H
#define HAMLET_EVOLUTION_TESTLIB_H
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "testing.h"

static inline double evo_uniform(uint64_t *s) { /* splitmix64 -> [0, 1) */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* A distributed matrix of the global column-major n x n dense (entries of magnitude 0 are left out). */
static inline int evo_matrix_from_dense(hm_context *ctx, int64_t n, hm_scalar type, const double complex *dense,
                                        hm_matrix **A) {
  hm_dist *dist;
  int st = hm_dist_create(ctx, n, 1, 1.0, &dist);
  if (st) return st;
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * (size_t)(local * n + 1));
  double complex *zv = malloc(sizeof *zv * (size_t)(local * n + 1));
  double *dv = malloc(sizeof *dv * (size_t)(local * n + 1));
  for (int64_t i = 0; i < local; i++) {
    rowptr[i + 1] = rowptr[i];
    for (int64_t j = 0; j < n; j++) {
      double complex a = dense[j * n + first + i];
      if (cabs(a) == 0) continue;
      cols[rowptr[i + 1]] = j;
      zv[rowptr[i + 1]] = a;
      dv[rowptr[i + 1]] = creal(a);
      rowptr[i + 1]++;
    }
  }
  st = hm_matrix_create_csr(ctx, dist, type, rowptr, cols, type == HM_COMPLEX ? (void *)zv : (void *)dv, A);
  free(rowptr); free(cols); free(zv); free(dv);
  hm_dist_destroy(&dist);
  return st;
}

/* A random Hermitian (real symmetric if type is real) band matrix: on-site energies in [-w/2, w/2],
 * couplings of magnitude <= 1 to the next `band` rows. */
static inline double complex *evo_random_band(int64_t n, int band, double w, hm_scalar type, uint64_t seed) {
  double complex *d = calloc((size_t)(n * n), sizeof *d);
  uint64_t s = seed;
  for (int64_t i = 0; i < n; i++) {
    d[i * n + i] = w * (evo_uniform(&s) - 0.5);
    for (int64_t j = i + 1; j <= i + band && j < n; j++) {
      double complex t = evo_uniform(&s) - 0.5;
      if (type == HM_COMPLEX) t += I * (evo_uniform(&s) - 0.5);
      d[j * n + i] = t;          /* (i, j) */
      d[i * n + j] = conj(t);    /* (j, i) */
    }
  }
  return d;
}

/* V = i[H, X] = -i [X, H] of a dense H: V_ij = -i d(i, j) H_ij with d = i - j, or on a ring of n sites
 * its minimum image. */
static inline double complex *evo_velocity_dense(int64_t n, const double complex *h, int ring) {
  double complex *c = calloc((size_t)(n * n), sizeof *c);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      int64_t d = i - j;
      if (ring && d > n / 2) d -= n;
      if (ring && d < -n / 2) d += n;
      c[j * n + i] = -I * (double)d * h[j * n + i];
    }
  return c;
}

/* A random normalised n x k state (column-major global, psi[j * n + i]). */
static inline double complex *evo_random_state(int64_t n, int k, uint64_t seed) {
  double complex *psi = malloc(sizeof *psi * (size_t)(n * k));
  uint64_t s = seed;
  for (int j = 0; j < k; j++) {
    double norm = 0;
    for (int64_t i = 0; i < n; i++) {
      psi[j * n + i] = (evo_uniform(&s) - 0.5) + I * (evo_uniform(&s) - 0.5);
      norm += creal(psi[j * n + i] * conj(psi[j * n + i]));
    }
    for (int64_t i = 0; i < n; i++) psi[j * n + i] /= sqrt(norm);
  }
  return psi;
}

/* A complex block over A's rows holding the local rows of the global column-major n x k state. */
static inline int evo_block_of(hm_context *ctx, hm_matrix *A, int k, const double complex *global, hm_mvec **v) {
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  int64_t first, local, n;
  hm_dist_range(dist, &first, &local, &n);
  int st = hm_mvec_create(ctx, dist, HM_COMPLEX, k, v);
  if (st) return st;
  double complex *rows = malloc(sizeof *rows * (size_t)(local * k + 1));
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++) rows[i * k + j] = global[j * n + first + i];
  st = hm_mvec_set(*v, rows);
  free(rows);
  return st;
}

/* max |local rows of v - the same rows of the global column-major state ref|. */
static inline double evo_block_error(const hm_mvec *v, int k, const double complex *ref) {
  const hm_dist *dist;
  hm_mvec_dist(v, &dist);
  int64_t first, local, n;
  hm_dist_range(dist, &first, &local, &n);
  double complex *rows = malloc(sizeof *rows * (size_t)(local * k + 1));
  hm_mvec_get(v, rows);
  double worst = 0;
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++) worst = fmax(worst, cabs(rows[i * k + j] - ref[j * n + first + i]));
  free(rows);
  double all;
  MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

/* exp(-i H t) psi (n x k, column-major) from the eigenvectors of the dense H (LAPACK zheevd). */
static inline double complex *evo_exact(int64_t n, const double complex *H, double t, int k, const double complex *psi) {
  double *w = malloc(sizeof *w * (size_t)n);
  double complex *V = malloc(sizeof *V * (size_t)(n * n)), *out = calloc((size_t)(n * k), sizeof *out);
  if (hm_test_eigh(n, H, w, V) != 0) { free(w); free(V); free(out); return NULL; }
  for (int j = 0; j < k; j++)
    for (int64_t m = 0; m < n; m++) {
      double complex proj = 0; /* <v_m|psi_j> */
      for (int64_t i = 0; i < n; i++) proj += conj(V[m * n + i]) * psi[j * n + i];
      proj *= cexp(-I * w[m] * t);
      for (int64_t i = 0; i < n; i++) out[j * n + i] += V[m * n + i] * proj;
    }
  free(w);
  free(V);
  return out;
}
#endif
