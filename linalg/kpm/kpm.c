/* KPM moments with the fused, blocked augmented SpMMV (Kreutzer et al.):
 * per step W = 2 s (H - b) V - W and both dot products of all R columns in one sweep, giving
 * mu_2m = 2<v_m|v_m> - mu_0 and mu_2m+1 = 2<v_m+1|v_m> - mu_1. The dot products of each step stay
 * in the backend's memory (a buffer of `chunk` steps, brought to the host when full) and the
 * partial sums stay rank-local (they add up over ranks) until a checkpoint or the end needs
 * them: no host transfer and no reduction per step. With opt.block < R the vectors run in passes
 * of at most block columns (vector r = column r of the random-phase block, whatever its pass), one
 * pass after the other through the same two blocks; the moments are those of a single pass. */
#include <math.h>
#include <string.h>
#include "checkpoint_due.h"
#include "error_macros.h"
#include "halo.h"
#include "hamlet/kpm.h"
#include "kpm_sums.h"
#include "lanczos.h"
#include "matrix_hermitian.h"
#include "mpi_large.h"
#include "mvec_block.h"

struct hm_kpm_s {
  hm_matrix *H;
  hm_kpm_options opt;
  double emin, emax, scale, shift;
  int block, passes, pass;  /* vectors per pass, passes, the current one */
  int col0, width;          /* the current pass's first vector and its number of vectors */
  int moments_done;         /* moments of the current pass issued, folded into eta or pending in dots */
  int moments_folded;       /* moments in eta */
  hm_mvec *v_prev, *v_curr; /* v_{m-1}, v_m of the recurrence */
  double *eta;              /* [R][M] this rank's raw partial sums (kpm_sums.h; host) */
  double *norm2;            /* [R] <v_r|v_r> of each start vector: N for random phases */
  double *dots;             /* [chunk][2 width] per-step <V|V>, <W|V> (backend memory) */
  double *host_dots;        /* the same on the host when folding */
  int chunk, pending;       /* steps the buffer holds, steps in it */
  int64_t n_global;
  hm_mvec *start;           /* the caller's start block (hm_kpm_set_start), kept for a restart where
                             * the Lanczos interval proves too narrow; NULL: random phases */
  int widened;              /* the moments grew and the run restarted on the Gershgorin interval */
  double narrow_emin, narrow_emax, growth; /* the interval it left, the moment magnitude that showed it */
};

int hm_kpm_options_default(hm_kpm_options *opt) {
  HM_CHECK(opt, HM_ERR_ARGUMENT, "opt is NULL");
  memset(opt, 0, sizeof *opt);
  opt->moments = 256;
  opt->vectors = 16;
  opt->seed = 1;
  opt->bounds = HM_BOUNDS_LANCZOS;
  opt->lanczos_steps = 40;
  opt->bounds_margin = 0.05;
  return HM_SUCCESS;
}

static int check_options(const hm_kpm_options *o) {
  HM_CHECK(o->moments >= 2 && o->moments % 2 == 0, HM_ERR_ARGUMENT, "moments = %d, must be even and >= 2", o->moments);
  HM_CHECK(o->vectors >= 1, HM_ERR_ARGUMENT, "vectors = %d, must be >= 1", o->vectors);
  HM_CHECK(o->block >= 0 && o->block <= o->vectors, HM_ERR_ARGUMENT,
           "block = %d: allowed 1 .. vectors = %d vectors per pass, or 0 for all in one pass", o->block, o->vectors);
  HM_CHECK(o->bounds == HM_BOUNDS_LANCZOS || o->bounds == HM_BOUNDS_GERSHGORIN || o->bounds == HM_BOUNDS_GIVEN,
           HM_ERR_ARGUMENT, "bounds = %d, must be HM_BOUNDS_LANCZOS (0), GERSHGORIN (1) or GIVEN (2)", (int)o->bounds);
  HM_CHECK(o->bounds_margin >= 0 && o->bounds_margin <= 1, HM_ERR_ARGUMENT, "bounds_margin = %g, must be in [0, 1]", o->bounds_margin);
  HM_CHECK(o->bounds != HM_BOUNDS_GIVEN || (isfinite(o->emin) && isfinite(o->emax) && o->emin < o->emax),
           HM_ERR_ARGUMENT, "given bounds [%g, %g] must be finite with emin < emax", o->emin, o->emax);
  HM_CHECK(o->checkpoint_every >= 0 && o->checkpoint_seconds >= 0, HM_ERR_ARGUMENT,
           "checkpoint_every = %d and checkpoint_seconds = %g must be >= 0", o->checkpoint_every, o->checkpoint_seconds);
  return HM_SUCCESS;
}

