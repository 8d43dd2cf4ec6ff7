/* Block LOBPCG: options, creation, results and checkpoint state. The iteration itself is in
 * lobpcg_iterate.c, the block helpers in lobpcg_blocks.c, the small dense work in
 * lobpcg_small.c. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "blas_threads.h"
#include "error_macros.h"
#include "lobpcg_checkpoint.h"
#include "lobpcg_internal.h"
#include "lobpcg_report.h"
#include "lobpcg_small.h"
#include "matrix_hermitian.h"

/* ---------------- options, create, destroy ---------------- */

int hm_lobpcg_options_default(hm_lobpcg_options *opt) {
  HM_CHECK(opt, HM_ERR_ARGUMENT, "opt is NULL");
  memset(opt, 0, sizeof *opt);
  opt->nev = 1;
  opt->block = 0;
  opt->tol = 1e-8;
  opt->maxit = 500;
  opt->which = HM_LOBPCG_SMALLEST;
  opt->precond = HM_LOBPCG_PRECOND_NONE;
  opt->seed = 1;
  opt->history = 1;
  opt->convergence = HM_LOBPCG_CONV_AUTO;
  return HM_SUCCESS;
}

static int check_options(const hm_lobpcg_options *o) {
  HM_CHECK(o->nev >= 1, HM_ERR_ARGUMENT, "nev = %d, must be >= 1", o->nev);
  HM_CHECK(o->block == 0 || o->block >= o->nev, HM_ERR_ARGUMENT, "block = %d, must be >= nev = %d (or 0: automatic)",
           o->block, o->nev);
  HM_CHECK(isfinite(o->tol) && o->tol >= 0, HM_ERR_ARGUMENT, "tol = %g, must be finite and >= 0", o->tol);
  HM_CHECK(o->maxit >= 1, HM_ERR_ARGUMENT, "maxit = %d, must be >= 1", o->maxit);
  HM_CHECK(o->which == HM_LOBPCG_SMALLEST || o->which == HM_LOBPCG_LARGEST, HM_ERR_ARGUMENT,
           "which = %d, must be HM_LOBPCG_SMALLEST (0) or HM_LOBPCG_LARGEST (1)", (int)o->which);
  HM_CHECK(o->precond == HM_LOBPCG_PRECOND_NONE || o->precond == HM_LOBPCG_PRECOND_JACOBI ||
               o->precond == HM_LOBPCG_PRECOND_USER,
           HM_ERR_ARGUMENT, "precond = %d, must be HM_LOBPCG_PRECOND_NONE (0), JACOBI (1) or USER (2)", (int)o->precond);
  HM_CHECK(o->precond != HM_LOBPCG_PRECOND_JACOBI || o->precond_matrix, HM_ERR_ARGUMENT,
           "precond = JACOBI needs precond_matrix (the matrix whose diagonal is used)");
  HM_CHECK(o->precond != HM_LOBPCG_PRECOND_USER || o->precond_op, HM_ERR_ARGUMENT,
           "precond = USER needs precond_op (the operator y = T x)");
  HM_CHECK(o->convergence == HM_LOBPCG_CONV_AUTO || o->convergence == HM_LOBPCG_CONV_RELATIVE ||
               o->convergence == HM_LOBPCG_CONV_NORM,
           HM_ERR_ARGUMENT, "convergence = %d, must be HM_LOBPCG_CONV_AUTO (0), RELATIVE (1) or NORM (2)",
           (int)o->convergence);
  HM_CHECK(o->history == 0 || o->history == 1, HM_ERR_ARGUMENT, "history = %d, must be 0 or 1", o->history);
  HM_CHECK(o->verbosity >= 0, HM_ERR_ARGUMENT, "verbosity = %d, must be >= 0", o->verbosity);
  HM_CHECK(o->checkpoint_every >= 0 && o->checkpoint_seconds >= 0, HM_ERR_ARGUMENT,
           "checkpoint_every = %d and checkpoint_seconds = %g must be >= 0", o->checkpoint_every, o->checkpoint_seconds);
  HM_CHECK(o->checkpoint || (o->checkpoint_every == 0 && o->checkpoint_seconds == 0), HM_ERR_ARGUMENT,
           "checkpoints requested (checkpoint_every = %d, checkpoint_seconds = %g) but checkpoint is NULL",
           o->checkpoint_every, o->checkpoint_seconds);
  return HM_SUCCESS;
}

