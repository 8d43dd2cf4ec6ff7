/* ChebFD for the eigenpairs in a window: options, the count estimate, the pass loop (filter,
 * orthonormalization, Rayleigh-Ritz, locking) and the results. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checkpoint_due.h"
#include "../lobpcg/lobpcg_small.h"
#include "device_memory.h"
#include "error_macros.h"
#include "hamlet/interior.h"
#include "hamlet/kpm.h"
#include "interior_checkpoint.h"
#include "interior_filter.h"
#include "lanczos.h"
#include "mvec_block.h"
#include "objects.h"

struct hm_interior_s {
  hm_matrix *H;
  hm_interior_options opt;
  hm_scalar type;
  int64_t n_global;
  double lo, hi, scale, shift, spectral; /* bounds, their map onto [-1, 1], max(|lo|, |hi|) */
  double a, b;                           /* the window in the scaled variable */
  double estimate;
  int degree, search, passes, converged, margin;
  double *coef;                          /* degree + 1 filter coefficients */
  hm_mvec *X;                            /* the active (unlocked) search block */
  hm_mvec **Q;                           /* the locked eigenvectors: a block per locking, nlock columns */
  int nq, nlock;
  double *lock_values, *lock_res;        /* as locked */
  int *order;                            /* ascending order of the locked values */
  double t_filter, t_other, vector_steps; /* this rank's seconds in the filter and the rest; columns x degree */
  /* the pass loop's progress marks (a checkpoint keeps them) */
  int stalled, sure_stalled, last_sure, restored;
  double mark; /* the least residual of an unresolved pair at the last progress */
  /* checkpoints and the stop request (interior_checkpoint.h) */
  hm_interior_checkpoint_fn checkpoint;
  void *checkpoint_user;
  int checkpoint_every;
  double checkpoint_seconds, last_checkpoint;
  int (*stop)(void *);
  void *stop_user;
};

int hm_interior_options_default(hm_interior_options *opt) {
  HM_CHECK(opt, HM_ERR_ARGUMENT, "opt is NULL");
  memset(opt, 0, sizeof *opt);
  opt->emin = -1;
  opt->emax = 1;
  opt->tol = 1e-9;
  opt->dos_vectors = 32;
  opt->max_passes = 200;
  opt->seed = 1;
  opt->lanczos_steps = 40;
  return HM_SUCCESS;
}

static int check_options(const hm_interior_options *o) {
  HM_CHECK(isfinite(o->emin) && isfinite(o->emax) && o->emin < o->emax, HM_ERR_ARGUMENT,
           "window [%g, %g]: must be finite with emin < emax", o->emin, o->emax);
  HM_CHECK(o->tol > 0 && o->tol < 1, HM_ERR_ARGUMENT, "tol = %g: allowed 0 < tol < 1", o->tol);
  HM_CHECK(o->search >= 0 && o->degree >= 0 && o->dos_moments >= 0, HM_ERR_ARGUMENT,
           "search = %d, degree = %d, dos_moments = %d: must be >= 0 (0 = automatic)", o->search, o->degree,
           o->dos_moments);
  HM_CHECK(o->dos_vectors >= 1 && o->max_passes >= 1 && o->lanczos_steps >= 2, HM_ERR_ARGUMENT,
           "dos_vectors = %d, max_passes = %d (>= 1 each), lanczos_steps = %d (>= 2)", o->dos_vectors,
           o->max_passes, o->lanczos_steps);
  HM_CHECK(o->memory_limit >= 0, HM_ERR_ARGUMENT, "memory_limit = %g bytes: must be >= 0 (0 = automatic)",
           o->memory_limit);
  return HM_SUCCESS;
}

int hm_interior_create(hm_matrix *H, const hm_interior_options *opt, hm_interior **in) {
  HM_CHECK(H && opt && in, HM_ERR_ARGUMENT, "NULL argument");
  HM_CALL(check_options(opt));
  hm_interior *s;
  HM_MALLOC(s, 1);
  s->H = H;
  s->opt = *opt;
  int64_t nnz;
  int st = hm_matrix_info(H, &s->n_global, &nnz, &s->type);
  if (st) {
    free(s);
    return st;
  }
  *in = s;
  return HM_SUCCESS;
}

int hm_interior_destroy(hm_interior **in) {
  if (!in || !*in) return HM_SUCCESS;
  hm_interior *s = *in;
  hm_mvec_destroy(&s->X);
  for (int b = 0; b < s->nq; b++) hm_mvec_destroy(&s->Q[b]);
  free(s->Q);
  free(s->coef);
  free(s->lock_values);
  free(s->lock_res);
  free(s->order);
  free(s);
  *in = NULL;
  return HM_SUCCESS;
}

/* The number of eigenvalues in the window from the KPM DOS: N times the stochastic trace of the
 * window's damped indicator series. */