static int find_interval(hm_kpm *k) {
  const hm_kpm_options *o = &k->opt;
  if (o->bounds == HM_BOUNDS_GIVEN) {
    k->emin = o->emin;
    k->emax = o->emax;
  } else if (o->bounds == HM_BOUNDS_LANCZOS) {
    HM_CALL(hm_lanczos_bounds(k->H, o->lanczos_steps, o->seed, o->bounds_margin, &k->emin, &k->emax));
  } else {
    double lo, hi;
    HM_CALL(hm_matrix_gershgorin(k->H, &lo, &hi));
    double pad = o->bounds_margin * (hi - lo);
    k->emin = lo - pad;
    k->emax = hi + pad;
  }
  if (!(k->emax - k->emin > 1e-300)) { /* a multiple of the identity: any interval around it works */
    k->emin -= 1;
    k->emax += 1;
  }
  k->scale = 2.0 / (k->emax - k->emin);
  k->shift = 0.5 * (k->emax + k->emin);
  return HM_SUCCESS;
}

/* The Gershgorin interval (widened by the margin) joined with the current one: where the Lanczos
 * interval missed part of the spectrum (moments grew past 1), the rigorous one. */
static int widen_interval(hm_kpm *k) {
  double lo, hi;
  HM_CALL(hm_matrix_gershgorin(k->H, &lo, &hi));
  const double pad = k->opt.bounds_margin * (hi - lo);
  k->narrow_emin = k->emin;
  k->narrow_emax = k->emax;
  k->emin = fmin(k->emin, lo - pad);
  k->emax = fmax(k->emax, hi + pad);
  if (!(k->emax - k->emin > 1e-300)) {
    k->emin -= 1;
    k->emax += 1;
  }
  k->scale = 2.0 / (k->emax - k->emin);
  k->shift = 0.5 * (k->emax + k->emin);
  k->widened = 1;
  return HM_SUCCESS;
}

/* v_1 = s (H - b) v_0 and the local parts of mu_0, mu_1. */
static int first_step(hm_kpm *k) {
  struct hm_mvec_s *v0 = k->v_prev, *v1 = k->v_curr;
  const int R = k->width, M = k->opt.moments;
  double *eta = k->eta + (size_t)k->col0 * M;
  HM_CALL(hm_matrix_apply(k->H, v0, v1));
  double *alpha, *beta, *dots;
  HM_MALLOC(alpha, 2 * R);
  HM_MALLOC(beta, 2 * R);
  HM_MALLOC(dots, 2 * R);
  for (int r = 0; r < R; r++) { /* scalars laid out for the widest type */
    int t = v0->type;
    alpha[r * t] = -k->scale * k->shift;
    beta[r * t] = k->scale;
  }
  const hm_kernels *K = k->H->ctx->kernels;
  HM_CALL(K->axpby(v0->type, v0->dist.local, R, alpha, v0->data, beta, v1->data));
  HM_CALL(K->dot(v0->type, v0->dist.local, R, v0->data, v0->data, dots));
  for (int r = 0; r < R; r++) eta[(size_t)r * M] = dots[r * v0->type];
  HM_CALL(K->dot(v0->type, v0->dist.local, R, v1->data, v0->data, dots));
  for (int r = 0; r < R; r++) eta[(size_t)r * M + 1] = dots[r * v0->type];
  free(alpha); free(beta); free(dots);
  k->moments_done = k->moments_folded = 2;
  return HM_SUCCESS;
}