/* op acts on the same rows and scalar type as A, in the same context (backend memory). */
static int check_same(hm_lobpcg *L, const hm_dist *d, hm_scalar type, const char *what) {
  HM_CHECK(d->ctx == L->ctx, HM_ERR_ARGUMENT,
           "%s was made in another context than A (its blocks would live in another backend's memory)", what);
  HM_CHECK(type == L->type, HM_ERR_ARGUMENT, "%s has scalar type %d, A has %d", what, (int)type, (int)L->type);
  HM_CHECK(d->n_global == L->dist->n_global && d->first == L->dist->first && d->local == L->dist->local,
           HM_ERR_ARGUMENT, "%s has %lld rows (%lld local), A has %lld (%lld local): they must share A's rows", what,
           (long long)d->n_global, (long long)d->local, (long long)L->dist->n_global, (long long)L->dist->local);
  return HM_SUCCESS;
}

/* dinv = 1 / |diag(M)| (a positive definite scaling also for indefinite M); a zero diagonal entry
 * on any rank is an error on all of them. */
static int make_jacobi(hm_lobpcg *L, hm_matrix *M) {
  const hm_dist *d;
  hm_scalar type;
  HM_CALL(hm_matrix_dist(M, &d));
  HM_CALL(hm_matrix_info(M, NULL, NULL, &type));
  HM_CALL(check_same(L, d, type, "precond_matrix"));
  HM_CALL(hm_mvec_create(L->ctx, L->dist, L->type, 1, &L->dinv));
  HM_CALL(hm_matrix_diagonal(M, L->dinv));
  const int64_t n = L->dist->local;
  double *v;
  HM_MALLOC(v, (size_t)n * L->type + 1);
  int st = hm_mvec_get(L->dinv, v);
  int64_t zero_row = -1;
  for (int64_t i = 0; i < n && !st; i++) {
    double a = L->type == HM_COMPLEX ? cabs(CMPLX(v[2 * i], v[2 * i + 1])) : fabs(v[i]);
    if (!(a > 0) && zero_row < 0) zero_row = L->dist->first + i;
    if (L->type == HM_COMPLEX) {
      v[2 * i] = a > 0 ? 1.0 / a : 0;
      v[2 * i + 1] = 0;
    } else {
      v[i] = a > 0 ? 1.0 / a : 0;
    }
  }
  if (!st) st = hm_mvec_set(L->dinv, v);
  free(v);
  HM_CALL(st);
  int64_t first_zero = zero_row < 0 ? INT64_MAX : zero_row;
  HM_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, &first_zero, 1, MPI_INT64_T, MPI_MIN, L->ctx->comm));
  HM_CHECK(first_zero == INT64_MAX, HM_ERR_ARGUMENT,
           "precond = JACOBI: precond_matrix has a zero diagonal entry in row %lld", (long long)first_zero);
  return HM_SUCCESS;
}

/* ||Op||_2 of a Hermitian operator by power steps from a random vector (a lower bound, within a
 * few percent after 20 steps unless the top of the spectrum is clustered, which only moves the
 * NORM test's scale by that much). */