static int count_estimate(hm_interior *s) {
  int M = s->opt.dos_moments ? s->opt.dos_moments : hm_interior_filter_degree(s->a, s->b);
  M += M % 2;
  if (M < 64) M = 64;
  hm_kpm_options ko;
  HM_CALL(hm_kpm_options_default(&ko));
  ko.moments = M;
  ko.vectors = s->opt.dos_vectors;
  ko.seed = s->opt.seed + 7919; /* independent of the start block */
  ko.bounds = HM_BOUNDS_GIVEN;
  ko.emin = s->lo;
  ko.emax = s->hi;
  hm_kpm *kpm = NULL;
  double *mu = NULL, *c = NULL;
  int st = HM_SUCCESS;
  HM_CALL_GOTO(st, done, hm_kpm_create(s->H, &ko, &kpm));
  HM_CALL_GOTO(st, done, hm_kpm_run(kpm));
  mu = calloc((size_t)M, sizeof *mu);
  c = calloc((size_t)M, sizeof *c);
  if (!mu || !c) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %d moments", M);
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_kpm_moments(kpm, mu, NULL));
  HM_CALL_GOTO(st, done, hm_interior_filter_coefficients(s->a, s->b, M - 1, c));
  double sum = 0;
  for (int n = 0; n < M; n++) sum += c[n] * mu[n];
  s->estimate = fmax(0.0, sum * (double)s->n_global);
done:
  hm_kpm_destroy(&kpm);
  free(mu);
  free(c);
  return st;
}

/* Columns the filter, the Rayleigh-Ritz products and the residuals take at a time: wide enough that
 * the matrix's share of a fused step is small, narrow enough that the three work blocks of this width
 * are a small part of a large search space. */
enum { CHUNK = 32 };

/* Bytes over all ranks of ns search-space columns (the active block and the locked vectors) and the
 * three work blocks of a chunk. */
static double search_bytes(const hm_interior *s, int ns) {
  const int work = 3 * (ns < CHUNK ? ns : CHUNK);
  return (double)(ns + work) * (double)s->n_global * (double)s->type * sizeof(double);
}

static int memory_limit(const hm_interior *s, double *limit) {
  *limit = s->opt.memory_limit;
  if (*limit > 0) return HM_SUCCESS;
  *limit = 0.5 * (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
  if (s->H->ctx->backend == HM_BACKEND_CUDA) { /* the device's free memory on every rank */
    size_t free_bytes = 0;
    hm_device_memory_free(&free_bytes);
    double mine = 0.9 * (double)free_bytes, least = mine;
    HM_CALL_MPI(MPI_Allreduce(&mine, &least, 1, MPI_DOUBLE, MPI_MIN, s->H->ctx->comm));
    if (least > 0) *limit = fmin(*limit, least * s->H->ctx->size);
  }
  return HM_SUCCESS;
}

static int check_memory(const hm_interior *s, int ns) {
  double limit;
  HM_CALL(memory_limit(s, &limit));
  const double need = search_bytes(s, ns);
  HM_CHECK(need <= limit, HM_ERR_MEMORY,
           "the window [%g, %g] holds about %.0f eigenpairs (KPM estimate); its search space of %d vectors needs "
           "%.3g GB, above the memory limit of %.3g GB: narrow the window or raise the limit",
           s->opt.emin, s->opt.emax, s->estimate, ns, need / 1e9, limit / 1e9);
  return HM_SUCCESS;
}

static int new_block(const hm_interior *s, int k, hm_mvec **v) {
  const hm_dist *d;
  HM_CALL(hm_matrix_dist(s->H, &d));
  return hm_mvec_create(s->H->ctx, d, s->type, k, v);
}

/* A block of width k (reused where it has that width already). */
static int ensure(const hm_interior *s, hm_mvec **v, int k) {
  if (*v && (*v)->k == k) return HM_SUCCESS;
  hm_mvec_destroy(v);
  return new_block(s, k, v);
}

/* Y -= Q (Q^H Y), block of Q by block, twice (one pass loses orthogonality to cancellation). */
static int project_locked(hm_interior *s, hm_mvec *Y) {
  if (s->nlock == 0) return HM_SUCCESS;
  const int t = s->type, m = Y->k;
  double *C, one[2] = {1, 0};
  HM_MALLOC(C, (size_t)s->nlock * m * t);
  int st = HM_SUCCESS;
  for (int round = 0; round < 2 && !st; round++)
    for (int b = 0; b < s->nq && !st; b++) {
      const size_t len = (size_t)s->Q[b]->k * m * t;
      st = hm_mvec_gram(s->Q[b], Y, C);
      for (size_t i = 0; i < len && !st; i++) C[i] = -C[i];
      if (!st) st = hm_mvec_update(Y, one, s->Q[b], C);
    }
  free(C);
  return st;
}

/* Block and column of locked vector i (in locking order). */
static void locked_column(const hm_interior *s, int i, const hm_mvec **block, int *column) {
  int b = 0;
  while (i >= s->Q[b]->k) i -= s->Q[b++]->k;
  *block = s->Q[b];
  *column = i;
}

/* Random columns [r, m) of Y (the directions the orthonormalization dropped). */
static int refill(hm_interior *s, hm_mvec *Y, int r, int round) {
  hm_mvec *R = NULL;
  int st = new_block(s, Y->k - r, &R);
  if (!st) st = hm_mvec_random_phase_columns(R, s->opt.seed + 1000003ull * (uint64_t)(s->passes * 4 + round + 1), r);
  if (!st) st = hm_mvec_copy_columns(R, 0, Y, r, Y->k - r);
  hm_mvec_destroy(&R);
  return st;
}

/* Y orthonormal and orthogonal to the locked vectors, in place: Cholesky QR twice (SVQB where the
 * Gram matrix is ill-conditioned, lobpcg_small.h), dropped directions replaced by random ones. */
static int orthonormalize(hm_interior *s, hm_mvec *Y) {
  const int m = Y->k, t = s->type;
  double complex *G = NULL, *T = NULL;
  double *Gp = NULL;
  int st = HM_SUCCESS;
  G = calloc((size_t)m * m, sizeof *G);
  T = calloc((size_t)m * m, sizeof *T);
  Gp = calloc((size_t)m * m * t, sizeof *Gp);
  if (!G || !T || !Gp) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the %d x %d Gram matrix", m,
                        m);
    goto done;
  }
  int full = 0;
  for (int round = 0; round < 6 && !st; round++) {
    int r = 0;
    double pivot = 0;
    HM_CALL_GOTO(st, done, project_locked(s, Y));
    HM_CALL_GOTO(st, done, hm_mvec_gram(Y, Y, Gp));
    hm_lobpcg_unpack(s->type, m, m, Gp, G, m);
    HM_CALL_GOTO(st, done, hm_lobpcg_small_orthonormalizer(s->type, m, G, T, &r, &pivot));
    for (size_t i = (size_t)r * m; i < (size_t)m * m; i++) T[i] = 0; /* columns beyond r: zero */
    hm_lobpcg_pack(s->type, m, m, T, m, Gp);
    HM_CALL_GOTO(st, done, hm_mvec_multiply_in_place(Y, Gp, 0));
    if (r < m) {
      full = 0;
      HM_CALL_GOTO(st, done, refill(s, Y, r, round));
    } else if (++full == 2 || pivot > 0.9) { /* twice, or once where the block was nearly orthonormal */
      break;
    }
  }