/* Bring the pending steps' dot products to the host and turn them into moments. */
static int fold(hm_kpm *k) {
  if (k->pending == 0) return HM_SUCCESS;
  const hm_kernels *K = k->H->ctx->kernels;
  const int R = k->width, M = k->opt.moments;
  const size_t bytes = sizeof(double) * 2 * (size_t)R * (size_t)k->pending;
  HM_CALL(K->download(k->host_dots, k->dots, bytes));
  for (int q = 0; q < k->pending; q++, k->moments_folded += 2) {
    const double *d = k->host_dots + (size_t)q * 2 * R;
    const int n = k->moments_folded;
    for (int r = 0; r < R; r++) {
      double *eta = k->eta + (size_t)(k->col0 + r) * M;
      eta[n] = 2 * d[r]; /* mu_0, mu_1 are subtracted after the reduction (hm_kpm_moments) */
      eta[n + 1] = 2 * d[R + r];
    }
  }
  memset(k->host_dots, 0, bytes); /* the kernels accumulate: the slots start from zero */
  HM_CALL(K->upload(k->dots, k->host_dots, bytes));
  k->pending = 0;
  return HM_SUCCESS;
}

int hm_kpm_create(hm_matrix *H, const hm_kpm_options *opt, hm_kpm **kpm) {
  HM_CHECK(H && opt && kpm, HM_ERR_ARGUMENT, "H, opt or kpm is NULL");
  *kpm = NULL;
  HM_CALL(check_options(opt));
  HM_CALL(hm_matrix_require_hermitian(H, "KPM"));
  hm_kpm *k;
  HM_MALLOC(k, 1);
  k->H = H;
  k->opt = *opt;
  hm_scalar type;
  HM_CALL(hm_matrix_info(H, &k->n_global, NULL, &type));
  HM_MALLOC(k->eta, (size_t)opt->vectors * (size_t)opt->moments);
  HM_MALLOC(k->norm2, opt->vectors);
  for (int r = 0; r < opt->vectors; r++) k->norm2[r] = (double)k->n_global; /* |phase|^2 = 1 per row */
  k->block = opt->block > 0 ? opt->block : opt->vectors;
  k->passes = (opt->vectors + k->block - 1) / k->block;
  k->chunk = opt->moments / 2 < 256 ? opt->moments / 2 : 256;
  memset(k->eta, 0, sizeof(double) * (size_t)opt->vectors * (size_t)opt->moments);
  HM_MALLOC(k->host_dots, 2 * (size_t)k->block * (size_t)k->chunk);
  HM_CALL(H->ctx->kernels->alloc(sizeof(double) * 2 * (size_t)k->block * (size_t)k->chunk, (void **)&k->dots));
  HM_CALL(find_interval(k));
  HM_CALL(hm_kpm_restore_pass(k, 0));
  HM_CALL(hm_mvec_random_phase_columns(k->v_prev, opt->seed, k->col0));
  HM_CALL(first_step(k));
  *kpm = k;
  return HM_SUCCESS;
}

/* Pass p's two blocks (its width; made anew where the width changes), zero; nothing pending. */
int hm_kpm_restore_pass(hm_kpm *k, int p) {
  HM_CHECK(k && p >= 0 && p < k->passes, HM_ERR_ARGUMENT, "pass %d of a run of %d passes", p, k ? k->passes : 0);
  HM_CHECK(k->pending == 0, HM_ERR_ARGUMENT, "a pass change with %d steps pending", k->pending);
  hm_matrix *H = k->H;
  k->pass = p;
  k->col0 = p * k->block;
  const int width = k->opt.vectors - k->col0 < k->block ? k->opt.vectors - k->col0 : k->block;
  if (k->v_prev && k->width != width) {
    hm_mvec_destroy(&k->v_prev);
    hm_mvec_destroy(&k->v_curr);
  }
  k->width = width;
  if (!k->v_prev) {
    hm_scalar type;
    const hm_dist *dist;
    HM_CALL(hm_matrix_info(H, NULL, NULL, &type));
    HM_CALL(hm_matrix_dist(H, &dist));
    HM_CALL(hm_mvec_create_with_halo(H->ctx, dist, type, width, H->halo.nhalo, &k->v_prev));
    HM_CALL(hm_mvec_create_with_halo(H->ctx, dist, type, width, H->halo.nhalo, &k->v_curr));
  }
  k->moments_done = k->moments_folded = 0;
  return HM_SUCCESS;
}

int hm_kpm_passes(const hm_kpm *k, int *pass, int *passes, int *block) {
  HM_CHECK(k, HM_ERR_ARGUMENT, "kpm is NULL");
  if (pass) *pass = k->pass;
  if (passes) *passes = k->passes;
  if (block) *block = k->block;
  return HM_SUCCESS;
}

