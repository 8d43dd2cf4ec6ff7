/* The tree of a divide and conquer, and the deflation and the secular equation of one merge
 * (dense_secular.h). */
#include "dense_secular.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <omp.h>
#include "error_macros.h"

/* LAPACK's secular equation solver: the i-th (1-based) root of 1 + rho sum z_j^2 / (d_j - lambda). */
void dlaed4_(const int *n, const int *i, const double *d, const double *z, double *delta, const double *rho,
             double *dlam, int *info);

int hm_dc_tree_create(int64_t n, double *d, const double *e, hm_dc_tree *t) {
  *t = (hm_dc_tree){.n = n, .blocks = 1};
  while (n / t->blocks > HM_DC_LEAF) t->blocks *= 2;
  t->start = malloc(sizeof(int64_t) * (size_t)(t->blocks + 1));
  t->leaf = malloc(sizeof(double) * (size_t)(4 * HM_DC_LEAF * HM_DC_LEAF)), t->scratch = malloc(sizeof(double) * (size_t)n);
  if (!t->start || !t->leaf || !t->scratch) {
    hm_dc_tree_free(t);
    return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "divide and conquer of n = %lld", (long long)n);
  }
  for (int64_t b = 0; b <= t->blocks; b++) t->start[b] = n * b / t->blocks;
  for (int64_t b = 1; b < t->blocks; b++) {
    const double beta = fabs(e[t->start[b] - 1]);
    d[t->start[b] - 1] -= beta, d[t->start[b]] -= beta;
  }
  return HM_SUCCESS;
}

void hm_dc_tree_free(hm_dc_tree *t) {
  free(t->start); free(t->leaf); free(t->scratch);
  *t = (hm_dc_tree){0};
}

int hm_dc_tree_leaf(hm_dc_tree *t, int64_t b, double *d, const double *e, int64_t *lo, int64_t *m) {
  *lo = t->start[b], *m = t->start[b + 1] - *lo;
  memcpy(t->scratch, e + *lo, sizeof(double) * (size_t)(*m > 1 ? *m - 1 : 0));
  return LAPACKE_dsteqr(LAPACK_COL_MAJOR, 'I', (int)*m, d + *lo, t->scratch, t->leaf, (int)*m);
}

void hm_dc_tree_pair(const hm_dc_tree *t, int64_t b, int64_t width, int64_t *lo, int64_t *n1, int64_t *nm) {
  const int64_t end = b + 2 * width < t->blocks ? b + 2 * width : t->blocks;
  *lo = t->start[b], *n1 = t->start[b + width] - *lo, *nm = t->start[end] - *lo;
}

void hm_dc_tree_sort_values(hm_dc_tree *t, double *d, const int64_t *order) {
  for (int64_t j = 0; j < t->n; j++) t->scratch[j] = d[order[j]];
  memcpy(d, t->scratch, sizeof(double) * (size_t)t->n);
}

typedef struct {
  double v;
  int64_t i;
} keyed;

static int by_key(const void *a, const void *b) {
  const double x = ((const keyed *)a)->v, y = ((const keyed *)b)->v;
  return x < y ? -1 : x > y;
}

void hm_dc_sort_by_value(int64_t *idx, int64_t count, const double *d, void *keys) {
  keyed *work = keys;
  for (int64_t j = 0; j < count; j++) work[j].v = d[idx[j]], work[j].i = idx[j];
  qsort(work, (size_t)count, sizeof *work, by_key);
  for (int64_t j = 0; j < count; j++) idx[j] = work[j].i;
}

int hm_dc_merge_alloc(hm_dc_merge *m, int64_t nm) {
  const size_t k = (size_t)nm;
  *m = (hm_dc_merge){.nm = nm};
  m->z = malloc(sizeof(double) * k), m->dl = malloc(sizeof(double) * k), m->wt = malloc(sizeof(double) * k);
  m->lam = malloc(sizeof(double) * k), m->offset = malloc(sizeof(double) * k), m->wnew = malloc(sizeof(double) * k);
  m->keep = malloc(sizeof(int64_t) * k), m->gone = malloc(sizeof(int64_t) * k), m->origin = malloc(sizeof(int64_t) * k);
  m->scratch = malloc(sizeof(int64_t) * k), m->half = malloc(sizeof(int) * k), m->keyed = malloc(sizeof(keyed) * k);
  m->rot_pair = malloc(sizeof(int64_t) * 2 * k), m->rot_cs = malloc(sizeof(double) * 2 * k);
  if (m->z && m->dl && m->wt && m->lam && m->offset && m->wnew && m->keep && m->gone && m->origin && m->scratch &&
      m->half && m->keyed && m->rot_pair && m->rot_cs)
    return HM_SUCCESS;
  hm_dc_merge_free(m);
  return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "a divide-and-conquer merge of %lld rows", (long long)nm);
}

void hm_dc_merge_free(hm_dc_merge *m) {
  free(m->z); free(m->dl); free(m->wt); free(m->lam); free(m->offset); free(m->wnew);
  free(m->keep); free(m->gone); free(m->origin); free(m->scratch); free(m->half); free(m->keyed);
  free(m->rot_pair); free(m->rot_cs);
  *m = (hm_dc_merge){0};
}

