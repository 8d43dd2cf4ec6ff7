/* The multi-shift IDR(s) iteration: prototype IDR(s) (Sonneveld and van Gijzen, SISC 31, 2008:
 * residual differences dR, one omega per cycle of s + 1 steps) on the seed system A + shift_seed,
 * with the shifted systems carried along by collinear residuals (as in the multi-shift IDR(s) of
 * van Gijzen, Sleijpen and Zemke, NLAA 22, 2015, and Du, Sogabe and Zhang's shifted IDR(s)).
 *
 * Every step forms v = r - dR c (P^H v = 0) and r' = (I - omega A_seed) v. Written over the last
 * s + 1 residuals, v = sum_i gamma_i r_(n-i) with sum_i gamma_i = 1 (gamma_0 = 1 - c_1, gamma_i =
 * c_i - c_(i+1), gamma_s = c_s, c_i the coefficient of the difference formed i steps ago). For the
 * shift sigma (relative to the seed) the IDR spaces are the same because I - omega_q (A_seed + sigma)
 * = (I - omega A_seed) / (1 + omega sigma) with omega_q = omega / (1 + omega sigma); so with
 * r_q,m = r_m / pi_m the shift's v_q = lambda v, lambda = 1 / sum_i gamma_i pi_(n-i), and
 *   pi_(n+1) = (1 + omega sigma) / lambda,
 *   dX_q,new = omega_q lambda v - sum_i (sum_(m>=i) lambda gamma_m pi_(n-m)) dX_q,(i),   x_q += dX_q,new,
 * which is the seed's own update (lambda = 1, pi = 1) for sigma = 0. The shifts need no operator
 * application: one fused pass (kernel idr_shift_update) updates all of them per step.
 *
 * A shift claims convergence when ||r|| / |pi| <= target * ||b|| (target = tol at first) and is still
 * updated; at the end of each outer iteration the claims are checked against b - (A + shift) x; a
 * confirmed shift is frozen (coefficients 0), the others continue with a tighter target. A seed
 * continues while any of its shifts runs. The seed's omega is chosen for the whole family
 * (choose_omega) and the seed stays fixed (moving it to the laggard each cycle, with the seed's own
 * omega, let the family's residuals grow to 1e11 ||b|| and their true residuals stall). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checkpoint_due.h"
#include "blas_threads.h"
#include "error_macros.h"
#include "idr_multishift_internal.h"

static void putc_(double *arr, size_t i, double complex v) {
  arr[2 * i] = creal(v);
  arr[2 * i + 1] = cimag(v);
}
static double complex getc_(const double *arr, size_t i) { return CMPLX(arr[2 * i], arr[2 * i + 1]); }

static int active(const hm_idr_multishift *o, int c) { return o->state[c] == MS_RUNNING || o->state[c] == MS_CLAIMED; }

/* A seed runs while any of its shifts is active. */
static int seed_running(const hm_idr_multishift *o, int j) {
  for (int q = 0; q < o->ns; q++)
    if (active(o, q * o->k + j)) return 1;
  return 0;
}

static int count_state(const hm_idr_multishift *o, int state) {
  int n = 0;
  for (int c = 0; c < o->K; c++) n += o->state[c] == state;
  return n;
}

static int allreduce(hm_idr_multishift *o, double *buf, int len) {
  HM_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, len, MPI_DOUBLE, MPI_SUM, o->base->ctx->comm));
  o->prof.reductions++;
  return HM_SUCCESS;
}

/* Y = a W + sum_l coef_l X_l over the k seed columns (a, coef in o->a, o->coef). */
static int combine(hm_idr_multishift *o, hm_mvec *Y, const hm_mvec *W, int m, hm_mvec *const *X) {
  const double *ptr[66] = {NULL};
  for (int l = 0; l < m; l++) ptr[l] = X[l]->data;
  HM_CALL(o->kern->idr_combine(HM_COMPLEX, o->base->nlocal, o->k, m, ptr, o->coef, o->a, W->data, Y->data));
  return HM_SUCCESS;
}

/* t = (A + shift_seed) v over the k seed columns. */
static int seed_apply(hm_idr_multishift *o, hm_mvec *v, hm_mvec *t) {
  HM_CALL(hm_operator_apply(o->A, v, t));
  o->prof.seed_products += o->k;
  double complex alpha[o->k], one[o->k];
  for (int j = 0; j < o->k; j++) {
    alpha[j] = o->shift[o->seedof[j]];
    one[j] = 1;
  }
  HM_CALL(hm_mvec_axpby(t, alpha, v, one));
  return HM_SUCCESS;
}

