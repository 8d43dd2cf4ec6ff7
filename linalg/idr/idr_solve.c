/* The IDR(s) iteration: Algorithm 2 of van Gijzen and Sonneveld (biorthogonal IDR(s)) with right
 * preconditioning, for k systems at once (column j of every block = system j).
 *
 * Per step k of a cycle: one merged reduction for the s inner products <P|G_k> (the MGS loop of
 * the paper becomes a forward substitution with the lower triangular M, so the s products are
 * taken at once), and one for the residual norms (fused into the residual update).
 *
 * Smoothing (minimal residual, Zhou and Walker) is carried by differences dr = rs - r and
 * dx = xs - x: the primary update r -= b g, x += b u adds dr += b g, dx -= b u, and the smoothing
 * step rs <- rs - eta (rs - r) scales the differences by sigma = 1 - eta = -<dr|r>/<dr|dr>; that
 * scaling is deferred into the next fused update. ||rs||^2 = ||r||^2 - |<dr|r>|^2 / <dr|dr>.
 *
 * A system that stopped keeps its columns frozen: its factors are 0 (its x, r no longer change). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "checkpoint_due.h"
#include "blas_threads.h"
#include "error_macros.h"
#include "idr_internal.h"

static void put(double *arr, int ts, size_t i, double complex v) {
  arr[ts * i] = creal(v);
  if (ts == 2) arr[ts * i + 1] = cimag(v);
}

static double complex get(const double *arr, int ts, size_t i) {
  return ts == 2 ? arr[2 * i] + I * arr[2 * i + 1] : arr[i];
}

static int running(const hm_idr *o, int j) { return o->state[j] == IDR_RUNNING; }

static int any_running(const hm_idr *o) {
  for (int j = 0; j < o->k; j++)
    if (running(o, j)) return 1;
  return 0;
}

static void stop(hm_idr *o, int j, int state, const char *fmt, double complex value) {
  o->state[j] = state;
  if (state == HM_ERR_BREAKDOWN)
    snprintf(o->reason + (size_t)j * IDR_REASON_LEN, IDR_REASON_LEN, fmt, creal(value), cimag(value), o->its[j]);
}

static double complex *Mof(hm_idr *o, int j) { return o->M + (size_t)j * o->s * o->s; }

/* Sum host buffers over the ranks (one reduction). len is at most s x k x ts or 3 k ts scalars (s shadow
 * vectors, k right-hand sides, ts <= 2): small blocks, far below INT_MAX. */
static int allreduce(hm_idr *o, double *buf, int len) {
  HM_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, len, MPI_DOUBLE, MPI_SUM, o->ctx->comm));
  return HM_SUCCESS;
}

/* o->gram = <P|Y> (s x k), one reduction. */
static int shadow_products(hm_idr *o, const hm_mvec *Y) {
  HM_CALL(o->kern->idr_multidot(o->type, o->nlocal, o->s, o->P->data, o->k, Y->data, o->gram));
  HM_CALL(allreduce(o, o->gram, o->s * o->k * o->ts));
  return HM_SUCCESS;
}

/* Y = a W + sum_{l<m} coef_l X[l] (coefficients already in o->a, o->coef). */
static int combine(hm_idr *o, hm_mvec *Y, const hm_mvec *W, int m, hm_mvec *const *X) {
  const double *ptr[64] = {NULL};
  for (int l = 0; l < m; l++) ptr[l] = X[l]->data;
  HM_CALL(o->kern->idr_combine(o->type, o->nlocal, o->k, m, ptr, o->coef, o->a, W->data, Y->data));
  return HM_SUCCESS;
}

/* dr, dx <- sigma dr, sigma dx: makes the stored state complete (checkpoints, the end). */
static int flush_smoothing(hm_idr *o) {
  if (!o->opt.smoothing) return HM_SUCCESS;
  for (int j = 0; j < o->k; j++) put(o->a, o->ts, j, o->sigma[j]);
  HM_CALL(combine(o, o->dr, o->dr, 0, NULL));
  HM_CALL(combine(o, o->dx, o->dx, 0, NULL));
  for (int j = 0; j < o->k; j++) o->sigma[j] = 1;
  return HM_SUCCESS;
}

