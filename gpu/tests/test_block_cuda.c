/* test_block_cuda: the 4 x 4 block copy and its tensor-core KPM step (gpu/block_cuda.cu) against the CPU kpm_step on
 * fresh random complex matrices (seed printed; HAMLET_TEST_SEED replays it): rows in groups of 4
 * that share random neighbour blocks with random entry masks, a partial last group, empty rows,
 * repeated columns within a row (summed), columns up to the last halo column (a partial last
 * column block); the row list in order and as a shuffled subset; widths 4 to 100 (ragged ones too,
 * whose last chunk is partial); every launch shape; blocks of a few kinds (equal value blocks stored
 * once); the choice of where blocks pay; routing through prepare and the table's kpm_step; bad
 * arguments; rows sorted by column (merged by the build, not sorted). Skips (77) where no device is
 * visible. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "kernels.h"
#include "random.h"
#include "../linalg/core/gpu_probe.h"
#include "../block_cuda.h"
#include "../sell_cuda.h"

enum { N = 2002 /* not a multiple of 4 */, NC = N + 151 /* with halo-like columns; not a multiple of 4 */ };

static uint64_t seed;

static void *dev_copy(const hm_kernels *G, const void *src, size_t bytes) {
  void *d = NULL;
  HM_TEST_OK(G->alloc(bytes ? bytes : 1, &d));
  if (bytes) HM_TEST_OK(G->upload(d, src, bytes));
  return d;
}

static double max_diff(const double *a, const double *b, size_t n) {
  double w = 0;
  for (size_t i = 0; i < n; i++) w = fmax(w, fabs(a[i] - b[i]) / (1.0 + fabs(b[i])));
  return w;
}

/* Rows in groups of 4: each group takes 0..8 random column blocks, the last block of the column
 * range among them now and then; per block a random mask, in half of them with one or both columns
 * of a pair (0-1, 2-3) unused; every 7th row empty; every 11th row repeats its first column.
 * Complex values: random, or with palette = 1 as on a lattice, where the masks and the values of
 * an entry (its row and column within the block, the block's kind) come from 3 kinds of blocks,
 * so that most blocks repeat one of a few. */
static struct hm_csr_view blocked_matrix(int palette, int64_t **rp, int32_t **cl, double **vl) {
  int64_t *rowptr = malloc(sizeof(int64_t) * (N + 1));
  int32_t *col = malloc(sizeof(int32_t) * N * 40);
  double *val = malloc(sizeof(double) * 2 * N * 40);
  int64_t e = 0;
  rowptr[0] = 0;
  const unsigned kind_masks[3] = {0xffffu, 0x8421u, 0x00ccu};
  for (int g = 0; 4 * g < N; g++) {
    int bc[8], kind[8];
    unsigned masks[8];
    const int nb = (int)(hm_random_u64(seed, 1, g) % 9);
    for (int j = 0; j < nb; j++) {
      const uint64_t u = hm_random_u64(seed, 2, 8 * (uint64_t)g + j);
      bc[j] = u % 13 == 0 ? (NC - 1) / 4 : (int)(u % ((NC + 3) / 4));
      kind[j] = (int)(u >> 40) % 3;
      const unsigned pair_cut[8] = {0x3333u, 0xccccu, 0x1111u, 0x8888u, 0xffffu, 0xffffu, 0xffffu, 0xffffu};
      masks[j] = palette ? kind_masks[kind[j]] : (unsigned)(u >> 20) & 0xffffu & pair_cut[(u >> 36) & 7];
    }
    for (int r = 0; r < 4 && 4 * g + r < N; r++) {
      const int i = 4 * g + r;
      if (i % 7 != 3)
        for (int j = 0; j < nb; j++)
          for (int cc = 0; cc < 4; cc++)
            if ((masks[j] >> (4 * r + cc) & 1u) && 4 * bc[j] + cc < NC) {
              val[2 * e] = palette ? 0.1 * (kind[j] + 1) + 0.01 * (4 * r + cc) : hm_random_uniform(seed, 3, 2 * e) - 0.5;
              val[2 * e + 1] = palette ? 0.05 * kind[j] - 0.02 * r : hm_random_uniform(seed, 3, 2 * e + 1) - 0.5;
              col[e++] = 4 * bc[j] + cc;
            }
      if (i % 11 == 5 && e > rowptr[i]) {
        val[2 * e] = palette ? val[2 * rowptr[i]] : hm_random_uniform(seed, 3, 2 * e) - 0.5;
        val[2 * e + 1] = palette ? val[2 * rowptr[i] + 1] : hm_random_uniform(seed, 3, 2 * e + 1) - 0.5;
        col[e++] = col[rowptr[i]];
      }
      rowptr[i + 1] = e;
    }
  }
  *rp = rowptr;
  *cl = col;
  *vl = val;
  return (struct hm_csr_view){N, rowptr, col, val, NULL, NULL};
}

