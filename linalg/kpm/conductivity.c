/* Two-dimensional KPM moments mu_nm^{ab} = Tr[v_a T_n v_b T_m] / N of the Kubo-Bastin formula.
 * Start vectors go in blocks of B (up to BLOCK_MAX) whose Chebyshev recursions advance together:
 * one fused block KPM step (the kernel table's kpm_step, as hm_kpm's R columns) per n instead of
 * one single-vector step per start vector. Per block: the left vectors T_n(H~) v_a r of a chunk of
 * n, for every distinct v_a and start vector r, are kept as the columns of one block per (v_a, r);
 * the right recursion T_m(H~) r is swept over all m in chunks (the chunk's columns of all B start
 * vectors side by side), each chunk multiplied by every distinct v_b in one SpMMV, and the chunk's
 * M x M piece of each component and start vector is one Gram product <L_a,r | v_b T_r> (a dense
 * product on the backend over the local rows). Memory: (left operators + 2) B chunks of vectors;
 * the right sweep is repeated once per left chunk, so steps = M (left) + M ceil(M / chunk) (right)
 * per block and operator. State between chunks is small (the sums); a restored run replays the
 * left recursion up to its chunk. */
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include "checkpoint_due.h"
#include "conductivity_interval.h"
#include "conductivity_timing.h"
#include "device_memory.h"
#include "error_macros.h"
#include "halo.h"
#include "lanczos.h"
#include "mpi_large.h"
#include "objects.h"

enum { MAX_COMPONENTS = 9, BLOCK_MAX = 16 };

struct hm_conductivity_s {
  hm_matrix *H;
  hm_context *ctx;
  hm_conductivity_options opt;
  int ncomp, nleft, nright;
  hm_matrix *left_op[MAX_COMPONENTS], *right_op[MAX_COMPONENTS];
  int left_of[MAX_COMPONENTS], right_of[MAX_COMPONENTS]; /* component -> distinct operator */
  double emin, emax, scale, shift;
  int64_t n_global, first, local;
  int starts, starts_done, chunk, nchunks, chunks_done;
  int block, width;         /* start vectors per block (B), in the current one (<= B, the last may be less) */
  double *sum, *part, *per; /* sum: [C][M][M] complex; part: [B][C][M][M] of the current block; per: [R][C][M][M] */
  double *reduced;          /* [C][M][M]: the finished start vector's moments summed over ranks */
  hm_mvec *phases;          /* R random-phase columns (random trace) */
  hm_mvec *r;               /* the current block of start vectors (B columns; unused ones zero) */
  hm_mvec *lvec[MAX_COMPONENTS][3]; /* left recursion per operator: T_{n-1}, T_n, scratch (B columns) */
  int left_n;               /* index n of lvec[.][1] */
  hm_mvec *rvec[3];
  hm_mvec *L[MAX_COMPONENTS][BLOCK_MAX]; /* left chunk per operator and start vector (chunk columns) */
  hm_mvec *T, *W[MAX_COMPONENTS]; /* right chunk: column b * chunk + j = T_{m0 + j} of start vector b */
  double *G, *unit;         /* chunk x chunk Gram (host), local rows x B of the unit start vectors */
  double *dots;             /* backend scratch of the fused step's column dots (2 B doubles, unused) */
  double t_cheb, t_vel, t_gram;
};

int hm_conductivity_options_default(hm_conductivity_options *opt) {
  HM_CHECK(opt, HM_ERR_ARGUMENT, "opt is NULL");
  memset(opt, 0, sizeof *opt);
  opt->moments = 256;
  opt->vectors = 8;
  opt->seed = 1;
  opt->trace = HM_TRACE_RANDOM;
  opt->bounds = HM_BOUNDS_LANCZOS;
  opt->lanczos_steps = 40;
  opt->bounds_margin = 0.05;
  return HM_SUCCESS;
}

