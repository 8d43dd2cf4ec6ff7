/* Stage 2 of the distributed eigensolver (dense_distributed.h): the Hermitian band of width b to a
 * real tridiagonal by bulge chasing with Householder reflectors of length <= b. Sweep i annihilates
 * column i below its subdiagonal (reflector on rows i+1 ..), then chases the bulge that the reflector
 * fills in below the band: each step applies the last reflector from the right to the b x b block
 * under it, annihilates that block's first column (the next reflector, rows b further down) and
 * applies it from the left and to its diagonal block. The rest of each bulge block falls to the next
 * sweeps, so the working band is 2b wide. Step k of sweep i acts on rows i + 1 + k b onwards: the
 * reflectors of b consecutive sweeps at the same step form one (2b - 1) x b block reflector, and
 * Q2 Z applies those blocks group by group from the last, steps in increasing order within a group
 * (reflectors of one sweep touch disjoint rows, and so do an earlier sweep's earlier steps and a
 * later sweep's later steps within a group), each block as three GEMMs. Every rank chases
 * (the band is O(n b)) on its host's threads, sweeps pipelined (sweep i on thread i % T, three steps
 * behind sweep i - 1), and keeps only the blocks of its own groups of sweeps. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include "dense_distributed.h"
#include "error_macros.h"
#include "host_alloc.h"

struct hm_dense_chase_s {
  int64_t n, groups;
  int b;
  double **blocks; /* [group]: its steps' V blocks (rows x b each) then the taus (b per step); NULL if not ours */
  double *store;   /* this rank's groups' blocks, one allocation on huge pages (their first touch is in the chase) */
};

static int64_t steps_of(int64_t n, int b, int64_t i) { return (n - 1 - i + b - 1) / b; } /* sweep i's steps */
static int64_t block_rows(int64_t n, int b, int64_t i0, int64_t k) {
  const int64_t row0 = i0 + 1 + k * b, rows = 2 * (int64_t)b - 1;
  return n - row0 < rows ? n - row0 : rows;
}
/* Scalars of group grp's storage: V blocks and taus of all its steps. */
static int64_t group_size(int64_t n, int b, int64_t grp) {
  const int64_t i0 = grp * b, steps = steps_of(n, b, i0);
  int64_t size = 0;
  for (int64_t k = 0; k < steps; k++) size += block_rows(n, b, i0, k) * b + b;
  return size;
}

/* Step k of sweep i acts on rows and columns i + 1 + (k - 1) b .. i + (k + 1) b; sweep i - 1 at step
 * k + 3 or later is past them (and so, by induction, are the sweeps before it). */
static void chase_wait(_Atomic int64_t *done, int64_t i, int64_t k) {
  if (i == 0) return;
  for (int spin = 0; atomic_load_explicit(&done[i - 1], memory_order_acquire) < k + 3; spin++)
    if (spin > 64) sched_yield(); /* more threads than cores: let the one ahead run */
}

#define SCALAR double
#define CONJ(x) (x)
#define ABS(x) fabs(x)
#define MAKE(re, im) (re)
#define NAME(f) f##_real
#include "dense_band_chase_kernel.h"
#undef SCALAR
#undef CONJ
#undef ABS
#undef MAKE
#undef NAME
#define SCALAR double complex
#define CONJ(x) conj(x)
#define ABS(x) cabs(x)
#define MAKE(re, im) ((re) + I * (im))
#define NAME(f) f##_complex
#include "dense_band_chase_kernel.h"
#undef SCALAR
#undef CONJ
#undef ABS
#undef MAKE
#undef NAME