enum { norm_power_steps = 20 };
static int estimate_norm(hm_lobpcg *L, hm_operator *op, uint64_t seed, double *estimate) {
  hm_mvec *v = NULL, *u = NULL;
  int st = hm_mvec_create(L->ctx, L->dist, L->type, 1, &v);
  if (!st) st = hm_mvec_create(L->ctx, L->dist, L->type, 1, &u);
  if (!st) st = hm_mvec_random_phase(v, seed);
  double norm = 0, scale = 0;
  if (!st) st = hm_mvec_norms(v, &norm);
  for (int i = 0; i < norm_power_steps && !st && norm > 0; i++) {
    const double inv[2] = {1.0 / norm, 0}, zero[2] = {0, 0};
    st = hm_mvec_axpby(u, inv, v, zero); /* u = v / |v| */
    if (!st) st = hm_operator_apply(op, u, v);
    if (!st) st = hm_mvec_norms(v, &norm);
    scale = norm;
  }
  hm_mvec_destroy(&v);
  hm_mvec_destroy(&u);
  HM_CALL(st);
  HM_CHECK(isfinite(scale), HM_ERR_NUMERIC, "the power steps for the norm estimate gave %g (NaN or Inf in the products?)",
           scale);
  *estimate = scale;
  return HM_SUCCESS;
}

static int estimate_norms(hm_lobpcg *L) {
  L->norm_b = 1.0;
  /* norm_from_ritz: ||A|| from the Ritz pairs instead (residuals() in lobpcg_iterate.c), as each
   * power step on a shift-and-invert operator costs an inner solve */
  if (!L->norm_from_ritz) HM_CALL(estimate_norm(L, L->A, L->opt.seed ^ 0x2545F4914F6CDD1Dull, &L->norm_a));
  if (!L->B) return HM_SUCCESS;
  HM_CALL(estimate_norm(L, L->B, L->opt.seed ^ 0x5DEECE66Dull, &L->norm_b));
  HM_CHECK(L->norm_b > 0, HM_ERR_NUMERIC, "the power steps on B gave ||B|| = 0 (B must be positive definite)");
  return HM_SUCCESS;
}

static int make_blocks(hm_lobpcg *L) {
  hm_mvec **wide[] = {&L->XP, &L->AXP, &L->XP2, &L->AXP2, &L->BXP, &L->BXP2};
  hm_mvec **narrow[] = {&L->R, &L->W, &L->AW, &L->BW};
  const int nb = L->B ? 1 : 0;
  for (int i = 0; i < 4 + 2 * nb; i++) HM_CALL(hm_mvec_create(L->ctx, L->dist, L->type, 2 * L->m, wide[i]));
  for (int i = 0; i < 3 + nb; i++) HM_CALL(hm_mvec_create(L->ctx, L->dist, L->type, L->m, narrow[i]));
  hm_lobpcg_alias_b(L);
  return HM_SUCCESS;
}