/* Solve the s x s system M c = m by Gaussian elimination with partial pivoting; 0 if singular. */
static int small_solve(int s, const double complex *M, const double complex *m, double complex *c) {
  double complex A[s][s + 1];
  for (int a = 0; a < s; a++) {
    for (int b = 0; b < s; b++) A[a][b] = M[a * s + b];
    A[a][s] = m[a];
  }
  for (int p = 0; p < s; p++) {
    int piv = p;
    for (int a = p + 1; a < s; a++)
      if (cabs(A[a][p]) > cabs(A[piv][p])) piv = a;
    if (!(cabs(A[piv][p]) > 0) || !isfinite(cabs(A[piv][p]))) return 0;
    for (int b = 0; b <= s; b++) {
      const double complex tmp = A[p][b];
      A[p][b] = A[piv][b];
      A[piv][b] = tmp;
    }
    for (int a = p + 1; a < s; a++) {
      const double complex f = A[a][p] / A[p][p];
      for (int b = p; b <= s; b++) A[a][b] -= f * A[p][b];
    }
  }
  for (int a = s - 1; a >= 0; a--) {
    double complex e = A[a][s];
    for (int b = a + 1; b < s; b++) e -= A[a][b] * c[b];
    c[a] = e / A[a][a];
  }
  return 1;
}

static void break_down(hm_idr_multishift *o, int j) {
  for (int q = 0; q < o->ns; q++)
    if (active(o, q * o->k + j)) o->state[q * o->k + j] = HM_ERR_BREAKDOWN;
}

/* omega by "maintaining the convergence" from <t|t>, <t|v>, <v|v>. */
static double complex make_omega(double tt, double complex tv, double vv, double angle) {
  double complex w = tv / tt;
  const double rho = cabs(tv) / sqrt(tt * vv);
  if (rho < angle && rho > 0) w *= angle / rho;
  return w;
}

/* log of the largest estimated residual of the na steering shifts (shift sigma[i], log residual
 * lest[i], scaled[i] = exp(2 lest[i] / (s + 1))) after a cycle with the seed's omega w, and in *sum
 * the logs of their growth summed: each shift's residual is r' / pi', ||r'|| = ||v - w t|| and
 * pi' = pi (1 + w sigma) / lambda, so a cycle of s + 1 steps multiplies it by about
 * (||v - w t|| / (||v|| |1 + w sigma|))^(s + 1). The logs are taken of products, a few per
 * candidate instead of one per shift (this runs for up to 33 candidates x the running shifts x the
 * right-hand sides each cycle, on the host, while the GPU waits): the largest residual is the
 * largest scaled[i] / |1 + w sigma_i|^2, and the sum the log of the product of the |1 + w sigma_i|^2,
 * taken 4 at a time (each factor clamped to [1e-70, 1e70], so a product of 4 cannot overflow). */
static double worst_after(int s, int na, const double complex *sigma, const double *scaled, double complex w,
                          double tt, double complex tv, double vv, double *sum) {
  const double rr = vv - 2 * creal(conj(w) * tv) + creal(w * conj(w)) * tt;
  const double lrho = 0.5 * log(fmax(rr, 1e-300 * vv) / vv), h = 0.5 * (s + 1);
  double top = 0, bottom = 1, logprod = 0, prod = 1; /* the largest scaled / |f|^2 as top / bottom */
  for (int i = 0; i < na; i++) {
    const double complex f = 1 + w * sigma[i];
    const double f2 = fmin(fmax(creal(f * conj(f)), 1e-70), 1e70);
    if (scaled[i] * bottom > top * f2) {
      top = scaled[i];
      bottom = f2;
    }
    prod *= f2;
    if (i % 4 == 3 || i == na - 1) {
      logprod += log(prod);
      prod = 1;
    }
  }
  *sum = (s + 1) * na * lrho - h * logprod;
  return na ? (s + 1) * lrho + h * log(top / bottom) : -INFINITY;
}

enum { OMEGA_CANDIDATES = 32 }; /* the most shifts whose own omega is tried (evenly spread over them) */
static const double OMEGA_WORST_RISE = 2.302585092994046; /* log 10: the largest residual may grow 10x a cycle */

/* The seed's omega for a cycle. Shift sigma (relative to the seed) sees omega_q = omega / (1 + omega sigma):
 * the seed's own choice (make_omega) can make |1 + omega sigma| small for a shift away from the seed, whose
 * residual then grows by 1 / |1 + omega sigma| per step, and the rounding of its updates at that peak
 * stays in its true residual (a stall above tol; with the seed moved to such a laggard, the seed's
 * residual itself grew to 1e11 ||b|| on the 10 x 10 x 6 TI). So the candidates are the seed's omega
 * and the running shifts' own choices mapped to the seed (omega = omega_q / (1 - omega_q sigma)); among
 * those that raise the largest shift residual by at most 10x over the cycle, the one with the smallest
 * summed log growth of the running shifts wins (none: the one with the smallest largest residual; on
 * the TI 8 x 8 x 4 with 8 right-hand sides, 101 energies: 10x gave 10% fewer shift updates than 1x,
 * and no bound at all a stall in test_idr_multishift). Only the
 * running shifts steer (not those whose estimate is below target: when their claims are checked depends
 * on the other right-hand sides of the solve, and the omegas of right-hand side j must not). */