/* y = K^-1 x; returns the block that holds it (x itself without a preconditioner). */
static int precondition(hm_idr *o, hm_mvec *x, hm_mvec *y, hm_mvec **out) {
  switch (o->opt.precond) {
    case HM_IDR_PRECOND_JACOBI:
      HM_CALL(hm_mvec_scale_rows(y, o->dinv, x));
      *out = y;
      break;
    case HM_IDR_PRECOND_USER:
      HM_CALL(hm_operator_apply(o->opt.precond_op, x, y));
      *out = y;
      break;
    default:
      *out = x;
  }
  return HM_SUCCESS;
}

/* r -= beta g, x += beta u (+ smoothing), then the norms: one fused pass, one reduction; then each
 * running system counts the iteration, records its residual and checks whether it stops. */
static int update(hm_idr *o, const double complex *beta, const hm_mvec *g, const hm_mvec *u) {
  const int k = o->k, ts = o->ts;
  int was_running[k];
  for (int j = 0; j < k; j++) {
    was_running[j] = running(o, j);
    put(o->beta, ts, j, was_running[j] ? beta[j] : 0);
    put(o->sig, ts, j, o->sigma[j]);
  }
  HM_CALL(o->kern->idr_update(o->type, o->nlocal, k, o->beta, o->sig, g->data, u->data, o->r->data, o->x->data,
                              o->dr ? o->dr->data : NULL, o->dx ? o->dx->data : NULL, o->dots));
  HM_CALL(allreduce(o, o->dots, 3 * k * ts));
  const size_t hl = (size_t)o->opt.maxit + 1;
  for (int j = 0; j < k; j++) {
    o->sigma[j] = 1;
    if (!was_running[j]) continue;
    const double rr = o->dots[ts * 3 * j];
    double rs2 = rr;
    if (o->opt.smoothing) {
      const double complex dr_r = get(o->dots, ts, 3 * (size_t)j + 1);
      const double dd = o->dots[ts * (3 * j + 2)];
      if (dd > 0) {
        o->sigma[j] = -dr_r / dd;
        rs2 = fmax(rr - creal(dr_r * conj(dr_r)) / dd, 0.0);
      }
    }
    o->rnorm2[j] = rr;
    o->its[j]++;
    const double res = sqrt(rs2) / o->bnorm[j];
    if (!isfinite(res) || !isfinite(cabs(o->sigma[j]))) { /* keep the last finite residual */
      o->its[j]--;
      stop(o, j, HM_ERR_BREAKDOWN, "the residual norm is not a number (%g%+gi) at iteration %d", res);
      continue;
    }
    o->res[j] = res;
    if (o->opt.history) o->hist[(size_t)j * hl + o->its[j]] = o->res[j];
    if (o->res[j] <= o->opt.tol)
      o->state[j] = HM_SUCCESS;
    else if (o->its[j] >= o->opt.maxit)
      o->state[j] = HM_ERR_NOT_CONVERGED;
  }
  return HM_SUCCESS;
}

/* One step of the cycle: a new direction U_kk, G_kk = A U_kk in the IDR space, biorthogonal to
 * P_0..P_kk-1, and the residual update along it. */