static int create(hm_operator *A, hm_operator *B, const hm_lobpcg_options *opt, int norm_from_ritz,
                  hm_lobpcg **lob) {
  HM_CHECK(A && opt && lob, HM_ERR_ARGUMENT, "A, opt or lob is NULL");
  *lob = NULL;
  HM_CALL(check_options(opt));
  hm_lobpcg *L;
  HM_MALLOC(L, 1);
  *lob = L; /* destroyed on failure below */
  int st = HM_SUCCESS;
  L->norm_from_ritz = norm_from_ritz;
  L->A = A;
  L->B = B;
  L->opt = *opt;
  L->nev = opt->nev;
  L->m = opt->block ? opt->block : opt->nev + (opt->nev / 4 > 2 ? opt->nev / 4 : 2);
  L->opt.block = L->m;
  L->T = opt->precond == HM_LOBPCG_PRECOND_USER ? opt->precond_op : NULL;
  L->last_checkpoint = 0; /* no checkpoint of the start block */
  HM_CALL_GOTO(st, fail, hm_operator_context(A, &L->ctx));
  HM_CALL_GOTO(st, fail, hm_operator_info(A, &L->dist, &L->type));
  if (3 * (int64_t)L->m > L->dist->n_global) {
    st = hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__,
                        "block = %d: the basis [X P W] of 3 * block vectors must fit in the %lld rows of A "
                        "(use a dense solver for so small a problem)", L->m, (long long)L->dist->n_global);
    goto fail;
  }
  const hm_dist *d;
  hm_scalar t;
  HM_CALL_GOTO(st, fail, hm_operator_require_hermitian(A, "LOBPCG"));
  if (B) {
    HM_CALL_GOTO(st, fail, hm_operator_info(B, &d, &t));
    HM_CALL_GOTO(st, fail, check_same(L, d, t, "B"));
    HM_CALL_GOTO(st, fail, hm_operator_require_hermitian(B, "LOBPCG (mass matrix B)"));
  }
  if (L->T) {
    HM_CALL_GOTO(st, fail, hm_operator_info(L->T, &d, &t));
    HM_CALL_GOTO(st, fail, check_same(L, d, t, "precond_op"));
  }
  L->lambda = calloc((size_t)L->m, sizeof(double));
  L->res = calloc((size_t)L->m, sizeof(double));
  L->active = calloc((size_t)L->m, sizeof(int));
  L->backward = calloc((size_t)L->m, sizeof(double));
  L->test_norm = calloc((size_t)L->m, sizeof(int));
  L->best_res = calloc((size_t)L->m, sizeof(double));
  L->improved_at = calloc((size_t)L->m, sizeof(int));
  L->bound = calloc((size_t)L->m, sizeof(double));
  L->bound_ok = calloc((size_t)L->m, sizeof(int));
  L->b_min = B ? NAN : 1.0;
  L->hard_locking = 1;
  L->refresh_on_lock = 1;
  L->refreshed_at = -1;
  L->reachable = opt->tol;
  if (!L->lambda || !L->res || !L->active || !L->backward || !L->test_norm || !L->best_res || !L->improved_at ||
      !L->bound || !L->bound_ok) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "no memory for %d estimates", L->m);
    goto fail;
  }
  for (int j = 0; j < L->m; j++) L->best_res[j] = INFINITY;
  HM_CALL_GOTO(st, fail, make_blocks(L));
  if (opt->precond == HM_LOBPCG_PRECOND_JACOBI) HM_CALL_GOTO(st, fail, make_jacobi(L, opt->precond_matrix));
  HM_CALL_GOTO(st, fail, estimate_norms(L));
  HM_CALL_GOTO(st, fail, hm_mvec_random_phase(L->XP, opt->seed)); /* X: the first m columns */
  return HM_SUCCESS;
fail:
  hm_lobpcg_destroy(lob);
  return st;
}

int hm_lobpcg_create(hm_operator *A, hm_operator *B, const hm_lobpcg_options *opt, hm_lobpcg **lob) {
  HM_CALL(create(A, B, opt, 0, lob));
  return HM_SUCCESS;
}

int hm_lobpcg_create_norm_from_ritz(hm_operator *A, hm_operator *B, const hm_lobpcg_options *opt, hm_lobpcg **lob) {
  HM_CALL(create(A, B, opt, 1, lob));
  return HM_SUCCESS;
}

int hm_lobpcg_destroy(hm_lobpcg **lob) {
  if (!lob || !*lob) return HM_SUCCESS;
  hm_lobpcg *L = *lob;
  hm_mvec **own[] = {&L->XP, &L->AXP, &L->XP2, &L->AXP2, &L->R, &L->W, &L->AW, &L->Xs, &L->Ps, &L->dinv};
  if (L->B) {
    hm_mvec **b[] = {&L->BXP, &L->BXP2, &L->BW};
    for (size_t i = 0; i < sizeof b / sizeof *b; i++) hm_mvec_destroy(b[i]);
  }
  for (size_t i = 0; i < sizeof own / sizeof *own; i++) hm_mvec_destroy(own[i]);
  free(L->lambda);
  free(L->res);
  free(L->active);
  free(L->backward);
  free(L->test_norm);
  free(L->best_res);
  free(L->improved_at);
  free(L->bound);
  free(L->bound_ok);
  free(L->hist_val);
  free(L->hist_res);
  free(L);
  *lob = NULL;
  return HM_SUCCESS;
}

