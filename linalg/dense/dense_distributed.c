/* The distributed eigensolver's driver (dense_distributed.h): the matrix's entries go to a 1 x P grid
 * of column blocks, the two stages reduce it to a tridiagonal, every rank finds all its eigenvalues
 * (divide and conquer; with vectors, each rank keeping the eigenvectors of its range), and the two
 * back-transformations and the way back to row blocks give each rank its rows of the eigenvectors. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "dense_blas.h"
#include "dense_distributed.h"
#include "dense_internal.h"
#include "error_macros.h"
#include "host_alloc.h"

/* Each rank's share of the eigenvectors: indices [bound[r], bound[r + 1]) of the ascending w, blocks of
 * ceil(n / P): one column block each, which columns_to_rows takes to the ranks' rows. */
int64_t hm_dense_vector_block(int64_t n, int P) { return n > 0 ? (n + P - 1) / P : 1; }
static void eigen_ranges(int64_t n, int P, int64_t *bound) {
  for (int r = 0; r <= P; r++) bound[r] = r * hm_dense_vector_block(n, P) < n ? r * hm_dense_vector_block(n, P) : n;
}

static double stage_seconds[HM_DENSE_STAGES];

void hm_dense_distributed_seconds(double seconds[HM_DENSE_STAGES]) {
  memcpy(seconds, stage_seconds, sizeof stage_seconds);
}

/* Seconds since *t0 (the side's work finished), and *t0 moved to now. */
static double lap(const hm_dense_exec *x, double *t0) {
  hm_dense_x_finish(x);
  const double now = MPI_Wtime(), dt = now - *t0;
  *t0 = now;
  return dt;
}

int hm_dense_distributed_columns(const hm_dense_columns *c, double *aloc, double *w, int vectors, double **zout,
                                 int64_t *bound) {
  const int s = (int)c->type;
  const int64_t n = c->n;
  const hm_dense_exec *x = &c->x;
  double *band = NULL, *tpanels = NULL, *d = NULL, *e = NULL, *zt = NULL, *z = NULL;
  hm_dense_chase *q = NULL;
  int st = HM_SUCCESS;
  HM_MALLOC(band, s * (c->b + 1) * n);
  HM_MALLOC(d, n + 1);
  HM_MALLOC(e, n + 1);
  double t0 = MPI_Wtime();
  HM_CALL_GOTO(st, done, hm_dense_band_reduce(c, aloc, &tpanels, band));
  stage_seconds[0] = lap(x, &t0);
  HM_CALL_GOTO(st, done, hm_dense_chase_run(c, band, d, e, &q));
  stage_seconds[1] = lap(x, &t0);
  free(band);
  band = NULL;
  int info = 0;
  if (!vectors) { /* eigenvalues only: divide and conquer on two rows of eigenvectors per block */
    st = hm_dense_tridiagonal_values(n, d, e, &info);
    if (!st && info) st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__, "the tridiagonal eigenvalues' divide and conquer returned info = %d", info);
    memcpy(w, d, sizeof(double) * (size_t)n);
    stage_seconds[2] = lap(x, &t0);
    goto done;
  }
  /* The tridiagonal's eigenvectors by divide and conquer (all of them, on every rank alike: n^2 doubles
   * each), this rank keeping its range; then both back-transformations of that range. */
  eigen_ranges(n, c->P, bound);
  const int64_t lo = bound[c->rank], cols = bound[c->rank + 1] - lo;
  st = hm_dense_x_alloc(x, &zt, n * n);
  if (!st) st = hm_dense_x_tridiagonal_eigh(x, n, d, e, zt, &info);
  if (!st && info) st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__, "the tridiagonal divide and conquer returned info = %d", info);
  if (!st) st = hm_dense_x_alloc(x, &z, s * n * cols);
  if (!st) st = hm_dense_x_widen(x, c->type, n, cols, zt + n * lo, n, z, n);
  HM_CALL_GOTO(st, done, hm_dense_agree(c->comm, st));
  memcpy(w, d, sizeof(double) * (size_t)n);
  hm_dense_x_free(x, zt);
  zt = NULL;
  stage_seconds[2] = lap(x, &t0);
  HM_CALL_GOTO(st, done, hm_dense_chase_back(c, q, cols, z));
  stage_seconds[3] = lap(x, &t0);
  HM_CALL_GOTO(st, done, hm_dense_band_back(c, aloc, tpanels, cols, z));
  stage_seconds[4] = lap(x, &t0);
  *zout = z;
  z = NULL;
