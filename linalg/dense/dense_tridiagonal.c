/* The real symmetric tridiagonal eigenproblem by divide and conquer (Cuppen; the deflation and the
 * eigenvector formulas of LAPACK's dlaed2 and dlaed3), its eigenvector matrix on x's side (the host or
 * the rank's GPU, dense_exec.h): the leaves (<= 32 rows) by dsteqr on the host, every merge's
 * eigenvectors as GEMMs of the two halves' eigenvectors with the rank-one problem's on x's side, the
 * O(n) and O(K^2) work of a merge on the host's threads (deflation, LAPACK's dlaed4 for each secular
 * root, the recomputed weights) without any K x K array there: the rank-one problem's eigenvectors are
 * built on x's side, a panel of columns at a time, from each root's nearest pole and offset.
 *
 * A merge of T1 (n1 rows) and T2 (n2) torn at beta = e[n1 - 1]: T = diag(T1', T2') + rho u u^T with
 * T1', T2' having |beta| less on the touching diagonals, u = e_{n1-1} + sign(beta) e_{n1}. With the
 * halves' eigenpairs T1' = Q1 D1 Q1^T, T2' = Q2 D2 Q2^T, T = Q (D + rho z z^T) Q^T, z = Q^T u: the last
 * row of Q1 and, signed, the first row of Q2. Deflated pairs keep their (rotated) columns; the K others
 * get Q S, S the rank-one problem's eigenvectors, computed as two GEMMs because a column of Q1 has no
 * rows in T2's part and the other way round. Columns are not sorted after a merge: `order` keeps, per
 * block, its columns by ascending eigenvalue, and one gather sorts them at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <omp.h>
#include "dense_exec.h"
#include "error_macros.h"

/* LAPACK's secular equation solver: the i-th (1-based) root of 1 + rho sum z_j^2 / (d_j - lambda). */
void dlaed4_(const int *n, const int *i, const double *d, const double *z, double *delta, const double *rho,
             double *dlam, int *info);

enum { LEAF = 32 };
enum { SECULAR_PANEL = 2048 }; /* S's columns built and multiplied at a time: n x 2048 memory, GEMMs still long */
enum { TOP = 1, MIXED = 2, BOTTOM = 3 }; /* where a column of a merge has rows: T1's part, both, T2's */

typedef struct {
  const hm_dense_exec *x;
  int64_t n;
  double *d, *z, *w; /* eigenvalues by column (host); eigenvectors and a scratch n x n (x's side) */
  int64_t *order;    /* per block: its columns (global) by ascending eigenvalue */
  double *s;         /* a panel of the secular eigenvectors (x's side, s_len doubles) */
  int64_t s_len;
} dc_state;

typedef struct {
  double v;
  int64_t i;
} keyed;

static int by_key(const void *a, const void *b) {
  const double x = ((const keyed *)a)->v, y = ((const keyed *)b)->v;
  return x < y ? -1 : x > y;
}

/* idx (count) sorted by d[idx]; work: count entries. */
static void sort_by_value(int64_t *idx, int64_t count, const double *d, keyed *work) {
  for (int64_t j = 0; j < count; j++) work[j].v = d[idx[j]], work[j].i = idx[j];
  qsort(work, (size_t)count, sizeof *work, by_key);
  for (int64_t j = 0; j < count; j++) idx[j] = work[j].i;
}

/* The secular problem of K ascending poles dl with weights wt (K >= 3): its roots lam, each root's nearest
 * pole origin[j] and offset[j] = dl[origin[j]] - lam[j] (dlaed4's own, exact), and the weights wnew of
 * which the computed roots are the exact ones (Gu and Eisenstat; LAPACK's dlaed3), so that the vectors
 * built from them are orthogonal: wnew_i^2 = -prod_j delta(i, j) / prod_{j != i} (dl_i - dl_j). Each thread
 * multiplies its roots' factors into a row of `prod` (threads x K). Returns dlaed4's first nonzero info. */