int hm_lobpcg_options_get(const hm_lobpcg *lob, hm_lobpcg_options *opt) {
  HM_CHECK(lob && opt, HM_ERR_ARGUMENT, "lob or opt is NULL");
  *opt = lob->opt;
  return HM_SUCCESS;
}

int hm_lobpcg_set_start(hm_lobpcg *lob, const hm_mvec *X0) {
  HM_CHECK(lob && X0, HM_ERR_ARGUMENT, "lob or X0 is NULL");
  HM_CHECK(!lob->started, HM_ERR_ARGUMENT, "the start block must be set before hm_lobpcg_run (or a restore)");
  HM_CHECK(X0->k >= 1 && X0->k <= lob->m, HM_ERR_ARGUMENT, "X0 has %d columns; it may have 1 to block = %d", X0->k,
           lob->m);
  HM_CALL(hm_mvec_copy_columns(X0, 0, lob->XP, 0, X0->k));
  return HM_SUCCESS;
}

int hm_lobpcg_run(hm_lobpcg *L) {
  HM_CHECK(L, HM_ERR_ARGUMENT, "lob is NULL");
  /* The small problems on the host are too small for BLAS threads, and idle BLAS workers would
   * spin on the cores of hamlet's OpenMP threads (blas_threads.h). */
  const int blas_threads = hm_blas_threads_single();
  int st = L->started ? HM_SUCCESS : hm_lobpcg_start(L);
  if (!st) L->started = 1;
  if (!st) st = hm_lobpcg_iterate(L);
  if (!st) st = hm_lobpcg_verify(L);
  hm_blas_threads_restore(blas_threads);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* ---------------- results and state ---------------- */

int hm_lobpcg_request_refresh(hm_lobpcg *lob) {
  HM_CHECK(lob, HM_ERR_ARGUMENT, "lob is NULL");
  lob->refresh_requested = 1;
  return HM_SUCCESS;
}

int hm_lobpcg_set_refresh_on_lock(hm_lobpcg *lob, int refresh) {
  HM_CHECK(lob, HM_ERR_ARGUMENT, "lob is NULL");
  HM_CHECK(refresh == 0 || refresh == 1, HM_ERR_ARGUMENT, "refresh = %d, must be 0 or 1", refresh);
  lob->refresh_on_lock = refresh;
  return HM_SUCCESS;
}

int hm_lobpcg_set_hard_locking(hm_lobpcg *lob, int hard) {
  HM_CHECK(lob, HM_ERR_ARGUMENT, "lob is NULL");
  HM_CHECK(hard == 0 || hard == 1, HM_ERR_ARGUMENT, "hard = %d, must be 0 (soft locking) or 1 (hard locking)", hard);
  HM_CHECK(!lob->started, HM_ERR_ARGUMENT, "the locking must be chosen before hm_lobpcg_run");
  lob->hard_locking = hard;
  return HM_SUCCESS;
}

int hm_lobpcg_convergence_report(const hm_lobpcg *lob, hm_lobpcg_report *report, double *backward) {
  HM_CHECK(lob && report, HM_ERR_ARGUMENT, "lob or report is NULL");
  HM_CHECK(lob->reason != HM_LOBPCG_NOT_RUN, HM_ERR_ARGUMENT, "no report yet: call hm_lobpcg_run first");
  report->test = lob->opt.convergence;
  report->norm_pairs = 0;
  for (int j = 0; j < lob->nev; j++) report->norm_pairs += lob->test_norm[j];
  report->locked = lob->nlock;
  report->norm_a = hm_lobpcg_norm_a(lob);
  report->norm_b = lob->norm_b;
  report->reachable = lob->reachable;
  if (backward) memcpy(backward, lob->backward, sizeof(double) * lob->nev);
  return HM_SUCCESS;
}

int hm_lobpcg_info(const hm_lobpcg *lob, int *iterations, int *converged, hm_lobpcg_reason *reason) {
  HM_CHECK(lob, HM_ERR_ARGUMENT, "lob is NULL");
  if (iterations) *iterations = lob->iteration;
  if (converged) *converged = lob->nconv;
  if (reason) *reason = lob->reason;
  return HM_SUCCESS;
}

int hm_lobpcg_eigenvalues(const hm_lobpcg *lob, double *values) {
  HM_CHECK(lob && values, HM_ERR_ARGUMENT, "lob or values is NULL");
  HM_CHECK(lob->started, HM_ERR_ARGUMENT, "no eigenvalues yet: call hm_lobpcg_run first");
  memcpy(values, lob->lambda, sizeof(double) * lob->nev);
  return HM_SUCCESS;
}

int hm_lobpcg_residuals(const hm_lobpcg *lob, double *residuals) {
  HM_CHECK(lob && residuals, HM_ERR_ARGUMENT, "lob or residuals is NULL");
  HM_CHECK(lob->reason != HM_LOBPCG_NOT_RUN, HM_ERR_ARGUMENT, "no residuals yet: call hm_lobpcg_run first");
  memcpy(residuals, lob->res, sizeof(double) * lob->nev);
  return HM_SUCCESS;
}

int hm_lobpcg_eigenvectors(hm_lobpcg *lob, hm_mvec *V) {
  HM_CHECK(lob && V, HM_ERR_ARGUMENT, "lob or V is NULL");
  HM_CHECK(lob->started, HM_ERR_ARGUMENT, "no eigenvectors yet: call hm_lobpcg_run first");
  HM_CHECK(V->k <= lob->m, HM_ERR_ARGUMENT, "V has %d columns; at most block = %d eigenvectors exist", V->k, lob->m);
  HM_CALL(hm_mvec_copy_columns(lob->XP, 0, V, 0, V->k));
  return HM_SUCCESS;
}

int hm_lobpcg_history(const hm_lobpcg *lob, double *values, double *residuals) {
  HM_CHECK(lob, HM_ERR_ARGUMENT, "lob is NULL");
  HM_CHECK(lob->opt.history, HM_ERR_ARGUMENT, "no history: the solver was made with history = 0");
  const size_t n = (size_t)(lob->iteration + 1) * lob->nev, kept = (size_t)lob->hist_rows * lob->nev;
  for (size_t i = 0; i < n; i++) { /* rows never recorded (before a restore, or before run) are NaN */
    if (values) values[i] = i < kept ? lob->hist_val[i] : NAN;
    if (residuals) residuals[i] = i < kept ? lob->hist_res[i] : NAN;
  }
  return HM_SUCCESS;
}

int hm_lobpcg_state(hm_lobpcg *lob, hm_mvec **X, hm_mvec **P, int *np, int *iteration) {
  HM_CHECK(lob, HM_ERR_ARGUMENT, "lob is NULL");
  if (!lob->Xs) HM_CALL(hm_mvec_create(lob->ctx, lob->dist, lob->type, lob->m, &lob->Xs));
  if (!lob->Ps) HM_CALL(hm_mvec_create(lob->ctx, lob->dist, lob->type, lob->m, &lob->Ps));
  HM_CALL(hm_mvec_copy_columns(lob->XP, 0, lob->Xs, 0, lob->m));
  HM_CALL(hm_mvec_copy_columns(lob->XP, lob->m, lob->Ps, 0, lob->m));
  if (X) *X = lob->Xs;
  if (P) *P = lob->Ps;
  if (np) *np = lob->np;
  if (iteration) *iteration = lob->iteration;
  return HM_SUCCESS;
}

/* The state is set: iterate on from it (both restores end here). */
static void resume_at(hm_lobpcg *L, int np, int iteration) {
  L->np = np;
  L->iteration = iteration;
  L->last_checkpoint = iteration;
  L->started = 1;
  L->reason = HM_LOBPCG_NOT_RUN;
}

int hm_lobpcg_restore(hm_lobpcg *L, int np, int iteration) {
  HM_CHECK(L, HM_ERR_ARGUMENT, "lob is NULL");
  HM_CHECK(L->Xs && L->Ps, HM_ERR_ARGUMENT, "nothing to restore: set the blocks from hm_lobpcg_state first");
  HM_CHECK(np >= 0 && np <= L->m, HM_ERR_ARGUMENT, "np = %d, must be in [0, block = %d]", np, L->m);
  HM_CHECK(iteration >= 0 && iteration <= L->opt.maxit, HM_ERR_ARGUMENT, "iteration = %d, must be in [0, maxit = %d]",
           iteration, L->opt.maxit);
  HM_CALL(hm_mvec_copy_columns(L->Xs, 0, L->XP, 0, L->m));
  HM_CALL(hm_mvec_copy_columns(L->Ps, 0, L->XP, L->m, L->m));
  HM_CALL(hm_lobpcg_reload(L));
  L->nlock = 0; /* this state does not say which pairs were locked: they lock again when checked */
  for (int j = 0; j < L->m; j++) {
    L->best_res[j] = INFINITY;
    L->improved_at[j] = iteration;
  }
  resume_at(L, np, iteration);
  return HM_SUCCESS;
}

/* ---------------- bitwise checkpoints (lobpcg_checkpoint.h) ---------------- */

/* np, iteration, block, nev, locked count, largest |Ritz value| so far, reachable level, the
 * iteration of the last refresh of the images; then
 * lambda[m], the stagnation bookkeeping (best residual[m], iteration it halved at[m]), history
 * values and residuals. */
enum { HEADER_SCALARS = 8 };

int hm_lobpcg_checkpoint_state(hm_lobpcg *L, int *nblocks, hm_mvec *blocks[3], int *nscalars, double **scalars) {
  HM_CHECK(L && nblocks && blocks && nscalars && scalars, HM_ERR_ARGUMENT, "lob or an output is NULL");
  *nblocks = L->B ? 3 : 2;
  blocks[0] = L->XP;
  blocks[1] = L->AXP;
  blocks[2] = L->B ? L->BXP : NULL;
  const size_t rows = L->opt.history ? (size_t)L->iteration : 0, n = HEADER_SCALARS + 3 * L->m + 2 * rows * L->nev;
  HM_MALLOC(*scalars, n);
  double *s = *scalars;
  s[0] = L->np;
  s[1] = L->iteration;
  s[2] = L->m;
  s[3] = L->nev;
  s[4] = L->nlock;
  s[5] = L->ritz_max;
  s[6] = L->reachable;
  s[7] = L->refreshed_at;
  memcpy(s + HEADER_SCALARS, L->lambda, sizeof(double) * L->m);
  memcpy(s + HEADER_SCALARS + L->m, L->best_res, sizeof(double) * L->m);
  for (int j = 0; j < L->m; j++) s[HEADER_SCALARS + 2 * L->m + j] = L->improved_at[j];
  if (rows) {
    memcpy(s + HEADER_SCALARS + 3 * L->m, L->hist_val, sizeof(double) * rows * L->nev);
    memcpy(s + HEADER_SCALARS + 3 * L->m + rows * L->nev, L->hist_res, sizeof(double) * rows * L->nev);
  }
  *nscalars = (int)n;
  return HM_SUCCESS;
}

/* X (the first m columns) must be B-orthonormal and finite, its images finite. */
static int check_restored_block(hm_lobpcg *L) {
  const int m = L->m;
  double complex *G;
  HM_MALLOC(G, (size_t)m * m);
  int st = hm_lobpcg_gram(L, L->XP, L->BXP, G, m, 0, 0, m, m);
  double worst = 0;
  for (int i = 0; i < m * m && !st; i++) {
    double d = cabs(G[i] - (i % (m + 1) == 0 ? 1.0 : 0.0));
    if (!(d <= worst)) worst = d; /* NaN sticks */
  }
  if (!st) st = hm_lobpcg_gram(L, L->XP, L->AXP, G, m, 0, 0, m, m);
  int finite = 1;
  for (int i = 0; i < m * m && !st; i++) finite &= isfinite(creal(G[i])) && isfinite(cimag(G[i]));
  for (int j = 0; j < m; j++) finite &= isfinite(L->lambda[j]);
  free(G);
  HM_CALL(st);
  HM_CHECK(worst <= 1e-6, HM_ERR_INPUT,
           "the restored block X is not %sorthonormal (largest |X^H %sX - I| entry %g, allowed 1e-6): it is zero, "
           "rank-deficient, not finite or not from this problem", L->B ? "B-" : "", L->B ? "B " : "", worst);
  HM_CHECK(finite, HM_ERR_INPUT, "the restored Ritz values or the block A X are not finite");
  return HM_SUCCESS;
}

int hm_lobpcg_checkpoint_restore(hm_lobpcg *L, int nscalars, const double *s) {
  HM_CHECK(L && (s || !nscalars), HM_ERR_ARGUMENT, "lob or scalars is NULL");
  HM_CHECK(nscalars >= HEADER_SCALARS + 3 * L->m && (int)s[2] == L->m && (int)s[3] == L->nev, HM_ERR_INPUT,
           "the LOBPCG checkpoint holds %d scalars for block = %g, nev = %g; this run has block = %d, nev = %d",
           nscalars, nscalars >= HEADER_SCALARS ? s[2] : -1.0, nscalars >= HEADER_SCALARS ? s[3] : -1.0, L->m, L->nev);
  const int np = (int)s[0], iteration = (int)s[1], nlock = (int)s[4];
  HM_CHECK(np >= 0 && np <= L->m && iteration >= 0 && iteration <= L->opt.maxit, HM_ERR_INPUT,
           "the LOBPCG checkpoint has np = %g (allowed 0 to %d) and iteration = %g (allowed 0 to maxit = %d)", s[0],
           L->m, s[1], L->opt.maxit);
  HM_CHECK(nlock >= 0 && nlock < L->nev && isfinite(s[5]) && s[5] >= 0 && isfinite(s[6]) && s[6] >= 0, HM_ERR_INPUT,
           "the LOBPCG checkpoint has %g locked pairs (allowed 0 to nev - 1 = %d), Ritz value bound %g and reachable "
           "level %g (both must be finite and >= 0)", s[4], L->nev - 1, s[5], s[6]);
  const size_t rows = L->opt.history ? (size_t)iteration : 0;
  HM_CHECK((size_t)nscalars == HEADER_SCALARS + 3 * L->m + 2 * rows * L->nev, HM_ERR_INPUT,
           "the LOBPCG checkpoint holds %d scalars; iteration %d with history needs %zu", nscalars, iteration,
           HEADER_SCALARS + 3 * L->m + 2 * rows * L->nev);
  memcpy(L->lambda, s + HEADER_SCALARS, sizeof(double) * L->m);
  HM_CALL(check_restored_block(L));
  L->nlock = nlock;
  L->ritz_max = s[5];
  L->reachable = s[6];
  L->refreshed_at = (int)s[7];
  memcpy(L->best_res, s + HEADER_SCALARS + L->m, sizeof(double) * L->m);
  for (int j = 0; j < L->m; j++) L->improved_at[j] = (int)s[HEADER_SCALARS + 2 * L->m + j];
  if (rows) {
    HM_CALL(hm_lobpcg_grow_history(L, iteration + 1));
    memcpy(L->hist_val, s + HEADER_SCALARS + 3 * L->m, sizeof(double) * rows * L->nev);
    memcpy(L->hist_res, s + HEADER_SCALARS + 3 * L->m + rows * L->nev, sizeof(double) * rows * L->nev);
  }
  resume_at(L, np, iteration);
  return HM_SUCCESS;
}