/* The device's W and dots after a KPM step against the CPU's (W, dots); releases the device blocks
 * and frees the host ones. */
static void expect_step(const hm_kernels *G, double *dV, double *dW, double *ddots, double *V, double *W,
                        const double *dots, size_t len, int k, const char *what) {
  double *got = malloc(len * sizeof(double)), *gd = malloc(2 * (size_t)k * sizeof(double));
  HM_TEST_OK(G->download(got, dW, len * sizeof(double)));
  HM_TEST_OK(G->download(gd, ddots, 2 * k * sizeof(double)));
  HM_TEST_ASSERT(max_diff(got, W, len) < 1e-13, "%s k %d: W differs by %g", what, k, max_diff(got, W, len));
  HM_TEST_ASSERT(max_diff(gd, dots, 2 * k) < 1e-12, "%s k %d: dots differ by %g", what, k, max_diff(gd, dots, 2 * k));
  G->release(dV);
  G->release(dW);
  G->release(ddots);
  free(V);
  free(W);
  free(got);
  free(gd);
}

/* The block KPM step on a copy of list rows (n rows) against the CPU kpm_step, at width k. */
static void check_step(const hm_kernels *G, const struct hm_csr_view *hA, const int32_t *rows, int32_t n, int k,
                       const char *what) {
  enum { max_width = 112 };
  if (k > max_width) {
    HM_TEST_ASSERT(k <= max_width, "check_step takes widths up to %d, not %d", max_width, k);
    return;
  }
  const hm_kernels *C = &hm_kernels_cpu;
  const size_t len = (size_t)NC * k * 2;
  double *V = malloc(len * sizeof(double)), *W = malloc(len * sizeof(double));
  double dots[2 * max_width], gd[2 * max_width];
  for (size_t i = 0; i < len; i++) {
    V[i] = hm_random_uniform(seed, 5, i) - 0.5;
    W[i] = hm_random_uniform(seed, 6, i) - 0.5;
  }
  for (int j = 0; j < 2 * k; j++) dots[j] = gd[j] = 0.25 * j;
  double *dV = dev_copy(G, V, len * sizeof(double)), *dW = dev_copy(G, W, len * sizeof(double));
  double *ddots = dev_copy(G, gd, 2 * k * sizeof(double));
  void *copy = NULL;
  HM_TEST_OK(hm_cuda_block_build(hA, rows, n, 1, &copy));
  HM_TEST_OK(C->kpm_step(HM_COMPLEX, hA, k, rows, n, 0.37, -0.15, V, W, dots));
  HM_TEST_OK(hm_cuda_block_kpm_step(copy, k, 0.37, -0.15, dV, dW, ddots));
  hm_cuda_block_release(copy);
  expect_step(G, dV, dW, ddots, V, W, dots, len, k, what);
}

/* Rows sorted by column, as the local CSR's are on one rank: the build merges such rows instead of
 * sorting the group's entries (rows with a repeated column keep the sort). Sorted in place, each
 * row by insertion (values move with their columns). */
static void check_sorted_rows(const hm_kernels *G, const struct hm_csr_view *hA, const int32_t *all,
                              const int32_t *some, int32_t nsome) {
  int32_t *col = (int32_t *)hA->col;
  double *val = (double *)hA->val;
  for (int i = 0; i < N; i++)
    for (int64_t a = hA->rowptr[i] + 1; a < hA->rowptr[i + 1]; a++)
      for (int64_t b = a; b > hA->rowptr[i] && col[b - 1] > col[b]; b--) {
        const int32_t c = col[b];
        const double re = val[2 * b], im = val[2 * b + 1];
        col[b] = col[b - 1];
        val[2 * b] = val[2 * b - 2];
        val[2 * b + 1] = val[2 * b - 1];
        col[b - 1] = c;
        val[2 * b - 2] = re;
        val[2 * b - 1] = im;
      }
  const int widths[] = {8, 16, 24, 32, 72}; /* 1, 2, 3, 4 and 3 (3 times) column tiles per warp */
  for (int w = 0; w < 5; w++) {
    check_step(G, hA, all, N, widths[w], "rows sorted by column");
    check_step(G, hA, some, nsome, widths[w], "rows sorted by column, shuffled subset");
  }
}

