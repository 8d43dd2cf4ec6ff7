/* Thick-restart Lanczos on T = (A - sigma B)^-1 B in the B inner product (krylov_schur.h).
 * The projected matrix H is real symmetric (tridiagonal, with an arrowhead after a restart) for
 * real and complex blocks alike, so the small eigenproblem is LAPACK's dsyev; only the
 * coefficients handed to the block operations take the blocks' scalar type. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <cblas.h>
#include <lapacke.h>
#include "checkpoint_due.h"
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
  opt->verify = 1;
}

typedef struct {
  hm_shift_invert *si;
  MPI_Comm comm;
  hm_matrix *B;          /* NULL: the identity */
  hm_scalar type;
  size_t t;              /* doubles per scalar */
  int m;                 /* ncv */
  hm_mvec *V, *BV, *tmp; /* m + 1 columns each; tmp takes the restarted basis; BV is V where B = I;
                          * NULL on the CPU backend (Vc below) */
  hm_mvec *x1, *w, *Bw;  /* one column each; Bw is w where B = I */
  double *H;             /* m x m, row-major, real symmetric */
  double *coef;          /* (m + 1) scalars of the blocks' type */
  double *C;             /* (m + 1) x (m + 1) scalars: the restart's combination */
  double *G;             /* (m + 1) scalars: a Gram row */
  int64_t solves;
  /* Verification (krylov_schur.h): columns 0:nl are locked Ritz vectors, uncoupled in H (its diagonal
   * holds their theta), with the Ritz estimates they had when locked. */
  int nl, verifying;
  double cut;            /* |theta| of the nev-th wanted among the locked */
  double *locked_est;    /* m */
  int64_t verify_start;  /* solves when the verification began */
  int copies;            /* pairs locked by the verification */
  double tol;            /* the options' */
  /* CPU backend: the basis and its B images live only column-major on the host (local rows x
   * (m + 1), columns contiguous), in place of V, BV and tmp. The one-column Gram-Schmidt is then gemv
   * over the n columns in use (on row-major blocks of m + 1 columns BLAS runs short inner loops per
   * row, 1.5-4x slower: bench/README.md); the blocks are allocated once and not zeroed,
   * each column is first touched when it fills; a restart is one product into spare and a swap.
   * BVc is Vc where B = I. NULL on the other backends. */
  double *Vc, *BVc, *spare;
  size_t ld;             /* local rows */
} lanczos;

/* The verification's decisions (verify_step): below, where a Ritz value counts as a copy of the cut
 * (within 10 tol); decide, the Ritz estimate relative to |theta| that shows a value converged enough
 * to be told from the cut. */
static void thresholds(const lanczos *L, double *below, double *decide) {
  *below = L->cut * (1 - fmax(10 * L->tol, 64 * DBL_EPSILON));
  *decide = fmax(L->tol, 1e-3);
}

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
static int orthogonalize_columns(lanczos *L, int n, double *sum);

