/* Multi-shift IDR(s): the object, its results and checkpoint state (the iteration is
 * idr_multishift_solve.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "idr_multishift_internal.h"

enum { MAX_SHIFTS = 1000 };

int hm_idr_multishift_create(hm_operator *A, const hm_idr_options *opt, int nshifts, const double _Complex *shifts,
                             hm_idr_multishift **ms) {
  HM_CHECK(ms, HM_ERR_ARGUMENT, "ms is NULL");
  *ms = NULL;
  HM_CHECK(A && opt && shifts, HM_ERR_ARGUMENT, "A, opt or shifts is NULL");
  HM_CHECK(nshifts >= 1 && nshifts <= MAX_SHIFTS, HM_ERR_ARGUMENT, "nshifts = %d: must be 1 <= nshifts <= %d",
           nshifts, MAX_SHIFTS);
  HM_CHECK(opt->precond == HM_IDR_PRECOND_NONE, HM_ERR_ARGUMENT,
           "precond = %d: a preconditioner is not shift-invariant, so the shifts cannot share one Krylov space; "
           "multi-shift IDR(s) needs precond = HM_IDR_PRECOND_NONE (solve preconditioned shifts one at a time "
           "with hm_idr_solve)", (int)opt->precond);
  for (int q = 0; q < nshifts; q++)
    HM_CHECK(isfinite(creal(shifts[q])) && isfinite(cimag(shifts[q])), HM_ERR_ARGUMENT,
             "shift %d is not finite (%g%+gi)", q, creal(shifts[q]), cimag(shifts[q]));
  hm_scalar type;
  HM_CALL(hm_operator_info(A, NULL, &type));
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "multi-shift IDR(s) needs a complex operator (the shifts are "
           "complex); this one is real: make it complex (hm_matrix of HM_COMPLEX or a shifted operator)");
  hm_idr_options base_opt = *opt; /* the base object holds the shadow space; checkpoints are ours */
  base_opt.checkpoint_every = 0;
  base_opt.checkpoint_seconds = 0;
  base_opt.checkpoint = NULL;
  hm_idr *base;
  HM_CALL(hm_idr_create(A, &base_opt, &base));
  hm_idr_multishift *o = calloc(1, sizeof *o);
  if (o) {
    o->shift = calloc((size_t)nshifts, sizeof(double complex));
    o->stepof = calloc((size_t)opt->s, sizeof(int));
  }
  if (!o || !o->shift || !o->stepof) {
    hm_idr_destroy(&base);
    if (o) {
      free(o->shift);
      free(o->stepof);
    }
    free(o);
    HM_RAISE(HM_ERR_MEMORY, "could not allocate the multi-shift solver of %d shifts", nshifts);
  }
  o->base = base;
  o->base->opt.checkpoint_every = opt->checkpoint_every; /* kept for the solve's decisions */
  o->base->opt.checkpoint_seconds = opt->checkpoint_seconds;
  o->A = A;
  o->kern = base->kern;
  o->s = opt->s;
  o->ns = nshifts;
  /* the seed: the hardest shift, the one nearest the (real) spectrum of a Hermitian A */
  o->seed = 0;
  for (int q = 0; q < nshifts; q++) {
    o->shift[q] = shifts[q];
    if (fabs(cimag(shifts[q])) < fabs(cimag(shifts[o->seed]))) o->seed = q;
  }
  o->status = HM_SUCCESS;
  *ms = o;
  return HM_SUCCESS;
}

