/* IDR(s): options, the shadow space, results and checkpoint state (the iteration is idr_solve.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "error_macros.h"
#include "idr_internal.h"

int hm_idr_options_default(hm_idr_options *opt) {
  HM_CHECK(opt, HM_ERR_ARGUMENT, "opt is NULL");
  memset(opt, 0, sizeof(*opt));
  opt->s = 4;
  opt->smoothing = 1;
  opt->tol = 1e-8;
  opt->maxit = 10000;
  opt->omega_angle = 0.7;
  opt->precond = HM_IDR_PRECOND_NONE;
  opt->seed = 1;
  opt->history = 1;
  return HM_SUCCESS;
}

static int check_options(const hm_idr_options *o, hm_scalar type, const hm_dist *dist) {
  HM_CHECK(o->s >= 1 && o->s <= 64, HM_ERR_ARGUMENT, "s = %d: the shadow space dimension must be 1 <= s <= 64", o->s);
  HM_CHECK(o->s <= dist->n_global, HM_ERR_ARGUMENT, "s = %d exceeds the %lld rows of the operator", o->s,
           (long long)dist->n_global);
  HM_CHECK(o->smoothing == 0 || o->smoothing == 1, HM_ERR_ARGUMENT, "smoothing = %d: must be 0 or 1", o->smoothing);
  HM_CHECK(isfinite(o->tol) && o->tol >= 0, HM_ERR_ARGUMENT, "tol = %g: the relative tolerance must be >= 0", o->tol);
  HM_CHECK(o->maxit >= 1, HM_ERR_ARGUMENT, "maxit = %d: must be >= 1", o->maxit);
  HM_CHECK(o->omega_angle >= 0 && o->omega_angle < 1, HM_ERR_ARGUMENT,
           "omega_angle = %g: must be 0 <= angle < 1 (0.7 recommended, 0 = minimal residual omega)", o->omega_angle);
  HM_CHECK(o->residual_replacement >= 0, HM_ERR_ARGUMENT,
           "residual_replacement = %d: must be >= 0 (outer iterations; 0 = off)", o->residual_replacement);
  HM_CHECK(o->history == 0 || o->history == 1, HM_ERR_ARGUMENT, "history = %d: must be 0 or 1", o->history);
  HM_CHECK(o->checkpoint_every >= 0, HM_ERR_ARGUMENT, "checkpoint_every = %d: must be >= 0 (0 = off)",
           o->checkpoint_every);
  HM_CHECK(o->checkpoint_every == 0 || o->checkpoint, HM_ERR_ARGUMENT,
           "checkpoint_every = %d but no checkpoint callback is set", o->checkpoint_every);
  HM_CHECK(o->checkpoint_seconds >= 0 && (o->checkpoint_seconds == 0 || o->checkpoint), HM_ERR_ARGUMENT,
           "checkpoint_seconds = %g: must be >= 0 (0 = off), and > 0 needs a checkpoint callback", o->checkpoint_seconds);
  switch (o->precond) {
    case HM_IDR_PRECOND_NONE: break;
    case HM_IDR_PRECOND_USER: {
      HM_CHECK(o->precond_op, HM_ERR_ARGUMENT, "precond = HM_IDR_PRECOND_USER needs precond_op (y = K^-1 x)");
      const hm_dist *pd;
      hm_scalar pt;
      HM_CALL(hm_operator_info(o->precond_op, &pd, &pt));
      HM_CHECK(pt == type && pd->local == dist->local && pd->n_global == dist->n_global, HM_ERR_ARGUMENT,
               "precond_op acts on %lld rows of type %d; the operator on %lld rows of type %d",
               (long long)pd->n_global, (int)pt, (long long)dist->n_global, (int)type);
      break;
    }
    case HM_IDR_PRECOND_JACOBI: {
      HM_CHECK(o->precond_diagonal, HM_ERR_ARGUMENT,
               "precond = HM_IDR_PRECOND_JACOBI needs precond_diagonal (the operator's diagonal, one column)");
      const hm_mvec *d = o->precond_diagonal;
      HM_CHECK(d->k == 1 && d->type == type && d->dist.local == dist->local && d->dist.n_global == dist->n_global,
               HM_ERR_ARGUMENT, "precond_diagonal must be one column of the operator's type and rows (has %d columns "
               "of type %d over %lld rows)", d->k, (int)d->type, (long long)d->dist.n_global);
      break;
    }
    default:
      HM_RAISE(HM_ERR_ARGUMENT, "precond = %d: must be HM_IDR_PRECOND_NONE (0), _JACOBI (1) or _USER (2)",
               (int)o->precond);
  }
  return HM_SUCCESS;
}

/* P = the random-phase block made orthonormal (Cholesky QR): P^H P = I on every rank count. */
static int make_shadow_space(hm_idr *idr) {
  const int s = idr->s;
  hm_mvec *raw = NULL;
  double complex *S = NULL, *C = NULL;
  double *G = NULL, *Cd = NULL;
  int st = HM_SUCCESS;
  HM_CALL_GOTO(st, done, hm_mvec_create(idr->ctx, idr->dist, idr->type, s, &raw));
  HM_CALL_GOTO(st, done, hm_mvec_create(idr->ctx, idr->dist, idr->type, s, &idr->P));
  HM_CALL_GOTO(st, done, hm_mvec_random_phase(raw, idr->opt.seed));
  G = calloc((size_t)s * s * 2, sizeof(double));
  Cd = calloc((size_t)s * s * 2, sizeof(double));
  S = calloc((size_t)s * s, sizeof(double complex));
  C = calloc((size_t)s * s, sizeof(double complex));
  if (!G || !Cd || !S || !C) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %d x %d factors", s, s);
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_mvec_gram(raw, raw, G));
  for (int q = 0; q < s * s; q++) S[q] = idr->ts == 2 ? G[2 * q] + I * G[2 * q + 1] : G[q];
  /* S = R^H R with R upper triangular, stored in S's upper part. */
  for (int a = 0; a < s; a++) {
    double complex d = S[a * s + a];
    for (int q = 0; q < a; q++) d -= conj(S[q * s + a]) * S[q * s + a];
    if (!(creal(d) > 1e-10 * creal(S[a * s + a]))) {
      st = hm_error_raise(HM_ERR_NUMERIC, __FILE__, __LINE__, __func__,
                          "the %d random shadow vectors (seed %llu) are linearly dependent on %lld rows; "
                          "choose a smaller s or another seed", s, (unsigned long long)idr->opt.seed,
                          (long long)idr->nglobal);
      goto done;
    }
    const double rd = sqrt(creal(d));
    S[a * s + a] = rd;
    for (int b = a + 1; b < s; b++) {
      double complex e = S[a * s + b];
      for (int q = 0; q < a; q++) e -= conj(S[q * s + a]) * S[q * s + b];
      S[a * s + b] = e / rd;
    }
  }
  /* C = R^-1 (upper triangular), column by column. */
  for (int b = 0; b < s; b++) {
    C[b * s + b] = 1.0 / S[b * s + b];
    for (int a = b - 1; a >= 0; a--) {
      double complex e = 0;
      for (int q = a + 1; q <= b; q++) e += S[a * s + q] * C[q * s + b];
      C[a * s + b] = -e / S[a * s + a];
    }
  }
  for (int q = 0; q < s * s; q++) {
    Cd[idr->ts * q] = creal(C[q]);
    if (idr->ts == 2) Cd[2 * q + 1] = cimag(C[q]);
  }
  const double zero[2] = {0, 0};
  HM_CALL_GOTO(st, done, hm_mvec_update(idr->P, zero, raw, Cd));