static int check_options(const hm_conductivity_options *o) {
  HM_CHECK(o->moments >= 2 && o->moments % 2 == 0, HM_ERR_ARGUMENT, "moments = %d, must be even and >= 2", o->moments);
  HM_CHECK(o->trace == HM_TRACE_RANDOM || o->trace == HM_TRACE_EXACT, HM_ERR_ARGUMENT,
           "trace = %d, must be HM_TRACE_RANDOM (0) or HM_TRACE_EXACT (1)", (int)o->trace);
  HM_CHECK(o->trace == HM_TRACE_EXACT || o->vectors >= 1, HM_ERR_ARGUMENT, "vectors = %d, must be >= 1", o->vectors);
  HM_CHECK(o->bounds == HM_BOUNDS_LANCZOS || o->bounds == HM_BOUNDS_GERSHGORIN || o->bounds == HM_BOUNDS_GIVEN,
           HM_ERR_ARGUMENT, "bounds = %d, must be HM_BOUNDS_LANCZOS (0), GERSHGORIN (1) or GIVEN (2)", (int)o->bounds);
  HM_CHECK(o->bounds_margin >= 0 && o->bounds_margin <= 1, HM_ERR_ARGUMENT, "bounds_margin = %g, must be in [0, 1]",
           o->bounds_margin);
  HM_CHECK(o->bounds != HM_BOUNDS_GIVEN || (isfinite(o->emin) && isfinite(o->emax) && o->emin < o->emax),
           HM_ERR_ARGUMENT, "given bounds [%g, %g] must be finite with emin < emax", o->emin, o->emax);
  HM_CHECK(o->block >= 0 && o->block <= BLOCK_MAX, HM_ERR_ARGUMENT,
           "block = %d start vectors, allowed are 0 (chosen) to %d", o->block, BLOCK_MAX);
  HM_CHECK(o->chunk >= 0, HM_ERR_ARGUMENT, "chunk = %d, must be >= 0 (0: chosen from free memory)", o->chunk);
  HM_CHECK(o->checkpoint_every >= 0 && o->checkpoint_seconds >= 0, HM_ERR_ARGUMENT,
           "checkpoint_every = %d and checkpoint_seconds = %g must be >= 0", o->checkpoint_every,
           o->checkpoint_seconds);
  return HM_SUCCESS;
}

int hm_conductivity_interval_of(hm_matrix *H, const hm_conductivity_options *o, double *emin, double *emax) {
  if (o->bounds == HM_BOUNDS_GIVEN) {
    *emin = o->emin;
    *emax = o->emax;
  } else if (o->bounds == HM_BOUNDS_LANCZOS) {
    HM_CALL(hm_lanczos_bounds(H, o->lanczos_steps, o->seed, o->bounds_margin, emin, emax));
  } else {
    double lo, hi;
    HM_CALL(hm_matrix_gershgorin(H, &lo, &hi));
    *emin = lo - o->bounds_margin * (hi - lo);
    *emax = hi + o->bounds_margin * (hi - lo);
  }
  if (!(*emax - *emin > 1e-300)) {
    *emin -= 1;
    *emax += 1;
  }
  return HM_SUCCESS;
}

static int find_interval(hm_conductivity *c) {
  HM_CALL(hm_conductivity_interval_of(c->H, &c->opt, &c->emin, &c->emax));
  c->scale = 2.0 / (c->emax - c->emin);
  c->shift = 0.5 * (c->emax + c->emin);
  return HM_SUCCESS;
}

/* The distinct operators of a list: op -> index. */
static int distinct(hm_matrix *const *ops, int n, hm_matrix **uniq, int *index_of) {
  int count = 0;
  for (int i = 0; i < n; i++) {
    int j = 0;
    while (j < count && uniq[j] != ops[i]) j++;
    if (j == count) uniq[count++] = ops[i];
    index_of[i] = j;
  }
  return count;
}

/* Columns of chunk storage ((left operators + 2) vectors each) that fit in half the free memory
 * (device memory on a device backend, available host memory otherwise), the same on every rank
 * (the smallest); INT_MAX where the free memory is unknown. */
