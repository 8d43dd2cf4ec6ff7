/* The real symmetric tridiagonal eigenproblem by divide and conquer (Cuppen; LAPACK's dlaed0 to dlaed3),
 * its eigenvector matrix on x's side (the host or the rank's GPU, dense_exec.h): the leaves (<= 32
 * rows) by dsteqr on the host; each merge's deflation and secular roots on the host's threads
 * (dense_secular.h); its eigenvectors Q S as GEMMs on x's side, S built there a panel of columns at a
 * time (no K x K array on the host), two GEMMs because a column of Q1 has no rows in T2's part and the
 * other way round. Columns are not sorted after a merge: `order` keeps, per block, its columns by
 * ascending eigenvalue, and one gather sorts them at the end. */
#include <math.h>
#include <stdlib.h>
#include "dense_exec.h"
#include "dense_secular.h"
#include "error_macros.h"

enum { SECULAR_PANEL = 2048 }; /* S's columns built and multiplied at a time: n x 2048 memory, GEMMs still long */

typedef struct {
  const hm_dense_exec *x;
  int64_t n;
  double *d, *z, *w; /* eigenvalues by column (host); eigenvectors and a scratch n x n (x's side) */
  int64_t *order;    /* per block: its columns (global) by ascending eigenvalue */
  double *s;         /* a panel of the secular eigenvectors (x's side, s_len doubles) */
  int64_t s_len;
} dc_state;

/* Z's first K columns <- Q S (Q: the gathered columns in w, kept ones grouped by half, then deflated),
 * a panel of S's columns at a time: T1's rows from the columns with rows there (k1 + k2 of them), T2's
 * from the last K - k1. perm: the pole of each row of S. */
static int multiply_secular(dc_state *st, const hm_dc_merge *m, int64_t n1, int64_t k1, int64_t k2,
                            const int64_t *perm, double *Z) {
  const hm_dense_exec *x = st->x;
  const int64_t n = st->n, nm = m->nm, n2 = nm - n1, K = m->K, panel = K < SECULAR_PANEL ? K : SECULAR_PANEL;
  if (!K) return HM_SUCCESS;
  if (st->s_len < K * panel) {
    hm_dense_x_free(x, st->s);
    st->s = NULL, st->s_len = 0;
    HM_CALL(hm_dense_x_alloc(x, &st->s, K * panel));
    st->s_len = K * panel;
  }
  if (K <= 2) {
    double sp[4];
    for (int64_t j = 0; j < K; j++)
      for (int64_t r = 0; r < K; r++) sp[j * K + r] = m->small[j * K + perm[r]];
    HM_CALL(hm_dense_x_copy(x, 'U', st->s, sp, K * K));
  }
  for (int64_t j0 = 0; j0 < K; j0 += panel) {
    const int64_t cols = K - j0 < panel ? K - j0 : panel;
    if (K > 2) HM_CALL(hm_dense_x_secular_vectors(x, K, cols, m->dl, m->wnew, m->origin + j0, m->offset + j0, perm, st->s, K));
    HM_CALL(hm_dense_x_gemm(x, HM_REAL, 'N', 'N', n1, cols, k1 + k2, 1, st->w, nm, st->s, K, 0, Z + n * j0, n));
    HM_CALL(hm_dense_x_gemm(x, HM_REAL, 'N', 'N', n2, cols, K - k1, 1, st->w + n1 + nm * k1, nm, st->s + k1, K, 0,
                            Z + n * j0 + n1, n));
  }
  return HM_SUCCESS;
}