done:
  hm_mvec_destroy(&raw);
  free(G);
  free(Cd);
  free(S);
  free(C);
  return st;
}

/* The inverse of the Jacobi diagonal; a zero entry on any rank is an error on every rank. */
static int make_inverse_diagonal(hm_idr *idr) {
  const int64_t n = idr->nlocal;
  const int ts = idr->ts;
  double *d;
  HM_MALLOC(d, (size_t)(n > 0 ? n : 1) * ts);
  int st = hm_mvec_get(idr->opt.precond_diagonal, d);
  long long bad = -1;
  for (int64_t i = 0; i < n && !st; i++) {
    const double complex z = ts == 2 ? d[2 * i] + I * d[2 * i + 1] : d[i];
    if (z == 0 || !isfinite(cabs(z))) {
      if (bad < 0) bad = (long long)(idr->dist->first + i);
      continue;
    }
    const double complex w = 1.0 / z;
    d[ts * i] = creal(w);
    if (ts == 2) d[ts * i + 1] = cimag(w);
  }
  long long first_bad = bad < 0 ? -1 : bad, any = -1;
  if (!st) MPI_Allreduce(&first_bad, &any, 1, MPI_LONG_LONG, MPI_MAX, idr->ctx->comm);
  if (!st && any >= 0)
    st = hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__,
                        "the Jacobi diagonal is zero or not finite at global row %lld", any);
  if (!st) st = hm_mvec_create(idr->ctx, idr->dist, idr->type, 1, &idr->dinv);
  if (!st) st = hm_mvec_set(idr->dinv, d);
  free(d);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_idr_create(hm_operator *A, const hm_idr_options *opt, hm_idr **idr) {
  HM_CHECK(idr, HM_ERR_ARGUMENT, "idr is NULL");
  *idr = NULL;
  HM_CHECK(A && opt, HM_ERR_ARGUMENT, "A or opt is NULL");
  const hm_dist *dist;
  hm_scalar type;
  HM_CALL(hm_operator_info(A, &dist, &type));
  HM_CALL(check_options(opt, type, dist));
  hm_idr *o;
  HM_MALLOC(o, 1);
  o->A = A;
  HM_CALL(hm_operator_context(A, &o->ctx));
  o->kern = o->ctx->kernels;
  o->opt = *opt;
  o->type = type;
  o->ts = (int)type;
  o->dist = dist;
  o->nlocal = dist->local;
  o->nglobal = dist->n_global;
  o->s = opt->s;
  o->status = HM_SUCCESS;
  int st = make_shadow_space(o);
  if (!st && opt->precond == HM_IDR_PRECOND_JACOBI) st = make_inverse_diagonal(o);
  if (st) {
    hm_idr_destroy(&o);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  *idr = o;
  return HM_SUCCESS;
}

static void free_state(hm_idr *o) {
  hm_mvec_destroy(&o->x);
  hm_mvec_destroy(&o->r);
  hm_mvec_destroy(&o->dx);
  hm_mvec_destroy(&o->dr);
  hm_mvec_destroy(&o->check_x);
  hm_mvec_destroy(&o->check_r);
  hm_mvec_destroy(&o->v);
  hm_mvec_destroy(&o->t);
  for (int i = 0; i < o->s; i++) {
    if (o->G) hm_mvec_destroy(&o->G[i]);
    if (o->U) hm_mvec_destroy(&o->U[i]);
  }
  free(o->G);
  free(o->U);
  free(o->M);
  free(o->f);
  free(o->omega);
  free(o->sigma);
  free(o->bnorm);
  free(o->rnorm2);
  free(o->res);
  free(o->true_res);
  free(o->its);
  free(o->state);
  free(o->restarted_at);
  free(o->reason);
  free(o->hist);
  free(o->coef);
  free(o->a);
  free(o->beta);
  free(o->sig);
  free(o->dots);
  free(o->gram);
  o->G = o->U = NULL;
  o->M = o->f = o->omega = o->sigma = NULL;
  o->bnorm = o->rnorm2 = o->res = o->true_res = o->hist = NULL;
  o->its = o->state = o->restarted_at = NULL;
  o->reason = NULL;
  o->coef = o->a = o->beta = o->sig = o->dots = o->gram = NULL;
  o->k = 0;
}

int hm_idr_destroy(hm_idr **idr) {
  if (!idr || !*idr) return HM_SUCCESS;
  free_state(*idr);
  hm_mvec_destroy(&(*idr)->P);
  hm_mvec_destroy(&(*idr)->dinv);
  free(*idr);
  *idr = NULL;
  return HM_SUCCESS;
}

int hm_idr_alloc_state(hm_idr *o, int k) {
  /* Made anew for every solve: fresh blocks are zero (G = U = 0, no smoothing differences). */
  const int s = o->s, ts = o->ts;
  const size_t hl = o->opt.history ? (size_t)o->opt.maxit + 1 : 1;
  free_state(o);
  HM_MALLOC(o->G, s);
  HM_MALLOC(o->U, s);
  HM_MALLOC(o->M, (size_t)k * s * s);
  HM_MALLOC(o->f, (size_t)k * s);
  HM_MALLOC(o->omega, k);
  HM_MALLOC(o->sigma, k);
  HM_MALLOC(o->bnorm, k);
  HM_MALLOC(o->rnorm2, k);
  HM_MALLOC(o->res, k);
  HM_MALLOC(o->true_res, k);
  HM_MALLOC(o->its, k);
  HM_MALLOC(o->state, k);
  HM_MALLOC(o->restarted_at, k);
  HM_MALLOC(o->reason, (size_t)k * IDR_REASON_LEN);
  HM_MALLOC(o->hist, (size_t)k * hl);
  HM_MALLOC(o->coef, (size_t)s * k * ts);
  HM_MALLOC(o->a, (size_t)k * ts);
  HM_MALLOC(o->beta, (size_t)k * ts);
  HM_MALLOC(o->sig, (size_t)k * ts);
  HM_MALLOC(o->dots, (size_t)3 * k * ts);
  HM_MALLOC(o->gram, (size_t)s * k * ts);
  o->k = k;
  HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->x));
  HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->r));
  HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->v));
  HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->t));
  if (o->opt.smoothing) {
    HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->dx));
    HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->dr));
  }
  HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->check_x));
  HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->check_r));
  for (int i = 0; i < s; i++) {
    HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->G[i]));
    HM_CALL(hm_mvec_create(o->ctx, o->dist, o->type, k, &o->U[i]));
  }
  /* M = I, omega = 1, nothing pending */
  for (int j = 0; j < k; j++) {
    for (int a = 0; a < s; a++) o->M[(size_t)j * s * s + a * s + a] = 1;
    o->omega[j] = 1;
    o->sigma[j] = 1;
    o->its[j] = 0;
    o->restarted_at[j] = -1;
    o->state[j] = IDR_RUNNING;
    o->reason[(size_t)j * IDR_REASON_LEN] = 0;
    o->res[j] = o->true_res[j] = 0;
  }
  o->outer = 0;
  return HM_SUCCESS;
}