done:
  free(G);
  free(T);
  free(Gp);
  return st;
}

/* Lock the listed columns of X (values w, residuals r): a new block of Q takes them, X keeps the
 * rest in place (no second copy of the search space). */
static int lock(hm_interior *s, const int *take, const double *w, const double *res) {
  const int m = s->X->k;
  int L = 0;
  for (int j = 0; j < m; j++) L += take[j];
  if (L == 0) return HM_SUCCESS;
  hm_mvec *B = NULL, **Q = realloc(s->Q, sizeof *Q * (size_t)(s->nq + 1));
  if (Q) s->Q = Q;
  double *v = realloc(s->lock_values, sizeof(double) * (size_t)(s->nlock + L));
  if (v) s->lock_values = v;
  double *r = realloc(s->lock_res, sizeof(double) * (size_t)(s->nlock + L));
  if (r) s->lock_res = r;
  int *keep = malloc(sizeof(int) * (size_t)m);
  int st = Q && v && r && keep ? new_block(s, L, &B) : HM_ERR_MEMORY;
  for (int j = 0, q = 0; j < m && !st; j++) {
    keep[j] = !take[j];
    if (!take[j]) continue;
    st = hm_mvec_copy_columns(s->X, j, B, q, 1);
    s->lock_values[s->nlock + q] = w[j];
    s->lock_res[s->nlock + q++] = res[j];
  }
  if (!st && L < m) st = hm_mvec_keep_columns(s->X, keep, 0);
  free(keep);
  if (st) {
    hm_mvec_destroy(&B);
    return hm_error_raise(st, __FILE__, __LINE__, __func__, "could not lock %d eigenpairs", L);
  }
  if (L == m) hm_mvec_destroy(&s->X);
  s->Q[s->nq++] = B;
  s->nlock += L;
  return HM_SUCCESS;
}

/* Widen X with random columns to width k (orthonormalized on the next pass); the old X is copied
 * into the new one, so both count while it grows. */
static int grow(hm_interior *s, int k) {
  const int m = s->X ? s->X->k : 0;
  HM_CALL(check_memory(s, s->nlock + m + k));
  hm_mvec *X = NULL;
  HM_CALL(new_block(s, k, &X));
  int st = hm_mvec_random_phase_columns(X, s->opt.seed + 7ull * (uint64_t)(s->passes + 1), 0);
  if (!st && m) st = hm_mvec_copy_columns(s->X, 0, X, 0, m);
  if (st) {
    hm_mvec_destroy(&X);
    return st;
  }
  hm_mvec_destroy(&s->X);
  s->X = X;
  s->search = s->nlock + k;
  return HM_SUCCESS;
}