/* Equal value blocks stored once: a matrix whose blocks come from a few kinds keeps few distinct
 * value blocks, and its KPM step still equals the CPU's. */
static void check_palette(const hm_kernels *G, const int32_t *all, const int32_t *some, int32_t nsome) {
  int64_t *rowptr;
  int32_t *col;
  double *val;
  const struct hm_csr_view hP = blocked_matrix(1, &rowptr, &col, &val);
  void *copy = NULL;
  HM_TEST_OK(hm_cuda_block_build(&hP, all, N, 1, &copy));
  double distinct = 1;
  hm_cuda_block_info(copy, NULL, NULL, NULL, &distinct);
  HM_TEST_ASSERT(distinct < 0.3, "blocks of 3 kinds: %g of the value blocks distinct, expected few", distinct);
  hm_cuda_block_release(copy);
  /* the host's threads dedupe ranges of groups, then merge them: one thread finds as many */
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  double one_thread = 0;
  HM_TEST_OK(hm_cuda_block_build(&hP, all, N, 1, &copy));
  hm_cuda_block_info(copy, NULL, NULL, NULL, &one_thread);
  hm_cuda_block_release(copy);
  omp_set_num_threads(threads);
  HM_TEST_ASSERT(one_thread == distinct, "distinct value blocks: %g of the blocks on 1 thread, %g on %d", one_thread,
                 distinct, threads);
  const int widths[] = {8, 16, 24, 32, 72}; /* 1, 2, 3, 4 and 3 (3 times) column tiles per warp */
  for (int w = 0; w < 5; w++) {
    check_step(G, &hP, all, N, widths[w], "blocks of 3 kinds, rows in order");
    check_step(G, &hP, some, nsome, widths[w], "blocks of 3 kinds, shuffled subset");
  }
  free(rowptr);
  free(col);
  free(val);
}

/* Where blocks pay: the blocked matrix in site order yes; scattered columns (no two entries of a
 * group in one block) no; with always = 1 a copy is made anyway. */
static void check_choice(const struct hm_csr_view *hA, const int32_t *all) {
  void *copy = NULL;
  HM_TEST_OK(hm_cuda_block_build(hA, all, N, 0, &copy));
  double fill = 0, breads = 0, creads = 0, distinct = 0;
  hm_cuda_block_info(copy, &fill, &breads, &creads, &distinct);
  HM_TEST_ASSERT(copy && breads < creads && fill >= 1.0,
                 "blocked matrix: a copy must pay (reads per row %g of CSR's %g, fill %g)", breads, creads, fill);
  HM_TEST_ASSERT(distinct > 0.99, "random values: %g of the value blocks distinct, expected all", distinct);
  hm_cuda_block_release(copy);
  int64_t rowptr[N + 1];
  int32_t *col = malloc(sizeof(int32_t) * 5 * N);
  double *val = calloc(10 * (size_t)N, sizeof(double));
  rowptr[0] = 0;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < 5; j++) col[5 * i + j] = (int32_t)(4 * ((7 * i + 401 * j) % (NC / 4)) + j % 4);
    rowptr[i + 1] = 5 * (i + 1);
  }
  const struct hm_csr_view S = {N, rowptr, col, val, NULL, NULL};
  copy = (void *)1;
  HM_TEST_OK(hm_cuda_block_build(&S, all, N, 0, &copy));
  HM_TEST_ASSERT(copy == NULL, "scattered columns: no block copy should be made");
  HM_TEST_OK(hm_cuda_block_build(&S, all, N, 1, &copy));
  HM_TEST_ASSERT(copy != NULL, "always = 1 must make a copy");
  hm_cuda_block_release(copy);
  free(col);
  free(val);
}

/* Under HM_FORMAT_AUTO the first kpm_step from the tuning's block width on makes the block copy of
 * a complex blocked matrix (prepare does not, nor a narrower step) and takes it (the result equals
 * the CPU's either way); SELL formats and real matrices get none. */