int hm_dense_chase_run(const hm_dense_columns *c, const double *band, double *d, double *e, hm_dense_chase **out) {
  const int64_t n = c->n, b = c->b;
  const int s = (int)c->type;
  hm_dense_chase *q;
  HM_MALLOC(q, 1);
  *out = q;
  q->n = n, q->b = c->b;
  q->groups = n > 1 ? (n - 2) / b + 1 : 0; /* sweeps 0 .. n - 2 */
  HM_MALLOC(q->blocks, q->groups + 1);
  int64_t total = 0;
  for (int64_t grp = c->rank; grp < q->groups; grp += c->P) total += s * group_size(n, c->b, grp);
  q->store = hm_alloc_large(sizeof(double) * (size_t)(total + 1));
  HM_CHECK(q->store, HM_ERR_MEMORY, "could not allocate the bulge chase's reflectors (%lld doubles)", (long long)total);
  /* zeros (the blocks' padding, the taus of steps a sweep never reaches), the pages faulted in by every thread */
#pragma omp parallel for schedule(static)
  for (int64_t at = 0; at <= total; at += 1 << 16) memset(q->store + at, 0, sizeof(double) * (size_t)(total + 1 - at < 1 << 16 ? total + 1 - at : 1 << 16));
  total = 0;
  for (int64_t grp = c->rank; grp < q->groups; grp += c->P) {
    q->blocks[grp] = q->store + total;
    total += s * group_size(n, c->b, grp);
  }
  const int64_t ld = 2 * b + 1;
  double *a = NULL;
  _Atomic int64_t *done = malloc(sizeof *done * (size_t)(n + 1));
  HM_CHECK(done, HM_ERR_MEMORY, "could not allocate the sweeps' progress");
  for (int64_t i = 0; i <= n; i++) atomic_init(&done[i], 0);
  a = calloc((size_t)(s * (ld * n + ld)), sizeof *a);
  if (!a) free(done);
  HM_CHECK(a, HM_ERR_MEMORY, "could not allocate the working band (%lld x %lld)", (long long)ld, (long long)n);
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = 0; k <= b && j + k < n; k++)
      for (int z = 0; z < s; z++) a[s * (k + ld * j) + z] = band[s * (k + (b + 1) * j) + z];
  const int failed = s == 1 ? chase_real(q, a, ld, done) : chase_complex(q, (double complex *)a, ld, done);
  for (int64_t j = 0; j < n; j++) d[j] = a[s * ld * j];
  for (int64_t j = 0; j + 1 < n; j++) e[j] = a[s * (1 + ld * j)];
  free(a);
  free(done);
  HM_CHECK(!failed, HM_ERR_MEMORY, "could not allocate a chasing thread's workspace");
  return HM_SUCCESS;
}

/* T (b x b, leading dimension b) of one step's block of `cols` reflectors (rows x b, then b taus):
 * column c is nonzero in rows c .. c + b - 1 only, so the Gram matrix V^H V costs b^3 / 3, not
 * rows b^2 / 2, and no BLAS call's overhead (larft's 2b small gemv) repeats n^2 / 2b^2 times. */
static void step_t(hm_scalar type, int64_t rows, int b, int64_t cols, const double *blk, double *gram, double *tc,
                   double *t) {
  const int s = (int)type;
  for (int64_t j = 0; j < cols; j++)
    for (int64_t q = 0; q <= j; q++) {
      double re = 0, im = 0;
      const int64_t end = q + b < rows ? q + b : rows; /* v_q ends there; v_j starts at row j */
      for (int64_t r = j; r < end; r++) {
        const double *a = blk + s * (q * rows + r), *c = blk + s * (j * rows + r);
        if (s == 1) re += a[0] * c[0];
        else re += a[0] * c[0] + a[1] * c[1], im += a[0] * c[1] - a[1] * c[0]; /* conj(a) c */
      }
      gram[s * (j * cols + q)] = re;
      if (s == 2) gram[2 * (j * cols + q) + 1] = im;
    }
  hm_dense_t_from_gram(type, cols, gram, blk + s * rows * b, tc); /* cols x cols, then to leading dimension b */
  for (int64_t j = 0; j < b; j++)
    for (int64_t i = 0; i < b; i++)
      for (int z = 0; z < s; z++) t[s * (j * b + i) + z] = i < cols && j < cols ? tc[s * (j * cols + i) + z] : 0;
}

/* Group grp's T factors (b x b per step, host) from its reflector blocks blk (host), the steps on the
 * host's threads. */