done:
  hm_dense_chase_free(&q);
  free(band); free(tpanels); free(d); free(e);
  hm_dense_x_free(x, zt); hm_dense_x_free(x, z);
  return st;
}

/* The band width: 64 where every rank holds several column blocks, smaller for small matrices. */
int hm_dense_distributed_block(int64_t n, int P) {
  int64_t b = n / (4 * (int64_t)P);
  return b > 64 ? 64 : b < 4 ? 4 : (int)b;
}

/* Refuse before allocating: per rank the host holds the columns of A (and of B and the reduction's
 * copy), the owned reflector blocks of stage 2 (n^2 / P scalars with the parallelograms' zeros) and,
 * with vectors, this rank's eigenvectors on their way to row blocks; the side that solves (the host,
 * or the GPU for a CUDA rank) holds the columns and divide and conquer's n^2 eigenvectors and n^2
 * workspace next to this rank's range of them. Collective. */
int hm_dense_distributed_check_memory(const hm_dense_columns *c, const hm_dense_transfer *t, const hm_dense_transfer *tb,
                                      int64_t local_rows, int generalized, int vectors) {
  const double elt = 8.0 * (int)c->type, N = (double)c->n, mine = ceil(N / c->P), cols = elt * N * (double)c->nloc;
  const int gpu = c->x.device >= 0;
  const double blocks = elt * N * N / c->P;
  /* the entries on their way to the columns, or (no transfer: arrays in) the mirrored triangle's copy */
  const double entries = t ? (double)(t->nsend + t->nrecv + tb->nsend + tb->nrecv) * sizeof(hm_dense_entry) : cols;
  /* divide and conquer: n^2 eigenvectors and ~n^2 workspace (LAPACK's on the host; hamlet's on the GPU,
   * with a panel of 2048 secular vectors there and O(n) on the host) */
  const double tri = vectors ? 16.0 * N * N + elt * N * mine + (gpu ? 8.0 * N * 2048 : 0) : 0;
  const double back = vectors ? elt * (N * mine + 2.0 * (double)local_rows * N) : 0;
  const double host_tri = gpu ? 0 : tri;
  /* a GPU rank's host holds the columns of A and B only until they go up */
  const double host = cols * (generalized ? (gpu ? 2 : 3) : 1) + fmax(entries, blocks + fmax(host_tri, back));
  const double side = generalized ? fmax(3 * cols, 2 * cols + tri) : cols + tri; /* A, B, the copy; B kept */
  char what[112];
  snprintf(what, sizeof what, "the distributed dense solver for n = %lld on %d ranks", (long long)c->n, c->P);
  const hm_dense_exec on_host = {-1};
  HM_CALL(hm_dense_check_memory(c->comm, c->rank, host, hm_dense_x_available(&on_host, c->comm), what,
                                vectors && !gpu ? "the tridiagonal's eigenvectors take 16 n^2 bytes on every rank: "
                                                  "use more nodes, or dense_solver = scalapack" : "use more ranks or nodes"));
  snprintf(what, sizeof what, "the distributed dense solver for n = %lld on %d GPU ranks", (long long)c->n, c->P);
  const double device = hm_dense_x_available(&c->x, c->comm); /* collective on every rank */
  return hm_dense_check_memory(c->comm, c->rank, gpu ? side : 0, gpu ? device : 1,
                               what, "the tridiagonal's eigenvectors take 16 n^2 bytes on every GPU: use GPUs "
                               "with more memory, or dense_solver = scalapack");
}

/* *side <- the host array *host (count doubles) on c's side: moved on a CPU rank (*host NULL after),
 * copied to the GPU of a CUDA rank (*host freed). Collective. */
static int to_side(const hm_dense_columns *c, double **host, int64_t count, double **side) {
  if (c->x.device < 0) {
    *side = *host;
    *host = NULL;
    return HM_SUCCESS;
  }
  int st = hm_dense_x_alloc(&c->x, side, count);
  if (!st) st = hm_dense_x_copy(&c->x, 'U', *side, *host, count);
  free(*host);
  *host = NULL;
  return hm_dense_agree(c->comm, st);
}