static int orthogonalize(lanczos *L, int n, double *sum) {
  if (L->Vc) return orthogonalize_columns(L, n, sum);
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

/* orthogonalize on the host basis (CPU backend): c = (B V)[:, 0:n]^H w from gemv over contiguous columns
 * (one reduction), w -= V[:, 0:n] c, twice. */
static int orthogonalize_columns(lanczos *L, int n, double *sum) {
  if (n == 0) return HM_SUCCESS;
  const int rows = (int)L->ld;
  double *w = L->w->data, *c = L->G, *local = L->coef;
  for (int pass = 0; pass < 2; pass++) {
    if (L->t == 2) {
      const double complex one = 1, zero = 0;
      if (rows) cblas_zgemv(CblasColMajor, CblasConjTrans, rows, n, &one, L->BVc, rows, w, 1, &zero, local, 1);
    } else if (rows) {
      cblas_dgemv(CblasColMajor, CblasTrans, rows, n, 1.0, L->BVc, rows, w, 1, 0.0, local, 1);
    }
    if (!rows) memset(local, 0, sizeof(double) * L->t * (size_t)n);
    HM_CALL_MPI(MPI_Allreduce(local, c, (int)L->t * n, MPI_DOUBLE, MPI_SUM, L->comm));
    for (int i = 0; i < n; i++) {
      if (sum) sum[i] += c[L->t * i];
      c[L->t * i] = -c[L->t * i];
      if (L->t == 2) c[2 * i + 1] = -c[2 * i + 1];
    }
    if (rows && L->t == 2) {
      const double complex one = 1;
      cblas_zgemv(CblasColMajor, CblasNoTrans, rows, n, &one, L->Vc, rows, c, 1, &one, w, 1);
    } else if (rows) {
      cblas_dgemv(CblasColMajor, CblasNoTrans, rows, n, 1.0, L->Vc, rows, c, 1, 1.0, w, 1);
    }
  }
  return HM_SUCCESS;
}

/* Column j of a host basis (Vc, BVc or spare). */
static double *host_column(const lanczos *L, double *base, int j) { return base + L->t * L->ld * (size_t)j; }

/* dst = s src over count doubles (one pass: the scaling and the copy into the basis together). */
static void scale_into(double *dst, const double *src, double s, size_t count) {
  for (size_t i = 0; i < count; i++) dst[i] = s * src[i];
}

/* ||w||_B from one reduction (the real part: w^H B w is real up to rounding). */
static int b_norm(lanczos *L, double *norm) {
  double dot[2] = {0, 0};
  HM_CALL(hm_mvec_dot(L->w, L->Bw, dot));
  *norm = sqrt(fmax(dot[0], 0.0));
  return HM_SUCCESS;
}

/* Column j of V and BV = w / beta, Bw / beta (on the host basis w and B w are left unscaled: neither is
 * read again before the next solve or random start overwrites them). */
static int store_column(lanczos *L, int j, double beta) {
  if (L->Vc) {
    scale_into(host_column(L, L->Vc, j), L->w->data, 1.0 / beta, L->t * L->ld);
    if (L->B) scale_into(host_column(L, L->BVc, j), L->Bw->data, 1.0 / beta, L->t * L->ld);
    return HM_SUCCESS;
  }
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

/* One end of the active block's spectrum shows nothing at the cut or beyond (|theta| >= below): its
 * extreme Ritz value r (largest: high, or smallest) with estimate e lies inside (-below, below) by
 * more than e, converged to decide where it is the outer end (a Ritz value approaches its end's
 * eigenvalue from inside, so only a converged one bounds it). Both ends count: where A - sigma B is
 * indefinite, T has wanted values of both signs. */
static int end_clear(double r, double e, double below, double decide, int high) {
  if (high) return r + e < below && (r <= 0 || e <= decide * r);
  return r - e > -below && (r >= 0 || e <= -decide * r);
}

/* During the verification, after column j: whether the active block's Ritz values so far already
 * show that nothing at the cut or above is left (verify_step's test), so the cycle ends early.
 * work: m * m + m doubles. */
static int nothing_left(const lanczos *L, int j, double beta, double *work) {
  const int m = L->m, nl = L->nl, k = j + 1 - nl;
  if (!L->verifying || k < 2) return 0;
  double *Z = work, *ev = work + (size_t)m * m, below, decide;
  for (int r = 0; r < k; r++) memcpy(Z + (size_t)r * k, L->H + (size_t)(nl + r) * m + nl, sizeof(double) * k);
  if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', k, Z, k, ev) != 0) return 0; /* the cycle then runs to m */
  thresholds(L, &below, &decide);
  return end_clear(ev[k - 1], fabs(beta * Z[(size_t)(k - 1) * k + k - 1]), below, decide, 1) &&
         end_clear(ev[0], fabs(beta * Z[(size_t)(k - 1) * k]), below, decide, 0);
}

/* Extend the basis from column j0 to m: T V_m = V_m H + beta v_m e_m^T; *done_early where the
 * verification ended before m (nothing_left). */
static int expand(lanczos *L, int j0, uint64_t seed, double *beta_out, int *done_early) {
  double *sum = calloc((size_t)L->m + 1, sizeof(double));
  double *work = calloc((size_t)L->m * (size_t)(L->m + 1), sizeof(double));
  int st = sum && work ? HM_SUCCESS : HM_ERR_MEMORY;
  if (st) {
    free(sum), free(work);
    HM_CHECK(0, HM_ERR_MEMORY, "could not allocate %d coefficients", L->m + 1);
  }
  double beta = 0;
  *done_early = 0;
  for (int j = j0; j < L->m && !st && !*done_early; j++) {
    if (L->Vc) /* T v_j = (A - sigma B)^-1 (B v_j) */
      memcpy(L->x1->data, host_column(L, L->BVc, j), sizeof(double) * L->t * L->ld);
    else
      st = hm_mvec_copy_columns(L->BV, j, L->x1, 0, 1);
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
    if (!st) *done_early = j + 1 < L->m && nothing_left(L, j, beta, work);
  }
  free(sum), free(work);
  *beta_out = beta;
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

static void release(lanczos *L) {
  if (L->BV == L->V) L->BV = NULL;
  if (L->Bw == L->w) L->Bw = NULL;
  hm_mvec_destroy(&L->V), hm_mvec_destroy(&L->BV), hm_mvec_destroy(&L->tmp);
  hm_mvec_destroy(&L->x1), hm_mvec_destroy(&L->w), hm_mvec_destroy(&L->Bw);
  free(L->H), free(L->coef), free(L->C), free(L->G), free(L->locked_est);
  if (L->BVc != L->Vc) free(L->BVc);
  free(L->Vc), free(L->spare);
}

/* The real combination C (rows: basis vectors, columns: new vectors) in the blocks' type. */
static void set_coefficient(lanczos *L, int row, int col, double value) {
  L->C[L->t * ((size_t)row * (size_t)(L->m + 1) + (size_t)col)] = value;
}

/* The projected problem: the locked block stays diagonal (S = I there, ritz its theta), the active
 * block H[nl:m, nl:m] goes to dsyev (a degenerate copy must not mix with a locked vector). */
static int project(lanczos *L, double *S, double *ritz) {
  const int m = L->m, nl = L->nl;
  memset(S, 0, sizeof(double) * (size_t)m * (size_t)m);
  for (int i = 0; i < nl; i++) S[(size_t)i * m + i] = 1.0, ritz[i] = L->H[i * m + i];
  for (int i = nl; i < m; i++) memcpy(S + (size_t)i * m + nl, L->H + (size_t)i * m + nl, sizeof(double) * (m - nl));
  lapack_int lst = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', m - nl, S + (size_t)nl * m + nl, m, ritz + nl);
  HM_CHECK(lst == 0, HM_ERR_LAPACK, "the projected Lanczos problem (%d x %d) failed: dsyev info %d", m - nl, m - nl,
           (int)lst);
  return HM_SUCCESS;
}

/* The Ritz estimate of pair i: from the residual beta v_m, or the one a locked pair had when locked. */
static double estimate(const lanczos *L, const double *S, double beta, int i) {
  return i < L->nl ? L->locked_est[i] : fabs(beta * S[(size_t)(L->m - 1) * L->m + i]);
}

/* restart_basis on the host basis: columns nl + c of the new basis = V[:, nl:kin] Q[:, c] (Q real,
 * column-major: the Ritz vectors cols[0:ncols] of the active block, then v_m where coupled), one
 * dgemm per basis (a complex column is a real one of twice the rows, Q being real) into spare, the
 * locked columns copied, then a swap. The locked rows need no coefficients: the active block's Ritz
 * vectors have none there (project keeps S block diagonal). L->C (zeroed) holds Q. */
static void restart_host(lanczos *L, const double *S, const int *cols, int ncols, int lock) {
  const int m = L->m, nl = L->nl, kin = lock ? m : m + 1, rows_q = kin - nl, nnew = ncols + !lock;
  double *Q = L->C;
  memset(Q, 0, sizeof(double) * (size_t)rows_q * (size_t)nnew);
  for (int c = 0; c < ncols; c++)
    for (int a = nl; a < m; a++) Q[(size_t)c * rows_q + (size_t)(a - nl)] = S[(size_t)a * m + cols[c]];
  if (!lock) Q[(size_t)ncols * rows_q + (size_t)(m - nl)] = 1.0;
  const size_t rows = L->t * L->ld;
  double **bases[2] = {&L->Vc, &L->BVc};
  for (int b = 0; b < (L->B ? 2 : 1); b++) {
    double *src = *bases[b], *dst = L->spare;
    if (rows)
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)rows, nnew, rows_q, 1.0, src + rows * (size_t)nl,
                  (int)rows, Q, rows_q, 0.0, dst + rows * (size_t)nl, (int)rows);
    if (nl) memcpy(dst, src, sizeof(double) * rows * (size_t)nl);
    *bases[b] = dst, L->spare = src;
  }
  if (!L->B) L->BVc = L->Vc;
}

/* The next basis: the locked columns stay, then the Ritz vectors cols[0:ncols] (of the active block),
 * then, where coupled, v_m with the arrowhead; lock: the Ritz vectors join the locked ones (their
 * coupling, within tol, dropped) and no v_m follows. Returns the next free column. */
static int restart_basis(lanczos *L, const double *S, const double *ritz, double beta, const int *cols, int ncols,
                         int lock) {
  const int m = L->m, nl = L->nl, t = (int)L->t;
  if (L->Vc) {
    restart_host(L, S, cols, ncols, lock);
  } else {
    const double zero[2] = {0, 0};
    memset(L->C, 0, sizeof(double) * (size_t)t * (size_t)(m + 1) * (size_t)(m + 1));
    for (int i = 0; i < nl; i++) set_coefficient(L, i, i, 1.0);
    for (int c = 0; c < ncols; c++)
      for (int a = 0; a < m; a++) set_coefficient(L, a, nl + c, S[(size_t)a * m + cols[c]]);
    if (!lock) set_coefficient(L, m, nl + ncols, 1.0);
    HM_CALL(hm_mvec_update(L->tmp, zero, L->V, L->C));
    hm_mvec *swap = L->V;
    L->V = L->tmp, L->tmp = swap;
    if (L->B) {
      HM_CALL(hm_mvec_update(L->tmp, zero, L->BV, L->C));
      swap = L->BV, L->BV = L->tmp, L->tmp = swap;
    } else {
      L->BV = L->V;
    }
  }
  memset(L->H, 0, sizeof(double) * (size_t)m * (size_t)m);
  for (int i = 0; i < nl; i++) L->H[i * m + i] = ritz[i];
  for (int c = 0; c < ncols; c++) {
    const int i = nl + c;
    L->H[i * m + i] = ritz[cols[c]];
    if (lock) L->locked_est[i] = fabs(beta * S[(size_t)(m - 1) * m + cols[c]]);
    else L->H[i * m + nl + ncols] = L->H[(nl + ncols) * m + i] = beta * S[(size_t)(m - 1) * m + cols[c]];
  }
  if (lock) L->nl += ncols;
  return nl + ncols;
}

/* |theta| of the nev-th largest locked pair. */
static double locked_cut(const lanczos *L, int nev) {
  double *a = malloc(sizeof(double) * (size_t)L->nl), cut = 0;
  if (!a) return L->cut;
  for (int i = 0; i < L->nl; i++) a[i] = fabs(L->H[i * L->m + i]);
  for (int k = 0; k < nev && k < L->nl; k++) { /* partial selection: the k-th largest to a[k] */
    for (int j = k + 1; j < L->nl; j++)
      if (a[j] > a[k]) { double s = a[k]; a[k] = a[j]; a[j] = s; }
    cut = a[k];
  }
  free(a);
  return cut;
}

/* The state's scalars: a version, n, nev, ncv, keep, restarts, solves, the locked count, verifying, the
 * next column, the cut, the solves when the verification began, the copies it found, then H (ncv x ncv,
 * row-major) and the locked pairs' estimates (ncv). Version 1 (before the verification): the first 7
 * and H. */
enum { STATE_VERSION = 2, STATE_HEADER = 13, STATE_HEADER_V1 = 7 };

/* The host basis has no hm_mvec blocks: a checkpoint or a resume goes through row-major staging blocks
 * of m + 1 columns (the same layout as on the other backends: a checkpoint reads alike everywhere);
 * blocks[1] is blocks[0] where B = I. */
static int staging_create(lanczos *L, hm_mvec *blocks[2]) {
  blocks[0] = blocks[1] = NULL;
  HM_CALL(hm_mvec_create(L->x1->ctx, &L->x1->dist, L->type, L->m + 1, &blocks[0]));
  if (L->B) {
    int st = hm_mvec_create(L->x1->ctx, &L->x1->dist, L->type, L->m + 1, &blocks[1]);
    if (st) hm_mvec_destroy(&blocks[0]);
    HM_CALL(st);
  } else {
    blocks[1] = blocks[0];
  }
  return HM_SUCCESS;
}

static void staging_destroy(hm_mvec *blocks[2]) {
  if (blocks[1] != blocks[0]) hm_mvec_destroy(&blocks[1]);
  hm_mvec_destroy(&blocks[0]);
}

/* Columns 0:filled between the host basis and the staging blocks (to_blocks: the rest cleared). */
static void staging_copy(lanczos *L, hm_mvec *blocks[2], int filled, int to_blocks) {
  const size_t t = L->t, k = (size_t)L->m + 1;
  double *host[2] = {L->Vc, L->BVc};
  for (int b = 0; b < (L->B ? 2 : 1); b++)
    for (size_t i = 0; i < L->ld; i++) { /* plain loops: a memcpy call per entry costs more than the copy */
      double *row = blocks[b]->data + t * i * k;
      for (size_t j = 0; j < k; j++) {
        double *col = host[b] + t * (j * L->ld + i);
        for (size_t r = 0; r < t; r++) {
          if (!to_blocks) {
            if (j < (size_t)filled) col[r] = row[t * j + r];
          } else {
            row[t * j + r] = j < (size_t)filled ? col[r] : 0.0;
          }
        }
      }
    }
}

static int save_state(lanczos *L, const hm_krylov_schur_options *opt, int64_t n, int keep, int restarts, int j0) {
  const size_t mm = (size_t)L->m * (size_t)L->m;
  hm_krylov_schur_state state = {.blocks = {L->V, L->BV}, .nscalars = STATE_HEADER + (int)mm + L->m};
  if (L->Vc) {
    HM_CALL(staging_create(L, state.blocks));
    staging_copy(L, state.blocks, j0 < L->m ? j0 + 1 : L->m + 1, 1);
  }
  state.scalars = malloc(sizeof(double) * (size_t)state.nscalars);
  if (!state.scalars && L->Vc) staging_destroy(state.blocks);
  HM_CHECK(state.scalars, HM_ERR_MEMORY, "could not allocate the checkpoint's %d scalars", state.nscalars);
  const double header[STATE_HEADER] = {STATE_VERSION, (double)n, opt->nev, L->m, keep, restarts, (double)L->solves,
                                       L->nl, L->verifying, j0, L->cut, (double)L->verify_start, L->copies};
  memcpy(state.scalars, header, sizeof header);
  memcpy(state.scalars + STATE_HEADER, L->H, sizeof(double) * mm);
  memcpy(state.scalars + STATE_HEADER + mm, L->locked_est, sizeof(double) * (size_t)L->m);
  const int st = opt->checkpoint(&state, opt->checkpoint_user);
  free(state.scalars);
  if (L->Vc) staging_destroy(state.blocks);
  HM_CHECK(st == 0, st > 0 && st <= HM_ERR_INPUT ? st : HM_ERR_INTERNAL,
           "the checkpoint callback returned status %d at restart %d", st, restarts);
  return HM_SUCCESS;
}

static int is_count(double x, double lo, double hi) { return x >= lo && x <= hi && x == floor(x); }

/* A saved state of this very problem and basis, checked before it is used. */
static int check_state(const lanczos *L, const hm_krylov_schur_options *opt, int64_t n, int keep, const double *s,
                       int ns) {
  const size_t mm = (size_t)L->m * (size_t)L->m;
  HM_CHECK(s && ns >= STATE_HEADER_V1 && (s[0] == STATE_VERSION || s[0] == 1), HM_ERR_INPUT,
           "the checkpoint holds no Krylov-Schur state of version 1 or %d (%d scalars)", STATE_VERSION, ns);
  const int v1 = s[0] == 1;
  const size_t want = v1 ? STATE_HEADER_V1 + mm : STATE_HEADER + mm + (size_t)L->m;
  HM_CHECK(s[1] == (double)n && s[2] == opt->nev && s[3] == L->m && s[4] == keep && (size_t)ns == want,
           HM_ERR_INPUT, "the checkpoint's Krylov-Schur state has n = %.0f, nev = %.0f, ncv = %.0f, keep = %.0f; "
           "this run has n = %lld, nev = %d, ncv = %d, keep = %d", s[1], s[2], s[3], s[4], (long long)n, opt->nev,
           L->m, keep);
  HM_CHECK(is_count(s[5], 1, opt->maxit) && is_count(s[6], 0, 9e15), HM_ERR_INPUT,
           "the checkpoint's restart count %.17g must be an integer in [1, maxit = %d] and its solves %.17g a "
           "count", s[5], opt->maxit, s[6]);
  const size_t head = v1 ? STATE_HEADER_V1 : STATE_HEADER;
  if (!v1)
    HM_CHECK(is_count(s[8], 0, 1) && is_count(s[7], s[8] ? opt->nev : 0, s[8] ? L->m - 2 : 0) &&
                 is_count(s[9], s[7], L->m - 1) && isfinite(s[10]) && is_count(s[11], 0, s[6]) &&
                 is_count(s[12], 0, L->m),
             HM_ERR_INPUT, "the checkpoint's verification state (locked %.17g, verifying %.17g, column %.17g) does "
             "not fit ncv = %d", s[7], s[8], s[9], L->m);
  for (size_t i = 0; i < ns - head; i++)
    HM_CHECK(isfinite(s[head + i]), HM_ERR_INPUT, "the checkpoint's projected matrix has a non-finite entry");
  return HM_SUCCESS;
}

static int resume_state(lanczos *L, const hm_krylov_schur_options *opt, int64_t n, int keep, int *restarts, int *j0) {
  hm_krylov_schur_state state = {.blocks = {NULL, NULL}};
  HM_CALL(opt->resume(&state, opt->resume_user)); /* the scalars, checked before the blocks are read */
  int st = check_state(L, opt, n, keep, state.scalars, state.nscalars);
  hm_mvec *staging[2] = {NULL, NULL};
  if (!st && L->Vc) st = staging_create(L, staging);
  if (!st) {
    state.blocks[0] = L->Vc ? staging[0] : L->V, state.blocks[1] = L->Vc ? staging[1] : L->BV;
    st = opt->resume(&state, opt->resume_user);
  }
  if (!st) {
    const double *s = state.scalars;
    const size_t mm = (size_t)L->m * (size_t)L->m;
    *restarts = (int)s[5];
    L->solves = (int64_t)s[6];
    *j0 = keep;
    if (s[0] == STATE_VERSION) {
      L->nl = (int)s[7], L->verifying = (int)s[8], *j0 = (int)s[9], L->cut = s[10];
      L->verify_start = (int64_t)s[11], L->copies = (int)s[12];
      memcpy(L->H, s + STATE_HEADER, sizeof(double) * mm);
      memcpy(L->locked_est, s + STATE_HEADER + mm, sizeof(double) * (size_t)L->m);
    } else {
      memcpy(L->H, s + STATE_HEADER_V1, sizeof(double) * mm);
    }
    if (L->Vc) staging_copy(L, staging, *j0 + 1, 0);
  }
  if (L->Vc) staging_destroy(staging);
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

static int at_boundary(lanczos *L, const hm_krylov_schur_options *opt, int64_t n, int keep, int restarts, int j0,
                       boundary_clock *clock, int *stopped) {
  int due;
  HM_CALL(hm_checkpoint_due(L->comm, restarts, opt->checkpoint_every, opt->checkpoint_seconds, clock->t_checkpoint,
                            &due));
  *stopped = opt->stop && opt->stop(opt->stop_user);
  if ((due || *stopped) && opt->checkpoint && clock->last_checkpoint != restarts) {
    HM_CALL(save_state(L, opt, n, keep, restarts, j0));
    clock->last_checkpoint = restarts;
    clock->t_checkpoint = MPI_Wtime();
  }
  return HM_SUCCESS;
}

/* What follows a verification cycle (L->verifying): mu, the active block's largest |theta|, with
 * estimate e. Converged to tol at the cut or above, it is a missed copy (or value): locked, with
 * the other converged active pairs at the cut or above (room permitting). Nothing was missed where
 * both ends of the active block are clear (end_clear): a missed value at the cut or beyond would be
 * the deflated operator's most extreme on its side, which Lanczos from a random vector approximates
 * first. Returns 1 to stop (verified, or no room left), else the columns to keep (*ncols, *lock) in
 * cols. */
static int verify_step(lanczos *L, const hm_krylov_schur_options *opt, const int *order, const double *S,
                       const double *ritz, double beta, int keep, int *cols, int *ncols, int *lock, int *verified) {
  const int m = L->m;
  double below, tol_decide;
  thresholds(L, &below, &tol_decide);
  int nact = 0;
  for (int k = 0; k < m; k++)
    if (order[k] >= L->nl) cols[nact++] = order[k]; /* the active pairs, largest |theta| first */
  const double mu = fabs(ritz[cols[0]]), e = estimate(L, S, beta, cols[0]);
  *lock = 0, *ncols = 0, *verified = 0;
  if (e <= opt->tol * mu && mu >= below) {
    while (*ncols < nact && L->nl + *ncols < m - 2 && fabs(ritz[cols[*ncols]]) >= below &&
           estimate(L, S, beta, cols[*ncols]) <= opt->tol * fabs(ritz[cols[*ncols]]))
      (*ncols)++;
    *lock = 1;
    return *ncols == 0; /* no room left for another copy: stop unverified */
  }
  if (end_clear(ritz[m - 1], estimate(L, S, beta, m - 1), below, tol_decide, 1) && /* the active block, ascending */
      end_clear(ritz[L->nl], estimate(L, S, beta, L->nl), below, tol_decide, 0))
    return *verified = 1;
  int ka = keep - L->nl; /* thick restart of the active block */
  if (ka > m - L->nl - 1) ka = m - L->nl - 1;
  if (ka < 1) ka = m - L->nl - 1 >= 1 ? 1 : 0;
  *ncols = ka;
  return 0;
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

  lanczos L = {.si = si, .comm = A->ctx->comm, .B = B, .type = A->type, .t = (size_t)A->type, .m = m, .tol = opt->tol};
  const size_t t = L.t, w1 = (size_t)m + 1;
  double *ritz = calloc((size_t)m, sizeof(double)), *S = calloc((size_t)m * (size_t)m, sizeof(double));
  int *order = calloc((size_t)m, sizeof(int)), *cols = calloc((size_t)m, sizeof(int));
  L.H = calloc((size_t)m * (size_t)m, sizeof(double));
  L.coef = calloc(t * w1, sizeof(double));
  L.C = calloc(t * w1 * w1, sizeof(double));
  L.G = calloc(t * w1, sizeof(double));
  L.locked_est = calloc((size_t)m, sizeof(double));
  int st = ritz && S && order && cols && L.H && L.coef && L.C && L.G && L.locked_est ? HM_SUCCESS : HM_ERR_MEMORY;
  if (st) {
    hm_error_raise(st, __FILE__, __LINE__, __func__, "could not allocate the projected problem (ncv = %d)", m);
    goto done;
  }
  const double zero[2] = {0, 0};
  /* B = I: B V is V and B w is w (one block less to keep, copy and restart) */
  if (A->ctx->backend == HM_BACKEND_CPU) { /* the host basis (lanczos): malloc'd, touched as it fills */
    L.ld = (size_t)A->dist.local;
    const size_t doubles = t * L.ld * w1 + 1;
    L.Vc = malloc(sizeof(double) * doubles);
    L.spare = malloc(sizeof(double) * doubles);
    L.BVc = B ? malloc(sizeof(double) * doubles) : L.Vc;
    if (!L.Vc || !L.BVc || !L.spare) {
      st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                          "could not allocate the basis (%d columns of %zu rows)", m + 1, L.ld);
      goto done;
    }
  } else {
    hm_mvec **blocks[] = {&L.V, &L.tmp, &L.BV};
    for (int b = 0; b < (B ? 3 : 2); b++) {
      HM_CALL_GOTO(st, done, hm_mvec_create(A->ctx, &A->dist, A->type, m + 1, blocks[b]));
      HM_CALL_GOTO(st, done, hm_mvec_axpby(*blocks[b], L.coef, *blocks[b], L.coef)); /* zeros, not garbage */
    }
    if (!B) L.BV = L.V;
  }
  HM_CALL_GOTO(st, done, hm_mvec_create(A->ctx, &A->dist, A->type, 1, &L.x1));
  HM_CALL_GOTO(st, done, hm_mvec_create(A->ctx, &A->dist, A->type, 1, &L.w));
  if (B) HM_CALL_GOTO(st, done, hm_mvec_create(A->ctx, &A->dist, A->type, 1, &L.Bw));
  else L.Bw = L.w;
  int j0 = 0, restarts = 0, nconv = 0, verified = 0;
  if (opt->resume) { /* the basis, its B images and H as they were after restart `restarts` */
    HM_CALL_GOTO(st, done, resume_state(&L, opt, n, keep, &restarts, &j0));
  } else {
    HM_CALL_GOTO(st, done, random_column(&L, 0, opt->seed));
  }
  boundary_clock clock = {.t_checkpoint = MPI_Wtime(), .last_checkpoint = opt->resume ? restarts : -1};
  double beta = 0;
  for (;;) {
    int early = 0;
    HM_CALL_GOTO(st, done, expand(&L, j0, opt->seed + 1000003u * (uint64_t)(restarts + 1), &beta, &early));
    if (early) /* nothing wanted in the active block: only the locked pairs count */
      for (int i = L.nl; i < m; i++) memset(L.H + (size_t)i * m, 0, sizeof(double) * (size_t)m);
    HM_CALL_GOTO(st, done, project(&L, S, ritz));
    for (int i = 0; i < m; i++) order[i] = i;
    for (int i = 0; i < m; i++) /* largest |theta| first (m is small) */
      for (int j = i + 1; j < m; j++)
        if (fabs(ritz[order[j]]) > fabs(ritz[order[i]])) { int s = order[i]; order[i] = order[j]; order[j] = s; }
    nconv = 0;
    while (nconv < nev && estimate(&L, S, beta, order[nconv]) <= opt->tol * fabs(ritz[order[nconv]])) nconv++;
    if (opt->progress) {
      double worst = 0;
      for (int i = 0; i < nev; i++)
        worst = fmax(worst, estimate(&L, S, beta, order[i]) / fmax(fabs(ritz[order[i]]), DBL_MIN));
      opt->progress(restarts, nconv, nev, worst, opt->progress_user);
    }
    if (early) {
      verified = 1;
      break;
    }
    if (restarts >= opt->maxit) break;
    int ncols = keep, lock = 0;
    if (!L.verifying) {
      if (nconv >= nev) { /* all wanted converged: lock them and verify from a fresh vector (or stop) */
        if (!opt->verify || m - nev < 2) break;
        ncols = nev, lock = 1;
        L.verifying = 1, L.verify_start = L.solves;
      }
      memcpy(cols, order, sizeof(int) * (size_t)ncols);
    } else if (verify_step(&L, opt, order, S, ritz, beta, keep, cols, &ncols, &lock, &verified)) {
      break;
    }
    if (L.verifying && lock && L.nl > 0) L.copies += ncols;
    j0 = restart_basis(&L, S, ritz, beta, cols, ncols, lock);
    if (lock) { /* the deflated Lanczos: a fresh random vector B-orthogonal to the locked ones */
      L.cut = locked_cut(&L, nev);
      HM_CALL_GOTO(st, done, random_column(&L, L.nl, opt->seed + 1000003u * (uint64_t)(restarts + 1) + 999983u));
      j0 = L.nl;
    }
    restarts++;
    int stopped = 0;
    HM_CALL_GOTO(st, done, at_boundary(&L, opt, n, keep, restarts, j0, &clock, &stopped));
    if (stopped) {
      if (info)
        *info = (hm_krylov_schur_info){.converged = nconv, .restarts = restarts, .solves = L.solves, .ncv = m,
                                       .copies = L.copies,
                                       .verify_solves = L.verifying ? L.solves - L.verify_start : 0};
      st = hm_error_raise(HM_ERR_STOPPED, __FILE__, __LINE__, __func__,
                          "stopped on request after restart %d of at most %d%s", restarts, opt->maxit,
                          opt->checkpoint ? " (checkpointed)" : "");
      goto done;
    }
  }
  for (int i = 0; i < nev; i++) {
    theta[i] = ritz[order[i]];
    if (est) est[i] = estimate(&L, S, beta, order[i]);
  }
  if (X) { /* X[:, 0:nev] = V_m S[:, order[0:nev]], the other columns cleared */
    double *Cx = calloc(t * w1 * (size_t)X->k, sizeof(double)), *zeros = calloc(t * (size_t)X->k, sizeof(double));
    if (Cx && zeros) {
      for (int i = 0; i < nev; i++)
        for (int a = 0; a < m; a++) Cx[t * ((size_t)a * (size_t)X->k + (size_t)i)] = S[(size_t)a * m + order[i]];
      if (L.Vc) { /* X (row-major, local rows x k) = op(Vc as row-major (m + 1) x ld)[:, 0:m] Cx, all k columns */
        const double complex one = 1, none = 0;
        if (L.ld && t == 2)
          cblas_zgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)L.ld, X->k, m, &one, L.Vc, (int)L.ld, Cx, X->k,
                      &none, X->data, X->k);
        else if (L.ld)
          cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)L.ld, X->k, m, 1.0, L.Vc, (int)L.ld, Cx, X->k,
                      0.0, X->data, X->k);
      } else {
        st = hm_mvec_axpby(X, zeros, X, zeros);
        if (!st) st = hm_mvec_update(X, zero, L.V, Cx);
      }
    } else {
      st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %d x %d", m + 1, X->k);
    }
    free(Cx), free(zeros);
    if (st) goto done;
  }
  if (info)
    *info = (hm_krylov_schur_info){.converged = nconv, .restarts = restarts, .solves = L.solves, .ncv = m,
                                   .verified = verified, .copies = L.copies,
                                   .verify_solves = L.verifying ? L.solves - L.verify_start : 0};
done:
  release(&L);
  free(ritz), free(S), free(order), free(cols);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}
