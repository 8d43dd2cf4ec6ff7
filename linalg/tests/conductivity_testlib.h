/* Test helpers for the conductivity: the Qi-Wu-Zhang stencil, dense assembly of a small stencil
 * (periodic, twisted or open; the on-site diagonal given separately) and its distributed CSR, and
 * the exact moments Tr[v_a T_n v_b T_m] / N from dense eigenpairs. Independent of linalg's stencil
 * assembly, so the velocity blocks and the moments are checked against plain dense algebra. */
#ifndef HAMLET_CONDUCTIVITY_TESTLIB_H
#define HAMLET_CONDUCTIVITY_TESTLIB_H
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"

enum { QWZ_BLOCKS = 5 };
static const int32_t qwz_shift[QWZ_BLOCKS * 3] = {0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0};

/* H(k) = sin kx sx + sin ky sy + (u + cos kx + cos ky) sz, plus an intra-cell hop t sx (0 for the
 * model itself): block[b][i][j] (2 x 2, complex pairs). */
static inline void qwz_blocks(double u, double t, double *blk) {
  double complex B[QWZ_BLOCKS][2][2];
  memset(B, 0, sizeof B);
  B[0][0][0] = u;
  B[0][1][1] = -u;
  B[0][0][1] = B[0][1][0] = t;
  for (int d = 0; d < 2; d++) { /* R = +e_d: s_d / (2i) + sz / 2; R = -e_d: its adjoint */
    double complex p[2][2] = {{0.5, 0}, {0, -0.5}};
    if (d == 0) {
      p[0][1] += 1 / (2 * I);
      p[1][0] += 1 / (2 * I);
    } else {
      p[0][1] += -I / (2 * I);
      p[1][0] += I / (2 * I);
    }
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        B[1 + 2 * d][i][j] = p[i][j];
        B[2 + 2 * d][i][j] = conj(p[j][i]);
      }
  }
  memcpy(blk, B, sizeof B);
}

/* Dense column-major n x n matrix of the stencil's blocks on cells[3] with boundary / twist per
 * direction (the stencil.h rules; no disorder, vacancies or fields). */
static inline void stencil_dense(const int64_t cells[3], int orb, int nb, const int32_t *shift, const double *blk,
                          const int bc[3], const double twist[3], double complex *D) {
  const int64_t nsite = cells[0] * cells[1] * cells[2], n = nsite * orb;
  memset(D, 0, sizeof(double complex) * n * n);
  for (int64_t s = 0; s < nsite; s++) {
    int64_t c[3] = {s % cells[0], (s / cells[0]) % cells[1], s / (cells[0] * cells[1])}, t[3];
    for (int b = 0; b < nb; b++) {
      double complex f = 1;
      int keep = 1;
      for (int a = 0; a < 3; a++) {
        int64_t x = c[a] + shift[3 * b + a];
        int64_t w = x >= 0 ? x / cells[a] : -((-x + cells[a] - 1) / cells[a]);
        t[a] = x - w * cells[a];
        if (w != 0) {
          if (bc[a] == HM_BC_OPEN) keep = 0;
          if (bc[a] == HM_BC_TWISTED) f *= cexp(I * twist[a] * w);
        }
      }
      if (!keep) continue;
      int64_t st = t[0] + cells[0] * (t[1] + cells[1] * t[2]);
      for (int i = 0; i < orb; i++)
        for (int j = 0; j < orb; j++) {
          const double *e = blk + 2 * (((size_t)b * orb + i) * orb + j);
          D[(st * orb + j) * n + s * orb + i] += f * (e[0] + I * e[1]);
        }
    }
  }
}

/* The distributed CSR matrix of a dense one (entries above 1e-15 of the largest kept). */
static inline int matrix_from_dense(hm_context *ctx, int64_t n, int64_t block, const double complex *D, hm_matrix **A) {
  hm_dist *dist;
  int st = hm_dist_create(ctx, n, block, 1.0, &dist);
  if (st) return st;
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t *rowptr = malloc(sizeof(int64_t) * (local + 1)), *cols = malloc(sizeof(int64_t) * local * n);
  double complex *val = malloc(sizeof(double complex) * local * n);
  rowptr[0] = 0;
  for (int64_t i = 0; i < local; i++) {
    rowptr[i + 1] = rowptr[i];
    for (int64_t j = 0; j < n; j++)
      if (cabs(D[j * n + first + i]) > 1e-15) {
        cols[rowptr[i + 1]] = j;
        val[rowptr[i + 1]++] = D[j * n + first + i];
      }
  }
  st = hm_matrix_create_csr(ctx, dist, HM_COMPLEX, rowptr, cols, val, A);
  free(rowptr);
  free(cols);
  free(val);
  hm_dist_destroy(&dist);
  return st;
}

