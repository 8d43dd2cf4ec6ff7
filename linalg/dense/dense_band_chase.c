/* Stage 2 of the distributed eigensolver (dense_distributed.h): the Hermitian band of width b to a
 * real tridiagonal by bulge chasing with Householder reflectors of length <= b. Sweep i annihilates
 * column i below its subdiagonal (reflector on rows i+1 ..), then chases the bulge that the reflector
 * fills in below the band: each step applies the last reflector from the right to the b x b block
 * under it, annihilates that block's first column (the next reflector, rows b further down) and
 * applies it from the left and to its diagonal block. The rest of each bulge block falls to the next
 * sweeps, so the working band is 2b wide. Step k of sweep i acts on rows i + 1 + k b onwards: the
 * reflectors of b consecutive sweeps at the same step form one (2b - 1) x b block reflector, and
 * Q2 Z applies those blocks group by group from the last, steps in increasing order within a group
 * (reflectors of one sweep touch disjoint rows; those of a later sweep at an earlier step are
 * disjoint from the earlier sweep's later steps), each block as three GEMMs. Every rank chases
 * (the band is O(n b)), and keeps only the blocks of its own groups of sweeps. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "dense_blas.h"
#include "dense_distributed.h"
#include "error_macros.h"

struct hm_dense_chase_s {
  int64_t n, groups;
  int b;
  double **blocks; /* [group]: its steps' V blocks (rows x b each) then the taus (b per step); NULL if not ours */
};

static int64_t steps_of(int64_t n, int b, int64_t i) { return (n - 1 - i + b - 1) / b; } /* sweep i's steps */
static int64_t block_rows(int64_t n, int b, int64_t i0, int64_t k) {
  const int64_t row0 = i0 + 1 + k * b, rows = 2 * (int64_t)b - 1;
  return n - row0 < rows ? n - row0 : rows;
}
/* Scalars of group grp's storage: V blocks and taus of all its steps. */
static int64_t group_size(int64_t n, int b, int64_t grp) {
  const int64_t i0 = grp * b, steps = steps_of(n, b, i0);
  int64_t size = 0;
  for (int64_t k = 0; k < steps; k++) size += block_rows(n, b, i0, k) * b + b;
  return size;
}

/* x = (alpha, x1..): H^H x = beta e1 with H = grp - tau v v^H, v = (1, v1..), beta real (LAPACK's
 * ?larfg convention). x1.. is overwritten by v1... */
static void reflector(int64_t len, double complex *alpha, double complex *x1, double complex *tau) {
  double xnorm = 0;
  for (int64_t p = 0; p < len - 1; p++) xnorm = hypot(xnorm, cabs(x1[p]));
  const double ar = creal(*alpha), ai = cimag(*alpha);
  if (xnorm == 0 && ai == 0) { *tau = 0; return; }
  const double beta = -copysign(hypot(hypot(ar, ai), xnorm), ar);
  *tau = CMPLX((beta - ar) / beta, -ai / beta);
  const double complex scale = 1 / (*alpha - beta);
  for (int64_t p = 0; p < len - 1; p++) x1[p] *= scale;
  *alpha = beta;
}

typedef struct {
  double complex *a; /* lower band of width 2b: A(i, j) at a[(i - j) + ld j] */
  int64_t ld;
} work_band;

static inline double complex *at(const work_band *w, int64_t i, int64_t j) { return w->a + (i - j) + w->ld * j; }