static int idr_step(hm_idr *o, int kk) {
  const int s = o->s, k = o->k, ts = o->ts, m = s - kk;
  double complex c[k][m];
  /* c = M(kk:s, kk:s)^-1 f(kk:s) (lower triangular) */
  for (int j = 0; j < k; j++) {
    for (int l = 0; l < m; l++) c[j][l] = 0;
    if (!running(o, j)) continue;
    const double complex *M = Mof(o, j), *f = o->f + (size_t)j * s;
    for (int l = 0; l < m; l++) {
      double complex e = f[kk + l];
      for (int q = 0; q < l; q++) e -= M[(kk + l) * s + kk + q] * c[j][q];
      c[j][l] = e / M[(kk + l) * s + kk + l];
    }
  }
  /* v = r - G(:, kk:s) c */
  for (int j = 0; j < k; j++) {
    put(o->a, ts, j, running(o, j) ? 1 : 0);
    for (int l = 0; l < m; l++) put(o->coef, ts, (size_t)l * k + j, -c[j][l]);
  }
  HM_CALL(combine(o, o->v, o->r, m, o->G + kk));
  hm_mvec *pv = NULL;
  HM_CALL(precondition(o, o->v, o->t, &pv));
  /* U_kk = omega K^-1 v + U(:, kk:s) c */
  for (int j = 0; j < k; j++) {
    put(o->a, ts, j, running(o, j) ? o->omega[j] : 0);
    for (int l = 0; l < m; l++) put(o->coef, ts, (size_t)l * k + j, c[j][l]);
  }
  HM_CALL(combine(o, o->U[kk], pv, m, o->U + kk));
  HM_CALL(hm_operator_apply(o->A, o->U[kk], o->G[kk]));
  /* h = <P|G_kk>; alpha = M(0:kk, 0:kk)^-1 h(0:kk) makes G_kk biorthogonal to P_0..P_kk-1;
   * M(kk:s, kk) = <P|G_kk - G alpha> follows without another reduction. */
  HM_CALL(shadow_products(o, o->G[kk]));
  double complex alpha[k][kk + 1], beta[k];
  for (int j = 0; j < k; j++) {
    beta[j] = 0;
    for (int q = 0; q < kk; q++) alpha[j][q] = 0;
    if (!running(o, j)) continue;
    double complex *M = Mof(o, j);
    double complex h[s];
    int finite = 1;
    for (int a = 0; a < s; a++) {
      h[a] = get(o->gram, ts, (size_t)a * k + j);
      finite &= isfinite(creal(h[a])) && isfinite(cimag(h[a]));
    }
    for (int q = 0; q < kk; q++) {
      double complex e = h[q];
      for (int p = 0; p < q; p++) e -= M[q * s + p] * alpha[j][p];
      alpha[j][q] = e / M[q * s + q];
    }
    for (int a = kk; a < s; a++) {
      double complex e = h[a];
      for (int q = 0; q < kk; q++) e -= M[a * s + q] * alpha[j][q];
      M[a * s + kk] = e;
    }
    const double complex mkk = M[kk * s + kk];
    if (!finite) {
      stop(o, j, HM_ERR_BREAKDOWN, "<P|G> is not a number (%g%+gi) at iteration %d", h[0]);
    } else if (mkk == 0 && o->restarted_at[j] != o->its[j]) {
      o->state[j] = IDR_RESTART; /* a fresh start from x at the cycle's end; once per iteration count */
    } else if (mkk == 0 || !isfinite(cabs(mkk))) {
      stop(o, j, HM_ERR_BREAKDOWN, "the s x s system is singular: M(k,k) = %g%+gi at iteration %d", mkk);
    } else {
      beta[j] = o->f[(size_t)j * s + kk] / mkk;
    }
    if (!running(o, j))
      for (int q = 0; q < kk; q++) alpha[j][q] = 0;
  }
  if (kk > 0) {
    for (int j = 0; j < k; j++) {
      put(o->a, ts, j, 1);
      for (int q = 0; q < kk; q++) put(o->coef, ts, (size_t)q * k + j, -alpha[j][q]);
    }
    HM_CALL(combine(o, o->G[kk], o->G[kk], kk, o->G));
    HM_CALL(combine(o, o->U[kk], o->U[kk], kk, o->U));
  }
  HM_CALL(update(o, beta, o->G[kk], o->U[kk]));
  /* f(kk+1:s) -= beta M(kk+1:s, kk) */
  for (int j = 0; j < k; j++) {
    if (!running(o, j)) continue;
    const double complex *M = Mof(o, j);
    for (int a = kk + 1; a < s; a++) o->f[(size_t)j * s + a] -= beta[j] * M[a * s + kk];
  }
  return HM_SUCCESS;
}

