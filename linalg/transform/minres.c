/* Block MINRES (minres.h), in the form of Elman, Silvester and Wathen (Finite Elements and Fast
 * Iterative Solvers, Algorithm 2.4, without preconditioner): the Lanczos vectors v, the directions w
 * and the iterate y advance by short recurrences; the Givens rotations of the tridiagonal's QR give
 * the residual norm |eta| without a product. */
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "minres.h"

enum { V_OLD, V, Z, W_OLD, W, NBLOCKS };

typedef struct {     /* one column's scalars */
  double gamma;      /* the Lanczos beta of the current vector (gamma_j) */
  double c_old, c;   /* the two previous rotations' cosines */
  double s_old, s;   /* and sines */
  double eta;        /* the residual norm carried by the rotations (signed) */
  double bnorm;
  int active;
} column;

/* Coefficients of the block operations: t doubles per column (complex blocks take real scalars). */
static void put(double *a, int t, int j, double value) {
  a[t * j] = value;
  if (t == 2) a[t * j + 1] = 0.0;
}

int hm_minres_solve(hm_minres_apply apply, void *user, double tol, int maxit, const hm_mvec *b, hm_mvec *y,
                    int *its, double *est) {
  HM_CHECK(apply && b && y && its && est, HM_ERR_ARGUMENT, "apply, b, y, its or est is NULL");
  hm_context *ctx = NULL;
  const hm_dist *dist = NULL;
  hm_scalar type;
  int64_t rows;
  int k;
  HM_CALL(hm_mvec_context(b, &ctx));
  HM_CALL(hm_mvec_dist(b, &dist));
  HM_CALL(hm_mvec_type(b, &type));
  HM_CALL(hm_mvec_size(b, &rows, &k));
  const int t = (int)type;
  hm_mvec *blk[NBLOCKS] = {NULL};
  column *col = calloc((size_t)k, sizeof *col);
  double *buf = calloc((size_t)(6 * t * k + k), sizeof(double));
  double *a = buf, *c = a + t * k, *zero = c + t * k, *one = zero + t * k, *dots = one + t * k,
         *f = dots + t * k, *norms = f + t * k;
  int st = col && buf ? HM_SUCCESS : HM_ERR_MEMORY;
  if (st) hm_error_raise(st, __FILE__, __LINE__, __func__, "could not allocate MINRES's scalars (%d columns)", k);
  for (int q = 0; q < NBLOCKS && !st; q++) st = hm_mvec_create(ctx, dist, type, k, &blk[q]);
  for (int j = 0; j < k && !st; j++) put(one, t, j, 1.0);
  /* y = 0, v_old = w_old = w = 0, v = b / ||b|| */
  if (!st) st = hm_mvec_axpby(y, zero, y, zero);
  for (int q = 0; q < NBLOCKS && !st; q++) st = hm_mvec_axpby(blk[q], zero, blk[q], zero);
  if (!st) st = hm_mvec_norms(b, norms);
  for (int j = 0; j < k && !st; j++) {
    column *cj = &col[j];
    cj->bnorm = cj->gamma = cj->eta = norms[j];
    cj->c_old = cj->c = 1.0;
    cj->active = isfinite(norms[j]) && norms[j] > 0; /* b = 0: y = 0 */
    its[j] = 0;
    est[j] = cj->active ? 1.0 : isfinite(norms[j]) ? 0.0 : INFINITY;
    put(f, t, j, cj->active ? 1.0 / norms[j] : 0.0);
  }
  if (!st) st = hm_mvec_axpby(blk[V], f, b, zero);
  int left = 0;
  for (int j = 0; j < k; j++) left += col[j].active;
  for (int it = 0; it < maxit && left > 0 && !st; it++) {
    /* Lanczos: z = S v - gamma v_old; delta = v^H z; z -= delta v; gamma_new = ||z|| */
    st = apply(blk[V], blk[Z], user);
    for (int j = 0; j < k; j++) put(a, t, j, -col[j].gamma);
    if (!st) st = hm_mvec_axpby(blk[Z], a, blk[V_OLD], one);
    if (!st) st = hm_mvec_dot(blk[V], blk[Z], dots);
    for (int j = 0; j < k; j++) put(a, t, j, -dots[t * j]); /* Hermitian S: v^H S v is real */
    if (!st) st = hm_mvec_axpby(blk[Z], a, blk[V], one);
    if (!st) st = hm_mvec_norms(blk[Z], norms);
    if (st) break;
    /* the rotations; w_new = (v - alpha3 w_old - alpha2 w) / alpha1 into w_old's block */
    for (int j = 0; j < k; j++) {
      column *cj = &col[j];
      double w_self = 0, w_old = 0, v_in = 0, step = 0, next = 0;
      if (cj->active) {
        const double delta = dots[t * j], gamma_new = norms[j];
        const double alpha0 = cj->c * delta - cj->c_old * cj->s * cj->gamma;
        const double alpha1 = hypot(alpha0, gamma_new);
        const double alpha2 = cj->s * delta + cj->c_old * cj->c * cj->gamma;
        const double alpha3 = cj->s_old * cj->gamma;
        if (!(alpha1 > 0) || !isfinite(alpha1)) { /* S v = 0 in the Krylov space: S is singular there */
          st = hm_error_raise(HM_ERR_BREAKDOWN, __FILE__, __LINE__, __func__,
                              "MINRES column %d: the tridiagonal's rotation is %g after %d iterations (S is "
                              "singular on the Krylov space)", j, alpha1, its[j]);
          break;
        }
        const double c_new = alpha0 / alpha1, s_new = gamma_new / alpha1;
        w_old = -alpha3 / alpha1, w_self = -alpha2 / alpha1, v_in = 1.0 / alpha1;
        step = c_new * cj->eta;
        cj->eta = -s_new * cj->eta;
        cj->c_old = cj->c, cj->c = c_new, cj->s_old = cj->s, cj->s = s_new, cj->gamma = gamma_new;
        next = gamma_new > 0 ? 1.0 / gamma_new : 0.0; /* gamma_new = 0: y is exact after this step */
        its[j]++;
        est[j] = fabs(cj->eta) / cj->bnorm;
      }
      put(a, t, j, w_self), put(c, t, j, w_old), put(dots, t, j, v_in), put(f, t, j, next);
      norms[j] = step; /* reused: the iterate's step along w_new */
    }
    if (st) break;
    st = hm_mvec_axpby(blk[W_OLD], a, blk[W], c); /* w_old = -alpha2/alpha1 w - alpha3/alpha1 w_old */
    if (!st) st = hm_mvec_axpby(blk[W_OLD], dots, blk[V], one);
    for (int j = 0; j < k; j++) put(a, t, j, norms[j]);
    if (!st) st = hm_mvec_axpby(y, a, blk[W_OLD], one); /* y += c_new eta w_new */
    hm_mvec *w_new = blk[W_OLD];
    blk[W_OLD] = blk[W], blk[W] = w_new;
    /* v_old = v, v = z / gamma_new (0 for a finished column, so that its blocks stay finite) */
    hm_mvec *free_block = blk[V_OLD];
    blk[V_OLD] = blk[V], blk[V] = blk[Z], blk[Z] = free_block;
    for (int j = 0; j < k; j++)
      if (col[j].active && (est[j] <= tol || col[j].gamma == 0)) col[j].active = 0, left--;
    for (int j = 0; j < k; j++)
      if (!col[j].active) put(f, t, j, 0.0);
    if (!st) st = hm_mvec_axpby(blk[V], zero, blk[V], f);
  }
  if (!st && left > 0) {
    int worst = 0;
    for (int j = 0; j < k; j++)
      if (col[j].active && est[j] >= est[worst]) worst = j;
    st = hm_error_raise(HM_ERR_NOT_CONVERGED, __FILE__, __LINE__, __func__,
                        "MINRES: column %d of %d at relative residual %.3g after %d iterations (maxit), above %.3g",
                        worst, k, est[worst], its[worst], tol);
  }
  for (int q = 0; q < NBLOCKS; q++) hm_mvec_destroy(&blk[q]);
  free(col), free(buf);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}