int hm_dense_distributed_solve(const hm_dense_columns *c, double **aloc, double **bloc, int vectors, double *w,
                               double **zx, int64_t *bound) {
  const int64_t cols = (int64_t)c->type * c->n * c->nloc + 1;
  double *ax = NULL, *bx = NULL, *tx = NULL, t0 = MPI_Wtime();
  int st = HM_SUCCESS;
  /* The columns to the rank's side (a CUDA rank's GPU; the host arrays themselves on a CPU rank). */
  HM_CALL_GOTO(st, done, to_side(c, aloc, cols, &ax));
  if (bloc) HM_CALL_GOTO(st, done, to_side(c, bloc, cols, &bx));
  if (bloc) { /* C = L^-1 (L^-1 A)^H */
    st = hm_dense_x_alloc(&c->x, &tx, cols);
    HM_CALL_GOTO(st, done, hm_dense_agree(c->comm, st));
    HM_CALL_GOTO(st, done, hm_dense_cholesky_columns(c, bx));
    HM_CALL_GOTO(st, done, hm_dense_cholesky_solve(c, bx, 'N', c->nloc, ax));
    HM_CALL_GOTO(st, done, hm_dense_conjugate_transpose(c, ax, tx));
    HM_CALL_GOTO(st, done, hm_dense_cholesky_solve(c, bx, 'N', c->nloc, tx));
    double *swap = ax;
    ax = tx, tx = swap;
    hm_dense_x_free(&c->x, tx);
    tx = NULL;
  }
  stage_seconds[6] = lap(&c->x, &t0);
  HM_CALL_GOTO(st, done, hm_dense_distributed_columns(c, ax, w, vectors, zx, bound));
  t0 = MPI_Wtime();
  if (vectors && bloc) /* z = L^-H y */
    HM_CALL_GOTO(st, done, hm_dense_cholesky_solve(c, bx, 'C', bound[c->rank + 1] - bound[c->rank], *zx));
  stage_seconds[6] += lap(&c->x, &t0);
done:
  hm_dense_x_free(&c->x, ax); hm_dense_x_free(&c->x, bx); hm_dense_x_free(&c->x, tx);
  return st;
}

/* Z's rows (row-major, all n columns, on the context's side) <- the eigenvectors *zx (n x mine on c's
 * side, columns bound[rank] onwards; freed here): each rank's share of rows transposed on the side, then
 * exchanged by MPI through the host (on one rank straight into Z). Collective. */
static int columns_to_rows(const hm_dense_columns *c, const int64_t *bound, double **zx, struct hm_mvec_s *Z) {
  const hm_dense_exec *x = &c->x;
  const int s = (int)c->type, P = c->P, gpu = x->device >= 0;
  const int64_t n = c->n, mine = bound[c->rank + 1] - bound[c->rank], l = Z->dist.local;
  const int64_t *off = Z->dist.offsets;
  if (P == 1) {
    const int st = hm_dense_x_transpose(x, c->type, n, n, *zx, n, Z->data);
    hm_dense_x_free(x, *zx);
    *zx = NULL;
    return st;
  }
  MPI_Count *sc = calloc((size_t)P, sizeof *sc), *rc = calloc((size_t)P, sizeof *rc);
  MPI_Aint *sd = calloc((size_t)P, sizeof *sd), *rd = calloc((size_t)P, sizeof *rd);
  double *sbuf = NULL, *rbuf = NULL, *hs = NULL, *hr = NULL; /* on the side; their host copies on a GPU rank */
  int st = sc && rc && sd && rd ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "exchange counts");
  if (!st) st = hm_dense_x_alloc(x, &sbuf, s * n * mine + 1);
  for (int r = 0; r < P && !st; r++) { /* to rank r: its rows of my columns, row-major */
    sd[r] = (MPI_Aint)(s * off[r] * mine), sc[r] = (MPI_Count)(s * (off[r + 1] - off[r]) * mine);
    st = hm_dense_x_transpose(x, c->type, off[r + 1] - off[r], mine, *zx + s * off[r], n, sbuf + sd[r]);
  }
  hm_dense_x_free(x, *zx);
  *zx = NULL;
  for (int q = 0; q < P; q++) /* from rank q: my rows of its columns, row-major */
    rd[q] = (MPI_Aint)(s * l * bound[q]), rc[q] = (MPI_Count)(s * l * (bound[q + 1] - bound[q]));
  if (!st && gpu) {
    hs = hm_alloc_large(sizeof(double) * (size_t)(s * n * mine + 1));
    hr = hm_alloc_large(sizeof(double) * (size_t)(s * l * n + 1));
    st = hs && hr ? hm_dense_x_copy(x, 'D', hs, sbuf, s * n * mine)
                  : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "host buffers of the eigenvectors' exchange");
  }
  if (!st && !gpu) st = hm_dense_x_alloc(x, &rbuf, s * l * n + 1);
  HM_CALL_GOTO(st, done, hm_dense_agree(c->comm, st));
  if (!gpu) hs = sbuf, hr = rbuf;
  if (MPI_Alltoallv_c(hs, sc, sd, MPI_DOUBLE, hr, rc, rd, MPI_DOUBLE, c->comm) != MPI_SUCCESS)
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Alltoallv_c of the eigenvectors failed");
  if (gpu) {
    free(hs);
    hs = NULL;
    hm_dense_x_free(x, sbuf); /* room for the received rows */
    sbuf = NULL;
    if (!st) st = hm_dense_x_alloc(x, &rbuf, s * l * n + 1);
    if (!st) st = hm_dense_x_copy(x, 'U', rbuf, hr, s * l * n);
  }
  for (int q = 0; q < P && !st; q++) /* rank q's columns at their place in each row */
    st = hm_dense_x_copy_block(x, 'S', Z->data + s * bound[q], s * n, rbuf + rd[q], s * (bound[q + 1] - bound[q]),
                               s * (bound[q + 1] - bound[q]), l);