static int secular(int64_t K, const double *dl, const double *wt, double rho, double *lam, int64_t *origin,
                   double *offset, double *wnew, double *prod, int threads) {
  int info = 0;
  const int k = (int)K;
  for (int64_t i = 0; i < threads * K; i++) prod[i] = 1;
#pragma omp parallel num_threads(threads) reduction(| : info)
  {
    double *delta = malloc(sizeof(double) * (size_t)K), *mine = prod + (int64_t)omp_get_thread_num() * K;
    if (!delta) info |= -1;
#pragma omp for schedule(dynamic, 16)
    for (int j = 0; j < k; j++) {
      if (!delta) continue;
      int one = j + 1, inf = 0;
      dlaed4_(&k, &one, dl, wt, delta, &rho, &lam[j], &inf);
      info |= inf;
      const int64_t o = j + 1 < k && fabs(delta[j + 1]) < fabs(delta[j]) ? j + 1 : j;
      origin[j] = o, offset[j] = delta[o];
      for (int64_t i = 0; i < K; i++) {
        const double dij = (dl[i] - dl[o]) + delta[o]; /* as the vectors will have it */
        mine[i] *= i == j ? dij : dij / (dl[i] - dl[j]);
      }
    }
    free(delta);
  }
  for (int64_t i = 0; i < K; i++) {
    double p = 1;
    for (int t = 0; t < threads; t++) p *= prod[t * K + i];
    wnew[i] = copysign(sqrt(-p), wt[i]);
  }
  return info;
}

