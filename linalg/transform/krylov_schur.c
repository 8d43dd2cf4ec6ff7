/* Thick-restart Lanczos on T = (A - sigma B)^-1 B in the B inner product (krylov_schur.h).
 * The projected matrix H is real symmetric (tridiagonal, with an arrowhead after a restart) for
 * real and complex blocks alike, so the small eigenproblem is LAPACK's dsyev; only the
 * coefficients handed to the block operations take the blocks' scalar type. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <lapacke.h>
#include "error_macros.h"
#include "krylov_schur.h"
#include "mvec_block.h"
#include "objects.h"

void hm_krylov_schur_options_default(hm_krylov_schur_options *opt, int nev) {
  memset(opt, 0, sizeof *opt);
  opt->nev = nev;
  opt->maxit = 1000;
  opt->tol = 1e-10;
  opt->seed = 1;
}

typedef struct {
  hm_shift_invert *si;
  MPI_Comm comm;
  hm_matrix *B;          /* NULL: the identity */
  hm_scalar type;
  size_t t;              /* doubles per scalar */
  int m;                 /* ncv */
  hm_mvec *V, *BV, *tmp; /* m + 1 columns each; tmp takes the restarted basis; BV is V where B = I */
  hm_mvec *x1, *w, *Bw;  /* one column each; Bw is w where B = I */
  double *H;             /* m x m, row-major, real symmetric */
  double *coef;          /* (m + 1) scalars of the blocks' type */
  double *C;             /* (m + 1) x (m + 1) scalars: the restart's combination */
  double *G;             /* (m + 1) scalars: a Gram row */
  int64_t solves;
} lanczos;

/* y = B x; nothing where B = I and y is x itself (Bw shares w's block then). */
static int apply_b(lanczos *L, hm_mvec *x, hm_mvec *y) {
  if (L->B) HM_CALL(hm_matrix_apply(L->B, x, y));
  else if (y != x) HM_CALL(hm_mvec_copy_columns(x, 0, y, 0, x->k));
  return HM_SUCCESS;
}

/* w -= V[:, 0:n] c with c = V[:, 0:n]^H B w = (B V)^H w, twice (classical Gram-Schmidt with
 * reorthogonalization); sum[i] += Re c_i over both passes. c comes as its conjugate w^H (B V)[:, 0:n],
 * which reads only the n columns in use. B w is formed afterwards by the caller: carried along
 * through the subtractions it would lose its accuracy where w cancels to a small remainder (near an
 * invariant subspace, e.g. degenerate eigenvalues). */
static int orthogonalize(lanczos *L, int n, double *sum) {
  const double one[2] = {1, 0};
  for (int pass = 0; pass < 2; pass++) {
    HM_CALL(hm_mvec_gram_columns(L->w, L->BV, 0, n, L->G)); /* conj(c_i), i < n */
    memset(L->coef, 0, sizeof(double) * L->t * (size_t)(L->m + 1));
    for (int i = 0; i < n; i++) {
      L->coef[L->t * i] = -L->G[L->t * i];
      if (L->t == 2) L->coef[2 * i + 1] = L->G[2 * i + 1]; /* -c_i = -conj(G_i) */
      if (sum) sum[i] += L->G[L->t * i];
    }
    HM_CALL(hm_mvec_update(L->w, one, L->V, L->coef));
  }
  return HM_SUCCESS;
}

/* ||w||_B from one reduction (the real part: w^H B w is real up to rounding). */
static int b_norm(lanczos *L, double *norm) {
  double dot[2] = {0, 0};
  HM_CALL(hm_mvec_dot(L->w, L->Bw, dot));
  *norm = sqrt(fmax(dot[0], 0.0));
  return HM_SUCCESS;
}

/* Column j of V and BV = w / beta, Bw / beta. */
static int store_column(lanczos *L, int j, double beta) {
  double s[2] = {1.0 / beta, 0}, zero[2] = {0, 0};
  HM_CALL(hm_mvec_axpby(L->w, s, L->w, zero));
  HM_CALL(hm_mvec_copy_columns(L->w, 0, L->V, j, 1));
  if (L->B) {
    HM_CALL(hm_mvec_axpby(L->Bw, s, L->Bw, zero));
    HM_CALL(hm_mvec_copy_columns(L->Bw, 0, L->BV, j, 1));
  }
  return HM_SUCCESS;
}