/* The dimension-reduction step: v = K^-1 r, t = A v, omega by "maintaining the convergence". */
static int reduction_step(hm_idr *o) {
  const int k = o->k, ts = o->ts;
  hm_mvec *pv = NULL;
  HM_CALL(precondition(o, o->r, o->v, &pv));
  HM_CALL(hm_operator_apply(o->A, pv, o->t));
  double buf[4 * k];
  HM_CALL(o->kern->dot(o->type, o->nlocal, k, o->t->data, o->t->data, buf));
  HM_CALL(o->kern->dot(o->type, o->nlocal, k, o->t->data, o->r->data, buf + k * ts));
  HM_CALL(allreduce(o, buf, 2 * k * ts));
  double complex om[k];
  for (int j = 0; j < k; j++) {
    om[j] = 0;
    if (!running(o, j)) continue;
    const double tt = buf[ts * j];
    const double complex tr = get(buf, ts, (size_t)k + j);
    const double nt = sqrt(tt), nr = sqrt(o->rnorm2[j]);
    if (!(nt > 0) || !isfinite(nt) || !isfinite(cabs(tr))) {
      stop(o, j, HM_ERR_BREAKDOWN, "omega cannot be formed: ||A K^-1 r|| = %g (zero or not a number; %g) at "
           "iteration %d", nt);
      continue;
    }
    double complex w = tr / tt;
    const double rho = cabs(tr) / (nt * nr);
    if (rho < o->opt.omega_angle && rho > 0) w *= o->opt.omega_angle / rho;
    if (w == 0 || !isfinite(cabs(w))) {
      stop(o, j, HM_ERR_BREAKDOWN, "omega = %g%+gi (A K^-1 r is orthogonal to r) at iteration %d", w);
      continue;
    }
    o->omega[j] = om[j] = w;
  }
  HM_CALL(update(o, om, o->t, pv));
  return HM_SUCCESS;
}

/* A system whose maxit ends inside a cycle stops there; the others go on. */
static int outer_iteration(hm_idr *o) {
  HM_CALL(shadow_products(o, o->r));
  for (int j = 0; j < o->k; j++)
    for (int a = 0; a < o->s; a++) o->f[(size_t)j * o->s + a] = get(o->gram, o->ts, (size_t)a * o->k + j);
  for (int kk = 0; kk < o->s && any_running(o); kk++) HM_CALL(idr_step(o, kk));
  if (any_running(o)) HM_CALL(reduction_step(o));
  o->outer++;
  return HM_SUCCESS;
}

/* Per-column norms of blocks a and b (either may be NULL) with one reduction. */
static int norms2(hm_idr *o, const hm_mvec *a, const hm_mvec *b, double *na, double *nb) {
  const int k = o->k, ts = o->ts;
  double buf[2 * k * ts];
  memset(buf, 0, sizeof(buf));
  if (a) HM_CALL(o->kern->dot(o->type, o->nlocal, k, a->data, a->data, buf));
  if (b) HM_CALL(o->kern->dot(o->type, o->nlocal, k, b->data, b->data, buf + k * ts));
  HM_CALL(allreduce(o, buf, 2 * k * ts));
  for (int j = 0; j < k; j++) {
    if (na) na[j] = buf[ts * j];
    if (nb) nb[j] = buf[ts * (k + j)];
  }
  return HM_SUCCESS;
}

/* y = b - A x */
static int residual(hm_idr *o, hm_mvec *b, hm_mvec *x, hm_mvec *y) {
  HM_CALL(hm_operator_apply(o->A, x, y));
  for (int j = 0; j < o->k; j++) {
    put(o->a, o->ts, j, 1);
    put(o->beta, o->ts, j, -1);
  }
  HM_CALL(hm_mvec_axpby(y, o->a, b, o->beta));
  return HM_SUCCESS;
}