static double complex choose_omega(const hm_idr_multishift *o, int j, double tt, double complex tv, double vv) {
  const double angle = o->base->opt.omega_angle;
  const double complex w0 = make_omega(tt, tv, vv, angle);
  if (!(tt > 0) || !(vv > 0)) return w0;
  double complex sigma[o->ns];
  double scaled[o->ns], now = -INFINITY;
  int na = 0;
  for (int q = 0; q < o->ns; q++) {
    const int col = q * o->k + j;
    if (o->state[col] != MS_RUNNING) continue;
    const double lest = log(fmax(o->est[col], 1e-300));
    sigma[na] = o->rel[col];
    scaled[na++] = exp(2 * lest / (o->s + 1));
    now = fmax(now, lest);
  }
  double complex best = w0, best_sum_w = w0;
  double sum, best_val = worst_after(o->s, na, sigma, scaled, w0, tt, tv, vv, &sum);
  double best_sum = best_val <= now + OMEGA_WORST_RISE ? sum : INFINITY;
  const int stride = (na + OMEGA_CANDIDATES - 1) / OMEGA_CANDIDATES;
  for (int i = 0; i < na; i += stride) {
    const double complex sg = sigma[i];
    if (sg == 0) continue;
    /* shift i's own omega from its t_i = t + sigma v: <t_i|t_i> and <t_i|v> from tt, tv, vv */
    const double tq = tt + 2 * creal(sg * tv) + creal(sg * conj(sg)) * vv;
    const double complex tqv = tv + conj(sg) * vv;
    if (!(tq > 0)) continue;
    const double complex wq = make_omega(tq, tqv, vv, angle);
    const double complex den = 1 - wq * sg;
    if (den == 0) continue;
    const double complex w = wq / den;
    if (!isfinite(cabs(w)) || w == 0) continue;
    const double val = worst_after(o->s, na, sigma, scaled, w, tt, tv, vv, &sum);
    if (val < best_val) {
      best_val = val;
      best = w;
    }
    if (val <= now + OMEGA_WORST_RISE && sum < best_sum) {
      best_sum = sum;
      best_sum_w = w;
    }
  }
  return isfinite(best_sum) ? best_sum_w : best;
}