/* Merge blocks [lo, lo + n1) and [lo + n1, lo + nm), each solved, torn at beta. */
static int merge(dc_state *st, int64_t lo, int64_t n1, int64_t nm, double beta, int *info) {
  const hm_dense_exec *x = st->x;
  const int64_t n = st->n, n2 = nm - n1;
  double *d = st->d, *Z = st->z + lo * n + lo; /* the block: rows and columns lo .. lo + nm */
  int64_t *ord = st->order + lo;
  double *zv = malloc(sizeof(double) * (size_t)nm), *dl = malloc(sizeof(double) * (size_t)nm);
  double *wt = malloc(sizeof(double) * (size_t)nm), *lam = malloc(sizeof(double) * (size_t)nm);
  int64_t *srt = malloc(sizeof(int64_t) * (size_t)nm), *keep = malloc(sizeof(int64_t) * (size_t)nm);
  int64_t *gone = malloc(sizeof(int64_t) * (size_t)nm), *idx = malloc(sizeof(int64_t) * (size_t)nm);
  int *type = malloc(sizeof(int) * (size_t)nm);
  keyed *kw = malloc(sizeof(keyed) * (size_t)nm);
  int64_t *origin = malloc(sizeof(int64_t) * (size_t)nm), *perm = malloc(sizeof(int64_t) * (size_t)nm);
  double *offset = malloc(sizeof(double) * (size_t)nm), *wnew = malloc(sizeof(double) * (size_t)nm);
  double *prod = NULL, small[4];
  int err = zv && dl && wt && lam && srt && keep && gone && idx && type && kw && origin && perm && offset && wnew
                ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "merge of %lld rows", (long long)nm);
  if (err) goto done;
  /* z: row n1 - 1 of Q1 and sign(beta) row n1 of Q2, over sqrt 2; rho = 2 |beta| (unit z). Local column
   * j of the block is global lo + j. */
  HM_CALL_GOTO(err, done, hm_dense_x_copy_block(x, 'D', zv, 1, Z + (n1 - 1), n, 1, n1));
  HM_CALL_GOTO(err, done, hm_dense_x_copy_block(x, 'D', zv + n1, 1, Z + n * n1 + n1, n, 1, n2));
  const double rho = 2 * fabs(beta);
  double zmax = 0, dmax = 0;
  for (int64_t j = 0; j < nm; j++) {
    zv[j] = (j < n1 || beta >= 0 ? 1 : -1) * zv[j] / sqrt(2.0);
    type[j] = j < n1 ? TOP : BOTTOM;
    zmax = fmax(zmax, fabs(zv[j])), dmax = fmax(dmax, fabs(d[lo + j]));
  }
  /* Both halves' columns by ascending eigenvalue (local indices). */
  for (int64_t j = 0; j < nm; j++) srt[j] = ord[j] - lo;
  sort_by_value(srt, nm, d + lo, kw);
  /* Deflation (dlaed2): a negligible z component, or two close poles that a rotation separates. */
  const double tol = 8 * LAPACKE_dlamch('E') * fmax(dmax, zmax);
  int64_t K = 0, ngone = 0, prev = -1;
  for (int64_t t = 0; t < nm && rho * zmax > tol; t++) {
    const int64_t j = srt[t];
    if (rho * fabs(zv[j]) <= tol) { gone[ngone++] = j; continue; }
    if (prev >= 0) {
      double c = zv[j], sn = zv[prev];
      const double tau = hypot(c, sn), gap = d[lo + j] - d[lo + prev];
      c /= tau, sn = -sn / tau;
      if (fabs(gap * c * sn) <= tol) { /* rotate prev into j: prev deflates */
        zv[j] = tau, zv[prev] = 0;
        HM_CALL_GOTO(err, done, hm_dense_x_rot(x, nm, Z + n * prev, Z + n * j, c, sn));
        const double dp = d[lo + prev] * c * c + d[lo + j] * sn * sn;
        d[lo + j] = d[lo + prev] * sn * sn + d[lo + j] * c * c;
        d[lo + prev] = dp;
        if (type[prev] != type[j]) type[j] = MIXED;
        gone[ngone++] = prev;
        prev = j;
        continue;
      }
      keep[K++] = prev;
    }
    prev = j;
  }
  if (prev >= 0 && rho * zmax > tol) keep[K++] = prev;
  if (rho * zmax <= tol) for (int64_t t = 0; t < nm; t++) gone[ngone++] = srt[t];
  /* The secular problem of the K kept poles (ascending). */
  for (int64_t i = 0; i < K; i++) dl[i] = d[lo + keep[i]], wt[i] = zv[keep[i]];
  const int threads = omp_get_max_threads();
  if (K > 2) {
    prod = malloc(sizeof(double) * (size_t)(threads * K));
    if (!prod) { err = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "secular weights K = %lld", (long long)K); goto done; }
    *info = secular(K, dl, wt, rho, lam, origin, offset, wnew, prod, threads);
    if (*info < 0) err = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "secular roots K = %lld", (long long)K);
    if (*info) goto done;
  } else {
    for (int64_t j = 0; j < K && !*info; j++) { /* dlaed4 (dlaed5) returns these vectors themselves */
      int k = (int)K, one = (int)j + 1;
      dlaed4_(&k, &one, dl, wt, small + j * K, &rho, &lam[j], info);
    }
    if (*info) goto done;
  }
  /* The kept columns grouped TOP, MIXED, BOTTOM (perm: the pole of each row of S), then the deflated ones. */
  int64_t k1 = 0, k2 = 0, c = 0;
  for (int g = TOP; g <= BOTTOM; g++)
    for (int64_t i = 0; i < K; i++)
      if (type[keep[i]] == g) idx[c] = keep[i], perm[c++] = i, k1 += g == TOP, k2 += g == MIXED;
  for (int64_t t = 0; t < ngone; t++) idx[K + t] = gone[t];
  HM_CALL_GOTO(err, done, hm_dense_x_gather_columns(x, nm, nm, Z, n, idx, st->w, nm));
  /* Z's first K columns = Q S, a panel of S's columns at a time: T1's rows from TOP and MIXED columns,
   * T2's from MIXED and BOTTOM. */
  const int64_t panel = K < SECULAR_PANEL ? K : SECULAR_PANEL;
  if (K && st->s_len < K * panel) {
    hm_dense_x_free(x, st->s);
    st->s = NULL, st->s_len = 0;
    HM_CALL_GOTO(err, done, hm_dense_x_alloc(x, &st->s, K * panel));
    st->s_len = K * panel;
  }
  if (K && K <= 2) {
    double sp[4];
    for (int64_t j = 0; j < K; j++)
      for (int64_t r = 0; r < K; r++) sp[j * K + r] = small[j * K + perm[r]];
    HM_CALL_GOTO(err, done, hm_dense_x_copy(x, 'U', st->s, sp, K * K));
  }
  for (int64_t j0 = 0; j0 < K; j0 += panel) {
    const int64_t cols = K - j0 < panel ? K - j0 : panel;
    if (K > 2) HM_CALL_GOTO(err, done, hm_dense_x_secular_vectors(x, K, cols, dl, wnew, origin + j0, offset + j0, perm, st->s, K));
    HM_CALL_GOTO(err, done, hm_dense_x_gemm(x, HM_REAL, 'N', 'N', n1, cols, k1 + k2, 1, st->w, nm, st->s, K, 0,
                                            Z + n * j0, n));
    HM_CALL_GOTO(err, done, hm_dense_x_gemm(x, HM_REAL, 'N', 'N', n2, cols, K - k1, 1, st->w + n1 + nm * k1, nm,
                                            st->s + k1, K, 0, Z + n * j0 + n1, n));
  }
  HM_CALL_GOTO(err, done, hm_dense_x_copy_block(x, 'S', Z + n * K, n, st->w + nm * K, nm, nm, ngone));
  /* The block's eigenvalues by column, and its columns by ascending eigenvalue. */
  double *dg = dl; /* the deflated values, before d's slots are overwritten */
  for (int64_t t = 0; t < ngone; t++) dg[t] = d[lo + gone[t]];
  for (int64_t i = 0; i < K; i++) d[lo + i] = lam[i];
  for (int64_t t = 0; t < ngone; t++) d[lo + K + t] = dg[t];
  for (int64_t j = 0; j < nm; j++) ord[j] = j;
  sort_by_value(ord, nm, d + lo, kw);
  for (int64_t j = 0; j < nm; j++) ord[j] += lo;
