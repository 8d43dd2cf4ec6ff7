/* The LOBPCG iteration with a B-orthonormal basis [X P W] (Hetmaniuk-Lehoucq; Duersch et al.
 * 2018): residuals and the convergence tests, hard locking of converged pairs at the wanted end
 * (soft locking of the others), preconditioning, B-orthonormalization of W (Cholesky QR with an
 * SVQB fallback, a second pass where the first may have lost orthogonality), Rayleigh-Ritz as a
 * standard Hermitian problem, and the new P from the Ritz coefficients. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "checkpoint_due.h"
#include "error_macros.h"
#include "lobpcg_internal.h"
#include "lobpcg_small.h"
#include "mvec_block.h"

/* A pass of the orthonormalization is clean when Cholesky QR's smallest scaled pivot is above
 * clean_pivot (orthogonality within W to ~eps / pivot^2, orthogonality to Q amplified by at most
 * 1 / pivot) and projecting out Q kept more than clean_kept of every column's squared length
 * (orthogonality to Q to ~eps / sqrt(kept)). Passes repeat until one is clean; from the second
 * pass on, a column that again loses more than half its squared length to Q was numerically in
 * span(Q) (Parlett-Kahan) and is dropped. */
static const double clean_pivot = 0.1, clean_kept = 0.5, dependent_kept = 0.5;
enum { max_passes = 4 };

/* B-orthogonalize the first *k columns of W (images BW) against Q (B-orthonormal, zero columns
 * allowed; images BQ; NULL for none) and B-orthonormalize them; *k shrinks by the dependent
 * directions dropped. Scratch: L->AW and L->R (contents lost); W and BW may be swapped with
 * them, so callers pass the fields' addresses. */