/* ---- results ---- */

static int check_solved(const hm_idr *idr) {
  HM_CHECK(idr, HM_ERR_ARGUMENT, "idr is NULL");
  HM_CHECK(idr->k > 0, HM_ERR_ARGUMENT, "no results yet: call hm_idr_solve first");
  return HM_SUCCESS;
}

int hm_idr_info(const hm_idr *idr, int *k, int *status) {
  HM_CHECK(idr, HM_ERR_ARGUMENT, "idr is NULL");
  if (k) *k = idr->k;
  if (status) *status = idr->status;
  return HM_SUCCESS;
}

int hm_idr_systems(const hm_idr *idr, int *iterations, int *converged, int *status) {
  HM_CALL(check_solved(idr));
  for (int j = 0; j < idr->k; j++) {
    if (iterations) iterations[j] = idr->its[j];
    if (converged) converged[j] = idr->state[j] == HM_SUCCESS;
    if (status) status[j] = idr->state[j] == IDR_RUNNING ? HM_ERR_NOT_CONVERGED : idr->state[j];
  }
  return HM_SUCCESS;
}

int hm_idr_residuals(const hm_idr *idr, double *recursive, double *true_residual) {
  HM_CALL(check_solved(idr));
  for (int j = 0; j < idr->k; j++) {
    if (recursive) recursive[j] = idr->res[j];
    if (true_residual) true_residual[j] = idr->true_res[j];
  }
  return HM_SUCCESS;
}