typedef struct {
  hm_mvec *C, *V0, *V1; /* a chunk of X's columns and the filter's or the products' work, CHUNK wide */
  double complex *G, *Z;
  double *Gp, *Gc, *w, *rn, *bn;
  int *take;
} pass_work;

static void pass_work_free(pass_work *p) {
  hm_mvec_destroy(&p->C);
  hm_mvec_destroy(&p->V0);
  hm_mvec_destroy(&p->V1);
  free(p->G);
  free(p->Z);
  free(p->Gp);
  free(p->Gc);
  free(p->w);
  free(p->rn);
  free(p->bn);
  free(p->take);
  memset(p, 0, sizeof *p);
}

/* What a pass left open: Ritz values in the window not converged, split by their residual r.
 * `sure`: [theta - r, theta + r] inside the window, so an eigenvalue lies in it (the residual
 * bound of a Hermitian matrix). `maybe`: the interval reaches outside: an unconverged pair of the
 * window or a mixture of eigenvectors outside it with equal filter values (two levels mirrored
 * about the window's centre, a degenerate level cut at the search space's end); min_res is the least
 * of their residuals (falls while one converges, stays for mixtures). */
typedef struct {
  int sure, maybe, locked_now;
  double min_res;
} pass_result;

/* The work blocks for columns [j0, j0 + w) of X, with those columns copied into p->C. */
static int chunk(hm_interior *s, pass_work *p, int j0, int w) {
  HM_CALL(ensure(s, &p->C, w));
  HM_CALL(ensure(s, &p->V0, w));
  HM_CALL(ensure(s, &p->V1, w));
  return hm_mvec_copy_columns(s->X, j0, p->C, 0, w);
}

/* X = filter(H) X, a chunk of columns at a time (the filter's blocks are a chunk wide). */
static int filter(hm_interior *s, pass_work *p) {
  const int m = s->X->k;
  for (int j0 = 0; j0 < m; j0 += CHUNK) {
    const int w = m - j0 < CHUNK ? m - j0 : CHUNK;
    HM_CALL(chunk(s, p, j0, w));
    HM_CALL(hm_interior_filter_apply(s->H, s->scale, s->shift, s->degree, s->coef, p->C, p->C, p->V0, p->V1));
    HM_CALL(hm_mvec_copy_columns(p->C, 0, s->X, j0, w));
  }
  return HM_SUCCESS;
}

/* Rayleigh-Ritz on the orthonormal X, in place: G = X^H H X a chunk of columns at a time, X = X Z with
 * Z the eigenvectors of G (values p->w), then the residuals ||H x - w x|| a chunk at a time. */
static int rayleigh_ritz(hm_interior *s, pass_work *p) {
  const int m = s->X->k, t = s->type;
  for (int j0 = 0; j0 < m; j0 += CHUNK) {
    const int w = m - j0 < CHUNK ? m - j0 : CHUNK;
    HM_CALL(chunk(s, p, j0, w));
    HM_CALL(hm_matrix_apply(s->H, p->C, p->V0));
    HM_CALL(hm_mvec_gram(s->X, p->V0, p->Gc)); /* m x w */
    for (int a = 0; a < m; a++)
      memcpy(p->Gp + ((size_t)a * m + j0) * t, p->Gc + (size_t)a * w * t, sizeof(double) * (size_t)w * t);
  }
  hm_lobpcg_unpack(s->type, m, m, p->Gp, p->G, m);
  HM_CALL(hm_lobpcg_small_eigh(s->type, m, p->G, p->w, p->Z));
  hm_lobpcg_pack(s->type, m, m, p->Z, m, p->Gp);
  HM_CALL(hm_mvec_multiply_in_place(s->X, p->Gp, 0));
  for (int j0 = 0; j0 < m; j0 += CHUNK) {
    const int w = m - j0 < CHUNK ? m - j0 : CHUNK;
    HM_CALL(chunk(s, p, j0, w));
    HM_CALL(hm_matrix_apply(s->H, p->C, p->V0));
    HM_CALL(hm_mvec_ritz_residual(p->V0, p->C, p->w + j0, p->V1, p->rn + j0, p->bn + j0));
  }
  return HM_SUCCESS;
}

/* One pass: filter X, orthonormalize, Rayleigh-Ritz, residuals, lock the converged pairs in the
 * window. Besides X and the locked vectors it holds only three blocks a chunk wide. */
