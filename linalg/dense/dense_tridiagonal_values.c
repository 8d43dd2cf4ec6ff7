/* The eigenvalues alone of a real symmetric tridiagonal by divide and conquer on the host's threads: the
 * merges of dense_secular.h need of each block's eigenvectors only the first and the last row (the next
 * merge's z takes one of them, the merged block's rows are these rows times S), so every merge costs
 * O(K^2) in dlaed4's roots and the two new rows, in parallel over roots, and no O(n^2) memory is used.
 * It replaces Pal-Walker-Kahan QR (dsterf), whose O(n^2) work is sequential. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dense_exec.h"
#include "dense_secular.h"
#include "error_macros.h"

/* row (nm, by the block's columns) <- row S for the kept columns, row itself for the deflated ones; both
 * rows at once. work: 2 nm. */
static void rows_times_secular(const hm_dc_merge *m, double *first, double *last, double *work) {
  const int64_t K = m->K, nm = m->nm;
  double *f = work, *l = work + nm;
#pragma omp parallel for schedule(static) if (K > 256)
  for (int64_t j = 0; j < K; j++) {
    double sf = 0, sl = 0, norm = 0;
    for (int64_t i = 0; i < K; i++) {
      const double s = K <= 2 ? m->small[j * K + i] : m->wnew[i] / ((m->dl[i] - m->dl[m->origin[j]]) + m->offset[j]);
      const int64_t c = m->keep[i];
      sf += first[c] * s, sl += last[c] * s, norm += s * s;
    }
    norm = K <= 2 ? 1 : sqrt(norm);
    f[j] = sf / norm, l[j] = sl / norm;
  }
  for (int64_t t = 0; t < m->ngone; t++) f[K + t] = first[m->gone[t]], l[K + t] = last[m->gone[t]];
  memcpy(first, f, sizeof(double) * (size_t)nm);
  memcpy(last, l, sizeof(double) * (size_t)nm);
}

static void rotate(double *a, double *b, double c, double s) {
  const double x = *a, y = *b;
  *a = c * x + s * y, *b = c * y - s * x;
}

/* Merge blocks [lo, lo + n1) and [lo + n1, lo + nm) torn at beta; first and last: each block's first
 * and last eigenvector rows by column, order: its columns by ascending value. */
static int merge(int64_t lo, int64_t n1, int64_t nm, double beta, double *d, double *first, double *last,
                 int64_t *order, int *info) {
  hm_dc_merge m;
  HM_CALL(hm_dc_merge_alloc(&m, nm));
  double *f = first + lo, *l = last + lo, *work = malloc(sizeof(double) * (size_t)(2 * nm));
  int64_t *ord = malloc(sizeof(int64_t) * (size_t)nm);
  int err = work && ord ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "merge of %lld rows", (long long)nm);
  if (err) goto done;
  /* z: T1's last row and T2's first; the merged block's first row is T1's (zero under T2's columns),
   * its last row T2's */
  for (int64_t j = 0; j < nm; j++) {
    m.z[j] = (j < n1 ? l[j] : (beta >= 0 ? 1 : -1) * f[j]) / sqrt(2.0);
    if (j < n1) l[j] = 0;
    else f[j] = 0;
    ord[j] = order[lo + j] - lo;
  }
  const double rho = 2 * fabs(beta);
  hm_dc_deflate(&m, n1, d + lo, ord, rho);
  for (int64_t r = 0; r < m.nrot; r++) {
    const int64_t a = m.rot_pair[2 * r], b = m.rot_pair[2 * r + 1];
    rotate(&f[a], &f[b], m.rot_cs[2 * r], m.rot_cs[2 * r + 1]);
    rotate(&l[a], &l[b], m.rot_cs[2 * r], m.rot_cs[2 * r + 1]);
  }
  *info = hm_dc_secular(&m, d + lo, rho);
  if (*info < 0) err = HM_ERR_MEMORY;
  if (*info) goto done;
  rows_times_secular(&m, f, l, work);
  hm_dc_finish(&m, d + lo, order + lo, lo);
done:
  hm_dc_merge_free(&m);
  free(work); free(ord);
  return err;
}

int hm_dense_tridiagonal_values(int64_t n, double *d, const double *e, int *info) {
  *info = 0;
  if (n <= 0) return HM_SUCCESS;
  int64_t *order = malloc(sizeof(int64_t) * (size_t)n);
  double *first = malloc(sizeof(double) * (size_t)n), *last = malloc(sizeof(double) * (size_t)n);
  hm_dc_tree t;
  int err = hm_dc_tree_create(n, d, e, &t);
  if (!err && (!order || !first || !last))
    err = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "eigenvalues of n = %lld", (long long)n);
  if (err) goto done;
  for (int64_t b = 0; b < t.blocks && !*info; b++) {
    int64_t lo, m;
    *info = hm_dc_tree_leaf(&t, b, d, e, &lo, &m);
    for (int64_t j = 0; j < m; j++) first[lo + j] = t.leaf[j * m], last[lo + j] = t.leaf[j * m + m - 1], order[lo + j] = lo + j;
  }
  for (int64_t width = 1; width < t.blocks && !*info; width *= 2)
    for (int64_t b = 0; b + width < t.blocks && !*info; b += 2 * width) {
      int64_t lo, n1, nm;
      hm_dc_tree_pair(&t, b, width, &lo, &n1, &nm);
      HM_CALL_GOTO(err, done, merge(lo, n1, nm, e[lo + n1 - 1], d, first, last, order, info));
    }
  if (!*info) hm_dc_tree_sort_values(&t, d, order);
done:
  hm_dc_tree_free(&t);
  free(order); free(first); free(last);
  return err;
}