/* One step of the seeds (all k at once) and the fused update of every shift. */
static int step(hm_idr_multishift *o) {
  const double t0 = MPI_Wtime();
  const int s = o->s, k = o->k, K = o->K, ns = o->ns;
  const int full = o->n >= s; /* the s differences exist: the IDR step proper */
  const int new_omega = !full || (o->n - s) % (s + 1) == 0;
  int run[k];
  double complex c[k][s];
  for (int j = 0; j < k; j++) {
    run[j] = seed_running(o, j);
    for (int l = 0; l < s; l++) c[j][l] = 0;
    if (run[j] && full && !small_solve(s, o->M + (size_t)j * s * s, o->m + (size_t)j * s, c[j])) {
      break_down(o, j);
      run[j] = 0;
    }
  }
  /* v = r - dR c */
  for (int j = 0; j < k; j++) {
    putc_(o->a, j, 1);
    for (int l = 0; l < s; l++) putc_(o->coef, (size_t)l * k + j, -c[j][l]);
  }
  HM_CALL(combine(o, o->v, o->r, full ? s : 0, o->dR));
  HM_CALL(seed_apply(o, o->v, o->t));
  if (new_omega) {
    double *buf = o->buf;
    HM_CALL(o->kern->dot(HM_COMPLEX, o->base->nlocal, k, o->t->data, o->t->data, buf));
    HM_CALL(o->kern->dot(HM_COMPLEX, o->base->nlocal, k, o->t->data, o->v->data, buf + 2 * k));
    HM_CALL(o->kern->dot(HM_COMPLEX, o->base->nlocal, k, o->v->data, o->v->data, buf + 4 * k));
    HM_CALL(allreduce(o, buf, 6 * k));
    const double t_omega = MPI_Wtime();
    for (int j = 0; j < k; j++) {
      o->omega[j] = 0;
      if (!run[j]) continue;
      const double tt = buf[2 * j], vv = buf[4 * k + 2 * j];
      const double complex w = choose_omega(o, j, tt, getc_(buf, (size_t)k + j), vv);
      if (!(tt > 0) || w == 0 || !isfinite(cabs(w))) {
        break_down(o, j);
        run[j] = 0;
        continue;
      }
      o->omega[j] = w;
    }
    o->prof.t_host_omega += MPI_Wtime() - t_omega;
  }
  /* dR_oldest = v - r - omega t; r += dR_oldest (a stopped seed: 0, r unchanged) */
  hm_mvec *XR[2] = {o->r, o->t};
  for (int j = 0; j < k; j++) {
    putc_(o->a, j, run[j] ? 1 : 0);
    putc_(o->coef, j, run[j] ? -1 : 0);
    putc_(o->coef, (size_t)k + j, run[j] ? -o->omega[j] : 0);
  }
  hm_mvec *dnew = o->dR[o->oldest];
  HM_CALL(combine(o, dnew, o->v, 2, XR));
  for (int j = 0; j < k; j++) {
    putc_(o->a, j, 1);
    putc_(o->coef, j, 1);
  }
  HM_CALL(combine(o, o->r, o->r, 1, &dnew));
  /* P^H dR_new and ||r||^2 in one reduction */
  double *buf = o->buf;
  HM_CALL(o->kern->idr_multidot(HM_COMPLEX, o->base->nlocal, s, o->base->P->data, k, dnew->data, buf));
  HM_CALL(o->kern->dot(HM_COMPLEX, o->base->nlocal, k, o->r->data, o->r->data, buf + 2 * (size_t)s * k));
  HM_CALL(allreduce(o, buf, 2 * (s + 1) * k));
  const double t_coef = MPI_Wtime();
  for (int j = 0; j < k; j++) {
    o->rnorm2[j] = buf[2 * ((size_t)s * k + j)];
    for (int a = 0; a < s; a++) {
      const double complex h = getc_(buf, (size_t)a * k + j);
      o->M[(size_t)j * s * s + a * s + o->oldest] = h;
      o->m[(size_t)j * s + a] += h;
    }
    if (run[j] && !isfinite(o->rnorm2[j])) {
      break_down(o, j);
      run[j] = 0;
    }
  }
  /* the shifts: coefficients of the fused update, then pi and the estimates */
  int age[s]; /* steps since slot l's difference was formed (1..s), 0: empty */
  for (int l = 0; l < s; l++) age[l] = o->stepof[l] >= 0 ? o->n - o->stepof[l] : 0;
  /* the packed systems (idr_multishift_packed.c); one that has stopped rides along with zeros */
  const int ncol = o->npacked;
  for (int p = 0; p < ncol; p++) {
    const int col = o->cols[p], j = col % k; /* right-hand side j of shift col / k */
    double complex *pi = o->pi + (size_t)col * (s + 1);
    double complex a = 0, cs[s];
    for (int l = 0; l < s; l++) cs[l] = 0;
    if (active(o, col) && run[j]) {
      o->prof.running_columns++;
      double complex gam[s + 1], e[s + 2];
      for (int i = 0; i <= s + 1; i++) e[i] = 0;
      for (int l = 0; l < s; l++)
        if (age[l]) e[age[l]] = c[j][l];
      gam[0] = 1 - e[1];
      for (int i = 1; i <= s; i++) gam[i] = e[i] - e[i + 1];
      double complex sum = 0;
      for (int i = 0; i <= s; i++) sum += gam[i] * pi[i];
      const double complex lambda = 1 / sum, f = 1 + o->omega[j] * o->rel[col];
      double complex es[s + 2];
      es[s + 1] = 0;
      for (int i = s; i >= 1; i--) es[i] = es[i + 1] + lambda * gam[i] * pi[i];
      for (int l = 0; l < s; l++)
        if (age[l]) cs[l] = -es[age[l]];
      a = o->omega[j] / f * lambda;
      const double complex next = f / lambda;
      if (!isfinite(cabs(next)) || next == 0 || !isfinite(cabs(a))) {
        /* a claimed shift far below tol (pi overflowed) waits for its check unchanged */
        if (o->state[col] != MS_CLAIMED) o->state[col] = HM_ERR_BREAKDOWN;
        a = 0;
        for (int l = 0; l < s; l++) cs[l] = 0;
      } else {
        for (int i = s; i >= 1; i--) pi[i] = pi[i - 1];
        pi[0] = next;
        o->its[col] = o->n + 1;
        o->est[col] = sqrt(o->rnorm2[j]) / cabs(next) / o->bnorm[j];
        if (o->state[col] == MS_RUNNING && o->est[col] <= o->target[col]) o->state[col] = MS_CLAIMED;
        else if (o->state[col] == MS_CLAIMED && o->est[col] > o->target[col]) o->state[col] = MS_RUNNING;
      }
    }
    putc_(o->a, p, a);
    for (int l = 0; l < s; l++) putc_(o->coef, (size_t)l * ncol + p, cs[l]);
  }
  const double *D[64];
  for (int l = 0; l < s; l++) D[l] = o->dX[l]->data;
  const double t1 = MPI_Wtime();
  o->prof.t_host_coef += t1 - t_coef;
  HM_CALL(o->kern->idr_shift_update(HM_COMPLEX, o->base->nlocal, k, ns, ncol, o->cols, s, o->v->data, o->a, D,
                                    o->coef, o->dX[o->oldest]->data, o->x->data));
  o->prof.t_seed += t1 - t0;
  o->prof.t_shift += MPI_Wtime() - t1;
  o->prof.shift_columns += ncol;
  o->prof.seed_steps++;
  o->stepof[o->oldest] = o->n;
  o->oldest = (o->oldest + 1) % s;
  o->n++;
  if (o->n >= o->base->opt.maxit)
    for (int col = 0; col < K; col++)
      if (active(o, col)) {
        o->state[col] = HM_ERR_NOT_CONVERGED;
        o->prof.maxit_columns++;
      }
  return HM_SUCCESS;
}

/* Copy the systems cols[0..m) of X into slots 0..m) of Y (k wide), system c from X's column src(c)
 * (b: c % k; x: at[c], or c itself where at is NULL), a run of consecutive sources in one copy. */
static int source_column(int k, int of_b, const int *at, int c) { return of_b ? c % k : at ? at[c] : c; }