static int pass(hm_interior *s, pass_work *p, pass_result *out) {
  const int m = s->X->k, t = s->type;
  free(p->G); free(p->Z); free(p->Gp); free(p->Gc); free(p->w); free(p->rn); free(p->bn); free(p->take);
  p->G = calloc((size_t)m * m, sizeof *p->G);
  p->Z = calloc((size_t)m * m, sizeof *p->Z);
  p->Gp = calloc((size_t)m * m * t, sizeof *p->Gp);
  p->Gc = calloc((size_t)m * CHUNK * t, sizeof *p->Gc);
  p->w = calloc((size_t)m, sizeof *p->w);
  p->rn = calloc((size_t)m, sizeof *p->rn);
  p->bn = calloc((size_t)m, sizeof *p->bn);
  p->take = calloc((size_t)m, sizeof *p->take);
  HM_CHECK(p->G && p->Z && p->Gp && p->Gc && p->w && p->rn && p->bn && p->take, HM_ERR_MEMORY,
           "could not allocate the %d x %d projected problem", m, m);
  const double t0 = MPI_Wtime();
  HM_CALL(filter(s, p));
  /* the filter's time, not work still queued on the device */
  if (s->H->ctx->kernels->synchronize) HM_CALL(s->H->ctx->kernels->synchronize());
  const double t1 = MPI_Wtime();
  s->t_filter += t1 - t0;
  s->vector_steps += (double)m * s->degree;
  HM_CALL(orthonormalize(s, s->X));
  HM_CALL(rayleigh_ritz(s, p));
  memset(out, 0, sizeof *out);
  const double bar = s->opt.tol * s->spectral, lo = s->opt.emin, hi = s->opt.emax;
  for (int j = 0; j < m; j++) {
    const double w = p->w[j], r = p->rn[j];
    const int in = w >= lo && w <= hi;
    p->take[j] = in && r <= bar;
    if (in && !p->take[j]) {
      if (w - r >= lo && w + r <= hi) {
        out->sure++;
      } else {
        out->min_res = out->maybe++ ? fmin(out->min_res, r) : r;
      }
    }
    p->rn[j] /= s->spectral;
  }
  const int before = s->nlock;
  HM_CALL(lock(s, p->take, p->w, p->rn));
  out->locked_now = s->nlock - before;
  s->t_other += MPI_Wtime() - t1;
  s->passes++;
  if (s->opt.verbosity > 0 && s->H->ctx->rank == 0) {
    printf("interior pass %d: %d locked (%d new), in the window unconverged %d (+ %d unresolved, least residual "
           "%.2g), search %d; so far filter %.1f s, the rest %.1f s\n",
           s->passes, s->nlock, out->locked_now, out->sure, out->maybe, out->min_res / s->spectral, s->search,
           s->t_filter, s->t_other);
    fflush(stdout);
  }
  return HM_SUCCESS;
}

/* The tail of a run: nothing surely inside is left unconverged, only `maybe` pairs whose intervals
 * cross the window's edges (slow pairs at an edge, or mixtures that the stall rule will end). Their
 * passes need not filter the whole search space: X keeps the columns whose Ritz values lie nearest
 * the window (the maybe pairs first, at distance 0), max(CHUNK, margin + 2 maybe) of them, so that
 * the margin rule does not grow it back. p: the pass's Ritz values and the columns it locked
 * (`locked` of them). */
static int narrow_to_tail(hm_interior *s, const pass_work *p, int locked, int maybe) {
  const int width = CHUNK > s->margin + 2 * maybe ? CHUNK : s->margin + 2 * maybe;
  if (!s->X || s->X->k <= width) return HM_SUCCESS;
  const int k = s->X->k, m = k + locked;
  double *dist = malloc(sizeof(double) * (size_t)k);
  int *keep = calloc((size_t)k, sizeof(int));
  if (!dist || !keep) {
    free(dist), free(keep);
    return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "%d distances", k);
  }
  for (int j = 0, i = 0; j < m; j++) /* X's columns are the pass's Ritz vectors less the locked ones */
    if (!p->take[j]) dist[i++] = fmax(0.0, fmax(s->opt.emin - p->w[j], p->w[j] - s->opt.emax));
  for (int n = 0; n < width; n++) { /* the width nearest, ties to the lower index */
    int best = -1;
    for (int i = 0; i < k; i++)
      if (!keep[i] && (best < 0 || dist[i] < dist[best])) best = i;
    keep[best] = 1;
  }
  const int st = hm_mvec_keep_columns(s->X, keep, 0);
  free(dist);
  free(keep);
  HM_CALL(st);
  s->search = s->nlock + width;
  return HM_SUCCESS;
}

static int compare_index(const void *x, const void *y, void *v) {
  const double *w = v;
  const double a = w[*(const int *)x], b = w[*(const int *)y];
  return (a > b) - (a < b);
}

/* Ascending order of the locked values (insertion sort: a few hundred at most). */
static int sort_locked(hm_interior *s) {
  free(s->order);
  s->order = NULL;
  HM_MALLOC(s->order, s->nlock + 1);
  for (int i = 0; i < s->nlock; i++) {
    int j = i;
    while (j > 0 && compare_index(&i, &s->order[j - 1], s->lock_values) < 0) {
      s->order[j] = s->order[j - 1];
      j--;
    }
    s->order[j] = i;
  }
  return HM_SUCCESS;
}

/* After a pass: a checkpoint where one is due (every `every` passes, or `seconds` by rank 0's clock),
 * then HM_ERR_STOPPED where the stop request says so. */