static int fitting_columns(hm_conductivity *c) {
  size_t avail = 0;
  if (c->ctx->kernels->device_memory) {
    hm_device_memory_free(&avail);
  } else {
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) avail = (size_t)pages * (size_t)page;
  }
  const double per_column = 16.0 * (double)(c->local > 0 ? c->local : 1) * (c->nleft + 1 + c->nright);
  const double fit = 0.5 * (double)avail / per_column;
  int local_max = avail == 0 || fit >= INT_MAX ? INT_MAX : fit < 1 ? 1 : (int)fit, all = local_max;
  MPI_Allreduce(&local_max, &all, 1, MPI_INT, MPI_MIN, c->ctx->comm);
  return all;
}

/* Block size B and chunk K with B K columns fitting (either may be given in the options; on the
 * host backend the choice is B = 1). A block shares each step among B vectors, but
 * a chunk below M repeats the right sweep ceil(M / K) times per block, so the block's vectors pay
 * B times for a smaller K: the choice minimizes the steps per vector (1 + ceil(M / K)) times a
 * block step's cost per vector, modelled as 0.45 + 0.55 / B (a single-vector step measured at
 * 2.2x the block kernel's floor per vector). A given chunk keeps K and takes the
 * largest B that fits. */
static void choose_block(hm_conductivity *c) {
  const int M = c->opt.moments, most = c->starts < BLOCK_MAX ? c->starts : BLOCK_MAX;
  if (c->opt.block > 0 && c->opt.chunk > 0) { /* both given (a restore): nothing to choose */
    c->block = c->opt.block < most ? c->opt.block : most;
    c->chunk = c->opt.chunk < M ? c->opt.chunk : M;
    return;
  }
  /* host backend: one vector per block (measured here, N = 8192, M = 64: a block of 4 took 1.7x the
   * single-vector time per vector; the CPU's strided column copies and k-column step do not pay) */
  const int upto = c->ctx->kernels->device_memory ? most : 1;
  const int F = fitting_columns(c);
  if (c->opt.block > 0) {
    c->block = c->opt.block < most ? c->opt.block : most;
    const int per = F / c->block;
    c->chunk = per < 1 ? 1 : per < M ? per : M;
    return;
  }
  if (c->opt.chunk > 0) {
    c->chunk = c->opt.chunk < M ? c->opt.chunk : M;
    const int fit = F / c->chunk;
    c->block = fit < 1 ? 1 : fit < upto ? fit : upto;
    return;
  }
  double best = INFINITY;
  for (int b = 1; b <= upto; b++) {
    const int per = F / b, K = per < 1 ? 1 : per < M ? per : M;
    const double cost = (1.0 + (M + K - 1) / K) * (0.45 + 0.55 / b);
    if (cost < best) best = cost, c->block = b, c->chunk = K;
  }
}