static int start(hm_idr *o, hm_mvec *b, hm_mvec *x0) {
  const int k = o->k, ts = o->ts;
  HM_CALL(hm_mvec_copy_columns(x0, 0, o->x, 0, k));
  double bb[k];
  HM_CALL(norms2(o, b, NULL, bb, NULL));
  /* a zero right-hand side has the solution 0 */
  for (int j = 0; j < k; j++) {
    put(o->a, ts, j, 0);
    put(o->beta, ts, j, bb[j] > 0 ? 1 : 0);
  }
  HM_CALL(hm_mvec_axpby(o->x, o->a, o->x, o->beta));
  HM_CALL(residual(o, b, o->x, o->r));
  HM_CALL(norms2(o, o->r, NULL, o->rnorm2, NULL));
  for (int j = 0; j < k; j++) {
    o->bnorm[j] = sqrt(bb[j]);
    o->res[j] = bb[j] > 0 ? sqrt(o->rnorm2[j]) / o->bnorm[j] : 0;
    if (o->opt.history) o->hist[(size_t)j * ((size_t)o->opt.maxit + 1)] = o->res[j];
    if (!isfinite(o->res[j])) {
      stop(o, j, HM_ERR_BREAKDOWN, "the initial residual is not a number (%g%+gi) at iteration %d", o->res[j]);
      o->res[j] = INFINITY; /* reported as such, never as NaN */
    } else if (o->res[j] <= o->opt.tol) {
      o->state[j] = HM_SUCCESS;
    }
    if (bb[j] == 0) o->bnorm[j] = 1; /* residuals of this system are absolute (and zero) */
  }
  return HM_SUCCESS;
}

/* r = b - A x from the (smoothed) iterate; the smoothing restarts from it. */
static int replace_residual(hm_idr *o, hm_mvec *b) {
  HM_CALL(flush_smoothing(o));
  if (o->opt.smoothing) {
    for (int j = 0; j < o->k; j++) {
      put(o->a, o->ts, j, 1);
      put(o->coef, o->ts, j, 1);
    }
    HM_CALL(combine(o, o->x, o->x, 1, &o->dx));
    for (int j = 0; j < o->k; j++) put(o->a, o->ts, j, 0);
    HM_CALL(combine(o, o->dx, o->dx, 0, NULL));
    HM_CALL(combine(o, o->dr, o->dr, 0, NULL));
  }
  HM_CALL(residual(o, b, o->x, o->r));
  HM_CALL(norms2(o, o->r, NULL, o->rnorm2, NULL));
  for (int j = 0; j < o->k; j++)
    if (running(o, j)) o->res[j] = sqrt(o->rnorm2[j]) / o->bnorm[j];
  return HM_SUCCESS;
}

/* x = xs (the smoothed iterate), the true residuals, and the status with its message. */
static int finish(hm_idr *o, hm_mvec *b, hm_mvec *x) {
  const int k = o->k;
  HM_CALL(flush_smoothing(o));
  for (int j = 0; j < k; j++) {
    put(o->a, o->ts, j, 1);
    put(o->coef, o->ts, j, 1);
  }
  if (o->opt.smoothing) HM_CALL(combine(o, x, o->x, 1, &o->dx));
  else HM_CALL(hm_mvec_copy_columns(o->x, 0, x, 0, k));
  HM_CALL(residual(o, b, x, o->t));
  double tt[k];
  HM_CALL(norms2(o, o->t, NULL, tt, NULL));
  int broke = 0, unconverged = 0, first_broke = -1, first_unconv = -1;
  for (int j = 0; j < k; j++) {
    o->true_res[j] = sqrt(tt[j]) / o->bnorm[j];
    if (isnan(o->true_res[j])) o->true_res[j] = INFINITY; /* a breakdown status says why */
    if (o->state[j] == IDR_RUNNING) o->state[j] = HM_ERR_NOT_CONVERGED;
    if (o->state[j] == HM_ERR_BREAKDOWN && broke++ == 0) first_broke = j;
    if (o->state[j] == HM_ERR_NOT_CONVERGED && unconverged++ == 0) first_unconv = j;
  }
  if (broke) {
    o->status = HM_ERR_BREAKDOWN;
    return hm_error_raise(HM_ERR_BREAKDOWN, __FILE__, __LINE__, __func__,
                          "IDR(%d) broke down in %d of %d systems; system %d: %s", o->s, broke, k, first_broke,
                          o->reason + (size_t)first_broke * IDR_REASON_LEN);
  }
  if (unconverged) {
    const int j = first_unconv;
    o->status = HM_ERR_NOT_CONVERGED;
    return hm_error_raise(HM_ERR_NOT_CONVERGED, __FILE__, __LINE__, __func__,
                          "IDR(%d) did not converge in %d of %d systems within maxit = %d iterations; system %d: "
                          "relative residual %.3e (true %.3e) > tol = %.3e", o->s, unconverged, k, o->opt.maxit, j,
                          o->res[j], o->true_res[j], o->opt.tol);
  }
  o->status = HM_SUCCESS;
  return HM_SUCCESS;
}

