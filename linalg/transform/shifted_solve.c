/* The iterative inner solve of shift-and-invert (shifted_solve.h): Jacobi-preconditioned CG on
 * A - sigma B, every column of the block at once, or MINRES (minres.h) where A - sigma B is
 * indefinite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "minres.h"
#include "objects.h"
#include "shifted_solve.h"

struct hm_shifted_solve_s {
  hm_matrix *A, *B;
  double sigma;
  int maxit, definite, probing;
  hm_mvec *dinv;               /* 1 / diag(A - sigma B): CG's Jacobi preconditioner */
  hm_mvec *r, *z, *p, *q, *bx; /* CG's blocks of width `width`; bx: B x of width `bx_width` */
  int width, bx_width;
  int64_t iterations;
  double worst;
};

static int ensure_block(hm_shifted_solve *s, hm_mvec **v, int k) {
  hm_mvec_destroy(v);
  HM_CALL(hm_mvec_create(s->A->ctx, &s->A->dist, s->A->type, k, v));
  return HM_SUCCESS;
}

/* y = (A - sigma B) x for a block of any width. */
static int apply_shifted(hm_mvec *x, hm_mvec *y, void *user) {
  hm_shifted_solve *s = user;
  HM_CALL(hm_matrix_apply(s->A, x, y));
  if (s->sigma == 0.0) return HM_SUCCESS;
  const int k = x->k, t = (int)x->type;
  double alpha[2 * 64], beta[2 * 64], *a = alpha, *b = beta;
  if (k > 64) {
    a = calloc((size_t)(t * k), sizeof(double)), b = calloc((size_t)(t * k), sizeof(double));
    if (!a || !b) { free(a), free(b); HM_RAISE(HM_ERR_MEMORY, "could not allocate %d shifts", k); }
  } else {
    memset(alpha, 0, sizeof alpha), memset(beta, 0, sizeof beta);
  }
  for (int j = 0; j < k; j++) a[t * j] = -s->sigma, b[t * j] = 1.0;
  int st = HM_SUCCESS;
  hm_mvec *bx = x;
  if (s->B) {
    if (s->bx_width != k) st = ensure_block(s, &s->bx, k), s->bx_width = st ? 0 : k;
    if (!st) st = hm_matrix_apply(s->B, x, s->bx);
    bx = s->bx;
  }
  if (!st) st = hm_mvec_axpby(y, a, bx, b); /* y = A x - sigma B x */
  if (a != alpha) free(a), free(b);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

/* diag(A - sigma B) on the host; any entry <= 0 proves that the matrix is not positive definite. */
static int make_diagonals(hm_shifted_solve *s, int *nonpositive) {
  const int64_t local = s->A->dist.local;
  const size_t t = (size_t)s->A->type;
  double *d = calloc(t * (size_t)local + 1, sizeof(double)), *db = calloc(t * (size_t)local + 1, sizeof(double));
  int st = d && db ? HM_SUCCESS : HM_ERR_MEMORY;
  if (st) hm_error_raise(st, __FILE__, __LINE__, __func__, "could not allocate a diagonal of %lld rows", (long long)local);
  if (!st) st = ensure_block(s, &s->dinv, 1);
  hm_mvec *dB = NULL;
  if (!st && s->B) st = ensure_block(s, &dB, 1);
  if (!st) st = hm_matrix_diagonal(s->A, s->dinv);
  if (!st) st = hm_mvec_get(s->dinv, d);
  if (!st && s->B) st = hm_matrix_diagonal(s->B, dB);
  if (!st && s->B) st = hm_mvec_get(dB, db);
  hm_mvec_destroy(&dB);
  int bad = 0;
  if (!st) {
    for (int64_t i = 0; i < local; i++) {
      double *e = d + t * i;
      e[0] -= s->sigma * (s->B ? db[t * i] : 1.0);
      if (t == 2) e[1] -= s->sigma * (s->B ? db[t * i + 1] : 0.0);
      bad |= !(e[0] > 0.0);
      e[0] = e[0] != 0.0 ? 1.0 / e[0] : 1.0; /* the real part (Hermitian), never a division by 0 */
      if (t == 2) e[1] = 0.0;
    }
    st = hm_mvec_set(s->dinv, d);
  }
  free(d), free(db);
  if (st) return hm_error_trace(st, __FILE__, __LINE__, __func__);
  HM_CALL_MPI(MPI_Allreduce(&bad, nonpositive, 1, MPI_INT, MPI_MAX, s->A->ctx->comm));
  return HM_SUCCESS;
}

/* The true relative residuals ||b - S y|| / ||b|| (into worst); q is scratch of b's width. */
static int true_residual(hm_shifted_solve *s, hm_mvec *b, hm_mvec *y, hm_mvec *q, const double *bn) {
  const int k = b->k, t = (int)b->type;
  double *one = calloc((size_t)(2 * t * k + k), sizeof(double)), *minus = one + t * k, *rn = minus + t * k;
  HM_CHECK(one, HM_ERR_MEMORY, "could not allocate %d norms", k);
  for (int j = 0; j < k; j++) one[t * j] = 1.0, minus[t * j] = -1.0;
  int st = apply_shifted(y, q, s);
  if (!st) st = hm_mvec_axpby(q, one, b, minus); /* q = b - S y */
  if (!st) st = hm_mvec_norms(q, rn);
  for (int j = 0; !st && j < k; j++)
    if (bn[j] > 0) s->worst = fmax(s->worst, isfinite(rn[j]) ? rn[j] / bn[j] : INFINITY);
  free(one);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

/* Jacobi-preconditioned CG, k columns at once: each column keeps its own alpha, beta and stops on
 * its own (its alpha becomes 0), so every iteration costs one product of the whole block. */
static int cg(hm_shifted_solve *s, double tol, hm_mvec *b, hm_mvec *x, int *negative) {
  const int k = b->k, t = (int)b->type;
  *negative = 0;
  if (s->width != k) {
    s->width = 0;
    HM_CALL(ensure_block(s, &s->r, k));
    HM_CALL(ensure_block(s, &s->z, k));
    HM_CALL(ensure_block(s, &s->p, k));
    HM_CALL(ensure_block(s, &s->q, k));
    s->width = k;
  }
  double *buf = calloc((size_t)(8 * t * k + 3 * k), sizeof(double));
  int *active = calloc((size_t)k, sizeof(int));
  if (!buf || !active) { free(buf), free(active); HM_RAISE(HM_ERR_MEMORY, "could not allocate CG's scalars (%d columns)", k); }
  double *alpha = buf, *malpha = alpha + t * k, *beta = malpha + t * k, *one = beta + t * k, *zero = one + t * k;
  double *rz = zero + t * k, *rz_new = rz + t * k, *pq = rz_new + t * k, *bn = pq + t * k, *rn = bn + k;
  for (int j = 0; j < k; j++) one[t * j] = 1.0;
  int st = HM_SUCCESS, left = 0, it = 0;
  HM_CALL_GOTO(st, done, hm_mvec_norms(b, bn));
  for (int j = 0; j < k; j++) left += active[j] = bn[j] > 0.0;
  HM_CALL_GOTO(st, done, hm_mvec_axpby(x, zero, x, zero)); /* x = 0 */
  HM_CALL_GOTO(st, done, hm_mvec_copy_columns(b, 0, s->r, 0, k));
  HM_CALL_GOTO(st, done, hm_mvec_scale_rows(s->z, s->dinv, s->r));
  HM_CALL_GOTO(st, done, hm_mvec_copy_columns(s->z, 0, s->p, 0, k));
  HM_CALL_GOTO(st, done, hm_mvec_dot(s->r, s->z, rz));
  for (it = 1; it <= s->maxit && left > 0; it++) {
    HM_CALL_GOTO(st, done, apply_shifted(s->p, s->q, s));
    HM_CALL_GOTO(st, done, hm_mvec_dot(s->p, s->q, pq));
    for (int j = 0; j < k; j++) {
      alpha[t * j] = malpha[t * j] = 0.0;
      if (!active[j]) continue;
      if (!(pq[t * j] > 0.0)) { /* p^H S p <= 0: S is not positive definite */
        *negative = 1;
        if (s->probing) goto done;
        st = hm_error_raise(HM_ERR_NUMERIC, __FILE__, __LINE__, __func__,
                            "A - shift B is not positive definite: the inner CG met p^H (A - shift B) p = %.3g in "
                            "column %d (iteration %d), although the probe at setup found no negative curvature; "
                            "use inner = direct, or a shift below the spectrum", pq[t * j], j, it);
        goto done;
      }
      alpha[t * j] = rz[t * j] / pq[t * j];
      malpha[t * j] = -alpha[t * j];
    }
    HM_CALL_GOTO(st, done, hm_mvec_axpby(x, alpha, s->p, one));   /* x += alpha p */
    HM_CALL_GOTO(st, done, hm_mvec_axpby(s->r, malpha, s->q, one)); /* r -= alpha S p */
    HM_CALL_GOTO(st, done, hm_mvec_norms(s->r, rn));
    s->iterations += left;
    for (int j = 0; j < k; j++)
      if (active[j] && (rn[j] <= tol * bn[j] || !isfinite(rn[j]))) active[j] = 0, left--;
    if (left == 0) break;
    HM_CALL_GOTO(st, done, hm_mvec_scale_rows(s->z, s->dinv, s->r));
    HM_CALL_GOTO(st, done, hm_mvec_dot(s->r, s->z, rz_new));
    for (int j = 0; j < k; j++) {
      beta[t * j] = active[j] ? rz_new[t * j] / rz[t * j] : 0.0;
      rz[t * j] = rz_new[t * j];
    }
    HM_CALL_GOTO(st, done, hm_mvec_axpby(s->p, one, s->z, beta)); /* p = z + beta p */
  }
  HM_CALL_GOTO(st, done, true_residual(s, b, x, s->q, bn));
  for (int j = 0; j < k && !s->probing; j++)
    if (!isfinite(rn[j]) || (active[j] && rn[j] > tol * bn[j])) {
      st = hm_error_raise(HM_ERR_NOT_CONVERGED, __FILE__, __LINE__, __func__,
                          "the inner CG solve of (A - shift B) y = b did not converge: column %d of %d at relative "
                          "residual %.3g after %d iterations (inner_maxit), above the inner tolerance %.3g",
                          j, k, bn[j] > 0 ? rn[j] / bn[j] : rn[j], s->maxit, tol);
      break;
    }
done:
  free(buf), free(active);
  return st;
}

/* MINRES on the indefinite S (Hermitian: A and B are, sigma is real), unpreconditioned: the
 * diagonal of a matrix shifted into its spectrum passes near zero. */
static int minres(hm_shifted_solve *s, double tol, hm_mvec *b, hm_mvec *x) {
  const int k = b->k;
  int *its = calloc((size_t)k, sizeof(int));
  double *est = calloc((size_t)k, sizeof(double)), *bn = calloc((size_t)k, sizeof(double));
  int st = its && est && bn ? HM_SUCCESS : HM_ERR_MEMORY;
  if (st) hm_error_raise(st, __FILE__, __LINE__, __func__, "could not allocate MINRES's counts (%d columns)", k);
  if (!st) {
    st = hm_minres_solve(apply_shifted, s, tol, s->maxit, b, x, its, est);
    for (int j = 0; j < k; j++) s->iterations += its[j];
  }
  if (st == HM_ERR_NOT_CONVERGED) { /* say it in the inner solve's words */
    int worst = 0;
    for (int j = 0; j < k; j++)
      if (est[j] > est[worst]) worst = j;
    hm_error_clear();
    st = hm_error_raise(st, __FILE__, __LINE__, __func__,
                        "the inner MINRES solve of (A - shift B) y = b did not converge: column %d of %d at relative "
                        "residual %.3g after %d iterations (inner_maxit %d), above the inner tolerance %.3g",
                        worst, k, est[worst], its[worst], s->maxit, tol);
  }
  hm_mvec *q = NULL;
  if (!st) st = hm_mvec_create(s->A->ctx, &s->A->dist, s->A->type, k, &q);
  if (!st) st = hm_mvec_norms(b, bn);
  if (!st) st = true_residual(s, b, x, q, bn);
  hm_mvec_destroy(&q);
  free(its), free(est), free(bn);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

int hm_shifted_solve_create(hm_matrix *A, hm_matrix *B, double sigma, int maxit, hm_shifted_solve **out) {
  HM_CHECK(A && out, HM_ERR_ARGUMENT, "A or s is NULL");
  HM_CHECK(maxit >= 1, HM_ERR_ARGUMENT, "inner_maxit = %d must be at least 1", maxit);
  *out = NULL;
  hm_shifted_solve *s = calloc(1, sizeof *s);
  HM_CHECK(s, HM_ERR_MEMORY, "could not allocate the inner solver");
  s->A = A, s->B = B, s->sigma = sigma, s->maxit = maxit;
  int nonpositive = 0, negative = 0, st = make_diagonals(s, &nonpositive);
  s->definite = !nonpositive;
  if (!st && s->definite) { /* the probe: CG on a random right-hand side, looking for p^H S p <= 0 */
    hm_mvec *b = NULL, *x = NULL;
    st = hm_mvec_create(A->ctx, &A->dist, A->type, 1, &b);
    if (!st) st = hm_mvec_create(A->ctx, &A->dist, A->type, 1, &x);
    if (!st) st = hm_mvec_random_phase(b, 12345);
    s->probing = 1;
    if (!st) st = cg(s, 1e-6, b, x, &negative);
    s->probing = 0;
    hm_mvec_destroy(&b), hm_mvec_destroy(&x);
    s->definite = !negative;
    s->iterations = 0, s->worst = 0.0;
  }
  if (st) {
    hm_shifted_solve_destroy(&s);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  *out = s;
  return HM_SUCCESS;
}

void hm_shifted_solve_destroy(hm_shifted_solve **s) {
  if (!s || !*s) return;
  hm_mvec_destroy(&(*s)->dinv), hm_mvec_destroy(&(*s)->r);
  hm_mvec_destroy(&(*s)->z), hm_mvec_destroy(&(*s)->p), hm_mvec_destroy(&(*s)->q), hm_mvec_destroy(&(*s)->bx);
  free(*s);
  *s = NULL;
}

int hm_shifted_solve_apply(hm_shifted_solve *s, double tol, hm_mvec *b, hm_mvec *y) {
  HM_CHECK(s && b && y && b->k == y->k, HM_ERR_ARGUMENT, "s, b or y is NULL, or b and y differ in width");
  int negative;
  HM_CALL(s->definite ? cg(s, tol, b, y, &negative) : minres(s, tol, b, y));
  return HM_SUCCESS;
}

int hm_shifted_solve_definite(const hm_shifted_solve *s) { return s->definite; }

const char *hm_shifted_solve_method(const hm_shifted_solve *s) { return s->definite ? "cg-jacobi" : "minres"; }

void hm_shifted_solve_stats(const hm_shifted_solve *s, int64_t *iterations, double *worst_residual) {
  if (iterations) *iterations = s->iterations;
  if (worst_residual) *worst_residual = s->worst;
}