static void free_state(hm_idr_multishift *o) {
  hm_mvec_destroy(&o->r);
  hm_mvec_destroy(&o->x);
  hm_mvec_destroy(&o->v);
  hm_mvec_destroy(&o->t);
  hm_mvec_destroy(&o->work);
  for (int l = 0; l < o->s; l++) {
    if (o->dR) hm_mvec_destroy(&o->dR[l]);
    if (o->dX) hm_mvec_destroy(&o->dX[l]);
  }
  free(o->dR);
  free(o->dX);
  free(o->seedof);
  free(o->rel);
  free(o->M);
  free(o->m);
  free(o->omega);
  free(o->pi);
  free(o->bnorm);
  free(o->rnorm2);
  free(o->est);
  free(o->tru);
  free(o->target);
  free(o->its);
  free(o->state);
  free(o->cols);
  free(o->at);
  free(o->want);
  free(o->a);
  free(o->coef);
  free(o->buf);
  o->dR = o->dX = NULL;
  o->M = o->m = o->omega = o->pi = o->rel = NULL;
  o->seedof = NULL;
  o->bnorm = o->rnorm2 = o->est = o->tru = o->target = o->a = o->coef = o->buf = NULL;
  o->its = o->state = o->cols = o->at = o->want = NULL;
  o->k = o->K = 0;
}

int hm_idr_multishift_destroy(hm_idr_multishift **ms) {
  if (!ms || !*ms) return HM_SUCCESS;
  hm_idr_multishift *o = *ms;
  free_state(o);
  hm_idr_destroy(&o->base);
  free(o->shift);
  free(o->stepof);
  free(o);
  *ms = NULL;
  return HM_SUCCESS;
}

int hm_idr_multishift_set_checkpoint(hm_idr_multishift *ms, hm_idr_multishift_checkpoint_fn fn, void *user) {
  HM_CHECK(ms, HM_ERR_ARGUMENT, "ms is NULL");
  ms->checkpoint = fn;
  ms->checkpoint_user = user;
  return HM_SUCCESS;
}

int hm_idr_multishift_set_polish(hm_idr_multishift *ms, int max_columns, double stall_at) {
  HM_CHECK(ms, HM_ERR_ARGUMENT, "ms is NULL");
  HM_CHECK(max_columns >= 0, HM_ERR_ARGUMENT, "max_columns = %d: must be >= 0 (0 = by memory)", max_columns);
  HM_CHECK(isfinite(stall_at) && stall_at >= 0 && stall_at < 1, HM_ERR_ARGUMENT,
           "stall_at = %g: must be 0 (off) or a relative residual in (0, 1)", stall_at);
  ms->polish_max_columns = max_columns;
  ms->test_stall_at = stall_at;
  return HM_SUCCESS;
}