int hm_idr_history(const hm_idr *idr, int system, double *values, int capacity, int *length) {
  HM_CALL(check_solved(idr));
  HM_CHECK(idr->opt.history, HM_ERR_ARGUMENT, "the history is off (options.history = 0)");
  HM_CHECK(system >= 0 && system < idr->k, HM_ERR_ARGUMENT, "system %d: must be 0 <= system < %d", system, idr->k);
  HM_CHECK(length, HM_ERR_ARGUMENT, "length is NULL");
  const int len = idr->its[system] + 1;
  *length = len;
  if (values) {
    HM_CHECK(capacity >= len, HM_ERR_ARGUMENT, "capacity %d < history length %d", capacity, len);
    memcpy(values, idr->hist + (size_t)system * ((size_t)idr->opt.maxit + 1), sizeof(double) * (size_t)len);
  }
  return HM_SUCCESS;
}

/* ---- checkpoints ---- */

enum { HEAD = 4, PER_SYSTEM = 10 }; /* k, s, outer, type | omega (2), its, state, bnorm, rnorm2, res, true, 2 spare */

static int history_len(const hm_idr *idr) { return idr->opt.history ? idr->opt.maxit + 1 : 0; }

int hm_idr_state_size(const hm_idr *idr, int *nblocks, int *nscalars) {
  HM_CALL(check_solved(idr));
  if (nblocks) *nblocks = 2 + 2 * idr->s + (idr->opt.smoothing ? 2 : 0);
  if (nscalars) *nscalars = HEAD + idr->k * (PER_SYSTEM + 2 * idr->s * idr->s + history_len(idr));
  return HM_SUCCESS;
}

