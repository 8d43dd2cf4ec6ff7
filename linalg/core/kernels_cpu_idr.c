/* CPU kernels of IDR(s): the per-system linear combination of a few blocks (one pass over the
 * rows instead of one axpby per term), the fused residual/solution/smoothing update that also
 * accumulates the dots the next branch needs, and the shadow-space products P^H Y. Complex
 * arithmetic is written out in real and imaginary parts (C's complex multiply calls a NaN-handling
 * routine). The sums go through row_sums.h (static thread split, row lanes, thread order), so a
 * run is reproducible for a given thread count. */
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "kernels_cpu_idr.h"
#include "row_sums.h"

/* Entries are walked in chunks of the flattened block (row-major: entry e is column e % k): the
 * chunk of Y is built in a small buffer that stays in L1 while each X_l's chunk streams through
 * once, in loops the compiler vectorises; an entry's value does not depend on the chunking. */
enum { CHUNK = 512 };

int hm_cpu_idr_combine(hm_scalar type, int64_t n, int k, int m, const double *const *X, const double *c,
                       const double *a, const double *W, double *Y) {
  const int64_t total = n * k;
  const int t = (int)type;
#pragma omp parallel for schedule(static)
  for (int64_t e0 = 0; e0 < total; e0 += CHUNK) {
    const int len = (int)(total - e0 < CHUNK ? total - e0 : CHUNK);
    const int j0 = (int)(e0 % k);
    double acc[2 * CHUNK];
    if (t == 2) {
      for (int q = 0, j = j0; q < len; q++, j = j + 1 == k ? 0 : j + 1) {
        const double wr = W[2 * (e0 + q)], wi = W[2 * (e0 + q) + 1];
        acc[2 * q] = a[2 * j] * wr - a[2 * j + 1] * wi;
        acc[2 * q + 1] = a[2 * j] * wi + a[2 * j + 1] * wr;
      }
      for (int l = 0; l < m; l++) {
        const double *x = X[l] + 2 * e0, *cl = c + 2 * (size_t)l * k;
        for (int q = 0, j = j0; q < len; q++, j = j + 1 == k ? 0 : j + 1) {
          const double cr = cl[2 * j], ci = cl[2 * j + 1];
          acc[2 * q] += cr * x[2 * q] - ci * x[2 * q + 1];
          acc[2 * q + 1] += cr * x[2 * q + 1] + ci * x[2 * q];
        }
      }
    } else if (k == 1) { /* one system: the coefficients are scalars */
      for (int q = 0; q < len; q++) acc[q] = a[0] * W[e0 + q];
      for (int l = 0; l < m; l++) {
        const double *x = X[l] + e0, cl = c[l];
        for (int q = 0; q < len; q++) acc[q] += cl * x[q];
      }
    } else {
      for (int q = 0, j = j0; q < len; q++, j = j + 1 == k ? 0 : j + 1) acc[q] = a[j] * W[e0 + q];
      for (int l = 0; l < m; l++) {
        const double *x = X[l] + e0, *cl = c + (size_t)l * k;
        for (int q = 0, j = j0; q < len; q++, j = j + 1 == k ? 0 : j + 1) acc[q] += cl[j] * x[q];
      }
    }
    memcpy(Y + (size_t)t * e0, acc, sizeof(double) * (size_t)t * len);
  }
  return HM_SUCCESS;
}

/* Row i of the update; its dot terms (3 complex = 6 doubles per column, real parts only for a
 * real type) added into acc. */