int hm_conductivity_create(hm_matrix *H, int ncomp, hm_matrix *const *left, hm_matrix *const *right,
                           const hm_conductivity_options *opt, hm_conductivity **out) {
  HM_CHECK(H && left && right && opt && out, HM_ERR_ARGUMENT, "H, left, right, opt and c must not be NULL");
  *out = NULL;
  HM_CHECK(ncomp >= 1 && ncomp <= MAX_COMPONENTS, HM_ERR_ARGUMENT, "ncomp = %d components: allowed are 1 to %d",
           ncomp, MAX_COMPONENTS);
  HM_CALL(check_options(opt));
  int64_t n;
  hm_scalar type;
  HM_CALL(hm_matrix_info(H, &n, NULL, &type));
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT,
           "H is real: the velocity operators are complex, so H must be a complex matrix too");
  for (int i = 0; i < ncomp; i++) {
    HM_CHECK(left[i] && right[i], HM_ERR_ARGUMENT, "velocity operator of component %d is NULL", i);
    for (int side = 0; side < 2; side++) {
      int64_t nv;
      hm_scalar tv;
      HM_CALL(hm_matrix_info(side ? right[i] : left[i], &nv, NULL, &tv));
      HM_CHECK(nv == n && tv == HM_COMPLEX, HM_ERR_ARGUMENT,
               "velocity operator %s of component %d: %lld rows of %s, need %lld complex rows as H",
               side ? "right" : "left", i, (long long)nv, tv == HM_COMPLEX ? "complex" : "real", (long long)n);
    }
  }
  HM_CHECK(opt->trace != HM_TRACE_EXACT || n <= 1000000, HM_ERR_ARGUMENT,
           "trace = exact runs one start vector per row: N = %lld is too large (at most 10^6; use random)",
           (long long)n);
  hm_conductivity *c = calloc(1, sizeof *c);
  HM_CHECK(c, HM_ERR_MEMORY, "no memory for the conductivity object");
  c->H = H;
  c->opt = *opt;
  c->ncomp = ncomp;
  c->n_global = n;
  int st;
  HM_CALL_GOTO(st, fail, hm_matrix_context(H, &c->ctx));
  const hm_dist *dist;
  HM_CALL_GOTO(st, fail, hm_matrix_dist(H, &dist));
  HM_CALL_GOTO(st, fail, hm_dist_range(dist, &c->first, &c->local, NULL));
  c->nleft = distinct(left, ncomp, c->left_op, c->left_of);
  c->nright = distinct(right, ncomp, c->right_op, c->right_of);
  c->starts = opt->trace == HM_TRACE_EXACT ? (int)n : opt->vectors;
  HM_CALL_GOTO(st, fail, find_interval(c));
  choose_block(c);
  c->nchunks = (opt->moments + c->chunk - 1) / c->chunk;
  const size_t MM = (size_t)opt->moments * (size_t)opt->moments;
  const size_t block = 2 * MM * (size_t)ncomp;
  c->sum = calloc(block, sizeof(double));
  c->part = calloc(block * (size_t)c->block, sizeof(double));
  c->reduced = calloc(block, sizeof(double));
  if (opt->trace == HM_TRACE_RANDOM) c->per = calloc(block * (size_t)opt->vectors, sizeof(double));
  c->G = malloc(sizeof(double) * 2 * (size_t)c->chunk * (size_t)c->chunk);
  c->unit = calloc(2 * (size_t)(c->local > 0 ? c->local : 1) * (size_t)c->block, sizeof(double));
  st = !c->sum || !c->part || !c->reduced || (opt->trace == HM_TRACE_RANDOM && !c->per) || !c->G || !c->unit;
  if (st) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                        "no host memory for %d components of %d x %d moments", ncomp, opt->moments, opt->moments);
    goto fail;
  }
  if (opt->trace == HM_TRACE_RANDOM) {
    HM_CALL_GOTO(st, fail, hm_mvec_create(c->ctx, dist, HM_COMPLEX, opt->vectors, &c->phases));
    HM_CALL_GOTO(st, fail, hm_mvec_random_phase(c->phases, opt->seed));
  }
  const int B = c->block, KB = c->chunk * c->block;
  HM_CALL_GOTO(st, fail, hm_mvec_create(c->ctx, dist, HM_COMPLEX, B, &c->r));
  for (int i = 0; i < 3; i++) HM_CALL_GOTO(st, fail, hm_mvec_create(c->ctx, dist, HM_COMPLEX, B, &c->rvec[i]));
  for (int a = 0; a < c->nleft; a++) {
    for (int i = 0; i < 3; i++) HM_CALL_GOTO(st, fail, hm_mvec_create(c->ctx, dist, HM_COMPLEX, B, &c->lvec[a][i]));
    for (int b = 0; b < B; b++) HM_CALL_GOTO(st, fail, hm_mvec_create(c->ctx, dist, HM_COMPLEX, c->chunk, &c->L[a][b]));
  }
  for (int b = 0; b < c->nright; b++) HM_CALL_GOTO(st, fail, hm_mvec_create(c->ctx, dist, HM_COMPLEX, KB, &c->W[b]));
  HM_CALL_GOTO(st, fail, hm_mvec_create(c->ctx, dist, HM_COMPLEX, KB, &c->T));
  HM_CALL_GOTO(st, fail, c->ctx->kernels->alloc(sizeof(double) * 2 * (size_t)B, (void **)&c->dots));
  c->left_n = -1;
  *out = c;
  return HM_SUCCESS;