static void check_routing(const hm_kernels *G, const struct hm_csr_view *hA, const int32_t *all) {
  const hm_kernels *C = &hm_kernels_cpu;
  const int64_t nnz = hA->rowptr[N];
  struct hm_csr_view dA = {N, dev_copy(G, hA->rowptr, sizeof(int64_t) * (N + 1)), dev_copy(G, hA->col, sizeof(int32_t) * nnz),
                           dev_copy(G, hA->val, sizeof(double) * 2 * nnz), NULL, NULL};
  int32_t *drows = dev_copy(G, all, sizeof(int32_t) * N);
  const int32_t count = N;
  void *format = NULL;
  const void *block = NULL;
  HM_TEST_OK(G->prepare(HM_COMPLEX, hA, 1, &all, &count, (const int32_t *const *)&drows, HM_FORMAT_AUTO, 0, &format));
  HM_TEST_OK(hm_cuda_sell_block(format, 0, 0, &block));
  HM_TEST_ASSERT(block == NULL, "prepare must leave the block copy to the first KPM step");
  dA.format = format;
  hm_sell_tuning tuning;
  hm_cuda_sell_tuning(NULL, &tuning);
  /* just below the block width: CSR, no copy yet; 12 (ragged) makes it, 32 reuses it */
  const int widths[] = {tuning.block_kpm_min_k - 1, 12, 32};
  for (int w = 0; w < 3; w++) {
    const int k = widths[w];
    const size_t len = (size_t)NC * k * 2;
    double *V = malloc(len * sizeof(double)), *W = malloc(len * sizeof(double));
    double dots[64] = {0}, gd[64] = {0};
    for (size_t i = 0; i < len; i++) {
      V[i] = hm_random_uniform(seed, 7, i) - 0.5;
      W[i] = hm_random_uniform(seed, 8, i) - 0.5;
    }
    double *dV = dev_copy(G, V, len * sizeof(double)), *dW = dev_copy(G, W, len * sizeof(double));
    double *ddots = dev_copy(G, gd, 2 * k * sizeof(double));
    HM_TEST_OK(C->kpm_step(HM_COMPLEX, hA, k, all, N, 0.4, 0.05, V, W, dots));
    HM_TEST_OK(G->kpm_step(HM_COMPLEX, &dA, k, drows, N, 0.4, 0.05, dV, dW, ddots));
    expect_step(G, dV, dW, ddots, V, W, dots, len, k, "table kpm_step on the prepared matrix");
    const void *now = NULL;
    HM_TEST_OK(hm_cuda_sell_block(format, 0, 0, &now));
    HM_TEST_ASSERT((now != NULL) == (k >= tuning.block_kpm_min_k), "after a KPM step at width %d the block copy is %s",
                   k, now ? "made" : "missing");
    HM_TEST_ASSERT(!block || now == block, "the block copy was made twice");
    block = now;
  }
  HM_TEST_FAILS(hm_cuda_sell_block(format, 1, 1, &block), HM_ERR_ARGUMENT, "list 1");
  G->unprepare(format);
  HM_TEST_OK(G->prepare(HM_COMPLEX, hA, 1, &all, &count, (const int32_t *const *)&drows, HM_FORMAT_SELL, 0, &format));
  HM_TEST_OK(hm_cuda_sell_block(format, 0, 1, &block));
  HM_TEST_ASSERT(block == NULL, "format SELL must make no block copy");
  G->unprepare(format);
  HM_TEST_OK(G->prepare(HM_REAL, hA, 1, &all, &count, (const int32_t *const *)&drows, HM_FORMAT_AUTO, 0, &format));
  HM_TEST_OK(hm_cuda_sell_block(format, 0, 1, &block));
  HM_TEST_ASSERT(block == NULL, "a real matrix must get no block copy");
  G->unprepare(format);
  G->release((void *)dA.rowptr);
  G->release((void *)dA.col);
  G->release((void *)dA.val);
  G->release(drows);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  int device;
  HM_TEST_OK(hm_gpu_select(0, &device));
  seed = hm_test_seed();
  const hm_kernels *G = hm_kernels_cuda();
  int64_t *rowptr;
  int32_t *col;
  double *val;
  const struct hm_csr_view hA = blocked_matrix(0, &rowptr, &col, &val);
  int32_t *all = malloc(sizeof(int32_t) * N), *some = malloc(sizeof(int32_t) * N);
  int32_t nsome = 0;
  for (int i = 0; i < N; i++) {
    all[i] = i;
    if (hm_random_u64(seed, 9, i) % 5) some[nsome++] = i;
  }
  for (int32_t i = nsome - 1; i > 0; i--) { /* shuffled: a group's rows are any 4 rows */
    const int32_t j = (int32_t)(hm_random_u64(seed, 10, i) % (uint64_t)(i + 1)), t = some[i];
    some[i] = some[j];
    some[j] = t;
  }
  /* 1 to 5 and 7 tiles a warp; ragged widths (a partial last chunk): 4, 12, 20, 28 and 36 (1 to 5
   * tiles), 52 and 88 (4 tiles twice and 3 times), 100 (5 tiles 3 times) */
  const int widths[] = {4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 52, 56, 64, 72, 88, 100};
  for (int w = 0; w < 16; w++) {
    check_step(G, &hA, all, N, widths[w], "rows in order");
    check_step(G, &hA, some, nsome, widths[w], "shuffled subset");
  }
  int def[5];
  hm_cuda_block_tuning(NULL, def);
  const int tile_counts[] = {1, 2, 3, 4, 5, 7};
  for (int ti = 0; ti < 6; ti++)
    for (int loads = 1; loads <= 2; loads++)
      for (int unroll = 1; unroll <= 2; unroll++)
        for (int cap = 1; cap <= 4; cap++)
          for (int run = 1; run <= 3; run += 2) { /* runs of 3 rounds: a partial last run */
            const int tiles = tile_counts[ti], set[5] = {tiles, unroll, cap, run, loads};
            hm_cuda_block_tuning(set, NULL);
            char what[160];
            snprintf(what, sizeof what, "%d tiles, %s loads, unroll %d, %d blocks per SM, runs of %d", tiles,
                     loads == 2 ? "pair" : "complex", unroll, cap, run);
            /* widths a warp splits into this many tiles: 3 tiles twice (48), 5 and 7 once (40, 56);
             * and a ragged width, its last tile half empty (at most 5 tiles: 52 takes 4 twice) */
            check_step(G, &hA, all, N, tiles == 3 ? 48 : tiles > 4 ? 8 * tiles : 32, what);
            check_step(G, &hA, all, N, 8 * tiles - 4, what);
          }
  hm_cuda_block_tuning(def, NULL);
  check_palette(G, all, some, nsome);
  check_choice(&hA, all);
  check_routing(G, &hA, all);

  void *copy = NULL;
  HM_TEST_OK(hm_cuda_block_build(&hA, all, N, 1, &copy));
  HM_TEST_FAILS(hm_cuda_block_kpm_step(copy, 0, 0.5, 0, NULL, NULL, NULL), HM_ERR_ARGUMENT, "at least 1, not 0");
  HM_TEST_FAILS(hm_cuda_block_kpm_step(NULL, 8, 0.5, 0, NULL, NULL, NULL), HM_ERR_ARGUMENT, "no block copy");
  hm_cuda_block_release(copy);
  const int32_t bad[2] = {0, N};
  HM_TEST_FAILS(hm_cuda_block_build(&hA, bad, 2, 1, &copy), HM_ERR_ARGUMENT, "row list entry 1 is 2002, outside");
  int32_t r7 = 7; /* the first row from 7 on with a second entry (random rows may be empty) */
  while (r7 < N - 1 && rowptr[r7 + 1] - rowptr[r7] < 2) r7++;
  HM_TEST_ASSERT(rowptr[r7 + 1] - rowptr[r7] >= 2, "no row from 7 on has two entries");
  const int32_t saved = col[rowptr[r7] + 1];
  col[rowptr[r7] + 1] = -3;
  char bad_col[64];
  snprintf(bad_col, sizeof bad_col, "row %d has column -3", r7);
  HM_TEST_FAILS(hm_cuda_block_build(&hA, all, N, 1, &copy), HM_ERR_ARGUMENT, bad_col);
  col[rowptr[r7] + 1] = saved;
  HM_TEST_FAILS(hm_cuda_block_build(&hA, NULL, 4, 1, &copy), HM_ERR_ARGUMENT, "NULL");
  check_sorted_rows(G, &hA, all, some, nsome); /* last: it sorts hA's rows in place */
  free(all);
  free(some);
  free(rowptr);
  free(col);
  free(val);
  return hm_test_finish();
}