/* D = A[s:s+len, s:s+len] <- H^H D H (Hermitian; through a dense copy d of len^2). */
static void two_sided(work_band *w, int64_t s, int64_t len, const double complex *v, double complex tau, double complex *d) {
  for (int64_t q = 0; q < len; q++)
    for (int64_t p = 0; p < len; p++) d[p + len * q] = p >= q ? *at(w, s + p, s + q) : conj(*at(w, s + q, s + p));
  for (int64_t q = 0; q < len; q++) { /* left: D -= conj(tau) v (v^H D) */
    double complex y = 0;
    for (int64_t p = 0; p < len; p++) y += conj(v[p]) * d[p + len * q];
    y *= conj(tau);
    for (int64_t p = 0; p < len; p++) d[p + len * q] -= v[p] * y;
  }
  for (int64_t p = 0; p < len; p++) { /* right: D -= tau (D v) v^H */
    double complex x = 0;
    for (int64_t q = 0; q < len; q++) x += d[p + len * q] * v[q];
    x *= tau;
    for (int64_t q = 0; q < len; q++) d[p + len * q] -= x * conj(v[q]);
  }
  for (int64_t q = 0; q < len; q++)
    for (int64_t p = q; p < len; p++) *at(w, s + p, s + q) = d[p + len * q];
}

/* Keep sweep i's step-k reflector in its group's block (if the group is ours). */
static void keep(hm_dense_chase *q, hm_scalar type, int64_t i, int64_t k, int64_t len, const double complex *v,
                 double complex tau) {
  const int b = q->b, s = (int)type;
  const int64_t grp = i / b, i0 = grp * b, c = i - i0;
  if (!q->blocks[grp]) return;
  double *blk = q->blocks[grp];
  for (int64_t kk = 0; kk < k; kk++) blk += s * (block_rows(q->n, b, i0, kk) * b + b);
  const int64_t rows = block_rows(q->n, b, i0, k);
  double *vcol = blk + s * rows * c, *taus = blk + s * rows * b;
  for (int64_t p = 0; p < len; p++) {
    vcol[s * (c + p)] = creal(v[p]);
    if (s == 2) vcol[s * (c + p) + 1] = cimag(v[p]);
  }
  taus[s * c] = creal(tau);
  if (s == 2) taus[s * c + 1] = cimag(tau);
}

static void chase(hm_dense_chase *q, hm_scalar type, work_band *w, double complex *v, double complex *d) {
  const int64_t n = q->n, b = q->b;
  for (int64_t i = 0; i + 1 < n; i++) {
    int64_t s = i + 1, len = n - 1 - i < b ? n - 1 - i : b;
    double complex tau;
    for (int64_t p = 0; p < len; p++) v[p] = *at(w, s + p, i);
    reflector(len, &v[0], v + 1, &tau);
    *at(w, s, i) = v[0];
    for (int64_t p = 1; p < len; p++) *at(w, s + p, i) = 0;
    v[0] = 1;
    keep(q, type, i, 0, len, v, tau);
    two_sided(w, s, len, v, tau, d);
    for (int64_t k = 1; s + len < n; k++) {
      const int64_t r1 = s + len, m2 = n - r1 < b ? n - r1 : b;
      for (int64_t p = 0; p < m2; p++) { /* O = A[r1:r1+m2, s:s+len] <- O H */
        double complex x = 0;
        for (int64_t j = 0; j < len; j++) x += *at(w, r1 + p, s + j) * v[j];
        x *= tau;
        for (int64_t j = 0; j < len; j++) *at(w, r1 + p, s + j) -= x * conj(v[j]);
      }
      if (m2 < 2) break; /* nothing below the band */
      double complex *v2 = v + b, tau2;
      for (int64_t p = 0; p < m2; p++) v2[p] = *at(w, r1 + p, s);
      reflector(m2, &v2[0], v2 + 1, &tau2);
      *at(w, r1, s) = v2[0];
      for (int64_t p = 1; p < m2; p++) *at(w, r1 + p, s) = 0;
      v2[0] = 1;
      for (int64_t j = 1; j < len; j++) { /* the block's other columns <- H2^H O */
        double complex y = 0;
        for (int64_t p = 0; p < m2; p++) y += conj(v2[p]) * *at(w, r1 + p, s + j);
        y *= conj(tau2);
        for (int64_t p = 0; p < m2; p++) *at(w, r1 + p, s + j) -= v2[p] * y;
      }
      keep(q, type, i, k, m2, v2, tau2);
      two_sided(w, r1, m2, v2, tau2, d);
      memcpy(v, v2, sizeof *v * (size_t)m2);
      s = r1, len = m2, tau = tau2;
    }
  }
}