done:
  if (gpu) free(hs), free(hr);
  hm_dense_x_free(x, sbuf);
  hm_dense_x_free(x, rbuf);
  free(sc); free(rc); free(sd); free(rd);
  return st;
}

int hm_dense_distributed(struct hm_matrix_s *A, struct hm_matrix_s *B, int vectors, int block, double *w,
                         struct hm_mvec_s *Z) {
  hm_context *ctx = A->ctx;
  const int64_t n = A->dist.n_global;
  hm_dense_columns c = {ctx->comm, ctx->rank, ctx->size, A->type, n, 0, block > 0 ? block : hm_dense_distributed_block(n, ctx->size),
                        {ctx->backend == HM_BACKEND_CUDA ? ctx->device : -1}};
  c.nloc = hm_dense_numroc(n, c.b, c.rank, c.P);
  const int s = (int)c.type;
  hm_dense_grid g = {.ctxt = -1, .sys = -1, .nprow = 1, .npcol = c.P, .myrow = 0, .mycol = c.rank, .n = (int)n,
                     .nb = c.b, .mloc = (int)n, .nloc = (int)c.nloc, .lld = (int)(n > 1 ? n : 1)};
  hm_dense_transfer t = {0}, tb = {0};
  double t0 = MPI_Wtime();
  memset(stage_seconds, 0, sizeof stage_seconds);
  double *aloc = NULL, *bloc = NULL, *zx = NULL;
  int64_t *bound = NULL;
  int st = HM_SUCCESS;
  HM_MALLOC(g.pnum, c.P);
  HM_MALLOC(bound, c.P + 1);
  for (int r = 0; r < c.P; r++) g.pnum[r] = r;
  HM_CALL_GOTO(st, done, hm_dense_transfer_plan(A, &g, 1, &t));
  if (B) HM_CALL_GOTO(st, done, hm_dense_transfer_plan(B, &g, 1, &tb));
  HM_CALL_GOTO(st, done, hm_dense_distributed_check_memory(&c, &t, &tb, A->dist.local, B != NULL, vectors));
  const size_t cols = (size_t)(s * n * c.nloc) + 1;
  aloc = calloc(cols, sizeof(double));
  if (B) bloc = calloc(cols, sizeof(double));
  int ok = aloc && (!B || bloc), all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c.comm);
  if (!all_ok) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the local columns on some rank");
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_dense_transfer_run(A, &g, &t, aloc));
  if (B) HM_CALL_GOTO(st, done, hm_dense_transfer_run(B, &g, &tb, bloc));
  stage_seconds[5] = lap(&c.x, &t0);
  HM_CALL_GOTO(st, done, hm_dense_distributed_solve(&c, &aloc, B ? &bloc : NULL, vectors, w, &zx, bound));
  t0 = MPI_Wtime();
  if (vectors) {
    HM_CALL_GOTO(st, done, columns_to_rows(&c, bound, &zx, Z));
    stage_seconds[7] = lap(&c.x, &t0);
  }
done:
  hm_dense_transfer_free(&t);
  hm_dense_transfer_free(&tb);
  hm_dense_x_free(&c.x, zx);
  free(g.pnum); free(bound); free(aloc); free(bloc);
  return st;
}