int hm_idr_state_block(hm_idr *idr, int i, hm_mvec **block) {
  int nb = 0;
  HM_CALL(hm_idr_state_size(idr, &nb, NULL));
  HM_CHECK(block, HM_ERR_ARGUMENT, "block is NULL");
  HM_CHECK(i >= 0 && i < nb, HM_ERR_ARGUMENT, "state block %d: must be 0 <= i < %d", i, nb);
  const int s = idr->s;
  *block = i == 0 ? idr->x : i == 1 ? idr->r : i < 2 + s ? idr->G[i - 2] : i < 2 + 2 * s ? idr->U[i - 2 - s]
           : i == 2 + 2 * s ? idr->dx : idr->dr;
  return HM_SUCCESS;
}

int hm_idr_state_get(const hm_idr *idr, double *out) {
  HM_CALL(check_solved(idr));
  HM_CHECK(out, HM_ERR_ARGUMENT, "scalars is NULL");
  for (int j = 0; j < idr->k; j++)
    HM_CHECK(idr->sigma[j] == 1, HM_ERR_ARGUMENT,
             "the state is complete only at checkpoints and after a solve (smoothing factor pending)");
  const int s = idr->s, hl = history_len(idr);
  out[0] = idr->k;
  out[1] = s;
  out[2] = idr->outer;
  out[3] = idr->ts;
  double *p = out + HEAD;
  for (int j = 0; j < idr->k; j++) {
    p[0] = creal(idr->omega[j]);
    p[1] = cimag(idr->omega[j]);
    p[2] = idr->its[j];
    p[3] = idr->state[j];
    p[4] = idr->bnorm[j];
    p[5] = idr->rnorm2[j];
    p[6] = idr->res[j];
    p[7] = idr->true_res[j];
    p[8] = p[9] = 0;
    p += PER_SYSTEM;
    for (int q = 0; q < s * s; q++) {
      p[2 * q] = creal(idr->M[(size_t)j * s * s + q]);
      p[2 * q + 1] = cimag(idr->M[(size_t)j * s * s + q]);
    }
    p += 2 * s * s;
    if (hl) memcpy(p, idr->hist + (size_t)j * hl, sizeof(double) * (size_t)hl);
    p += hl;
  }
  return HM_SUCCESS;
}

int hm_idr_restore(hm_idr *idr, int k, const double *in) {
  HM_CHECK(idr && in, HM_ERR_ARGUMENT, "idr or scalars is NULL");
  HM_CHECK(k >= 1, HM_ERR_ARGUMENT, "k = %d systems: must be >= 1", k);
  HM_CHECK(in[0] == k && in[1] == idr->s && in[3] == idr->ts, HM_ERR_ARGUMENT,
           "the saved state is of k = %g systems, s = %g, type %g; this solver has k = %d, s = %d, type %d", in[0],
           in[1], in[3], k, idr->s, idr->ts);
  HM_CALL(hm_idr_alloc_state(idr, k));
  const int s = idr->s, hl = history_len(idr);
  idr->outer = (int)in[2];
  const double *p = in + HEAD;
  for (int j = 0; j < k; j++) {
    idr->omega[j] = p[0] + I * p[1];
    idr->its[j] = (int)p[2];
    idr->state[j] = (int)p[3];
    idr->bnorm[j] = p[4];
    idr->rnorm2[j] = p[5];
    idr->res[j] = p[6];
    idr->true_res[j] = p[7];
    HM_CHECK(idr->its[j] >= 0 && idr->its[j] <= idr->opt.maxit, HM_ERR_ARGUMENT,
             "saved iterations %d of system %d are outside [0, maxit = %d]", idr->its[j], j, idr->opt.maxit);
    if (idr->state[j] == HM_ERR_BREAKDOWN)
      snprintf(idr->reason + (size_t)j * IDR_REASON_LEN, IDR_REASON_LEN, "broke down before the checkpoint");
    p += PER_SYSTEM;
    for (int q = 0; q < s * s; q++) idr->M[(size_t)j * s * s + q] = p[2 * q] + I * p[2 * q + 1];
    p += 2 * s * s;
    if (hl) memcpy(idr->hist + (size_t)j * hl, p, sizeof(double) * (size_t)hl);
    p += hl;
  }
  idr->restored = 1;
  return HM_SUCCESS;
}