static int gather_columns(const hm_mvec *X, int k, int of_b, const int *at, const int *cols, int m, hm_mvec *Y) {
  for (int i = 0; i < m;) {
    const int s0 = source_column(k, of_b, at, cols[i]);
    int len = 1;
    while (i + len < m && source_column(k, of_b, at, cols[i + len]) == s0 + len) len++;
    HM_CALL(hm_mvec_copy_columns(X, s0, Y, i, len));
    i += len;
  }
  return HM_SUCCESS;
}

/* The true relative residuals ||b_j - (A + shift_q) x_q,j|| / ||b_j|| of the columns c = q k + j with
 * want[c] set, into o->tru (the others' entries are kept): the wanted columns gathered k at a time into
 * one block (each with its own shift), one operator application of k columns per block, one reduction
 * for all of them. Only the wanted columns: a check at the end of an outer iteration costs its claimed
 * systems, not every system of their shifts (checking each shift with a claim whole would bring its
 * other right-hand sides' true residuals along). */
static int true_residuals(hm_idr_multishift *o, hm_mvec *b, const hm_mvec *x, const int *want) {
  const int k = o->k;
  const double t0 = MPI_Wtime();
  int nw = 0;
  for (int c = 0; c < o->K; c++) nw += want[c] != 0;
  if (!nw) return HM_SUCCESS;
  const int nblocks = (nw + k - 1) / k;
  double *sums = malloc(sizeof(double) * 2 * (size_t)k * nblocks);
  int *cols = malloc(sizeof(int) * (size_t)nw);
  int st = sums && cols ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                                      "could not allocate the residual norms of %d systems", nw);
  for (int c = 0, i = 0; c < o->K && !st; c++)
    if (want[c]) cols[i++] = c;
  for (int g = 0; g < nblocks && !st; g++) {
    const int *gc = cols + (size_t)g * k, m = nw - g * k < k ? nw - g * k : k;
    double complex alpha[k], beta[k], one[k];
    for (int i = 0; i < k; i++) {
      alpha[i] = i < m ? o->shift[gc[i] / k] : 0; /* a block's unused slots: left as they are, not read */
      beta[i] = -1;
      one[i] = 1;
    }
    st = gather_columns(x, k, 0, x == o->x ? o->at : NULL, gc, m, o->v); /* o->x: packed */
    if (!st) st = gather_columns(b, k, 1, NULL, gc, m, o->work);
    if (!st) st = hm_operator_apply(o->A, o->v, o->t);
    if (!st) st = hm_mvec_axpby(o->t, alpha, o->v, one);   /* t = (A + shift) x */
    if (!st) st = hm_mvec_axpby(o->t, one, o->work, beta); /* t = b - t */
    if (!st) st = o->kern->dot(HM_COMPLEX, o->base->nlocal, k, o->t->data, o->t->data, sums + 2 * (size_t)k * g);
    o->prof.check_products += k;
  }
  if (!st) st = allreduce(o, sums, 2 * k * nblocks);
  for (int i = 0; i < nw && !st; i++) {
    const double t = sqrt(sums[2 * (size_t)i]) / o->bnorm[cols[i] % k];
    o->tru[cols[i]] = isnan(t) ? INFINITY : t;
  }
  free(sums);
  free(cols);
  o->prof.t_check += MPI_Wtime() - t0;
  if (st) return hm_error_trace(st, __FILE__, __LINE__, __func__);
  return HM_SUCCESS;
}

/* At the end of an outer iteration, where shifts claim convergence: confirm them on their true
 * residuals (frozen from then on) or send them on with a tighter target. Only there (not also after any
 * step where no shift runs): when that happens depends on every right-hand side of the solve, and a
 * right-hand side's iterates must not depend on the others (e2e_green_multishift: groups of 3 and 4
 * against one solve to 1e-12). */
static int confirm(hm_idr_multishift *o, hm_mvec *b) {
  if (!count_state(o, MS_CLAIMED)) return HM_SUCCESS;
  int *want = o->want;
  for (int c = 0; c < o->K; c++) want[c] = o->state[c] == MS_CLAIMED;
  double before[o->K]; /* a system's true residual at its last failed check (0: none yet) */
  for (int c = 0; c < o->K; c++) before[c] = o->tru[c];
  HM_CALL(true_residuals(o, b, o->x, want));
  const double tol = o->base->opt.tol;
  for (int c = 0; c < o->K; c++) {
    if (o->state[c] != MS_CLAIMED) continue;
    if (o->tru[c] <= tol) {
      o->state[c] = HM_SUCCESS;
    } else if ((before[c] > 0 && o->tru[c] > 0.5 * before[c]) || o->test_stall_at > 0) {
      /* the recurrences' rounding (the gap between ||r|| / |pi| and b - (A + shift) x) stopped the
       * true residual from falling: more steps cannot help (a test's forced stall: at once) */
      o->state[c] = HM_ERR_NOT_CONVERGED;
      o->prof.stalled_columns++;
    } else {
      o->state[c] = MS_RUNNING;
      o->target[c] *= fmin(0.5, tol / o->tru[c]);
    }
  }
  return HM_SUCCESS;
}