/* A system stops only when its true residual ||b - A x|| / ||b|| is below tol. The recursive
 * residual drifts from it by rounding, and the smoothed norm ||r||^2 - |<dr,r>|^2 / ||dr||^2 cancels
 * catastrophically once the primary residual is far above the smoothed one: a stagnating
 * high-Peclet convection-diffusion solve claimed 0 there while b - A x was 2e-5. So a claim is
 * checked against b - A x (one operator application for the batch); a system whose true residual
 * is above tol starts IDR afresh from it (x = the smoothed iterate, r = b - A x, G = U = 0, M = I,
 * omega = 1: its IDR space stopped being updated when it claimed convergence), the others of the
 * batch are not touched, so a system's iterates do not depend on its batch. A system whose s x s
 * system became singular (IDR_RESTART) starts afresh the same way, once per iteration count. */
static int confirm_convergence(hm_idr *o, hm_mvec *b, const int *was_running) {
  const int k = o->k, ts = o->ts;
  int claims[k], any = 0;
  for (int j = 0; j < k; j++) {
    claims[j] = (was_running[j] && o->state[j] == HM_SUCCESS) || o->state[j] == IDR_RESTART;
    any |= claims[j];
  }
  if (!any) return HM_SUCCESS;
  HM_CALL(flush_smoothing(o));
  for (int j = 0; j < k; j++) {
    put(o->a, ts, j, 1);
    put(o->coef, ts, j, 1);
  }
  if (o->opt.smoothing) HM_CALL(combine(o, o->check_x, o->x, 1, &o->dx)); /* the smoothed iterate */
  else HM_CALL(hm_mvec_copy_columns(o->x, 0, o->check_x, 0, k));
  HM_CALL(residual(o, b, o->check_x, o->check_r));
  double tt[k];
  HM_CALL(norms2(o, o->check_r, NULL, tt, NULL));
  const size_t hl = (size_t)o->opt.maxit + 1;
  int restart = 0;
  for (int j = 0; j < k; j++) {
    put(o->a, ts, j, 1); /* keeps dr, dx of the other systems */
    if (!claims[j]) continue;
    if (o->state[j] == IDR_RESTART) o->restarted_at[j] = o->its[j];
    o->res[j] = sqrt(tt[j]) / o->bnorm[j];
    if (o->opt.history) o->hist[(size_t)j * hl + o->its[j]] = o->res[j];
    if (o->res[j] <= o->opt.tol) { /* confirmed */
      o->state[j] = HM_SUCCESS;
      continue;
    }
    o->state[j] = o->its[j] >= o->opt.maxit ? HM_ERR_NOT_CONVERGED : IDR_RUNNING;
    o->rnorm2[j] = tt[j];
    HM_CALL(hm_mvec_copy_columns(o->check_x, j, o->x, j, 1));
    HM_CALL(hm_mvec_copy_columns(o->check_r, j, o->r, j, 1));
    double complex *M = Mof(o, j);
    for (int q = 0; q < o->s * o->s; q++) M[q] = q % (o->s + 1) == 0;
    o->omega[j] = 1;
    put(o->a, ts, j, 0);
    restart = 1;
  }
  if (!restart) return HM_SUCCESS;
  for (int i = 0; i < o->s; i++) { /* G, U = 0 for the systems that start afresh (a = 0 there) */
    HM_CALL(combine(o, o->G[i], o->G[i], 0, NULL));
    HM_CALL(combine(o, o->U[i], o->U[i], 0, NULL));
  }
  if (o->opt.smoothing) { /* dr = dx = 0 likewise */
    HM_CALL(combine(o, o->dx, o->dx, 0, NULL));
    HM_CALL(combine(o, o->dr, o->dr, 0, NULL));
  }
  return HM_SUCCESS;
}