int hm_dense_chase_run(const hm_dense_columns *c, const double *band, double *d, double *e, hm_dense_chase **out) {
  const int64_t n = c->n, b = c->b;
  const int s = (int)c->type;
  hm_dense_chase *q;
  HM_MALLOC(q, 1);
  *out = q;
  q->n = n, q->b = c->b;
  q->groups = n > 1 ? (n - 2) / b + 1 : 0; /* sweeps 0 .. n - 2 */
  HM_MALLOC(q->blocks, q->groups + 1);
  for (int64_t grp = 0; grp < q->groups; grp++)
    if (grp % c->P == c->rank) HM_MALLOC(q->blocks[grp], s * group_size(n, c->b, grp));
  work_band w = {NULL, 2 * b + 1};
  double complex *v = NULL, *dd = NULL;
  HM_MALLOC(w.a, w.ld * n + 2 * b + 1);
  HM_MALLOC(v, 2 * b);
  HM_MALLOC(dd, b * b);
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = 0; k <= b && j + k < n; k++)
      w.a[k + w.ld * j] = s == 1 ? band[k + (b + 1) * j] : CMPLX(band[2 * (k + (b + 1) * j)], band[2 * (k + (b + 1) * j) + 1]);
  chase(q, c->type, &w, v, dd);
  for (int64_t j = 0; j < n; j++) d[j] = creal(w.a[w.ld * j]);
  for (int64_t j = 0; j + 1 < n; j++) e[j] = creal(w.a[1 + w.ld * j]);
  free(w.a); free(v); free(dd);
  return HM_SUCCESS;
}

int hm_dense_chase_back(const hm_dense_columns *c, const hm_dense_chase *q, double *z) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n;
  int64_t most = 1;
  for (int64_t grp = 0; grp < q->groups; grp++) most = group_size(n, b, grp) > most ? group_size(n, b, grp) : most;
  double *buf = NULL, *t = NULL, *work = NULL, *work2 = NULL;
  HM_MALLOC(buf, s * most);
  HM_MALLOC(t, s * b * b);
  HM_MALLOC(work, s * b * (c->nloc + 1));
  HM_MALLOC(work2, s * b * (c->nloc + 1));
  int st = HM_SUCCESS;
  for (int64_t grp = q->groups - 1; grp >= 0 && !st; grp--) {
    const int owner = (int)(grp % c->P);
    const int64_t size = group_size(n, b, grp), i0 = grp * b;
    if (owner == c->rank) memcpy(buf, q->blocks[grp], sizeof(double) * (size_t)(s * size));
    HM_CALL_MPI(MPI_Bcast(buf, (int)(s * size), MPI_DOUBLE, owner, c->comm));
    const double *blk = buf;
    for (int64_t k = 0; k < steps_of(n, b, i0); k++) {
      const int64_t rows = block_rows(n, b, i0, k), row0 = i0 + 1 + k * b, cols = rows < b ? rows : b;
      const double *taus = blk + s * rows * b;
      if (hm_dense_larft(c->type, rows, cols, blk, rows, taus, t, b))
        st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__, "larft of sweep block %lld failed", (long long)grp);
      else if (c->nloc)
        hm_dense_apply_block_reflector(c->type, 'N', rows, c->nloc, cols, blk, rows, t, b, z + s * row0, n, work, work2);
      blk += s * (rows * b + b);
    }
  }
  free(buf); free(t); free(work); free(work2);
  return st;
}

void hm_dense_chase_free(hm_dense_chase **q) {
  if (!*q) return;
  for (int64_t grp = 0; grp < (*q)->groups; grp++) free((*q)->blocks[grp]);
  free((*q)->blocks);
  free(*q);
  *q = NULL;
}