fail:
  hm_conductivity_destroy(&c);
  return st;
}

int hm_conductivity_destroy(hm_conductivity **pc) {
  if (!pc || !*pc) return HM_SUCCESS;
  hm_conductivity *c = *pc;
  hm_mvec_destroy(&c->phases);
  hm_mvec_destroy(&c->r);
  hm_mvec_destroy(&c->T);
  for (int i = 0; i < 3; i++) hm_mvec_destroy(&c->rvec[i]);
  for (int a = 0; a < MAX_COMPONENTS; a++) {
    for (int i = 0; i < 3; i++) hm_mvec_destroy(&c->lvec[a][i]);
    for (int b = 0; b < BLOCK_MAX; b++) hm_mvec_destroy(&c->L[a][b]);
    hm_mvec_destroy(&c->W[a]);
  }
  if (c->dots) c->ctx->kernels->release(c->dots);
  free(c->sum);
  free(c->part);
  free(c->reduced);
  free(c->per);
  free(c->G);
  free(c->unit);
  free(c);
  *pc = NULL;
  return HM_SUCCESS;
}

static double now_synced(const hm_conductivity *c) {
  if (c->ctx->kernels->synchronize) c->ctx->kernels->synchronize();
  return MPI_Wtime();
}

/* The block's recursion one step on: v[1] = T_n -> T_{n+1}, v[0] = T_{n-1}. n = 0: T_1 = s (H - b) T_0
 * (a product and an update, into v[2]); n > 0: the fused block KPM step T_{n+1} = 2 s (H - b) T_n -
 * T_{n-1} in place of T_{n-1} (halo exchange overlapped with the interior rows, as hm_kpm). */
static int chebyshev_step(hm_conductivity *c, hm_mvec **v, int n) {
  hm_matrix *H = c->H;
  if (n == 0) {
    double complex alpha[BLOCK_MAX], beta[BLOCK_MAX];
    for (int j = 0; j < c->block; j++) alpha[j] = -c->scale * c->shift, beta[j] = c->scale;
    HM_CALL(hm_matrix_apply(H, v[1], v[2]));
    HM_CALL(hm_mvec_axpby(v[2], alpha, v[1], beta));
    hm_mvec *t = v[0];
    v[0] = v[1];
    v[1] = v[2];
    v[2] = t;
    return HM_SUCCESS;
  }
  HM_CALL(hm_matrix_chebyshev_step(H, c->scale, c->shift, v[1], v[0], c->dots)); /* blocks c->block wide */
  hm_mvec *t = v[0]; /* v[0] now holds T_{n+1} */
  v[0] = v[1];
  v[1] = t;
  return HM_SUCCESS;
}

/* c->r = the block of start vectors s0 .. s0 + width - 1: columns of the phases, or the unit vectors
 * e_s; columns beyond the width are zero (a short last block). */
static int make_start(hm_conductivity *c, int s0) {
  const int B = c->block;
  c->width = c->starts - s0 < B ? c->starts - s0 : B;
  if (c->opt.trace == HM_TRACE_RANDOM && c->width == B) return hm_mvec_copy_columns(c->phases, s0, c->r, 0, B);
  memset(c->unit, 0, sizeof(double) * 2 * (size_t)c->local * (size_t)B);
  if (c->opt.trace == HM_TRACE_EXACT)
    for (int b = 0; b < c->width; b++)
      if (s0 + b >= c->first && s0 + b < c->first + c->local) c->unit[2 * ((s0 + b - c->first) * B + b)] = 1;
  HM_CALL(hm_mvec_set(c->r, c->unit));
  if (c->opt.trace == HM_TRACE_RANDOM) HM_CALL(hm_mvec_copy_columns(c->phases, s0, c->r, 0, c->width));
  return HM_SUCCESS;
}