static int ortho(hm_lobpcg *L, hm_mvec **W, hm_mvec **BW, int *k, hm_mvec *Q, hm_mvec *BQ) {
  const int noB = L->B == NULL, nq = Q ? Q->k : 0, m = L->m;
  double complex *C, *G, *T;
  HM_MALLOC(C, (size_t)(nq ? nq : 1) * m);
  HM_MALLOC(G, (size_t)m * m);
  HM_MALLOC(T, (size_t)m * m);
  int st = HM_SUCCESS;
  for (int pass = 0; pass < max_passes && *k > 0 && !st; pass++) {
    const int n = *k;
    struct hm_mvec_s w = hm_lobpcg_view(*W, n), bw = hm_lobpcg_view(*BW, n);
    if (Q) { /* W -= Q (BQ^H W), BW -= BQ (BQ^H W) */
      st = hm_lobpcg_gram(L, BQ, &w, C, nq, 0, 0, nq, n);
      if (!st) st = hm_lobpcg_update(L, &w, 1.0, Q, C, nq, 0, nq, -1.0);
      if (!st && !noB) st = hm_lobpcg_update(L, &bw, 1.0, BQ, C, nq, 0, nq, -1.0);
    }
    if (!st) st = hm_lobpcg_gram(L, &w, noB ? &w : &bw, G, n, 0, 0, n, n);
    /* Fraction of each column's squared length the projection kept (Q is B-orthonormal:
     * |w|^2 = |w - Q c|^2 + |c|^2). */
    int clean = 1;
    for (int j = 0; j < n && !st && Q; j++) {
      double left = creal(G[j + (size_t)j * n]), removed = 0;
      for (int i = 0; i < nq; i++) removed += creal(C[i + (size_t)j * nq] * conj(C[i + (size_t)j * nq]));
      double kept = left + removed > 0 ? left / (left + removed) : 0;
      clean &= kept > clean_kept;
      if (pass > 0 && !(kept > dependent_kept)) /* zero length: the orthonormalizer drops it */
        for (int i = 0; i < n; i++) G[i + (size_t)j * n] = G[j + (size_t)i * n] = 0;
    }
    int r = 0;
    double pivot = 0;
    if (!st) st = hm_lobpcg_small_orthonormalizer(L->type, n, G, T, &r, &pivot);
    if (!st && r > 0) { /* W <- W T, BW <- BW T (through the scratch blocks) */
      hm_mvec **S1 = W == &L->AW ? &L->R : &L->AW; /* the scratch block W is not */
      hm_mvec **S2 = S1 == &L->AW ? &L->R : &L->AW;
      struct hm_mvec_s t1 = hm_lobpcg_view(*S1, r), t2 = hm_lobpcg_view(*S2, r);
      st = hm_lobpcg_update(L, &t1, 0.0, &w, T, n, 0, n, 1.0);
      if (!st && !noB) st = hm_lobpcg_update(L, &t2, 0.0, &bw, T, n, 0, n, 1.0);
      if (!st) {
        hm_lobpcg_swap(W, S1);
        if (!noB) hm_lobpcg_swap(BW, S2);
        else *BW = *W;
      }
    }
    if (!st) *k = r;
    if (clean && pivot > clean_pivot) break;
  }
  free(C); free(G); free(T);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* Rayleigh-Ritz over X alone (start): XP, AXP, BXP rotated to Ritz vectors, P = 0. */
static int rayleigh_ritz_x(hm_lobpcg *L) {
  const int m = L->m;
  double complex *G, *Z, *CC;
  double *w;
  HM_MALLOC(G, (size_t)m * m);
  HM_MALLOC(Z, (size_t)m * m);
  HM_MALLOC(CC, (size_t)m * 2 * m); /* [Z | 0] */
  HM_MALLOC(w, m);
  int st = hm_lobpcg_gram(L, L->XP, L->AXP, G, m, 0, 0, m, m);
  if (!st) st = hm_lobpcg_small_eigh(L->type, m, G, w, Z);
  for (int j = 0; j < m && !st; j++) { /* wanted order: ascending, or descending for largest */
    int src = L->opt.which == HM_LOBPCG_LARGEST ? m - 1 - j : j;
    memcpy(CC + (size_t)j * m, Z + (size_t)src * m, sizeof *Z * (size_t)m);
    L->lambda[j] = w[src];
  }
  if (!st) st = hm_lobpcg_update(L, L->XP2, 0.0, L->XP, CC, m, 0, m, 1.0);
  if (!st) st = hm_lobpcg_update(L, L->AXP2, 0.0, L->AXP, CC, m, 0, m, 1.0);
  if (!st && L->B) st = hm_lobpcg_update(L, L->BXP2, 0.0, L->BXP, CC, m, 0, m, 1.0);
  if (!st) {
    hm_lobpcg_swap(&L->XP, &L->XP2);
    hm_lobpcg_swap(&L->AXP, &L->AXP2);
    if (L->B) hm_lobpcg_swap(&L->BXP, &L->BXP2);
    hm_lobpcg_alias_b(L);
    L->np = 0;
  }
  free(G); free(Z); free(CC); free(w);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_lobpcg_start(hm_lobpcg *L) {
  const int m = L->m;
  int k = m;
  HM_CALL(hm_mvec_copy_columns(L->XP, 0, L->W, 0, m));
  if (L->B) HM_CALL(hm_lobpcg_apply(L->B, L->W, m, L->BW));
  HM_CALL(ortho(L, &L->W, &L->BW, &k, NULL, NULL));
  HM_CALL(hm_lobpcg_zero(L, L->XP));
  if (L->B) HM_CALL(hm_lobpcg_zero(L, L->BXP));
  struct hm_mvec_s w = hm_lobpcg_view(L->W, k), bw = hm_lobpcg_view(L->BW, k);
  HM_CALL(hm_mvec_copy_columns(&w, 0, L->XP, 0, k));
  if (L->B) HM_CALL(hm_mvec_copy_columns(&bw, 0, L->BXP, 0, k));
  /* Dependent columns (e.g. duplicates) are replaced by random ones orthogonal to those kept. */
  int have = k;
  for (int attempt = 1; have < m && attempt <= 8; attempt++) {
    k = m - have;
    w = hm_lobpcg_view(L->W, k);
    HM_CALL(hm_mvec_random_phase(&w, L->opt.seed + 0x9E3779B97F4A7C15ull * (uint64_t)attempt));
    if (L->B) HM_CALL(hm_lobpcg_apply(L->B, L->W, k, L->BW));
    HM_CALL(ortho(L, &L->W, &L->BW, &k, L->XP, L->BXP));
    w = hm_lobpcg_view(L->W, k);
    bw = hm_lobpcg_view(L->BW, k);
    HM_CALL(hm_mvec_copy_columns(&w, 0, L->XP, have, k));
    if (L->B) HM_CALL(hm_mvec_copy_columns(&bw, 0, L->BXP, have, k));
    have += k;
  }
  HM_CHECK(have == m, HM_ERR_NUMERIC, "could not build a start block of %d independent vectors (found %d)", m, have);
  HM_CALL(hm_operator_apply(L->A, L->XP, L->AXP));
  HM_CALL(rayleigh_ritz_x(L));
  L->iteration = 0;
  return HM_SUCCESS;
}

int hm_lobpcg_reload(hm_lobpcg *L) {
  const int m = L->m;
  HM_CALL(hm_operator_apply(L->A, L->XP, L->AXP));
  if (L->B) HM_CALL(hm_operator_apply(L->B, L->XP, L->BXP));
  /* X holds Ritz vectors: the estimates are their Rayleigh quotients. */
  double complex *G;
  HM_MALLOC(G, (size_t)m * m);
  int st = hm_lobpcg_gram(L, L->XP, L->AXP, G, m, 0, 0, m, m);
  for (int j = 0; j < m && !st; j++) L->lambda[j] = creal(G[j + (size_t)j * m]);
  free(G);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* Room for `rows` history rows (doubling; new rows NaN). */
int hm_lobpcg_grow_history(hm_lobpcg *L, int rows) {
  if (rows <= L->hist_rows) return HM_SUCCESS;
  int cap = L->hist_rows * 2 > rows ? L->hist_rows * 2 : rows + 63;
  double *v = realloc(L->hist_val, sizeof(double) * (size_t)cap * L->nev);
  if (v) L->hist_val = v;
  double *r = v ? realloc(L->hist_res, sizeof(double) * (size_t)cap * L->nev) : NULL;
  if (r) L->hist_res = r;
  HM_CHECK(v && r, HM_ERR_MEMORY, "no memory for %d history rows of %d values", cap, L->nev);
  for (size_t i = (size_t)L->hist_rows * L->nev; i < (size_t)cap * L->nev; i++) L->hist_val[i] = L->hist_res[i] = NAN;
  L->hist_rows = cap;
  return HM_SUCCESS;
}

/* Hard locking: R -= BX_l (X_l^H R) on the active columns, so the residuals (and the W made from
 * them) carry no component along the locked pairs: A amplifies the rounding-level overlap of an
 * active vector with a locked one by the locked eigenvalue (0.1 for a 1e15 penalty pair), which
 * would otherwise stay in the residual and stall the rest. rn: the new norms. */
static int project_locked(hm_lobpcg *L, double *rn) {
  const int m = L->m, nl = L->nlock;
  double complex *C;
  HM_MALLOC(C, (size_t)nl * m);
  int st = hm_lobpcg_gram(L, L->XP, L->R, C, nl, 0, 0, nl, m);
  for (int j = 0; j < nl; j++) /* the locked columns keep their own residuals */
    for (int i = 0; i < nl; i++) C[i + (size_t)j * nl] = 0;
  if (!st) st = hm_lobpcg_update(L, L->R, 1.0, L->BXP, C, nl, 0, nl, -1.0);
  if (!st) st = hm_mvec_norms(L->R, rn);
  free(C);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* The images recomputed from the vectors: A [X P] and B [X P] directly, the estimates as Rayleigh
 * quotients; with locked pairs, [X P] first B-orthogonalized against them. LOBPCG updates the images
 * by the same recurrence as the vectors, and where A has a huge entry (a 1e15 penalty) the images'
 * rows there carry 1e15 x the rounding of the vectors' cancelling sums (0.01 in the first
 * iterations, from the start block's O(1) entries): measured, that drift held the pairs next to a
 * penalty at relative residuals 1e-4 .. 1e-2. Done at lock events and before a stagnating residual
 * is blamed on rounding. */
static int refresh_images(hm_lobpcg *L) {
  const int m2 = 2 * L->m, nl = L->nlock;
  if (nl > 0) {
    double complex *C;
    HM_MALLOC(C, (size_t)nl * m2);
    int st = hm_lobpcg_gram(L, L->BXP, L->XP, C, nl, 0, 0, nl, m2);
    for (int j = 0; j < nl; j++) /* the locked columns stay */
      for (int i = 0; i < nl; i++) C[i + (size_t)j * nl] = 0;
    if (!st) st = hm_mvec_copy_columns(L->XP, 0, L->XP2, 0, m2);
    if (!st) st = hm_lobpcg_update(L, L->XP2, 1.0, L->XP, C, nl, 0, nl, -1.0);
    free(C);
    HM_CALL(st);
    hm_lobpcg_swap(&L->XP, &L->XP2);
    hm_lobpcg_alias_b(L);
  }
  HM_CALL(hm_lobpcg_reload(L));
  L->refreshed_at = L->iteration;
  return HM_SUCCESS;
}

/* A pair has reached its rounding floor when its relative residual has not halved for this many
 * iterations (LOBPCG's residuals fall by far more than half in a few iterations while a pair
 * converges, however slowly the rest of the block does). */
enum { stagnation_iterations = 25 };

/* Pair j's test (lobpcg.h): sets res, backward, test_norm and the stagnation bookkeeping; returns
 * whether it converged and in *level the value it stopped at where that is above tol. */
static int converged(hm_lobpcg *L, int j, double rn, double bn, double xn, double *level) {
  const double tol = L->opt.tol, lam = fabs(L->lambda[j]), na = hm_lobpcg_norm_a(L);
  const double scale = lam * bn, normwise = (na + lam * L->norm_b) * xn;
  L->res[j] = rn / (scale > 0 ? scale : bn > 0 ? bn : 1.0);
  L->backward[j] = rn / (normwise > 0 ? normwise : 1.0);
  if (!(L->res[j] >= 0.9 * L->best_res[j])) { /* fell by 10% (or the first check) */
    L->best_res[j] = L->res[j];
    L->improved_at[j] = L->iteration;
  }
  /* rounding is blamed only after the images were refreshed and the residual still did not halve */
  const int stagnated = L->iteration - L->improved_at[j] >= stagnation_iterations &&
                        L->refreshed_at > L->improved_at[j] && L->iteration - L->refreshed_at >= stagnation_iterations;
  *level = 0;
  L->test_norm[j] = 0;
  if (!(tol > 0)) return L->res[j] <= 0; /* tol = 0: run maxit */
  switch (L->opt.convergence) {
    case HM_LOBPCG_CONV_NORM:
      L->test_norm[j] = 1;
      if (L->backward[j] <= tol) return 1;
      *level = L->backward[j];
      return L->backward[j] <= HM_LOBPCG_ROUNDING;
    case HM_LOBPCG_CONV_RELATIVE: /* stops below tol only where the pair sits at rounding level */
      if (L->res[j] <= tol) return 1;
      *level = L->res[j];
      return stagnated && L->backward[j] <= HM_LOBPCG_ROUNDING;
    default: /* AUTO */
      if (L->res[j] <= tol) return 1;
      L->test_norm[j] = stagnated && L->backward[j] <= fmax(tol, HM_LOBPCG_ROUNDING);
      *level = L->res[j];
      return L->test_norm[j];
  }
}

/* ||x_j|| of the first m columns of the 2m-wide XP, from the diagonal of XP^H X (one reduction). A
 * k-column view of XP would read its rows as k-wide: X and P entries mixed. */
static int x_norms(hm_lobpcg *L, double *xn) {
  const int m = L->m, t = (int)L->type;
  double *g;
  HM_MALLOC(g, (size_t)L->XP->k * m * t);
  const int st = hm_mvec_gram_columns(L->XP, L->XP, 0, m, g);
  for (int j = 0; j < m && !st; j++) xn[j] = sqrt(fmax(g[((size_t)j * m + j) * t], 0.0));
  free(g);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* R = AX - BX Lambda, residual norms, the convergence tests, locking, history row. One fused
 * pass reads the X columns of AXP and BXP once, writes R and reduces both norms together. */
static int residuals(hm_lobpcg *L) {
  const int m = L->m;
  double *rn, *bn, *xn;
  HM_MALLOC(rn, m);
  HM_MALLOC(bn, m);
  HM_MALLOC(xn, m);
  int st = hm_mvec_ritz_residual(L->AXP, L->BXP, L->lambda, L->R, rn, bn);
  if (!st && L->nlock > 0) st = project_locked(L, rn);
  if (!st && L->B) st = x_norms(L, xn); /* ||x|| of the NORM test (B-orthonormal, not unit) */
  for (int j = 0; j < m && !L->B; j++) bn[j] = xn[j] = 1.0; /* B = I: X is orthonormal */
  for (int j = 0; j < m; j++) L->ritz_max = fmax(L->ritz_max, fabs(L->lambda[j]));
  /* ||A||_2 >= |x^H A x| / x^H x = |lambda_j| / ||x_j||^2 for the B-orthonormal Ritz vectors (X^H A X =
   * Lambda): a bound from this block only, so a restored run judges as an uninterrupted one */
  if (L->norm_from_ritz && L->B) {
    L->norm_a = 0.0;
    for (int j = 0; j < m && !st; j++)
      if (xn[j] > 0) L->norm_a = fmax(L->norm_a, fabs(L->lambda[j]) / (xn[j] * xn[j]));
  }
  L->nconv = 0;
  L->reachable = L->opt.tol;
  for (int j = 0; j < m && !st; j++) {
    double level;
    const int ok = converged(L, j, rn[j], bn[j], xn[j], &level);
    L->active[j] = !(ok || j < L->nlock); /* a locked pair stays converged */
    if (j < L->nev && !L->active[j]) L->nconv++;
    if (j < L->nev && ok) L->reachable = fmax(L->reachable, level);
  }
  /* Lock the converged pairs at the wanted end (a prefix of the wanted order). With pairs left to
   * find, after a lock event or where a wanted pair stopped improving since the last refresh, the
   * images are recomputed and the pairs judged again. */
  const int was_locked = L->nlock;
  while (!st && L->hard_locking && L->nlock < L->nev && !L->active[L->nlock]) L->nlock++;
  int refresh = (L->refresh_on_lock && L->nlock > was_locked) || L->refresh_requested;
  for (int j = 0; j < L->nev && !st && L->refreshed_at < L->iteration; j++)
    refresh |= L->active[j] && L->iteration - L->improved_at[j] >= stagnation_iterations &&
               L->refreshed_at <= L->improved_at[j];
  if (!st && refresh && L->nconv < L->nev && L->refreshed_at < L->iteration) {
    free(rn); free(bn); free(xn);
    L->refresh_requested = 0;
    HM_CALL(refresh_images(L));
    return residuals(L);
  }
  if (!st && L->opt.history) st = hm_lobpcg_grow_history(L, L->iteration + 1);
  if (!st && L->opt.history) {
    memcpy(L->hist_val + (size_t)L->iteration * L->nev, L->lambda, sizeof(double) * L->nev);
    memcpy(L->hist_res + (size_t)L->iteration * L->nev, L->res, sizeof(double) * L->nev);
  }
  free(rn); free(bn); free(xn);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* W = T (active columns of R); *nact = their count. */
static int precondition(hm_lobpcg *L, int *nact) {
  int k = 0;
  for (int j = 0; j < L->m; j++) k += L->active[j];
  if (k == L->m) { /* all active: R is W */
    hm_lobpcg_swap(&L->R, &L->W);
    hm_lobpcg_alias_b(L);
  } else {
    struct hm_mvec_s w = hm_lobpcg_view(L->W, k);
    for (int j = 0, d = 0; j < L->m;) { /* copy runs of active columns */
      if (!L->active[j]) { j++; continue; }
      int e = j;
      while (e < L->m && L->active[e]) e++;
      HM_CALL(hm_mvec_copy_columns(L->R, j, &w, d, e - j));
      d += e - j;
      j = e;
    }
  }
  struct hm_mvec_s w = hm_lobpcg_view(L->W, k);
  if (k > 0 && L->opt.precond == HM_LOBPCG_PRECOND_JACOBI) HM_CALL(hm_mvec_scale_rows(&w, L->dinv, &w));
  if (k > 0 && L->opt.precond == HM_LOBPCG_PRECOND_USER) {
    HM_CALL(hm_lobpcg_apply(L->T, L->W, k, L->AW));
    hm_lobpcg_swap(&L->W, &L->AW);
    hm_lobpcg_alias_b(L);
  }
  *nact = k;
  return HM_SUCCESS;
}

/* Rayleigh-Ritz over [X P W] (B-orthonormal: a standard Hermitian problem), the new X and P. With
 * nlock hard-locked pairs the projected problem leaves out their rows and columns (they keep their
 * X column exactly: identity coefficients), so its rounding is that of the active part's scale
 * and not of the locked eigenvalues (a 1e15 penalty pair put errors of 0.1 into every Ritz value). */
static int rayleigh_ritz(hm_lobpcg *L, int nw) {
  const int m = L->m, q = m + L->np, ks = q + nw, nl = L->nlock, kr = ks - nl;
  double complex *G, *Z, *CC;
  double *w;
  HM_MALLOC(G, (size_t)ks * ks);
  HM_MALLOC(Z, (size_t)kr * kr);
  HM_MALLOC(CC, (size_t)ks * 2 * m); /* [Cx | Cp]: the new X and P in the basis */
  HM_MALLOC(w, kr);
  struct hm_mvec_s wv = hm_lobpcg_view(L->W, nw), awv = hm_lobpcg_view(L->AW, nw), bwv = hm_lobpcg_view(L->BW, nw);
  /* The upper block triangle (the eigensolver reads the upper triangle). X holds Ritz vectors, so
   * X^H A X is diag(lambda) up to rounding: it is set so (as in SciPy's lobpcg) and only the P
   * columns of AXP are read. */
  for (int j = 0; j < m; j++) G[j + (size_t)j * ks] = L->lambda[j];
  int st = hm_lobpcg_gram_columns(L, L->XP, L->AXP, m, G, ks, 0, m, q, L->np);
  if (!st) st = hm_lobpcg_gram(L, L->XP, &awv, G, ks, 0, q, q, nw);
  if (!st) st = hm_lobpcg_gram(L, &wv, &awv, G, ks, q, q, nw, nw);
  if (!st && nl) /* the active block G[nl:, nl:] moved to the front, leading dimension kr */
    for (int c = 0; c < kr; c++) memmove(G + (size_t)c * kr, G + nl + (size_t)(nl + c) * ks, sizeof *G * (size_t)kr);
  if (!st) st = hm_lobpcg_small_eigh(L->type, kr, G, w, Z);
  memset(CC, 0, sizeof *CC * (size_t)ks * m);
  for (int j = 0; j < nl; j++) CC[j + (size_t)j * ks] = 1;
  for (int j = nl; j < m && !st; j++) {
    int src = L->opt.which == HM_LOBPCG_LARGEST ? kr - 1 - (j - nl) : j - nl;
    memcpy(CC + nl + (size_t)j * ks, Z + (size_t)src * kr, sizeof *Z * (size_t)kr);
    L->lambda[j] = w[src];
  }
  for (int i = 0; i < kr && !st; i++) L->ritz_max = fmax(L->ritz_max, fabs(w[i]));
  int np_new = 0;
  if (!st) st = hm_lobpcg_small_directions(L->type, ks, m, m, CC, L->active, CC + (size_t)m * ks, &np_new);
  /* [X P]_new = [X P] CC[0:q] + W CC[q:ks] for each image (CC's unused P columns are zero). */
  hm_mvec *dst[3] = {L->XP2, L->AXP2, L->BXP2}, *src[3] = {L->XP, L->AXP, L->BXP};
  const hm_mvec *wsrc[3] = {&wv, &awv, &bwv};
  for (int img = 0; img < (L->B ? 3 : 2) && !st; img++) {
    st = hm_lobpcg_update(L, dst[img], 0.0, src[img], CC, ks, 0, q, 1.0);
    if (!st && nw) st = hm_lobpcg_update(L, dst[img], 1.0, wsrc[img], CC, ks, q, nw, 1.0);
  }
  if (!st) {
    hm_lobpcg_swap(&L->XP, &L->XP2);
    hm_lobpcg_swap(&L->AXP, &L->AXP2);
    if (L->B) hm_lobpcg_swap(&L->BXP, &L->BXP2);
    hm_lobpcg_alias_b(L);
    L->np = np_new;
  }
  free(G); free(Z); free(CC); free(w);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* Collective decision whether a checkpoint is due, never twice at one iteration (a restored run). */
static int checkpoint_due(hm_lobpcg *L, int *due) {
  const hm_lobpcg_options *o = &L->opt;
  HM_CALL(hm_checkpoint_due(L->ctx->comm, L->iteration, o->checkpoint_every, o->checkpoint_seconds, L->t_checkpoint,
                            due));
  *due = *due && L->iteration > L->last_checkpoint;
  return HM_SUCCESS;
}

static void report(hm_lobpcg *L) {
  if (L->opt.progress) L->opt.progress(L->iteration, L->nev, L->lambda, L->res, L->nconv, L->opt.progress_user);
  if (L->opt.verbosity > 0 && L->ctx->rank == 0) {
    double worst = 0;
    for (int j = 0; j < L->nev; j++) worst = fmax(worst, L->res[j]);
    printf("lobpcg %5d: %d/%d converged, lambda[0] = %.15g, largest residual %.3e\n", L->iteration, L->nconv, L->nev,
           L->lambda[0], worst);
    fflush(stdout);
  }
}

int hm_lobpcg_iterate(hm_lobpcg *L) {
  L->t_checkpoint = MPI_Wtime();
  for (;;) {
    HM_CALL(residuals(L));
    report(L);
    if (L->opt.tol > 0 && L->nconv == L->nev) {
      L->reason = HM_LOBPCG_CONVERGED;
      break;
    }
    if (L->iteration >= L->opt.maxit) {
      L->reason = HM_LOBPCG_MAXIT;
      break;
    }
    int due = 0;
    HM_CALL(checkpoint_due(L, &due));
    if (due) {
      int st = L->opt.checkpoint(L, L->opt.checkpoint_user);
      HM_CHECK(st == 0, st > 0 && st <= HM_ERR_INTERNAL ? st : HM_ERR_INTERNAL,
               "the checkpoint callback returned status %d at iteration %d", st, L->iteration);
      L->last_checkpoint = L->iteration;
      L->t_checkpoint = MPI_Wtime();
    }
    if (L->opt.stop && L->opt.stop(L->opt.stop_user))
      HM_RAISE(HM_ERR_STOPPED, "stopped on request at iteration %d of at most %d (the state is complete: checkpoint it)",
               L->iteration, L->opt.maxit);
    int nw = 0;
    HM_CALL(precondition(L, &nw));
    if (L->B) HM_CALL(hm_lobpcg_apply(L->B, L->W, nw, L->BW));
    HM_CALL(ortho(L, &L->W, &L->BW, &nw, L->XP, L->BXP));
    if (nw == 0 && L->np == 0) {
      L->reason = HM_LOBPCG_STAGNATED;
      break;
    }
    HM_CALL(hm_lobpcg_apply(L->A, L->W, nw, L->AW));
    HM_CALL(rayleigh_ritz(L, nw));
    L->iteration++;
  }
  return HM_SUCCESS;
}