int hm_idr_multishift_alloc_state(hm_idr_multishift *o, int k) {
  free_state(o);
  const int s = o->s, K = k * o->ns;
  hm_context *ctx = o->base->ctx;
  const hm_dist *dist = o->base->dist;
  o->k = k;
  o->K = K;
  o->dR = calloc((size_t)s, sizeof(hm_mvec *));
  o->dX = calloc((size_t)s, sizeof(hm_mvec *));
  o->seedof = calloc((size_t)k, sizeof(int));
  o->rel = calloc((size_t)K, sizeof(double complex));
  o->M = calloc((size_t)k * s * s, sizeof(double complex));
  o->m = calloc((size_t)k * s, sizeof(double complex));
  o->omega = calloc((size_t)k, sizeof(double complex));
  o->pi = calloc((size_t)K * (s + 1), sizeof(double complex));
  o->bnorm = calloc((size_t)k, sizeof(double));
  o->rnorm2 = calloc((size_t)k, sizeof(double));
  o->est = calloc((size_t)K, sizeof(double));
  o->tru = calloc((size_t)K, sizeof(double));
  o->target = calloc((size_t)K, sizeof(double));
  o->its = calloc((size_t)K, sizeof(int));
  o->state = calloc((size_t)K, sizeof(int));
  o->cols = calloc((size_t)K, sizeof(int));
  o->at = calloc((size_t)K, sizeof(int));
  o->want = calloc((size_t)K, sizeof(int));
  o->a = calloc(2 * (size_t)K, sizeof(double));
  o->coef = calloc(2 * (size_t)K * (s + 2), sizeof(double));
  o->buf = calloc(2 * (size_t)k * (s + 3), sizeof(double));
  if (!o->dR || !o->dX || !o->seedof || !o->rel || !o->M || !o->m || !o->omega || !o->pi || !o->bnorm || !o->rnorm2 || !o->est ||
      !o->tru || !o->target || !o->its || !o->state || !o->cols || !o->at || !o->want || !o->a || !o->coef || !o->buf) {
    free_state(o);
    HM_RAISE(HM_ERR_MEMORY, "could not allocate the small state of %d right-hand sides x %d shifts", k, o->ns);
  }
  int st = hm_mvec_create(ctx, dist, HM_COMPLEX, k, &o->r);
  if (!st) st = hm_mvec_create(ctx, dist, HM_COMPLEX, K, &o->x);
  if (!st) st = hm_mvec_create(ctx, dist, HM_COMPLEX, k, &o->v);
  if (!st) st = hm_mvec_create(ctx, dist, HM_COMPLEX, k, &o->t);
  if (!st) st = hm_mvec_create(ctx, dist, HM_COMPLEX, k, &o->work);
  for (int l = 0; l < s && !st; l++) {
    st = hm_mvec_create(ctx, dist, HM_COMPLEX, k, &o->dR[l]);
    if (!st) st = hm_mvec_create(ctx, dist, HM_COMPLEX, K, &o->dX[l]);
  }
  if (st) {
    free_state(o);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  hm_idr_multishift_unpacked(o);
  return HM_SUCCESS;
}

int hm_idr_multishift_info(const hm_idr_multishift *ms, int *k, int *seed_shift, int *status) {
  HM_CHECK(ms, HM_ERR_ARGUMENT, "ms is NULL");
  if (k) *k = ms->k;
  if (seed_shift) *seed_shift = ms->seedof ? ms->seedof[0] : ms->seed;
  if (status) *status = ms->status;
  return HM_SUCCESS;
}

int hm_idr_multishift_get_profile(const hm_idr_multishift *ms, hm_idr_multishift_profile *prof) {
  HM_CHECK(ms && prof, HM_ERR_ARGUMENT, "ms or prof is NULL");
  *prof = ms->prof;
  return HM_SUCCESS;
}

int hm_idr_multishift_results(const hm_idr_multishift *ms, int *iterations, int *converged, double *estimated,
                              double *true_residual) {
  HM_CHECK(ms, HM_ERR_ARGUMENT, "ms is NULL");
  HM_CHECK(ms->K > 0, HM_ERR_ARGUMENT, "no solve has run yet");
  for (int c = 0; c < ms->K; c++) {
    if (iterations) iterations[c] = ms->its[c];
    if (converged) converged[c] = ms->state[c] == HM_SUCCESS;
    if (estimated) estimated[c] = ms->est[c];
    if (true_residual) true_residual[c] = ms->tru[c];
  }
  return HM_SUCCESS;
}

/* ---- checkpoint state: scalars in a fixed order (counts first) ---- */
static size_t scalar_count(const hm_idr_multishift *o) {
  const size_t k = (size_t)o->k, K = (size_t)o->K, s = (size_t)o->s;
  return 6 + s + k + 2 * (k * s * s + k * s + k + K * (s + 1) + K) + 2 * k + 3 * K + 2 * K;
}

int hm_idr_multishift_state_size(const hm_idr_multishift *ms, int *nblocks, int *nscalars) {
  HM_CHECK(ms, HM_ERR_ARGUMENT, "ms is NULL");
  HM_CHECK(ms->K > 0, HM_ERR_ARGUMENT, "no solve has run yet (nothing to checkpoint)");
  if (nblocks) *nblocks = 2 * ms->s + 2;
  if (nscalars) *nscalars = (int)scalar_count(ms);
  return HM_SUCCESS;
}

int hm_idr_multishift_state_block(hm_idr_multishift *ms, int i, hm_mvec **block) {
  HM_CHECK(ms && block, HM_ERR_ARGUMENT, "ms or block is NULL");
  HM_CHECK(ms->K > 0, HM_ERR_ARGUMENT, "no state yet: solve or restore first");
  const int s = ms->s;
  HM_CHECK(i >= 0 && i < 2 * s + 2, HM_ERR_ARGUMENT, "block %d: must be 0 <= i < %d", i, 2 * s + 2);
  *block = i == 0 ? ms->r : i <= s ? ms->dR[i - 1] : i == s + 1 ? ms->x : ms->dX[i - s - 2];
  return HM_SUCCESS;
}

/* Copies between the state and the scalar array (dir = 1: state -> array). */
static void pack_c(double **p, double complex *z, size_t n, int dir) {
  for (size_t i = 0; i < n; i++, *p += 2) {
    if (dir) {
      (*p)[0] = creal(z[i]);
      (*p)[1] = cimag(z[i]);
    } else {
      z[i] = CMPLX((*p)[0], (*p)[1]);
    }
  }
}
static void pack_d(double **p, double *d, size_t n, int dir) {
  for (size_t i = 0; i < n; i++, (*p)++) {
    if (dir) **p = d[i];
    else d[i] = **p;
  }
}
static void pack_i(double **p, int *v, size_t n, int dir) {
  for (size_t i = 0; i < n; i++, (*p)++) {
    if (dir) **p = v[i];
    else v[i] = (int)**p;
  }
}

static void pack_state(hm_idr_multishift *o, double *p, int dir) {
  const size_t k = (size_t)o->k, K = (size_t)o->K, s = (size_t)o->s;
  int head[3] = {o->n, o->oldest, o->outer};
  double *q = p + 3; /* p[0..2]: k, ns, s (checked on restore) */
  if (dir) {
    p[0] = o->k;
    p[1] = o->ns;
    p[2] = o->s;
  }
  pack_i(&q, head, 3, dir);
  if (!dir) {
    o->n = head[0];
    o->oldest = head[1];
    o->outer = head[2];
  }
  pack_i(&q, o->stepof, s, dir);
  pack_i(&q, o->seedof, k, dir);
  pack_c(&q, o->rel, K, dir);
  pack_c(&q, o->M, k * s * s, dir);
  pack_c(&q, o->m, k * s, dir);
  pack_c(&q, o->omega, k, dir);
  pack_c(&q, o->pi, K * (s + 1), dir);
  pack_d(&q, o->bnorm, k, dir);
  pack_d(&q, o->rnorm2, k, dir);
  pack_d(&q, o->est, K, dir);
  pack_d(&q, o->tru, K, dir);
  pack_d(&q, o->target, K, dir);
  pack_i(&q, o->its, K, dir);
  pack_i(&q, o->state, K, dir);
}

int hm_idr_multishift_state_get(const hm_idr_multishift *ms, double *scalars) {
  HM_CHECK(ms && scalars, HM_ERR_ARGUMENT, "ms or scalars is NULL");
  HM_CHECK(ms->K > 0, HM_ERR_ARGUMENT, "no solve has run yet (nothing to checkpoint)");
  pack_state((hm_idr_multishift *)ms, scalars, 1);
  return HM_SUCCESS;
}

int hm_idr_multishift_restore(hm_idr_multishift *ms, int k, const double *scalars) {
  HM_CHECK(ms && scalars, HM_ERR_ARGUMENT, "ms or scalars is NULL");
  HM_CHECK(k >= 1, HM_ERR_ARGUMENT, "k = %d right-hand sides: must be >= 1", k);
  HM_CHECK(scalars[0] == k && scalars[1] == ms->ns && scalars[2] == ms->s, HM_ERR_ARGUMENT,
           "the saved state is of %g right-hand sides x %g shifts with s = %g; this solver has %d x %d with s = %d",
           scalars[0], scalars[1], scalars[2], k, ms->ns, ms->s);
  HM_CALL(hm_idr_multishift_alloc_state(ms, k));
  pack_state(ms, (double *)scalars, 0);
  ms->restored = 1;
  return HM_SUCCESS;
}