/* Left vectors T_n v_a r, n in [n0, n0 + count), into the columns of L[a][b] for each start vector
 * b of the block; replays from n = 0 where the recursion is not at n0 (the first chunk, or after a
 * restore). */
static int left_chunk(hm_conductivity *c, int n0, int count) {
  double t0 = now_synced(c);
  if (c->left_n < 0 || c->left_n > n0) {
    for (int a = 0; a < c->nleft; a++) HM_CALL(hm_matrix_apply(c->left_op[a], c->r, c->lvec[a][1]));
    c->left_n = 0;
  }
  double t1 = now_synced(c);
  for (int n = c->left_n; n < n0 + count; n++) {
    if (n > c->left_n)
      for (int a = 0; a < c->nleft; a++) HM_CALL(chebyshev_step(c, c->lvec[a], n - 1));
    if (n >= n0)
      for (int a = 0; a < c->nleft; a++)
        for (int b = 0; b < c->width; b++) HM_CALL(hm_mvec_copy_columns(c->lvec[a][1], b, c->L[a][b], n - n0, 1));
  }
  c->left_n = n0 + count - 1;
  double t2 = now_synced(c);
  c->t_vel += t1 - t0;
  c->t_cheb += t2 - t1;
  return HM_SUCCESS;
}

/* The right sweep for the left chunk [n0, n0 + nl): part[b][k][n][m] for every m and start vector b. */
static int right_sweep(hm_conductivity *c, int n0, int nl) {
  const int M = c->opt.moments, K = c->chunk;
  const size_t MM = (size_t)M * (size_t)M, block = 2 * MM * (size_t)c->ncomp;
  HM_CALL(hm_mvec_copy_columns(c->r, 0, c->rvec[1], 0, c->block));
  int right_n = 0;
  for (int m0 = 0; m0 < M; m0 += K) {
    const int nr = M - m0 < K ? M - m0 : K;
    double t0 = now_synced(c);
    for (int m = m0; m < m0 + nr; m++) {
      if (m > right_n) {
        HM_CALL(chebyshev_step(c, c->rvec, right_n));
        right_n++;
      }
      for (int b = 0; b < c->width; b++) HM_CALL(hm_mvec_copy_columns(c->rvec[1], b, c->T, b * K + m - m0, 1));
    }
    double t1 = now_synced(c);
    for (int b = 0; b < c->nright; b++) HM_CALL(hm_matrix_apply(c->right_op[b], c->T, c->W[b]));
    double t2 = now_synced(c);
    for (int k = 0; k < c->ncomp; k++)
      for (int b = 0; b < c->width; b++) {
        /* rank-local Gram of start vector b: its K left columns with its K columns of v_b T (inner
         * dimension: the local rows); the partial sums add over ranks when a block is finished */
        const hm_mvec *X = c->L[c->left_of[k]][b], *Y = c->W[c->right_of[k]];
        HM_CALL(c->ctx->kernels->gram_columns(HM_COMPLEX, X->dist.local, K, X->data, Y->k, Y->data, b * K, K, c->G));
        double *part = c->part + (size_t)b * block;
        for (int i = 0; i < nl; i++)
          for (int j = 0; j < nr; j++) {
            const size_t d = 2 * ((size_t)k * MM + (size_t)(n0 + i) * M + (size_t)(m0 + j));
            const size_t s = 2 * ((size_t)i * K + j);
            part[d] = c->G[s];
            part[d + 1] = c->G[s + 1];
          }
      }
    double t3 = MPI_Wtime();
    c->t_cheb += t1 - t0;
    c->t_vel += t2 - t1;
    c->t_gram += t3 - t2;
  }
  return HM_SUCCESS;
}