done:
  free(zv); free(dl); free(wt); free(lam); free(srt); free(keep); free(gone); free(idx); free(type); free(kw);
  free(origin); free(perm); free(offset); free(wnew); free(prod);
  return err;
}

int hm_dense_tridiagonal_dc(const hm_dense_exec *x, int64_t n, double *d, const double *e, double *z, int *info) {
  *info = 0;
  if (n <= 0) return HM_SUCCESS;
  dc_state st = {x, n, d, z, NULL, malloc(sizeof(int64_t) * (size_t)n), NULL, 0};
  int64_t blocks = 1;
  while (n / blocks > LEAF) blocks *= 2; /* leaves of <= LEAF rows, merged pairwise */
  int64_t *start = malloc(sizeof(int64_t) * (size_t)(blocks + 1));
  double *leaf = malloc(sizeof(double) * (size_t)(2 * LEAF * 2 * LEAF)), *ee = malloc(sizeof(double) * (size_t)n);
  int err = st.order && start && leaf && ee ? HM_SUCCESS
                                           : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "divide and conquer of n = %lld", (long long)n);
  if (!err) err = hm_dense_x_alloc(x, &st.w, n * n);
  if (err) goto done;
  for (int64_t b = 0; b <= blocks; b++) start[b] = n * b / blocks;
  /* Tear at every leaf boundary, then solve the leaves. */
  for (int64_t b = 1; b < blocks; b++) {
    const double beta = fabs(e[start[b] - 1]);
    d[start[b] - 1] -= beta, d[start[b]] -= beta;
  }
  for (int64_t b = 0; b < blocks && !*info; b++) {
    const int64_t lo = start[b], m = start[b + 1] - lo;
    memcpy(ee, e + lo, sizeof(double) * (size_t)(m > 1 ? m - 1 : 0));
    *info = LAPACKE_dsteqr(LAPACK_COL_MAJOR, 'I', (int)m, d + lo, ee, leaf, (int)m);
    if (!*info) HM_CALL_GOTO(err, done, hm_dense_x_copy_block(x, 'U', z + lo * n + lo, n, leaf, m, m, m));
    for (int64_t j = 0; j < m; j++) st.order[lo + j] = lo + j; /* dsteqr's values ascend */
  }
  /* Merge pairwise, level by level. */
  for (int64_t width = 1; width < blocks && !*info; width *= 2)
    for (int64_t b = 0; b + width < blocks && !*info; b += 2 * width) {
      const int64_t lo = start[b], mid = start[b + width], hi = start[b + 2 * width < blocks ? b + 2 * width : blocks];
      HM_CALL_GOTO(err, done, merge(&st, lo, mid - lo, hi - lo, e[mid - 1], info));
    }
  if (*info) goto done;
  /* The columns by ascending eigenvalue. */
  HM_CALL_GOTO(err, done, hm_dense_x_gather_columns(x, n, n, z, n, st.order, st.w, n));
  HM_CALL_GOTO(err, done, hm_dense_x_copy(x, 'S', z, st.w, n * n));
  for (int64_t j = 0; j < n; j++) ee[j] = d[st.order[j]];
  memcpy(d, ee, sizeof(double) * (size_t)n);
done:
  hm_dense_x_free(x, st.w);
  hm_dense_x_free(x, st.s);
  free(st.order); free(start); free(leaf); free(ee);
  return err;
}