/* A random-phase vector B-orthonormal to V[:, 0:j] into column j (start, or after a breakdown). */
static int random_column(lanczos *L, int j, uint64_t seed) {
  HM_CALL(hm_mvec_random_phase(L->w, seed));
  if (j > 0) HM_CALL(orthogonalize(L, j, NULL));
  HM_CALL(apply_b(L, L->w, L->Bw));
  double beta = 0;
  HM_CALL(b_norm(L, &beta));
  HM_CHECK(beta > 0, HM_ERR_NUMERIC, "the random start vector %d has zero B-norm", j);
  HM_CALL(store_column(L, j, beta));
  return HM_SUCCESS;
}

/* Extend the basis from column j0 to m: T V_m = V_m H + beta v_m e_m^T. */
static int expand(lanczos *L, int j0, uint64_t seed, double *beta_out) {
  double *sum = calloc((size_t)L->m + 1, sizeof(double));
  HM_CHECK(sum, HM_ERR_MEMORY, "could not allocate %d coefficients", L->m + 1);
  int st = HM_SUCCESS;
  double beta = 0;
  for (int j = j0; j < L->m && !st; j++) {
    st = hm_mvec_copy_columns(L->BV, j, L->x1, 0, 1); /* T v_j = (A - sigma B)^-1 (B v_j) */
    if (!st) st = hm_shift_invert_solve(L->si, L->x1, L->w);
    if (st) break;
    L->solves++;
    memset(sum, 0, sizeof(double) * (size_t)(L->m + 1));
    if ((st = orthogonalize(L, j + 1, sum))) break;
    if ((st = apply_b(L, L->w, L->Bw))) break;
    L->H[j * L->m + j] = sum[j]; /* the rest of column j is the arrowhead / tridiagonal already set */
    if ((st = b_norm(L, &beta))) break;
    double scale = 0;
    for (int i = 0; i <= j; i++) scale = fmax(scale, fabs(L->H[i * L->m + i]));
    if (beta <= 1e-13 * scale) { /* invariant subspace: continue from a fresh direction, uncoupled */
      beta = 0;
      st = random_column(L, j + 1, seed + (uint64_t)j + 1);
    } else {
      st = store_column(L, j + 1, beta);
    }
    if (j + 1 < L->m) L->H[(j + 1) * L->m + j] = L->H[j * L->m + j + 1] = beta;
  }
  free(sum);
  *beta_out = beta;
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

static void release(lanczos *L) {
  if (L->BV == L->V) L->BV = NULL;
  if (L->Bw == L->w) L->Bw = NULL;
  hm_mvec_destroy(&L->V), hm_mvec_destroy(&L->BV), hm_mvec_destroy(&L->tmp);
  hm_mvec_destroy(&L->x1), hm_mvec_destroy(&L->w), hm_mvec_destroy(&L->Bw);
  free(L->H), free(L->coef), free(L->C), free(L->G);
}

/* The real combination C (rows: basis vectors, columns: new vectors) in the blocks' type. */
static void set_coefficient(lanczos *L, int row, int col, double value) {
  L->C[L->t * ((size_t)row * (size_t)(L->m + 1) + (size_t)col)] = value;
}

/* The state's scalars: a version, n, nev, ncv, keep, restarts, solves, then H (ncv x ncv, row-major). */
enum { STATE_VERSION = 1, STATE_HEADER = 7 };

static int save_state(lanczos *L, const hm_krylov_schur_options *opt, int64_t n, int keep, int restarts) {
  const size_t mm = (size_t)L->m * (size_t)L->m;
  hm_krylov_schur_state state = {.blocks = {L->V, L->BV}, .nscalars = STATE_HEADER + (int)mm};
  state.scalars = malloc(sizeof(double) * (size_t)state.nscalars);
  HM_CHECK(state.scalars, HM_ERR_MEMORY, "could not allocate the checkpoint's %d scalars", state.nscalars);
  const double header[STATE_HEADER] = {STATE_VERSION, (double)n, opt->nev, L->m, keep, restarts, (double)L->solves};
  memcpy(state.scalars, header, sizeof header);
  memcpy(state.scalars + STATE_HEADER, L->H, sizeof(double) * mm);
  const int st = opt->checkpoint(&state, opt->checkpoint_user);
  free(state.scalars);
  HM_CHECK(st == 0, st > 0 && st <= HM_ERR_INPUT ? st : HM_ERR_INTERNAL,
           "the checkpoint callback returned status %d at restart %d", st, restarts);
  return HM_SUCCESS;
}

/* A saved state of this very problem and basis, checked before it is used. */
static int check_state(const lanczos *L, const hm_krylov_schur_options *opt, int64_t n, int keep, const double *s,
                       int ns) {
  const size_t mm = (size_t)L->m * (size_t)L->m;
  HM_CHECK(s && ns >= STATE_HEADER && s[0] == STATE_VERSION, HM_ERR_INPUT,
           "the checkpoint holds no Krylov-Schur state of version %d (%d scalars)", STATE_VERSION, ns);
  HM_CHECK(s[1] == (double)n && s[2] == opt->nev && s[3] == L->m && s[4] == keep && (size_t)ns == STATE_HEADER + mm,
           HM_ERR_INPUT, "the checkpoint's Krylov-Schur state has n = %.0f, nev = %.0f, ncv = %.0f, keep = %.0f; "
           "this run has n = %lld, nev = %d, ncv = %d, keep = %d", s[1], s[2], s[3], s[4], (long long)n, opt->nev,
           L->m, keep);
  HM_CHECK(s[5] >= 1 && s[5] <= opt->maxit && s[5] == floor(s[5]) && s[6] >= 0 && s[6] == floor(s[6]), HM_ERR_INPUT,
           "the checkpoint's restart count %.17g must be an integer in [1, maxit = %d] and its solves %.17g a "
           "count", s[5], opt->maxit, s[6]);
  for (size_t i = 0; i < mm; i++)
    HM_CHECK(isfinite(s[STATE_HEADER + i]), HM_ERR_INPUT, "the checkpoint's projected matrix has a non-finite entry");
  return HM_SUCCESS;
}

static int resume_state(lanczos *L, const hm_krylov_schur_options *opt, int64_t n, int keep, int *restarts) {
  hm_krylov_schur_state state = {.blocks = {NULL, NULL}};
  HM_CALL(opt->resume(&state, opt->resume_user)); /* the scalars, checked before the blocks are read */
  int st = check_state(L, opt, n, keep, state.scalars, state.nscalars);
  if (!st) {
    state.blocks[0] = L->V, state.blocks[1] = L->BV;
    st = opt->resume(&state, opt->resume_user);
  }
  if (!st) {
    *restarts = (int)state.scalars[5];
    L->solves = (int64_t)state.scalars[6];
    memcpy(L->H, state.scalars + STATE_HEADER, sizeof(double) * (size_t)L->m * (size_t)L->m);
  }
  free(state.scalars);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* A restart boundary: a checkpoint where due (rank 0's clock decides time-based ones, so every rank
 * agrees), then the stop request, checkpointed where none was just written. */
typedef struct {
  double t_checkpoint;
  int last_checkpoint;
} boundary_clock;

static int at_boundary(lanczos *L, const hm_krylov_schur_options *opt, int64_t n, int keep, int restarts,
                       boundary_clock *clock, int *stopped) {
  int due = opt->checkpoint_every > 0 && restarts % opt->checkpoint_every == 0;
  if (opt->checkpoint_seconds > 0) {
    int late = MPI_Wtime() - clock->t_checkpoint >= opt->checkpoint_seconds;
    HM_CALL_MPI(MPI_Bcast(&late, 1, MPI_INT, 0, L->comm));
    due |= late;
  }
  *stopped = opt->stop && opt->stop(opt->stop_user);
  if ((due || *stopped) && opt->checkpoint && clock->last_checkpoint != restarts) {
    HM_CALL(save_state(L, opt, n, keep, restarts));
    clock->last_checkpoint = restarts;
    clock->t_checkpoint = MPI_Wtime();
  }
  return HM_SUCCESS;
}

int hm_krylov_schur_solve(hm_shift_invert *si, const hm_krylov_schur_options *opt, double *theta, double *est,
                          hm_mvec *X, hm_krylov_schur_info *info) {
  HM_CHECK(si && opt && theta, HM_ERR_ARGUMENT, "si, opt or theta is NULL");
  hm_matrix *A, *B;
  double sigma;
  HM_CALL(hm_shift_invert_problem(si, &A, &B, &sigma));
  const int64_t n = A->dist.n_global;
  const int nev = opt->nev;
  HM_CHECK(nev >= 1 && nev < n, HM_ERR_ARGUMENT, "nev = %d must lie in [1, %lld) (the matrix order)", nev,
           (long long)n);
  int m = opt->ncv > 0 ? opt->ncv : (2 * nev + 1 > nev + 15 ? 2 * nev + 1 : nev + 15);
  if (opt->ncv <= 0 && m > n) m = (int)n;
  HM_CHECK(m > nev && m <= n, HM_ERR_ARGUMENT, "ncv = %d must lie in (nev = %d, n = %lld]", m, nev, (long long)n);
  const int keep = opt->keep > 0 ? opt->keep : nev + (m - nev) / 2;
  HM_CHECK(keep >= nev && keep < m, HM_ERR_ARGUMENT, "keep = %d must lie in [nev = %d, ncv = %d)", keep, nev, m);
  HM_CHECK(opt->tol > 0 && opt->maxit >= 1, HM_ERR_ARGUMENT, "tol = %g must be positive and maxit = %d at least 1",
           opt->tol, opt->maxit);
  HM_CHECK(opt->checkpoint_every >= 0 && opt->checkpoint_seconds >= 0 &&
               (opt->checkpoint || (opt->checkpoint_every == 0 && opt->checkpoint_seconds == 0)),
           HM_ERR_ARGUMENT, "checkpoint_every = %d and checkpoint_seconds = %g must be >= 0, and need a checkpoint "
           "callback", opt->checkpoint_every, opt->checkpoint_seconds);
  HM_CHECK(!X || (X->k >= nev && X->dist.local == A->dist.local && X->type == A->type), HM_ERR_ARGUMENT,
           "X must be a block over A's rows and type with at least nev = %d columns", nev);

  lanczos L = {.si = si, .comm = A->ctx->comm, .B = B, .type = A->type, .t = (size_t)A->type, .m = m};
  const size_t t = L.t, w1 = (size_t)m + 1;
  double *ritz = calloc((size_t)m, sizeof(double)), *S = calloc((size_t)m * (size_t)m, sizeof(double));
  int *order = calloc((size_t)m, sizeof(int));
  L.H = calloc((size_t)m * (size_t)m, sizeof(double));
  L.coef = calloc(t * w1, sizeof(double));
  L.C = calloc(t * w1 * w1, sizeof(double));
  L.G = calloc(t * w1, sizeof(double));
  int st = ritz && S && order && L.H && L.coef && L.C && L.G ? HM_SUCCESS : HM_ERR_MEMORY;
  if (st) {
    hm_error_raise(st, __FILE__, __LINE__, __func__, "could not allocate the projected problem (ncv = %d)", m);
    goto done;
  }
  const double zero[2] = {0, 0};
  /* B = I: B V is V and B w is w (one block less to keep, copy and restart) */
  hm_mvec **blocks[] = {&L.V, &L.tmp, &L.BV};
  for (int b = 0; b < (B ? 3 : 2); b++) {
    HM_CALL_GOTO(st, done, hm_mvec_create(A->ctx, &A->dist, A->type, m + 1, blocks[b]));
    HM_CALL_GOTO(st, done, hm_mvec_axpby(*blocks[b], L.coef, *blocks[b], L.coef)); /* zeros, not garbage */
  }
  if (!B) L.BV = L.V;
  HM_CALL_GOTO(st, done, hm_mvec_create(A->ctx, &A->dist, A->type, 1, &L.x1));
  HM_CALL_GOTO(st, done, hm_mvec_create(A->ctx, &A->dist, A->type, 1, &L.w));
  if (B) HM_CALL_GOTO(st, done, hm_mvec_create(A->ctx, &A->dist, A->type, 1, &L.Bw));
  else L.Bw = L.w;
  int j0 = 0, restarts = 0, nconv = 0;
  if (opt->resume) { /* the basis, its B images and H as they were after restart `restarts` */
    HM_CALL_GOTO(st, done, resume_state(&L, opt, n, keep, &restarts));
    j0 = keep;
  } else {
    HM_CALL_GOTO(st, done, random_column(&L, 0, opt->seed));
  }
  boundary_clock clock = {.t_checkpoint = MPI_Wtime(), .last_checkpoint = opt->resume ? restarts : -1};
  double beta = 0;
  for (;;) {
    HM_CALL_GOTO(st, done, expand(&L, j0, opt->seed + 1000003u * (uint64_t)(restarts + 1), &beta));
    memcpy(S, L.H, sizeof(double) * (size_t)m * (size_t)m);
    lapack_int lst = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', m, S, m, ritz);
    if (lst != 0) {
      st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__,
                          "the projected Lanczos problem (%d x %d) failed: dsyev info %d", m, m, (int)lst);
      goto done;
    }
    for (int i = 0; i < m; i++) order[i] = i;
    for (int i = 0; i < m; i++) /* largest |theta| first (m is small) */
      for (int j = i + 1; j < m; j++)
        if (fabs(ritz[order[j]]) > fabs(ritz[order[i]])) { int s = order[i]; order[i] = order[j]; order[j] = s; }
    nconv = 0;
    while (nconv < nev &&
           fabs(beta * S[(size_t)(m - 1) * m + order[nconv]]) <= opt->tol * fabs(ritz[order[nconv]]))
      nconv++;
    if (opt->progress) {
      double worst = 0;
      for (int i = 0; i < nev; i++)
        worst = fmax(worst, fabs(beta * S[(size_t)(m - 1) * m + order[i]]) / fmax(fabs(ritz[order[i]]), DBL_MIN));
      opt->progress(restarts, nconv, nev, worst, opt->progress_user);
    }
    if (nconv >= nev || restarts >= opt->maxit) break;
    /* restart: V[:, 0:keep] = V_m S[:, order[0:keep]], V[:, keep] = v_m; H = diag(theta) + arrowhead */
    memset(L.C, 0, sizeof(double) * t * w1 * w1);
    for (int i = 0; i < keep; i++)
      for (int a = 0; a < m; a++) set_coefficient(&L, a, i, S[(size_t)a * m + order[i]]);
    set_coefficient(&L, m, keep, 1.0);
    HM_CALL_GOTO(st, done, hm_mvec_update(L.tmp, zero, L.V, L.C));
    hm_mvec *swap = L.V;
    L.V = L.tmp, L.tmp = swap;
    if (B) {
      HM_CALL_GOTO(st, done, hm_mvec_update(L.tmp, zero, L.BV, L.C));
      swap = L.BV, L.BV = L.tmp, L.tmp = swap;
    } else {
      L.BV = L.V;
    }
    memset(L.H, 0, sizeof(double) * (size_t)m * (size_t)m);
    for (int i = 0; i < keep; i++) {
      L.H[i * m + i] = ritz[order[i]];
      L.H[i * m + keep] = L.H[keep * m + i] = beta * S[(size_t)(m - 1) * m + order[i]];
    }
    j0 = keep;
    restarts++;
    int stopped = 0;
    HM_CALL_GOTO(st, done, at_boundary(&L, opt, n, keep, restarts, &clock, &stopped));
    if (stopped) {
      if (info) *info = (hm_krylov_schur_info){.converged = nconv, .restarts = restarts, .solves = L.solves, .ncv = m};
      st = hm_error_raise(HM_ERR_STOPPED, __FILE__, __LINE__, __func__,
                          "stopped on request after restart %d of at most %d%s", restarts, opt->maxit,
                          opt->checkpoint ? " (checkpointed)" : "");
      goto done;
    }
  }
  for (int i = 0; i < nev; i++) {
    theta[i] = ritz[order[i]];
    if (est) est[i] = fabs(beta * S[(size_t)(m - 1) * m + order[i]]);
  }
  if (X) { /* X[:, 0:nev] = V_m S[:, order[0:nev]], the other columns cleared */
    double *Cx = calloc(t * w1 * (size_t)X->k, sizeof(double)), *zeros = calloc(t * (size_t)X->k, sizeof(double));
    if (Cx && zeros) {
      for (int i = 0; i < nev; i++)
        for (int a = 0; a < m; a++) Cx[t * ((size_t)a * (size_t)X->k + (size_t)i)] = S[(size_t)a * m + order[i]];
      st = hm_mvec_axpby(X, zeros, X, zeros);
      if (!st) st = hm_mvec_update(X, zero, L.V, Cx);
    } else {
      st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %d x %d", m + 1, X->k);
    }
    free(Cx), free(zeros);
    if (st) goto done;
  }
  if (info) *info = (hm_krylov_schur_info){.converged = nconv, .restarts = restarts, .solves = L.solves, .ncv = m};
done:
  release(&L);
  free(ritz), free(S), free(order);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}