static int start(hm_idr_multishift *o, hm_mvec *b) {
  const int k = o->k, s = o->s;
  HM_CALL(hm_mvec_copy_columns(b, 0, o->r, 0, k));
  HM_CALL(o->kern->dot(HM_COMPLEX, o->base->nlocal, k, b->data, b->data, o->buf));
  HM_CALL(o->kern->idr_multidot(HM_COMPLEX, o->base->nlocal, s, o->base->P->data, k, b->data, o->buf + 2 * k));
  HM_CALL(allreduce(o, o->buf, 2 * k * (s + 1)));
  for (int l = 0; l < s; l++) o->stepof[l] = -1;
  o->n = o->oldest = o->outer = 0;
  for (int j = 0; j < k; j++) {
    const double bb = o->buf[2 * j];
    o->seedof[j] = o->seed;
    o->bnorm[j] = bb > 0 ? sqrt(bb) : 1;
    o->rnorm2[j] = bb;
    for (int a = 0; a < s; a++) o->m[(size_t)j * s + a] = getc_(o->buf + 2 * k, (size_t)a * k + j);
    for (int q = 0; q < o->ns; q++) {
      const int c = q * k + j;
      for (int i = 0; i <= s; i++) o->pi[(size_t)c * (s + 1) + i] = 1;
      o->rel[c] = o->shift[q] - o->shift[o->seed];
      o->target[c] = fmax(o->base->opt.tol, o->test_stall_at);
      o->est[c] = bb > 0 ? 1 : 0;
      o->state[c] = !isfinite(bb) ? HM_ERR_BREAKDOWN : bb > 0 ? MS_RUNNING : HM_SUCCESS;
    }
  }
  return HM_SUCCESS;
}

/* y = (A + shift_i) x: column i of the batched polish with the shift of its own system. */
typedef struct {
  hm_operator *A;
  int m;                        /* the columns of the group being solved */
  double complex *alpha, *one;  /* [m]: the shifts of the group's columns, ones */
} shifted_op;

static int apply_shifted(hm_mvec *x, hm_mvec *y, void *user) {
  const shifted_op *so = user;
  int m = 0;
  HM_CALL(hm_mvec_size(x, NULL, &m));
  HM_CHECK(m == so->m, HM_ERR_INTERNAL, "the polish operator got %d columns; its group has %d", m, so->m);
  HM_CALL(hm_operator_apply(so->A, x, y));
  HM_CALL(hm_mvec_axpby(y, so->alpha, x, so->one));
  return HM_SUCCESS;
}

enum { POLISH_MOST_COLUMNS = 1024 }; /* hm_idr keeps a few k x s scalars per step on the stack */

/* The columns of one batched polish solve. Its IDR(s) holds 2s + 8 blocks (x, r, v, t, the smoothing
 * and check pairs, G, U) and the group's b and x: 2s + 10 columns per system. The shifts' directions
 * dX (s K columns) are released while polish runs, so groups of s K / (2s + 10) columns fit in what
 * the solve held (at least k: the per-shift polish this replaces solved k at once). */
static int polish_group_columns(const hm_idr_multishift *o) {
  if (o->polish_max_columns > 0) return o->polish_max_columns;
  long cap = (long)o->s * o->K / (2L * o->s + 10);
  if (cap < o->k) cap = o->k;
  return (int)(cap < POLISH_MOST_COLUMNS ? cap : POLISH_MOST_COLUMNS);
}

/* The directions dX are not read after the iteration: released for polish, made again (zero) after
 * it so that the state blocks stay valid. */
static int release_directions(hm_idr_multishift *o) {
  for (int l = 0; l < o->s; l++) hm_mvec_destroy(&o->dX[l]);
  return HM_SUCCESS;
}
static int restore_directions(hm_idr_multishift *o) {
  for (int l = 0; l < o->s; l++)
    if (!o->dX[l]) HM_CALL(hm_mvec_create(o->base->ctx, o->base->dist, HM_COMPLEX, o->K, &o->dX[l]));
  return HM_SUCCESS;
}

/* One batched IDR(s) of the m systems cols[0..m) (column c: shift c / k, right-hand side c % k) from
 * their iterates (x = 0 where the iterate is worse than 0); their iterations are added to the seed's. */