HM_INLINE void update_row(hm_scalar type, int64_t i, const int k, const double *beta, const double *sigma,
                          const double *g, const double *u, double *r, double *x, double *dr, double *dx,
                          double *acc) {
  if (type == HM_COMPLEX) {
    for (int j = 0; j < k; j++) {
      const size_t e = 2 * ((size_t)i * k + j);
      const double br = beta[2 * j], bi = beta[2 * j + 1];
      const int move = br != 0 || bi != 0; /* a stopped system: g, u may hold anything (NaN) */
      const double bgr = move ? br * g[e] - bi * g[e + 1] : 0, bgi = move ? br * g[e + 1] + bi * g[e] : 0;
      const double bur = move ? br * u[e] - bi * u[e + 1] : 0, bui = move ? br * u[e + 1] + bi * u[e] : 0;
      const double rr = r[e] - bgr, ri = r[e + 1] - bgi;
      r[e] = rr;
      r[e + 1] = ri;
      x[e] += bur;
      x[e + 1] += bui;
      double *s = acc + 6 * j;
      s[0] += rr * rr + ri * ri;
      if (dr) {
        const double sr = sigma[2 * j], si = sigma[2 * j + 1];
        const double dre = sr * dr[e] - si * dr[e + 1] + bgr, dim = sr * dr[e + 1] + si * dr[e] + bgi;
        const double xre = sr * dx[e] - si * dx[e + 1] - bur, xim = sr * dx[e + 1] + si * dx[e] - bui;
        dr[e] = dre;
        dr[e + 1] = dim;
        dx[e] = xre;
        dx[e + 1] = xim;
        s[2] += dre * rr + dim * ri; /* conj(dr) r */
        s[3] += dre * ri - dim * rr;
        s[4] += dre * dre + dim * dim;
      }
    }
  } else {
    for (int j = 0; j < k; j++) {
      const size_t e = (size_t)i * k + j;
      const int move = beta[j] != 0; /* a stopped system: g, u may hold anything (NaN) */
      const double bg = move ? beta[j] * g[e] : 0, bu = move ? beta[j] * u[e] : 0;
      const double rv = r[e] - bg;
      r[e] = rv;
      x[e] += bu;
      double *s = acc + 6 * j;
      s[0] += rv * rv;
      if (dr) {
        const double d = sigma[j] * dr[e] + bg;
        dr[e] = d;
        dx[e] = sigma[j] * dx[e] - bu;
        s[2] += d * rv;
        s[4] += d * d;
      }
    }
  }
}

/* Rows [i0, i1) of the update, sums added into acc (6 k doubles): consecutive rows go to
 * HM_LANES independent partial sums (row_sums.h). */
HM_INLINE void update_rows(hm_scalar type, int64_t i0, int64_t i1, const int k, const double *beta,
                           const double *sigma, const double *g, const double *u, double *r, double *x, double *dr,
                           double *dx, double *acc) {
  double lane[HM_LANES][6 * k];
  memset(lane, 0, sizeof lane);
  int64_t i = i0;
  for (; i + HM_LANES <= i1; i += HM_LANES)
    for (int l = 0; l < HM_LANES; l++) update_row(type, i + l, k, beta, sigma, g, u, r, x, dr, dx, lane[l]);
  for (int l = 0; i < i1; i++, l++) update_row(type, i, k, beta, sigma, g, u, r, x, dr, dx, lane[l]);
  hm_lanes_add(HM_LANES, 6 * k, &lane[0][0], acc);
}

struct update_args {
  hm_scalar type;
  int k;
  const double *beta, *sigma, *g, *u;
  double *r, *x, *dr, *dx;
};

/* One thread's rows; one system (k = 1) and the scalar type as constants, so the sums stay in
 * registers. */
static void update_thread(int64_t i0, int64_t i1, void *ctx, double *acc) {
  const struct update_args *a = ctx;
#define ROWS(T, K) update_rows(T, i0, i1, K, a->beta, a->sigma, a->g, a->u, a->r, a->x, a->dr, a->dx, acc)
  if (a->type == HM_COMPLEX) {
    if (a->k == 1) ROWS(HM_COMPLEX, 1);
    else ROWS(HM_COMPLEX, a->k);
  } else {
    if (a->k == 1) ROWS(HM_REAL, 1);
    else ROWS(HM_REAL, a->k);
  }
#undef ROWS
}