void hm_dc_deflate(hm_dc_merge *m, int64_t n1, double *d, const int64_t *ord, double rho) {
  const int64_t nm = m->nm;
  double *z = m->z, zmax = 0, dmax = 0;
  int64_t *srt = m->scratch, K = 0, ngone = 0, prev = -1;
  for (int64_t j = 0; j < nm; j++) {
    m->half[j] = j < n1 ? 1 : 3;
    zmax = fmax(zmax, fabs(z[j])), dmax = fmax(dmax, fabs(d[j]));
    srt[j] = ord[j];
  }
  hm_dc_sort_by_value(srt, nm, d, m->keyed); /* both halves' columns by ascending pole */
  m->nrot = 0;
  /* a negligible z component, or two close poles that a rotation separates */
  const double tol = 8 * LAPACKE_dlamch('E') * fmax(dmax, zmax);
  if (rho * zmax <= tol) {
    for (int64_t t = 0; t < nm; t++) m->gone[t] = srt[t];
    m->K = 0, m->ngone = nm;
    return;
  }
  for (int64_t t = 0; t < nm; t++) {
    const int64_t j = srt[t];
    if (rho * fabs(z[j]) <= tol) { m->gone[ngone++] = j; continue; }
    if (prev >= 0) {
      double c = z[j], sn = z[prev];
      const double tau = hypot(c, sn), gap = d[j] - d[prev];
      c /= tau, sn = -sn / tau;
      if (fabs(gap * c * sn) <= tol) { /* rotate prev into j: prev deflates */
        z[j] = tau, z[prev] = 0;
        m->rot_pair[2 * m->nrot] = prev, m->rot_pair[2 * m->nrot + 1] = j;
        m->rot_cs[2 * m->nrot] = c, m->rot_cs[2 * m->nrot + 1] = sn;
        m->nrot++;
        const double dp = d[prev] * c * c + d[j] * sn * sn;
        d[j] = d[prev] * sn * sn + d[j] * c * c;
        d[prev] = dp;
        if (m->half[prev] != m->half[j]) m->half[j] = 2;
        m->gone[ngone++] = prev;
        prev = j;
        continue;
      }
      m->keep[K++] = prev;
    }
    prev = j;
  }
  if (prev >= 0) m->keep[K++] = prev;
  m->K = K, m->ngone = ngone;
}

/* K >= 3: each thread multiplies its roots' factors of wnew_i^2 = -prod_j delta(i, j) / prod_{j != i}
 * (dl_i - dl_j) into a row of prod (threads x K), with the deltas the vectors will be built from. */
static int roots_and_weights(hm_dc_merge *m, double rho, double *prod, int threads) {
  const int64_t K = m->K;
  const int k = (int)K;
  const double *dl = m->dl;
  int info = 0;
  for (int64_t i = 0; i < threads * K; i++) prod[i] = 1;
#pragma omp parallel num_threads(threads) reduction(| : info)
  {
    double *delta = malloc(sizeof(double) * (size_t)K), *mine = prod + (int64_t)omp_get_thread_num() * K;
    if (!delta) info |= -1;
#pragma omp for schedule(dynamic, 16)
    for (int j = 0; j < k; j++) {
      if (!delta) continue;
      int one = j + 1, inf = 0;
      dlaed4_(&k, &one, dl, m->wt, delta, &rho, &m->lam[j], &inf);
      info |= inf;
      const int64_t o = j + 1 < k && fabs(delta[j + 1]) < fabs(delta[j]) ? j + 1 : j;
      m->origin[j] = o, m->offset[j] = delta[o];
      for (int64_t i = 0; i < K; i++) {
        const double dij = (dl[i] - dl[o]) + delta[o];
        mine[i] *= i == j ? dij : dij / (dl[i] - dl[j]);
      }
    }
    free(delta);
  }
  for (int64_t i = 0; i < K; i++) {
    double p = 1;
    for (int t = 0; t < threads; t++) p *= prod[t * K + i];
    m->wnew[i] = copysign(sqrt(-p), m->wt[i]);
  }
  return info;
}

int hm_dc_secular(hm_dc_merge *m, const double *d, double rho) {
  const int64_t K = m->K;
  for (int64_t i = 0; i < K; i++) m->dl[i] = d[m->keep[i]], m->wt[i] = m->z[m->keep[i]];
  int info = 0;
  if (K <= 2) { /* dlaed4 (dlaed5) returns these vectors themselves */
    for (int64_t j = 0; j < K && !info; j++) {
      int k = (int)K, one = (int)j + 1;
      dlaed4_(&k, &one, m->dl, m->wt, m->small + j * K, &rho, &m->lam[j], &info);
    }
    return info;
  }
  const int threads = omp_get_max_threads();
  double *prod = malloc(sizeof(double) * (size_t)(threads * K));
  info = prod ? roots_and_weights(m, rho, prod, threads) : -1;
  free(prod);
  if (info < 0) hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "the secular weights of K = %lld", (long long)K);
  return info;
}

void hm_dc_finish(hm_dc_merge *m, double *d, int64_t *ord, int64_t lo) {
  const int64_t nm = m->nm, K = m->K;
  double *dg = m->dl; /* the deflated values, before d's slots are overwritten (the poles are used) */
  for (int64_t t = 0; t < m->ngone; t++) dg[t] = d[m->gone[t]];
  for (int64_t i = 0; i < K; i++) d[i] = m->lam[i];
  for (int64_t t = 0; t < m->ngone; t++) d[K + t] = dg[t];
  for (int64_t j = 0; j < nm; j++) ord[j] = j;
  hm_dc_sort_by_value(ord, nm, d, m->keyed);
  for (int64_t j = 0; j < nm; j++) ord[j] += lo;
}