static int polish_group(hm_idr_multishift *o, hm_mvec *b, const int *cols, int m, hm_idr *idr, shifted_op *so) {
  const int k = o->k;
  hm_mvec *bg = NULL, *xg = NULL;
  int *its = malloc(sizeof(int) * (size_t)m);
  double complex *keep = calloc(2 * (size_t)m, sizeof(double complex)), *zero = keep + m;
  int st = its && keep ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                                     "could not allocate the polish of %d columns", m);
  if (!st) st = hm_mvec_create(o->base->ctx, o->base->dist, HM_COMPLEX, m, &bg);
  if (!st) st = hm_mvec_create(o->base->ctx, o->base->dist, HM_COMPLEX, m, &xg);
  for (int i = 0; i < m && !st; i++) {
    const int c = cols[i];
    st = hm_mvec_copy_columns(b, c % k, bg, i, 1);
    if (!st) st = hm_mvec_copy_columns(o->x, c, xg, i, 1);
    keep[i] = o->tru[c] < 1 ? 1 : 0;
    so->alpha[i] = o->shift[c / k];
    so->one[i] = 1;
  }
  so->m = m;
  if (!st) st = hm_mvec_axpby(xg, zero, xg, keep); /* an iterate worse than x = 0 is not a start */
  if (!st) {
    st = hm_idr_solve(idr, bg, xg);
    if (st == HM_ERR_NOT_CONVERGED || st == HM_ERR_BREAKDOWN) { /* decided by the true residual in finish */
      hm_error_clear();
      st = HM_SUCCESS;
    }
  }
  if (!st) st = hm_idr_systems(idr, its, NULL, NULL);
  for (int i = 0; i < m && !st; i++) {
    const int c = cols[i];
    st = hm_mvec_copy_columns(xg, i, o->x, c, 1);
    o->its[c] += its[i];
    o->state[c] = MS_CLAIMED;
    o->prof.polish_iterations += its[i];
  }
  o->prof.polish_solves++;
  o->prof.polish_columns += m;
  hm_mvec_destroy(&bg);
  hm_mvec_destroy(&xg);
  free(its);
  free(keep);
  if (st) return hm_error_trace(st, __FILE__, __LINE__, __func__);
  return HM_SUCCESS;
}

/* The systems whose true residual stayed above tol (the shared recurrences' rounding grows where
 * |1 + omega (shift - seed)| is small) are finished by IDR(s) on their own systems, all in one
 * batched solve (in groups of polish_group_columns): hm_idr's columns are independent systems (each
 * its own s x s system, omega and smoothing; only the shadow space P is shared), so column i with its
 * own shift solves (A + shift_i) x_i = b_i as it would alone, and the GPU runs one iteration for all
 * of them instead of one per shift. */
static int polish(hm_idr_multishift *o, hm_mvec *b) {
  int *want = o->want, ncols = 0;
  for (int c = 0; c < o->K; c++) {
    want[c] = o->state[c] == HM_ERR_NOT_CONVERGED;
    ncols += want[c];
  }
  if (!ncols) return HM_SUCCESS;
  HM_CALL(true_residuals(o, b, o->x, want)); /* whether each iterate is a better start than 0 */
  const int cap = polish_group_columns(o) < ncols ? polish_group_columns(o) : ncols;
  int *cols = malloc(sizeof(int) * (size_t)ncols);
  shifted_op so = {o->A, 0, malloc(sizeof(double complex) * (size_t)cap), malloc(sizeof(double complex) * (size_t)cap)};
  hm_operator *op = NULL;
  hm_idr *idr = NULL;
  int st = cols && so.alpha && so.one ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                                                     "could not allocate the polish of %d columns", ncols);
  for (int c = 0, i = 0; c < o->K && !st; c++)
    if (o->state[c] == HM_ERR_NOT_CONVERGED) cols[i++] = c;
  hm_idr_options opt = o->base->opt;
  opt.checkpoint_every = 0;
  opt.checkpoint_seconds = 0;
  opt.checkpoint = NULL;
  opt.stop = NULL;
  opt.history = 0;
  if (!st) st = release_directions(o);
  if (!st) st = hm_operator_create_shell(o->base->ctx, o->base->dist, HM_COMPLEX, apply_shifted, &so, &op);
  if (!st) st = hm_idr_create(op, &opt, &idr);
  for (int g = 0; g < ncols && !st; g += cap)
    st = polish_group(o, b, cols + g, ncols - g < cap ? ncols - g : cap, idr, &so);
  hm_idr_destroy(&idr);
  hm_operator_destroy(&op);
  if (!st) st = restore_directions(o);
  free(cols);
  free(so.alpha);
  free(so.one);
  if (st) return hm_error_trace(st, __FILE__, __LINE__, __func__);
  return HM_SUCCESS;
}

static int finish(hm_idr_multishift *o, hm_mvec *b, hm_mvec *x) {
  const double t0 = MPI_Wtime();
  HM_CALL(polish(o, b));
  o->prof.t_polish += MPI_Wtime() - t0;
  HM_CALL(hm_mvec_copy_columns(o->x, 0, x, 0, o->K));
  int *want = o->want;
  for (int c = 0; c < o->K; c++) want[c] = 1;
  HM_CALL(true_residuals(o, b, x, want));
  for (int c = 0; c < o->K; c++)
    if (o->state[c] == MS_CLAIMED) o->state[c] = o->tru[c] <= o->base->opt.tol ? HM_SUCCESS : HM_ERR_NOT_CONVERGED;
  int broke = 0, unconverged = 0, first = -1;
  for (int c = 0; c < o->K; c++) {
    if (active(o, c)) o->state[c] = HM_ERR_NOT_CONVERGED;
    if (o->state[c] == HM_SUCCESS && o->tru[c] > o->base->opt.tol) o->state[c] = HM_ERR_NOT_CONVERGED;
    if (o->state[c] == HM_ERR_BREAKDOWN) broke++;
    if (o->state[c] != HM_SUCCESS && first < 0) first = c;
    if (o->state[c] == HM_ERR_NOT_CONVERGED) unconverged++;
  }
  if (first < 0) {
    o->status = HM_SUCCESS;
    return HM_SUCCESS;
  }
  o->status = broke ? HM_ERR_BREAKDOWN : HM_ERR_NOT_CONVERGED;
  const int q = first / o->k, j = first % o->k;
  return hm_error_raise(o->status, __FILE__, __LINE__, __func__,
                        "multi-shift IDR(%d): %d of %d systems broke down, %d did not converge within maxit = %d "
                        "seed iterations (tol = %.3e); first: right-hand side %d, shift %d (%g%+gi): estimated "
                        "residual %.3e, true %.3e", o->s, broke, o->K, unconverged, o->base->opt.maxit,
                        o->base->opt.tol, j, q, creal(o->shift[q]), cimag(o->shift[q]), o->est[first],
                        o->tru[first]);
}