/* Moments vector r has: all of an earlier pass, the current pass's so far, none of a later one. */
static int done_of(const hm_kpm *k, int r) {
  return r < k->col0 ? k->opt.moments : r < k->col0 + k->width ? k->moments_done : 0;
}

/* The caller's start block replaces the random phases; the first step is redone from it. */
int hm_kpm_set_start(hm_kpm *k, const hm_mvec *V0) {
  HM_CHECK(k && V0, HM_ERR_ARGUMENT, "kpm or V0 is NULL");
  const int R = k->opt.vectors, M = k->opt.moments;
  HM_CHECK(k->moments_done == 2 && k->pending == 0, HM_ERR_ARGUMENT,
           "hm_kpm_set_start after %d moments: call it after hm_kpm_create and before hm_kpm_run", k->moments_done);
  HM_CHECK(V0->k == R, HM_ERR_ARGUMENT, "V0 has %d columns; the kpm was made for vectors = %d", V0->k, R);
  HM_CHECK(k->passes == 1, HM_ERR_ARGUMENT, "a start block runs in one pass: make the kpm with block = 0 or %d, not %d",
           R, k->block);
  HM_CHECK(V0->type == k->v_prev->type, HM_ERR_ARGUMENT, "V0 is %s but H is %s: the start block must be of H's type",
           V0->type == HM_COMPLEX ? "complex" : "real", k->v_prev->type == HM_COMPLEX ? "complex" : "real");
  HM_CHECK(V0->dist.n_global == k->n_global && V0->dist.first == k->v_prev->dist.first &&
               V0->dist.local == k->v_prev->dist.local,
           HM_ERR_ARGUMENT, "V0 is distributed differently from H (rows %lld from %lld of %lld, H has %lld from %lld of %lld)",
           (long long)V0->dist.local, (long long)V0->dist.first, (long long)V0->dist.n_global,
           (long long)k->v_prev->dist.local, (long long)k->v_prev->dist.first, (long long)k->n_global);
  double *norms;
  HM_MALLOC(norms, R);
  int st = hm_mvec_norms(V0, norms); /* collective, so every rank sees the same check below */
  int bad = -1;
  for (int r = 0; r < R && !st; r++)
    if (!(isfinite(norms[r]) && norms[r] > 0)) bad = r;
  double bad_norm = bad >= 0 ? norms[bad] : 0;
  for (int r = 0; r < R && !st && bad < 0; r++) k->norm2[r] = norms[r] * norms[r];
  free(norms);
  HM_CALL(st);
  HM_CHECK(bad < 0, HM_ERR_ARGUMENT, "start vector %d has norm %g: each column of V0 must be non-zero and finite", bad,
           bad_norm);
  HM_CALL(hm_mvec_copy_columns(V0, 0, k->v_prev, 0, R));
  if (k->opt.bounds == HM_BOUNDS_LANCZOS) { /* a restart on a wider interval needs the start again */
    if (!k->start) HM_CALL(hm_mvec_create(k->H->ctx, &k->v_prev->dist, k->v_prev->type, R, &k->start));
    HM_CALL(hm_mvec_copy_columns(V0, 0, k->start, 0, R));
  }
  memset(k->eta, 0, sizeof(double) * (size_t)R * (size_t)M);
  HM_CALL(first_step(k));
  return HM_SUCCESS;
}

int hm_kpm_destroy(hm_kpm **kpm) {
  if (!kpm || !*kpm) return HM_SUCCESS;
  hm_mvec_destroy(&(*kpm)->v_prev);
  hm_mvec_destroy(&(*kpm)->v_curr);
  hm_mvec_destroy(&(*kpm)->start);
  if ((*kpm)->dots) (*kpm)->H->ctx->kernels->release((*kpm)->dots);
  free((*kpm)->host_dots);
  free((*kpm)->eta);
  free((*kpm)->norm2);
  free(*kpm);
  *kpm = NULL;
  return HM_SUCCESS;
}

int hm_kpm_options_get(const hm_kpm *kpm, hm_kpm_options *opt) {
  HM_CHECK(kpm && opt, HM_ERR_ARGUMENT, "kpm or opt is NULL");
  *opt = kpm->opt;
  return HM_SUCCESS;
}