int hm_cpu_idr_update(hm_scalar type, int64_t n, int k, const double *beta, const double *sigma, const double *g,
                      const double *u, double *r, double *x, double *dr, double *dx, double *dots) {
  struct update_args args = {type, k, beta, sigma, g, u, r, x, dr, dx};
  double sum[6 * k];
  HM_CALL(hm_row_sums(n, 6 * k, update_thread, &args, sum));
  const int ts = (int)type;
  memset(dots, 0, sizeof(double) * 3 * (size_t)k * (size_t)ts);
  for (int j = 0; j < k; j++) {
    dots[ts * (3 * j + 0)] = sum[6 * j + 0];
    dots[ts * (3 * j + 1)] = sum[6 * j + 2];
    if (ts == 2) dots[ts * (3 * j + 1) + 1] = sum[6 * j + 3];
    dots[ts * (3 * j + 2)] = sum[6 * j + 4];
  }
  return HM_SUCCESS;
}

/* acc[2 (a k + j) (+1)] += conj(P[i, a]) Y[i, j] for row i (real: the first only). */
HM_INLINE void multidot_row(hm_scalar type, int64_t i, const int s, const double *restrict P, const int k,
                            const double *restrict Y, double *restrict acc) {
  if (type == HM_COMPLEX) {
    const double *p = P + 2 * (size_t)i * s, *y = Y + 2 * (size_t)i * k;
    for (int a = 0; a < s; a++)
      for (int j = 0; j < k; j++) {
        acc[2 * (a * k + j)] += p[2 * a] * y[2 * j] + p[2 * a + 1] * y[2 * j + 1];
        acc[2 * (a * k + j) + 1] += p[2 * a] * y[2 * j + 1] - p[2 * a + 1] * y[2 * j];
      }
  } else {
    const double *p = P + (size_t)i * s, *y = Y + (size_t)i * k;
    for (int a = 0; a < s; a++)
      for (int j = 0; j < k; j++) acc[2 * (a * k + j)] += p[a] * y[j];
  }
}

/* Rows [i0, i1), sums added into acc (2 s k doubles), in HM_LANES row lanes (row_sums.h). */
HM_INLINE void multidot_rows(hm_scalar type, int64_t i0, int64_t i1, const int s, const double *restrict P,
                             const int k, const double *restrict Y, double *restrict acc) {
  double lane[HM_LANES][2 * s * k];
  memset(lane, 0, sizeof lane);
  int64_t i = i0;
  for (; i + HM_LANES <= i1; i += HM_LANES)
    for (int l = 0; l < HM_LANES; l++) multidot_row(type, i + l, s, P, k, Y, lane[l]);
  for (int l = 0; i < i1; i++, l++) multidot_row(type, i, s, P, k, Y, lane[l]);
  hm_lanes_add(HM_LANES, 2 * s * k, &lane[0][0], acc);
}

struct multidot_args {
  hm_scalar type;
  int s, k;
  const double *P, *Y;
};

/* One thread's rows; one system with the common s (and the scalar type) as constants, so the
 * sums stay in registers. */
static void multidot_thread(int64_t i0, int64_t i1, void *ctx, double *acc) {
  const struct multidot_args *a = ctx;
#define ROWS(T, S, K) multidot_rows(T, i0, i1, S, a->P, K, a->Y, acc)
#define BY_S(T)                                \
  switch (a->k == 1 ? a->s : 0) {              \
    case 1: ROWS(T, 1, 1); break;              \
    case 2: ROWS(T, 2, 1); break;              \
    case 4: ROWS(T, 4, 1); break;              \
    case 8: ROWS(T, 8, 1); break;              \
    default: ROWS(T, a->s, a->k); break;       \
  }
  if (a->type == HM_COMPLEX) BY_S(HM_COMPLEX)
  else BY_S(HM_REAL)
#undef BY_S
#undef ROWS
}

/* Per entry the same order of additions whatever s and k are (row_sums.h). */
int hm_cpu_idr_multidot(hm_scalar type, int64_t n, int s, const double *P, int k, const double *Y, double *G) {
  const int np = s * k;
  struct multidot_args args = {type, s, k, P, Y};
  double *sum;
  HM_MALLOC(sum, 2 * (size_t)np);
  const int st = hm_row_sums(n, 2 * np, multidot_thread, &args, sum);
  for (int q = 0; q < np && st == HM_SUCCESS; q++) {
    G[(int)type * q] = sum[2 * q];
    if (type == HM_COMPLEX) G[2 * q + 1] = sum[2 * q + 1];
  }
  free(sum);
  return st;
}