static int after_pass(hm_interior *s) {
  int due = 0;
  if (s->checkpoint)
    HM_CALL(hm_checkpoint_due(s->H->ctx->comm, s->passes, s->checkpoint_every, s->checkpoint_seconds,
                              s->last_checkpoint, &due));
  if (due) {
    HM_CALL(s->checkpoint(s, s->checkpoint_user));
    s->last_checkpoint = MPI_Wtime();
  }
  HM_CHECK(!(s->stop && s->stop(s->stop_user)), HM_ERR_STOPPED, "stopped after filter pass %d", s->passes);
  return HM_SUCCESS;
}

/* The bounds, the count estimate, the degree and the start block of a new run; *none where the
 * window misses the spectrum. */
static int start(hm_interior *s, int *none) {
  const hm_interior_options *o = &s->opt;
  HM_CALL(hm_lanczos_bounds(s->H, o->lanczos_steps, o->seed, 0.05, &s->lo, &s->hi));
  s->scale = 2.0 / (s->hi - s->lo);
  s->shift = 0.5 * (s->hi + s->lo);
  s->spectral = fmax(fabs(s->lo), fabs(s->hi));
  s->a = fmax((o->emin - s->shift) * s->scale, -1.0);
  s->b = fmin((o->emax - s->shift) * s->scale, 1.0);
  *none = s->a >= 1 || s->b <= -1;
  if (*none) return HM_SUCCESS;
  HM_CALL(count_estimate(s));
  s->degree = o->degree ? o->degree : hm_interior_filter_degree(s->a, s->b);
  const int est = (int)ceil(s->estimate);
  int ns = o->search ? o->search : (int)fmax(fmax(2.0 * est, est + 10), 8);
  if (ns > s->n_global) ns = (int)s->n_global;
  s->margin = ns / 10 > 2 ? ns / 10 : 2;
  HM_CALL(check_memory(s, ns));
  HM_CALL(grow(s, ns));
  s->stalled = s->sure_stalled = 0;
  s->last_sure = -1;
  s->mark = DBL_MAX;
  return HM_SUCCESS;
}

int hm_interior_run(hm_interior *s) {
  HM_CHECK(s, HM_ERR_ARGUMENT, "NULL solver");
  HM_CHECK(s->passes == 0 || s->restored, HM_ERR_ARGUMENT, "hm_interior_run was called already on this solver");
  const hm_interior_options *o = &s->opt;
  if (!s->restored) {
    int none = 0;
    s->converged = 1;
    HM_CALL(start(s, &none));
    if (none) return sort_locked(s); /* the window misses the spectrum: none */
  }
  s->restored = 0;
  HM_MALLOC(s->coef, s->degree + 1);
  HM_CALL(hm_interior_filter_coefficients(s->a, s->b, s->degree, s->coef));
  s->last_checkpoint = MPI_Wtime();
  pass_work p;
  memset(&p, 0, sizeof p);
  int st = HM_SUCCESS;
  s->converged = 0;
  while (s->passes < o->max_passes && s->X) {
    pass_result r;
    HM_CALL_GOTO(st, done, pass(s, &p, &r));
    /* The search space must keep a margin beyond the window's pairs: else a copy of a degenerate
     * eigenvalue could be left outside it. */
    const int inside = s->nlock + r.sure;
    /* Pairs surely inside that do not converge: their level is cut at the search space's end. */
    s->sure_stalled = r.sure > 0 && r.locked_now == 0 && r.sure == s->last_sure ? s->sure_stalled + 1 : 0;
    s->last_sure = r.sure;
    if ((inside + s->margin > s->search || s->sure_stalled >= 4) && s->search < s->n_global) {
      int want = (int)fmin(fmax(ceil(1.5 * inside), 1.25 * s->search) + s->margin, (double)s->n_global);
      s->margin = want / 10 > 2 ? want / 10 : 2;
      HM_CALL_GOTO(st, done, grow(s, want - s->nlock));
      s->stalled = s->sure_stalled = 0;
      s->mark = DBL_MAX;
    } else {
      /* Unresolved pairs make progress while one of them converges (the least residual halves since
       * the mark). Mixtures of outside vectors make none, however their number changes as the filter
       * turns them out of the window one by one. */
      if (r.locked_now > 0 || (r.maybe > 0 && r.min_res < 0.5 * s->mark)) {
        s->stalled = 0;
        s->mark = r.maybe > 0 ? r.min_res : DBL_MAX;
      } else {
        s->stalled++;
      }
      if (r.sure == 0 && r.locked_now == 0 && s->passes >= 2 && (r.maybe == 0 || s->stalled >= 3)) {
        s->converged = 1;
        break;
      }
      if (r.sure == 0 && r.maybe > 0) HM_CALL_GOTO(st, done, narrow_to_tail(s, &p, r.locked_now, r.maybe));
    }
    if (s->X && s->passes < o->max_passes) HM_CALL_GOTO(st, done, after_pass(s));
  }
  if (!s->X) s->converged = 1; /* the whole space locked (tiny matrices) */
done:
  pass_work_free(&p);
  if (st) return st;
  return sort_locked(s);
}