/* One fused step over all rows, the halo exchange of v_m overlapped with the interior rows. */
static int step(hm_kpm *k) {
  double *slot = k->dots + (size_t)k->pending * 2 * k->width; /* the blocks are k->width wide */
  HM_CALL(hm_matrix_chebyshev_step(k->H, k->scale, k->shift, k->v_curr, k->v_prev, slot));
  hm_mvec *t = k->v_prev; /* v_prev now holds v_{m+1} */
  k->v_prev = k->v_curr;
  k->v_curr = t;
  return HM_SUCCESS;
}

/* Collective decision whether a checkpoint is due; the clock is asked every 8 steps (a broadcast). */
static int checkpoint_due(hm_kpm *k, int steps, double t_last, int *due) {
  const hm_kpm_options *o = &k->opt;
  return hm_checkpoint_due(k->H->ctx->comm, steps, o->checkpoint_every, steps % 8 == 0 ? o->checkpoint_seconds : 0,
                           t_last, due);
}

static int check_growth(hm_kpm *k, int passes_done, double *worst, int *at);

/* The first pass again from its start vectors, every moment discarded (after widen_interval). */
static int restart_moments(hm_kpm *k) {
  const int R = k->opt.vectors, M = k->opt.moments;
  k->pending = 0;
  memset(k->host_dots, 0, sizeof(double) * 2 * (size_t)k->block * (size_t)k->chunk);
  HM_CALL(k->H->ctx->kernels->upload(k->dots, k->host_dots, sizeof(double) * 2 * (size_t)k->block * (size_t)k->chunk));
  memset(k->eta, 0, sizeof(double) * (size_t)R * (size_t)M);
  HM_CALL(hm_kpm_restore_pass(k, 0));
  if (k->start) HM_CALL(hm_mvec_copy_columns(k->start, 0, k->v_prev, 0, R));
  else HM_CALL(hm_mvec_random_phase_columns(k->v_prev, k->opt.seed, k->col0));
  HM_CALL(first_step(k));
  return HM_SUCCESS;
}

/* After each pass: |mu_n| <= 1 holds for every vector when the interval contains the spectrum.
 * Growth beyond that means the interval missed part of the spectrum; where the interval was an
 * estimate (Lanczos) and a start block to begin again from exists, the run widens it to the
 * Gershgorin interval and starts the moments again (hm_kpm_bounds_widened reports it), else it fails. */
static int growth_after_pass(hm_kpm *k, int *restarted) {
  double worst = 0;
  int at = 0;
  *restarted = 0;
  HM_CALL(check_growth(k, k->pass + 1, &worst, &at));
  if (worst <= 1 + 1e-8) return HM_SUCCESS;
  /* a Lanczos-made kpm keeps any caller's start block (hm_kpm_set_start), so it can always begin again */
  HM_CHECK(k->opt.bounds == HM_BOUNDS_LANCZOS && !k->widened, HM_ERR_NUMERIC,
           "KPM moment %d has magnitude %g > 1: the interval [%g, %g] does not contain the spectrum; "
           "use bounds = gershgorin or a larger bounds_margin", at, worst, k->emin, k->emax);
  k->growth = worst;
  HM_CALL(widen_interval(k));
  HM_CALL(restart_moments(k));
  *restarted = 1;
  return HM_SUCCESS;
}

int hm_kpm_run(hm_kpm *k) {
  HM_CHECK(k, HM_ERR_ARGUMENT, "kpm is NULL");
  const int M = k->opt.moments;
  double t_last = MPI_Wtime();
  int steps = 0;
  for (;;) {
    while (k->moments_done < M) {
      HM_CALL(step(k));
      k->moments_done += 2;
      if (++k->pending == k->chunk) HM_CALL(fold(k));
      steps++;
      if (k->opt.progress) /* over all passes: the progress of the whole run */
        k->opt.progress(k->pass * M + k->moments_done, k->passes * M, k->opt.progress_user);
      int due = 0;
      HM_CALL(checkpoint_due(k, steps, t_last, &due));
      if (due && k->opt.checkpoint && k->moments_done < M) { /* mid-pass: the pass is in the checkpoint */
        HM_CALL(k->opt.checkpoint(k, k->opt.checkpoint_user));
        t_last = MPI_Wtime();
      }
      if (k->opt.stop && k->moments_done < M && k->opt.stop(k->opt.stop_user))
        HM_RAISE(HM_ERR_STOPPED, "stopped on request after moment %d of %d of pass %d of %d (the state is complete: "
                 "checkpoint it)", k->moments_done, M, k->pass + 1, k->passes);
    }
    HM_CALL(fold(k)); /* the pass's last moments into eta before its blocks are reused */
    int restarted;
    HM_CALL(growth_after_pass(k, &restarted));
    if (restarted) continue;
    if (k->pass + 1 == k->passes) break;
    HM_CALL(hm_kpm_restore_pass(k, k->pass + 1));
    HM_CALL(hm_mvec_random_phase_columns(k->v_prev, k->opt.seed, k->col0));
    HM_CALL(first_step(k));
  }
  return HM_SUCCESS;
}