static int any_active(const hm_idr_multishift *o) {
  for (int c = 0; c < o->K; c++)
    if (active(o, c)) return 1;
  return 0;
}

static int solve(hm_idr_multishift *o, hm_mvec *b, hm_mvec *x) {
  const hm_idr *base = o->base;
  HM_CHECK(b != x, HM_ERR_ARGUMENT, "b and x must be distinct blocks");
  HM_CHECK(b->type == HM_COMPLEX && x->type == HM_COMPLEX, HM_ERR_ARGUMENT, "b and x must be complex blocks");
  HM_CHECK(b->k >= 1 && x->k == b->k * o->ns, HM_ERR_ARGUMENT,
           "x has %d columns; it must have k x nshifts = %d x %d (b's columns times the shifts)", x->k, b->k, o->ns);
  HM_CHECK(b->dist.local == base->nlocal && x->dist.local == base->nlocal && b->dist.n_global == base->nglobal &&
           x->dist.n_global == base->nglobal, HM_ERR_ARGUMENT,
           "b and x must have the operator's rows (%lld global, %lld here)", (long long)base->nglobal,
           (long long)base->nlocal);
  HM_CHECK(!(base->opt.checkpoint_every || base->opt.checkpoint_seconds > 0) || o->checkpoint, HM_ERR_ARGUMENT,
           "checkpoints are asked for (checkpoint_every = %d, checkpoint_seconds = %g) but no callback is set "
           "(hm_idr_multishift_set_checkpoint)", base->opt.checkpoint_every, base->opt.checkpoint_seconds);
  if (o->restored) {
    HM_CHECK(b->k == o->k, HM_ERR_ARGUMENT, "the restored state has %d right-hand sides, b has %d", o->k, b->k);
    o->restored = 0;
  } else {
    HM_CALL(hm_idr_multishift_alloc_state(o, b->k));
    HM_CALL(start(o, b));
  }
  o->status = HM_ERR_NOT_CONVERGED;
  memset(&o->prof, 0, sizeof o->prof);
  const double t_start = MPI_Wtime();
  double t_checkpoint = t_start;
  while (any_active(o)) {
    /* an outer iteration: the s starting steps, then cycles of s + 1 steps */
    const int steps = o->n < o->s ? o->s - o->n : o->s + 1 - (o->n - o->s) % (o->s + 1);
    for (int i = 0; i < steps && any_active(o); i++) {
      HM_CALL(step(o));
    }
    HM_CALL(confirm(o, b));
    o->outer++;
    if (!any_active(o)) break;
    HM_CALL(hm_idr_multishift_repack(o));
    int due = 0;
    HM_CALL(hm_checkpoint_due(o->base->ctx->comm, o->outer, o->base->opt.checkpoint_every,
                              o->base->opt.checkpoint_seconds, t_checkpoint, &due));
    if (due) {
      HM_CALL(hm_idr_multishift_unpack(o));
      const int st = o->checkpoint(o, o->checkpoint_user);
      HM_CHECK(st == 0, st > 0 && st <= HM_ERR_STOPPED ? st : HM_ERR_INTERNAL,
               "the checkpoint callback returned status %d after outer iteration %d", st, o->outer);
      t_checkpoint = MPI_Wtime();
    }
    if (base->opt.stop && base->opt.stop(base->opt.stop_user)) {
      HM_CALL(hm_idr_multishift_unpack(o));
      HM_RAISE(HM_ERR_STOPPED, "stopped on request after outer iteration %d (the state is complete: checkpoint it)",
               o->outer);
    }
  }
  HM_CALL(hm_idr_multishift_unpack(o));
  HM_CALL(finish(o, b, x));
  o->prof.t_total = MPI_Wtime() - t_start;
  return HM_SUCCESS;
}

int hm_idr_multishift_solve(hm_idr_multishift *ms, hm_mvec *b, hm_mvec *x) {
  HM_CHECK(ms && b && x, HM_ERR_ARGUMENT, "ms, b or x is NULL");
  const int blas_threads = hm_blas_threads_single();
  ms->xout = x;
  const int st = solve(ms, b, x);
  ms->xout = NULL;
  hm_blas_threads_restore(blas_threads);
  if (st) {
    ms->status = st;
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  return HM_SUCCESS;
}