int hm_interior_set_checkpoint(hm_interior *s, int every, double seconds, hm_interior_checkpoint_fn fn, void *user,
                               int (*stop)(void *), void *stop_user) {
  HM_CHECK(s, HM_ERR_ARGUMENT, "NULL solver");
  HM_CHECK(every >= 0 && seconds >= 0, HM_ERR_ARGUMENT, "every = %d, seconds = %g: must be >= 0", every, seconds);
  s->checkpoint = fn;
  s->checkpoint_user = user;
  s->checkpoint_every = every;
  s->checkpoint_seconds = seconds;
  s->stop = stop;
  s->stop_user = stop_user;
  return HM_SUCCESS;
}

/* The scalars: the fixed ones, the locked values and residuals, then the count of Q's blocks and
 * their widths. */
enum { SCALARS_FIXED = 25, CHECKPOINT_VERSION = 3 };

int hm_interior_checkpoint_state(hm_interior *s, int *nblocks, hm_mvec ***blocks, int *nscalars, double **scalars) {
  HM_CHECK(s && nblocks && blocks && nscalars && scalars, HM_ERR_ARGUMENT, "NULL argument");
  const int xk = s->X ? s->X->k : 0;
  hm_mvec **list;
  HM_MALLOC(list, s->nq + 1);
  *nblocks = 0;
  if (xk) list[(*nblocks)++] = s->X;
  for (int b = 0; b < s->nq; b++) list[(*nblocks)++] = s->Q[b];
  *nscalars = SCALARS_FIXED + 2 * s->nlock + 1 + s->nq;
  double *v = malloc(sizeof(double) * (size_t)*nscalars);
  if (!v) free(list);
  HM_CHECK(v, HM_ERR_MEMORY, "could not allocate %d checkpoint scalars", *nscalars);
  *blocks = list;
  const double fixed[SCALARS_FIXED] = {
      CHECKPOINT_VERSION, (double)s->n_global, s->type, s->opt.emin, s->opt.emax, s->opt.tol,
      (double)(s->opt.seed >> 32), (double)(s->opt.seed & 0xffffffffu), s->lo, s->hi, s->estimate, s->degree,
      s->search, s->passes, s->margin, s->nlock, xk, s->stalled, s->sure_stalled, s->last_sure,
      s->mark, s->t_filter, s->t_other, s->vector_steps, s->converged};
  memcpy(v, fixed, sizeof fixed);
  for (int i = 0; i < s->nlock; i++) {
    v[SCALARS_FIXED + i] = s->lock_values[i];
    v[SCALARS_FIXED + s->nlock + i] = s->lock_res[i];
  }
  v[SCALARS_FIXED + 2 * s->nlock] = s->nq;
  for (int b = 0; b < s->nq; b++) v[SCALARS_FIXED + 2 * s->nlock + 1 + b] = s->Q[b]->k;
  *scalars = v;
  return HM_SUCCESS;
}