int hm_kpm_set_interval_estimate(hm_kpm *k, double emin, double emax) {
  HM_CHECK(k, HM_ERR_ARGUMENT, "kpm is NULL");
  HM_CHECK(k->opt.bounds == HM_BOUNDS_LANCZOS, HM_ERR_ARGUMENT, "an interval estimate replaces a Lanczos interval only");
  HM_CHECK(k->moments_done == 2 && k->pending == 0 && k->pass == 0, HM_ERR_ARGUMENT,
           "the interval estimate must be set before hm_kpm_run");
  HM_CHECK(isfinite(emin) && isfinite(emax) && emin < emax, HM_ERR_ARGUMENT, "interval [%g, %g]", emin, emax);
  k->emin = emin;
  k->emax = emax;
  k->scale = 2.0 / (emax - emin);
  k->shift = 0.5 * (emax + emin);
  HM_CALL(restart_moments(k));
  return HM_SUCCESS;
}

int hm_kpm_bounds_widened(const hm_kpm *k, int *widened, double *narrow_emin, double *narrow_emax, double *growth) {
  HM_CHECK(k, HM_ERR_ARGUMENT, "kpm is NULL");
  if (widened) *widened = k->widened;
  if (narrow_emin) *narrow_emin = k->narrow_emin;
  if (narrow_emax) *narrow_emax = k->narrow_emax;
  if (growth) *growth = k->growth;
  return HM_SUCCESS;
}

int hm_kpm_sums(hm_kpm *k, double *sums) {
  HM_CHECK(k && sums, HM_ERR_ARGUMENT, "kpm or sums is NULL");
  const int R = k->opt.vectors, M = k->opt.moments;
  HM_CALL(fold(k));
  /* R x M can pass INT_MAX (e.g. 2000 vectors x 2^20 moments): pieces, counted in size_t. */
  HM_CALL(hm_mpi_allreduce_large(k->eta, sums, (size_t)R * (size_t)M, MPI_DOUBLE, MPI_SUM, k->H->ctx->comm));
  return HM_SUCCESS;
}

/* mu_2m = 2<v_m|v_m> - mu_0 and mu_2m+1 = 2<v_m+1|v_m> - mu_1, normalised by <v_r|v_r>; done: the
 * moments the vector has (done_of). */
static double moment_of(const double *sums_r, int n, int done, double norm2) {
  if (n >= done) return 0;
  return (n < 2 ? sums_r[n] : sums_r[n] - sums_r[n & 1]) / norm2;
}