/* dst = sum over ranks of src (n doubles, may exceed INT_MAX: mpi_large.h). */
static int hm_allreduce_sum(const hm_conductivity *c, const double *src, double *dst, size_t n) {
  HM_CALL(hm_mpi_allreduce_large(src, dst, n, MPI_DOUBLE, MPI_SUM, c->ctx->comm));
  return HM_SUCCESS;
}


int hm_conductivity_run(hm_conductivity *c) {
  HM_CHECK(c, HM_ERR_ARGUMENT, "c is NULL");
  const int M = c->opt.moments;
  const size_t block = 2 * (size_t)M * (size_t)M * (size_t)c->ncomp;
  double t_last = MPI_Wtime();
  int chunks = 0;
  while (c->starts_done < c->starts) {
    const int s = c->starts_done;
    if (c->chunks_done == 0 || c->left_n < 0) HM_CALL(make_start(c, s)); /* the block s .. */
    const int n0 = c->chunks_done * c->chunk, nl = M - n0 < c->chunk ? M - n0 : c->chunk;
    HM_CALL(left_chunk(c, n0, nl));
    HM_CALL(right_sweep(c, n0, nl));
    if (++c->chunks_done == c->nchunks) {
      /* One reduction per start vector, in order: its global moments go into rank 0's sum (zeros
       * elsewhere), so the sum is the same whether the run was interrupted or not (a restore puts
       * the saved sum on rank 0): a restart continues bit for bit. Random trace: each vector's
       * estimate too. */
      for (int b = 0; b < c->width; b++) {
        HM_CALL(hm_allreduce_sum(c, c->part + (size_t)b * block, c->reduced, block));
        if (c->ctx->rank == 0)
          for (size_t i = 0; i < block; i++) c->sum[i] += c->reduced[i];
        if (c->per) { /* each vector's own estimate, for the error bars */
          double *dst = c->per + (size_t)(s + b) * block;
          for (size_t i = 0; i < block; i++) dst[i] = c->reduced[i] / (double)c->n_global;
        }
      }
      memset(c->part, 0, sizeof(double) * block * (size_t)c->block);
      c->chunks_done = 0;
      c->left_n = -1;
      c->starts_done += c->width;
    }
    if (c->starts_done == c->starts) break;
    int due;
    HM_CALL(hm_checkpoint_due(c->ctx->comm, ++chunks, c->opt.checkpoint_every, c->opt.checkpoint_seconds, t_last,
                              &due));
    if (due && c->opt.checkpoint) {
      HM_CALL(c->opt.checkpoint(c, c->opt.checkpoint_user));
      t_last = MPI_Wtime();
    }
    if (c->opt.stop && c->opt.stop(c->opt.stop_user))
      HM_RAISE(HM_ERR_STOPPED,
               "stopped on request after %d of %d start vectors and chunk %d of %d of the next block (the state is "
               "complete: checkpoint it)",
               c->starts_done, c->starts, c->chunks_done, c->nchunks);
  }
  return HM_SUCCESS;
}

int hm_conductivity_info(const hm_conductivity *c, int *moments, int *components, int *starts, int *starts_done,
                         int *chunk, double *scale, double *shift, int64_t *n_global) {
  HM_CHECK(c, HM_ERR_ARGUMENT, "c is NULL");
  if (moments) *moments = c->opt.moments;
  if (components) *components = c->ncomp;
  if (starts) *starts = c->starts;
  if (starts_done) *starts_done = c->starts_done;
  if (chunk) *chunk = c->chunk;
  if (scale) *scale = c->scale;
  if (shift) *shift = c->shift;
  if (n_global) *n_global = c->n_global;
  return HM_SUCCESS;
}

int hm_conductivity_block(const hm_conductivity *c, int *block) {
  HM_CHECK(c && block, HM_ERR_ARGUMENT, "c and block must not be NULL");
  *block = c->block;
  return HM_SUCCESS;
}

int hm_conductivity_interval(const hm_conductivity *c, double *emin, double *emax) {
  HM_CHECK(c && emin && emax, HM_ERR_ARGUMENT, "c, emin and emax must not be NULL");
  *emin = c->emin;
  *emax = c->emax;
  return HM_SUCCESS;
}