int hm_interior_checkpoint_restore(hm_interior *s, int nscalars, const double *v, int *nblocks, hm_mvec ***blocks) {
  HM_CHECK(s && v && nblocks && blocks, HM_ERR_ARGUMENT, "NULL argument");
  HM_CHECK(s->passes == 0 && !s->X && !s->nq, HM_ERR_ARGUMENT, "restore a checkpoint into a solver that has not run");
  HM_CHECK(nscalars >= SCALARS_FIXED && v[0] == CHECKPOINT_VERSION, HM_ERR_INPUT,
           "not an interior checkpoint of this version (%d scalars)", nscalars);
  const double seed_hi = (double)(s->opt.seed >> 32), seed_lo = (double)(s->opt.seed & 0xffffffffu);
  HM_CHECK(v[1] == (double)s->n_global && v[2] == s->type, HM_ERR_INPUT,
           "the checkpoint is of a matrix of %.0f rows, type %.0f; this one has %lld rows, type %d", v[1], v[2],
           (long long)s->n_global, (int)s->type);
  HM_CHECK(v[3] == s->opt.emin && v[4] == s->opt.emax && v[5] == s->opt.tol && v[6] == seed_hi && v[7] == seed_lo,
           HM_ERR_INPUT, "the checkpoint is of window [%.17g, %.17g], tol %g; this run has [%.17g, %.17g], tol %g "
           "(or another seed)", v[3], v[4], v[5], s->opt.emin, s->opt.emax, s->opt.tol);
  const int nlock = (int)v[15], xk = (int)v[16];
  const int tail = SCALARS_FIXED + 2 * nlock; /* the count of Q's blocks, then their widths */
  const int nq = nlock >= 0 && nscalars > tail ? (int)v[tail] : -1;
  const double *widths = v + tail + 1;
  int sum = 0, widths_fit = nq >= 0 && nscalars == tail + 1 + nq;
  for (int b = 0; widths_fit && b < nq; b++) {
    widths_fit = widths[b] >= 1;
    sum += (int)widths[b];
  }
  HM_CHECK(nlock >= 0 && xk >= 1 && nlock + xk <= s->n_global && widths_fit && sum == nlock && v[11] >= 1 &&
               v[13] >= 1,
           HM_ERR_INPUT, "the checkpoint's sizes do not fit (%d locked, %d active of %lld rows, %d scalars)", nlock, xk,
           (long long)s->n_global, nscalars);
  s->lo = v[8], s->hi = v[9], s->estimate = v[10], s->degree = (int)v[11], s->search = (int)v[12];
  s->passes = (int)v[13], s->margin = (int)v[14], s->nlock = nlock;
  s->stalled = (int)v[17], s->sure_stalled = (int)v[18], s->last_sure = (int)v[19];
  s->mark = v[20], s->t_filter = v[21], s->t_other = v[22], s->vector_steps = v[23], s->converged = (int)v[24];
  s->scale = 2.0 / (s->hi - s->lo);
  s->shift = 0.5 * (s->hi + s->lo);
  s->spectral = fmax(fabs(s->lo), fabs(s->hi));
  s->a = fmax((s->opt.emin - s->shift) * s->scale, -1.0);
  s->b = fmin((s->opt.emax - s->shift) * s->scale, 1.0);
  HM_MALLOC(s->lock_values, nlock + 1);
  HM_MALLOC(s->lock_res, nlock + 1);
  for (int i = 0; i < nlock; i++) {
    s->lock_values[i] = v[SCALARS_FIXED + i];
    s->lock_res[i] = v[SCALARS_FIXED + nlock + i];
  }
  HM_MALLOC(s->Q, nq + 1);
  hm_mvec **list;
  HM_MALLOC(list, nq + 1);
  int st = new_block(s, xk, &s->X);
  list[0] = s->X;
  for (int b = 0; b < nq && !st; b++, s->nq++) st = new_block(s, (int)widths[b], &s->Q[b]), list[b + 1] = s->Q[b];
  if (st) {
    free(list);
    return st;
  }
  *nblocks = 1 + nq;
  *blocks = list;
  s->restored = 1;
  return HM_SUCCESS;
}

int hm_interior_info(const hm_interior *s, int *found, double *estimate, int *degree, int *search, int *passes,
                     int *converged) {
  HM_CHECK(s, HM_ERR_ARGUMENT, "NULL solver");
  if (found) *found = s->nlock;
  if (estimate) *estimate = s->estimate;
  if (degree) *degree = s->degree;
  if (search) *search = s->search;
  if (passes) *passes = s->passes;
  if (converged) *converged = s->converged;
  return HM_SUCCESS;
}

int hm_interior_timing(const hm_interior *s, double *filter_seconds, double *other_seconds, double *vector_steps) {
  HM_CHECK(s, HM_ERR_ARGUMENT, "NULL solver");
  if (filter_seconds) *filter_seconds = s->t_filter;
  if (other_seconds) *other_seconds = s->t_other;
  if (vector_steps) *vector_steps = s->vector_steps;
  return HM_SUCCESS;
}

int hm_interior_bounds(const hm_interior *s, double *lo, double *hi) {
  HM_CHECK(s && lo && hi, HM_ERR_ARGUMENT, "NULL argument");
  *lo = s->lo;
  *hi = s->hi;
  return HM_SUCCESS;
}

int hm_interior_values(const hm_interior *s, double *values) {
  HM_CHECK(s && (values || s->nlock == 0), HM_ERR_ARGUMENT, "NULL argument");
  HM_CHECK(s->order || s->nlock == 0, HM_ERR_ARGUMENT, "hm_interior_run has not finished");
  for (int i = 0; i < s->nlock; i++) values[i] = s->lock_values[s->order[i]];
  return HM_SUCCESS;
}

int hm_interior_residuals(const hm_interior *s, double *residuals) {
  HM_CHECK(s && (residuals || s->nlock == 0), HM_ERR_ARGUMENT, "NULL argument");
  HM_CHECK(s->order || s->nlock == 0, HM_ERR_ARGUMENT, "hm_interior_run has not finished");
  for (int i = 0; i < s->nlock; i++) residuals[i] = s->lock_res[s->order[i]];
  return HM_SUCCESS;
}

int hm_interior_vectors(hm_interior *s, hm_mvec *V) {
  HM_CHECK(s && V, HM_ERR_ARGUMENT, "NULL argument");
  HM_CHECK(s->order || s->nlock == 0, HM_ERR_ARGUMENT, "hm_interior_run has not finished");
  HM_CHECK(V->k == s->nlock && V->type == s->type, HM_ERR_ARGUMENT,
           "V has %d columns of type %d; the solver found %d of type %d", V->k, (int)V->type, s->nlock, (int)s->type);
  for (int i = 0; i < s->nlock; i++) {
    const hm_mvec *block;
    int column;
    locked_column(s, s->order[i], &block, &column);
    HM_CALL(hm_mvec_copy_columns(block, column, V, i, 1));
  }
  return HM_SUCCESS;
}