/* Merge blocks [lo, lo + n1) and [lo + n1, lo + nm), each solved, torn at beta. */
static int merge(dc_state *st, int64_t lo, int64_t n1, int64_t nm, double beta, int *info) {
  const hm_dense_exec *x = st->x;
  const int64_t n = st->n, n2 = nm - n1;
  double *d = st->d + lo, *Z = st->z + lo * n + lo; /* the block: rows and columns lo .. lo + nm */
  int64_t *ord = st->order + lo, *idx = malloc(sizeof(int64_t) * (size_t)nm), *perm = malloc(sizeof(int64_t) * (size_t)nm);
  hm_dc_merge m;
  int err = hm_dc_merge_alloc(&m, nm);
  if (!err && (!idx || !perm)) err = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "merge of %lld rows", (long long)nm);
  if (err) goto done;
  HM_CALL_GOTO(err, done, hm_dense_x_copy_block(x, 'D', m.z, 1, Z + (n1 - 1), n, 1, n1));
  HM_CALL_GOTO(err, done, hm_dense_x_copy_block(x, 'D', m.z + n1, 1, Z + n * n1 + n1, n, 1, n2));
  for (int64_t j = 0; j < nm; j++) m.z[j] *= (j < n1 || beta >= 0 ? 1 : -1) / sqrt(2.0);
  for (int64_t j = 0; j < nm; j++) idx[j] = ord[j] - lo;
  const double rho = 2 * fabs(beta);
  hm_dc_deflate(&m, n1, d, idx, rho);
  for (int64_t r = 0; r < m.nrot; r++)
    HM_CALL_GOTO(err, done, hm_dense_x_rot(x, nm, Z + n * m.rot_pair[2 * r], Z + n * m.rot_pair[2 * r + 1],
                                           m.rot_cs[2 * r], m.rot_cs[2 * r + 1]));
  *info = hm_dc_secular(&m, d, rho);
  if (*info < 0) err = HM_ERR_MEMORY;
  if (*info) goto done;
  /* The kept columns grouped by the half their rows are in (TOP, MIXED, BOTTOM), then the deflated ones. */
  const int64_t K = m.K;
  int64_t k1 = 0, k2 = 0, c = 0;
  for (int g = 1; g <= 3; g++)
    for (int64_t i = 0; i < K; i++)
      if (m.half[m.keep[i]] == g) idx[c] = m.keep[i], perm[c++] = i, k1 += g == 1, k2 += g == 2;
  for (int64_t t = 0; t < m.ngone; t++) idx[K + t] = m.gone[t];
  HM_CALL_GOTO(err, done, hm_dense_x_gather_columns(x, nm, nm, Z, n, idx, st->w, nm));
  HM_CALL_GOTO(err, done, multiply_secular(st, &m, n1, k1, k2, perm, Z));
  HM_CALL_GOTO(err, done, hm_dense_x_copy_block(x, 'S', Z + n * K, n, st->w + nm * K, nm, nm, m.ngone));
  hm_dc_finish(&m, d, ord, lo);
done:
  hm_dc_merge_free(&m);
  free(idx); free(perm);
  return err;
}

int hm_dense_tridiagonal_dc(const hm_dense_exec *x, int64_t n, double *d, const double *e, double *z, int *info) {
  *info = 0;
  if (n <= 0) return HM_SUCCESS;
  dc_state st = {x, n, d, z, NULL, malloc(sizeof(int64_t) * (size_t)n), NULL, 0};
  hm_dc_tree t;
  int err = hm_dc_tree_create(n, d, e, &t);
  if (!err && !st.order) err = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "divide and conquer of n = %lld", (long long)n);
  if (!err) err = hm_dense_x_alloc(x, &st.w, n * n);
  if (err) goto done;
  for (int64_t b = 0; b < t.blocks && !*info; b++) {
    int64_t lo, m;
    *info = hm_dc_tree_leaf(&t, b, d, e, &lo, &m);
    if (!*info) HM_CALL_GOTO(err, done, hm_dense_x_copy_block(x, 'U', z + lo * n + lo, n, t.leaf, m, m, m));
    for (int64_t j = 0; j < m; j++) st.order[lo + j] = lo + j; /* dsteqr's values ascend */
  }
  for (int64_t width = 1; width < t.blocks && !*info; width *= 2)
    for (int64_t b = 0; b + width < t.blocks && !*info; b += 2 * width) {
      int64_t lo, n1, nm;
      hm_dc_tree_pair(&t, b, width, &lo, &n1, &nm);
      HM_CALL_GOTO(err, done, merge(&st, lo, n1, nm, e[lo + n1 - 1], info));
    }
  if (*info) goto done;
  /* The columns by ascending eigenvalue. */
  HM_CALL_GOTO(err, done, hm_dense_x_gather_columns(x, n, n, z, n, st.order, st.w, n));
  HM_CALL_GOTO(err, done, hm_dense_x_copy(x, 'S', z, st.w, n * n));
  hm_dc_tree_sort_values(&t, d, st.order);
done:
  hm_dense_x_free(x, st.w);
  hm_dense_x_free(x, st.s);
  hm_dc_tree_free(&t);
  free(st.order);
  return err;
}