/* Exact moments mu[n][m] = Tr[Va T_n(s(H-b)) Vb T_m(s(H-b))] / N from the eigenpairs of H:
 * in the eigenbasis sum_ij Va'_ij T_n(x_j) Vb'_ji T_m(x_i). */
static inline void exact_moments(int64_t n, const double complex *H, const double complex *Va, const double complex *Vb,
                          double s, double b, int M, double complex *mu) {
  double *w = malloc(sizeof(double) * n);
  double complex *U = malloc(sizeof(double complex) * n * n), *A = malloc(sizeof(double complex) * n * n),
                 *B = malloc(sizeof(double complex) * n * n), *tmp = malloc(sizeof(double complex) * n * n);
  hm_test_eigh(n, H, w, U);
  /* X' = U^H X U, column-major */
  const double complex *V[2] = {Va, Vb};
  double complex *out[2] = {A, B};
  for (int k = 0; k < 2; k++) {
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex acc = 0;
        for (int64_t l = 0; l < n; l++) acc += V[k][l * n + i] * U[j * n + l];
        tmp[j * n + i] = acc; /* (X U)_ij */
      }
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex acc = 0;
        for (int64_t l = 0; l < n; l++) acc += conj(U[i * n + l]) * tmp[j * n + l];
        out[k][j * n + i] = acc;
      }
  }
  double *T = malloc(sizeof(double) * M * n);
  for (int64_t i = 0; i < n; i++) {
    double x = s * (w[i] - b);
    for (int m = 0; m < M; m++) T[m * n + i] = cos(m * acos(fmax(-1.0, fmin(1.0, x))));
  }
  for (int p = 0; p < M; p++)
    for (int q = 0; q < M; q++) {
      double complex acc = 0;
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) acc += A[j * n + i] * T[p * n + j] * B[i * n + j] * T[q * n + i];
      mu[p * M + q] = acc / (double)n;
    }
  free(w);
  free(U);
  free(A);
  free(B);
  free(tmp);
  free(T);
}
/* The distributed CSR matrix of a stencil on a periodic nx x ny x 1 box (any size: row by row), of
 * type `type` (HM_REAL keeps the blocks' real parts). */
static inline int stencil_matrix_periodic_typed(hm_context *ctx, int64_t nx, int64_t ny, int orb, int nb,
                                                const int32_t *shift, const double *blk, hm_scalar type, hm_matrix **A) {
  const int64_t n = nx * ny * orb;
  hm_dist *dist;
  int st = hm_dist_create(ctx, n, orb, 1.0, &dist);
  if (st) return st;
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t *rowptr = malloc(sizeof(int64_t) * (local + 1)), *cols = malloc(sizeof(int64_t) * local * nb * orb);
  double *val = malloc(sizeof(double) * 2 * local * nb * orb);
  rowptr[0] = 0;
  for (int64_t r = 0; r < local; r++) {
    const int64_t row = first + r, s = row / orb, i = row % orb, cx = s % nx, cy = s / nx;
    rowptr[r + 1] = rowptr[r];
    for (int b = 0; b < nb; b++) {
      const int64_t tx = ((cx + shift[3 * b]) % nx + nx) % nx, ty = ((cy + shift[3 * b + 1]) % ny + ny) % ny;
      for (int j = 0; j < orb; j++) {
        const double *e = blk + 2 * (((size_t)b * orb + i) * orb + j);
        if (e[0] == 0 && e[1] == 0) continue;
        cols[rowptr[r + 1]] = (tx + nx * ty) * orb + j;
        for (int t = 0; t < (int)type; t++) val[(size_t)type * rowptr[r + 1] + t] = e[t];
        rowptr[r + 1]++;
      }
    }
  }
  st = hm_matrix_create_csr(ctx, dist, type, rowptr, cols, val, A);
  free(rowptr);
  free(cols);
  free(val);
  hm_dist_destroy(&dist);
  return st;
}
static inline int stencil_matrix_periodic(hm_context *ctx, int64_t nx, int64_t ny, int orb, int nb, const int32_t *shift,
                                          const double *blk, hm_matrix **A) {
  return stencil_matrix_periodic_typed(ctx, nx, ny, orb, nb, shift, blk, HM_COMPLEX, A);
}
#endif