static int solve(hm_idr *o, hm_mvec *b, hm_mvec *x) {
  HM_CHECK(b != x, HM_ERR_ARGUMENT, "b and x must be distinct blocks (x is overwritten, b is read to the end)");
  HM_CHECK(b->k == x->k && b->k >= 1, HM_ERR_ARGUMENT, "b and x have %d and %d columns; they must be equal", b->k,
           x->k);
  HM_CHECK(b->type == o->type && x->type == o->type, HM_ERR_ARGUMENT,
           "b and x have scalar types %d and %d; the operator %d", (int)b->type, (int)x->type, (int)o->type);
  HM_CHECK(b->dist.local == o->nlocal && x->dist.local == o->nlocal && b->dist.n_global == o->nglobal &&
           x->dist.n_global == o->nglobal, HM_ERR_ARGUMENT,
           "b and x must have the operator's rows (%lld global, %lld here)", (long long)o->nglobal,
           (long long)o->nlocal);
  if (o->restored) {
    HM_CHECK(b->k == o->k, HM_ERR_ARGUMENT, "the restored state has %d systems, b has %d columns", o->k, b->k);
    o->restored = 0;
  } else {
    HM_CALL(hm_idr_alloc_state(o, b->k));
    HM_CALL(start(o, b, x));
  }
  o->status = HM_ERR_NOT_CONVERGED;
  double t_checkpoint = MPI_Wtime();
  while (any_running(o)) {
    int was_running[o->k];
    for (int j = 0; j < o->k; j++) was_running[j] = running(o, j);
    HM_CALL(outer_iteration(o));
    HM_CALL(confirm_convergence(o, b, was_running));
    if (o->opt.residual_replacement && o->outer % o->opt.residual_replacement == 0 && any_running(o))
      HM_CALL(replace_residual(o, b));
    if (!any_running(o)) break;
    int due = 0;
    HM_CALL(hm_checkpoint_due(o->ctx->comm, o->outer, o->opt.checkpoint_every, o->opt.checkpoint_seconds, t_checkpoint,
                              &due));
    if (due) {
      HM_CALL(flush_smoothing(o));
      const int st = o->opt.checkpoint(o, o->opt.checkpoint_user);
      HM_CHECK(st == 0, st > 0 && st <= HM_ERR_BREAKDOWN ? st : HM_ERR_INTERNAL,
               "the checkpoint callback returned status %d after outer iteration %d", st, o->outer);
      t_checkpoint = MPI_Wtime();
    }
    if (o->opt.stop && o->opt.stop(o->opt.stop_user)) {
      HM_CALL(flush_smoothing(o)); /* the state is complete, as at a checkpoint */
      HM_RAISE(HM_ERR_STOPPED, "stopped on request after outer iteration %d (the state is complete: checkpoint it)",
               o->outer);
    }
  }
  HM_CALL(finish(o, b, x));
  return HM_SUCCESS;
}

int hm_idr_solve(hm_idr *o, hm_mvec *b, hm_mvec *x) {
  HM_CHECK(o && b && x, HM_ERR_ARGUMENT, "idr, b or x is NULL");
  const int blas_threads = hm_blas_threads_single(); /* the s x s systems: see blas_threads.h */
  const int st = solve(o, b, x);
  hm_blas_threads_restore(blas_threads);
  if (st) {
    o->status = st;
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  return HM_SUCCESS;
}