int hm_conductivity_moments(const hm_conductivity *c, double *mu, double *mu_vec) {
  HM_CHECK(c && mu, HM_ERR_ARGUMENT, "c and mu must not be NULL");
  const size_t block = 2 * (size_t)c->opt.moments * (size_t)c->opt.moments * (size_t)c->ncomp;
  /* random: the average over the vectors done of <r|..|r> / N; exact: the sum over e_i / N */
  double norm = (double)c->n_global * (c->opt.trace == HM_TRACE_RANDOM && c->starts_done > 0 ? c->starts_done : 1);
  HM_CALL(hm_allreduce_sum(c, c->sum, mu, block));
  for (size_t i = 0; i < block; i++) mu[i] /= norm;
  if (mu_vec && c->per) memcpy(mu_vec, c->per, sizeof(double) * block * (size_t)c->opt.vectors);
  return HM_SUCCESS;
}

int hm_conductivity_state(const hm_conductivity *c, int *starts_done, int *chunks_done, double *sum, double *part,
                          double *per) {
  HM_CHECK(c && starts_done && chunks_done && sum && part, HM_ERR_ARGUMENT,
           "c, starts_done, chunks_done, sum and part must not be NULL");
  const size_t block = 2 * (size_t)c->opt.moments * (size_t)c->opt.moments * (size_t)c->ncomp;
  *starts_done = c->starts_done;
  *chunks_done = c->chunks_done;
  HM_CALL(hm_allreduce_sum(c, c->sum, sum, block));
  HM_CALL(hm_allreduce_sum(c, c->part, part, block * (size_t)c->block));
  if (per && c->per) memcpy(per, c->per, sizeof(double) * block * (size_t)c->opt.vectors);
  return HM_SUCCESS;
}

int hm_conductivity_restore(hm_conductivity *c, int starts_done, int chunks_done, const double *sum,
                            const double *part, const double *per) {
  HM_CHECK(c && sum && part, HM_ERR_ARGUMENT, "c, sum and part must not be NULL");
  HM_CHECK(starts_done >= 0 && starts_done <= c->starts && chunks_done >= 0 && chunks_done < c->nchunks,
           HM_ERR_ARGUMENT, "state (%d start vectors, %d chunks) out of range: %d start vectors of %d chunks",
           starts_done, chunks_done, c->starts, c->nchunks);
  HM_CHECK(starts_done % c->block == 0 || starts_done == c->starts, HM_ERR_ARGUMENT,
           "state after %d start vectors: blocks are of %d, so a state has a multiple of %d (or all %d)", starts_done,
           c->block, c->block, c->starts);
  HM_CHECK(!c->per || per, HM_ERR_ARGUMENT, "per is NULL: a random trace needs the per-vector moments");
  const size_t block = 2 * (size_t)c->opt.moments * (size_t)c->opt.moments * (size_t)c->ncomp;
  c->starts_done = starts_done;
  c->chunks_done = chunks_done;
  /* the sums are rank-local partial sums: the global values go to rank 0, zeros elsewhere */
  memset(c->sum, 0, sizeof(double) * block);
  memset(c->part, 0, sizeof(double) * block * (size_t)c->block);
  if (c->ctx->rank == 0) {
    memcpy(c->sum, sum, sizeof(double) * block);
    memcpy(c->part, part, sizeof(double) * block * (size_t)c->block);
  }
  if (c->per) memcpy(c->per, per, sizeof(double) * block * (size_t)c->opt.vectors);
  c->left_n = -1;
  return HM_SUCCESS;
}

int hm_conductivity_timing(const hm_conductivity *c, double *chebyshev, double *velocity, double *gram) {
  HM_CHECK(c, HM_ERR_ARGUMENT, "c is NULL");
  if (chebyshev) *chebyshev = c->t_cheb;
  if (velocity) *velocity = c->t_vel;
  if (gram) *gram = c->t_gram;
  return HM_SUCCESS;
}