int hm_kpm_moments(hm_kpm *k, double *mu, double *mu_vec) {
  HM_CHECK(k && mu, HM_ERR_ARGUMENT, "kpm or mu is NULL");
  const int R = k->opt.vectors, M = k->opt.moments;
  double *all;
  HM_MALLOC(all, (size_t)R * M);
  int st = hm_kpm_sums(k, all);
  for (int n = 0; n < M && !st; n++) {
    double sum = 0;
    for (int r = 0; r < R; r++) sum += moment_of(all + (size_t)r * M, n, done_of(k, r), k->norm2[r]);
    mu[n] = sum / R;
  }
  if (mu_vec && !st)
    for (size_t i = 0; i < (size_t)R * M; i++)
      mu_vec[i] = moment_of(all + i / M * M, (int)(i % M), done_of(k, (int)(i / M)), k->norm2[i / M]);
  free(all);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* The largest |mu_n| of the vectors of the first passes_done passes (a NaN counts as infinite):
 * <= 1 for every vector when the interval contains the spectrum. */
static int check_growth(hm_kpm *k, int passes_done, double *worst, int *at) {
  const int R = k->opt.vectors, M = k->opt.moments;
  const int upto = passes_done * k->block < R ? passes_done * k->block : R;
  double *mu, *mu_vec;
  HM_MALLOC(mu, M);
  HM_MALLOC(mu_vec, (size_t)R * M);
  HM_CALL(hm_kpm_moments(k, mu, mu_vec));
  *worst = 0;
  *at = 0;
  for (size_t i = 0; i < (size_t)upto * M; i++)
    if (!(fabs(mu_vec[i]) <= *worst)) { *worst = isnan(mu_vec[i]) ? INFINITY : fabs(mu_vec[i]); *at = (int)(i % M); }
  free(mu);
  free(mu_vec);
  return HM_SUCCESS;
}

int hm_kpm_info(const hm_kpm *k, int *moments, int *vectors, int *moments_done, double *scale, double *shift,
                int64_t *n_global) {
  HM_CHECK(k, HM_ERR_ARGUMENT, "kpm is NULL");
  if (moments) *moments = k->opt.moments;
  if (vectors) *vectors = k->opt.vectors;
  if (moments_done) *moments_done = k->moments_done;
  if (scale) *scale = k->scale;
  if (shift) *shift = k->shift;
  if (n_global) *n_global = k->n_global;
  return HM_SUCCESS;
}

int hm_kpm_interval(const hm_kpm *k, double *emin, double *emax) {
  HM_CHECK(k && emin && emax, HM_ERR_ARGUMENT, "kpm, emin or emax is NULL");
  *emin = k->emin;
  *emax = k->emax;
  return HM_SUCCESS;
}

/* The current pass's two blocks (width columns: hm_kpm_passes). */
int hm_kpm_state_vectors(hm_kpm *k, hm_mvec **v_prev, hm_mvec **v_curr) {
  HM_CHECK(k && v_prev && v_curr, HM_ERR_ARGUMENT, "kpm, v_prev or v_curr is NULL");
  *v_prev = k->v_prev;
  *v_curr = k->v_curr;
  return HM_SUCCESS;
}

int hm_kpm_restore_sums(hm_kpm *k, int moments_done, const double *sums) {
  HM_CHECK(k && sums, HM_ERR_ARGUMENT, "kpm or sums is NULL");
  const int R = k->opt.vectors, M = k->opt.moments;
  HM_CHECK(moments_done >= 2 && moments_done <= M && moments_done % 2 == 0, HM_ERR_ARGUMENT,
           "moments_done = %d, must be even and in [2, %d]", moments_done, M);
  HM_CALL(fold(k)); /* empties the step buffer; its moments are overwritten below */
  /* The saved sums are global: rank 0 carries them, the others start from zero (x + 0 = x, so
   * the final reduction gives the saved sums bit for bit). */
  k->moments_done = k->moments_folded = moments_done; /* of the current pass (hm_kpm_restore_pass) */
  for (size_t i = 0; i < (size_t)R * M; i++)
    k->eta[i] = k->H->ctx->rank == 0 && (int)(i % M) < done_of(k, (int)(i / M)) ? sums[i] : 0.0;
  k->pending = 0;
  return HM_SUCCESS;
}

int hm_kpm_restore(hm_kpm *k, int moments_done, const double *mu_vec) {
  HM_CHECK(k && mu_vec, HM_ERR_ARGUMENT, "kpm or mu_vec is NULL");
  const int R = k->opt.vectors, M = k->opt.moments;
  double *sums;
  HM_MALLOC(sums, (size_t)R * M);
  for (size_t i = 0; i < (size_t)R * M; i++) { /* undo hm_kpm_moments' normalisation and subtraction */
    const double *mu_r = mu_vec + i / M * M, norm2 = k->norm2[i / M];
    int n = (int)(i % M);
    sums[i] = n < 2 ? mu_r[n] * norm2 : (mu_r[n] + mu_r[n & 1]) * norm2;
  }
  int st = hm_kpm_restore_sums(k, moments_done, sums);
  free(sums);
  HM_CALL(st);
  return HM_SUCCESS;
}