static int group_ts(const hm_dense_columns *c, int64_t grp, const double *blk, double *ts) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, i0 = grp * b, steps = steps_of(n, b, i0);
  int64_t *at = malloc(sizeof *at * (size_t)(steps + 1)); /* where step k's block starts */
  HM_CHECK(at, HM_ERR_MEMORY, "could not allocate a sweep group's offsets");
  at[0] = 0;
  for (int64_t k = 0; k < steps; k++) at[k + 1] = at[k] + s * (block_rows(n, b, i0, k) * b + b);
  int failed = 0;
#pragma omp parallel reduction(| : failed)
  {
    double *gram = malloc(sizeof(double) * (size_t)(2 * s * b * b)); /* and T packed */
    failed = !gram;
#pragma omp for schedule(static)
    for (int64_t k = 0; k < steps; k++) {
      const int64_t rows = block_rows(n, b, i0, k), cols = rows < b ? rows : b;
      if (gram) step_t(c->type, rows, b, cols, blk + at[k], gram, gram + s * b * b, ts + s * b * b * k);
    }
    free(gram);
  }
  free(at);
  HM_CHECK(!failed, HM_ERR_MEMORY, "could not allocate a Gram matrix");
  return HM_SUCCESS;
}

int hm_dense_chase_back(const hm_dense_columns *c, const hm_dense_chase *q, int64_t ncols, double *z) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, steps = n > 1 ? steps_of(n, b, 0) : 1;
  const hm_dense_exec *x = &c->x;
  const int host = x->device < 0; /* the blocks and Ts are used where they are made */
  int64_t most = 1;
  for (int64_t grp = 0; grp < q->groups; grp++) most = group_size(n, b, grp) > most ? group_size(n, b, grp) : most;
  double *buf = malloc(sizeof(double) * (size_t)(s * most)), *ts = malloc(sizeof(double) * (size_t)(s * b * b * steps));
  double *bx = NULL, *tx = NULL, *work = NULL, *work2 = NULL;
  int st = buf && ts ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate a sweep group");
  if (!st && !host) st = hm_dense_x_alloc(x, &bx, s * most);
  if (!st && !host) st = hm_dense_x_alloc(x, &tx, s * b * b * steps);
  if (!st) st = hm_dense_x_alloc(x, &work, s * b * (ncols + 1));
  if (!st) st = hm_dense_x_alloc(x, &work2, s * b * (ncols + 1));
  HM_CALL_GOTO(st, done, hm_dense_agree(c->comm, st));
  if (host) bx = buf, tx = ts;
  for (int64_t grp = q->groups - 1; grp >= 0 && !st; grp--) {
    const int owner = (int)(grp % c->P);
    const int64_t size = group_size(n, b, grp), i0 = grp * b;
    if (owner == c->rank) memcpy(buf, q->blocks[grp], sizeof(double) * (size_t)(s * size));
    HM_CALL_MPI(MPI_Bcast(buf, (int)(s * size), MPI_DOUBLE, owner, c->comm));
    HM_CALL_GOTO(st, done, group_ts(c, grp, buf, ts));
    if (!ncols) continue;
    if (!host) {
      HM_CALL_GOTO(st, done, hm_dense_x_copy(x, 'U', bx, buf, s * size));
      HM_CALL_GOTO(st, done, hm_dense_x_copy(x, 'U', tx, ts, s * b * b * steps_of(n, b, i0)));
    }
    const double *blk = bx;
    for (int64_t k = 0; k < steps_of(n, b, i0) && !st; k++) {
      const int64_t rows = block_rows(n, b, i0, k), row0 = i0 + 1 + k * b, cols = rows < b ? rows : b;
      st = hm_dense_x_apply_block_reflector(x, c->type, rows, ncols, cols, blk, rows, tx + s * b * b * k, b,
                                            z + s * row0, n, work, work2);
      blk += s * (rows * b + b);
    }
  }
done:
  if (!host) hm_dense_x_free(x, bx), hm_dense_x_free(x, tx);
  hm_dense_x_free(x, work); hm_dense_x_free(x, work2);
  free(buf); free(ts);
  return st;
}

void hm_dense_chase_free(hm_dense_chase **q) {
  if (!*q) return;
  free((*q)->store);
  free((*q)->blocks);
  free(*q);
  *q = NULL;
}
