/* Every CUDA kernel against the CPU kernel on fresh random inputs (seeded from the clock, printed
 * so a failure can be replayed with HAMLET_TEST_SEED): spmmv, the fused KPM step (W and both dots),
 * dot, axpby and pack_rows, real and complex, k = 1, 2, 3, 8, 13, 32, 64, 300 (column chunks), over
 * a random row subset (rows of 0..76 entries); spmmv and the KPM step also on SELL-C-sigma copies
 * (check_sell); coefficient uploads queued behind a long kernel (check_queued_uploads); the
 * random-phase block against the host formula (check_random_phase); a large upload through the
 * page-locked staging, behind a kernel that writes the same memory (check_staged_upload). Skips (77)
 * where no device is visible. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "kernels.h"
#include "random.h"
#include "../linalg/core/gpu_probe.h"
#include "../sell_cuda.h"

enum { N = 2000, NH = 150 /* extra halo-like columns */ };

static uint64_t seed;
static double rnd(uint64_t stream, uint64_t i) { return hm_random_uniform(seed, stream, i) - 0.5; }

static void *dev_copy(const hm_kernels *G, const void *src, size_t bytes) {
  void *d = NULL;
  HM_TEST_OK(G->alloc(bytes, &d));
  HM_TEST_OK(G->upload(d, src, bytes));
  return d;
}

static double max_diff(const double *a, const double *b, size_t n) {
  double w = 0;
  for (size_t i = 0; i < n; i++) w = fmax(w, fabs(a[i] - b[i]) / (1.0 + fabs(b[i])));
  return w;
}

/* spmmv and kpm_step over the three lists [0, cut1), [cut1, cut2), [cut2, nrows) against the CPU
 * results (ref: spmmv; kref and dots: the KPM step from W and dots 1, 2, ...). */
static void check_lists(const hm_kernels *G, hm_scalar type, int k, const struct hm_csr_view *sA,
                        const int32_t *drows, int32_t nrows, const double *W, double *dV, double *dW,
                        const double *ref, const double *kref, const double *dots, const char *what) {
  const int32_t cut1 = nrows / 2, cut2 = nrows - nrows / 7;
  const size_t len = (size_t)(N + NH) * k * type;
  double *got = malloc(len * sizeof(double)), *gd = malloc(2 * k * sizeof(double)), *ddots = NULL;
  HM_TEST_OK(G->alloc(2 * k * sizeof(double), (void **)&ddots));
  HM_TEST_OK(G->upload(dW, W, len * sizeof(double)));
  HM_TEST_OK(G->spmmv(type, sA, k, drows, cut1, dV, dW));
  HM_TEST_OK(G->spmmv(type, sA, k, drows + cut1, cut2 - cut1, dV, dW));
  HM_TEST_OK(G->spmmv(type, sA, k, drows + cut2, nrows - cut2, dV, dW));
  HM_TEST_OK(G->download(got, dW, len * sizeof(double)));
  HM_TEST_ASSERT(max_diff(got, ref, len) < 1e-13, "%s: spmmv %g", what, max_diff(got, ref, len));
  HM_TEST_OK(G->upload(dW, W, len * sizeof(double)));
  for (int j = 0; j < 2 * k; j++) gd[j] = 1.0 + j;
  HM_TEST_OK(G->upload(ddots, gd, 2 * k * sizeof(double)));
  HM_TEST_OK(G->kpm_step(type, sA, k, drows, cut1, 0.45, 0.1, dV, dW, ddots));
  HM_TEST_OK(G->kpm_step(type, sA, k, drows + cut1, cut2 - cut1, 0.45, 0.1, dV, dW, ddots));
  HM_TEST_OK(G->kpm_step(type, sA, k, drows + cut2, nrows - cut2, 0.45, 0.1, dV, dW, ddots));
  HM_TEST_OK(G->download(got, dW, len * sizeof(double)));
  HM_TEST_OK(G->download(gd, ddots, 2 * k * sizeof(double)));
  HM_TEST_ASSERT(max_diff(got, kref, len) < 1e-13, "%s: kpm_step W %g", what, max_diff(got, kref, len));
  HM_TEST_ASSERT(max_diff(gd, dots, 2 * k) < 1e-12, "%s: kpm_step dots %g", what, max_diff(gd, dots, 2 * k));
  G->release(ddots);
  free(got);
  free(gd);
}

/* The SELL-C-sigma copies (prepare): the row list cut in two lists, each with its own copy, and a
 * third list that has none (the CSR fallback); spmmv and kpm_step over the three must equal the
 * CPU CSR kernels over the whole list, for every launch shape the tuning knobs select. */
static void check_sell(const hm_kernels *G, hm_scalar type, int k, const struct hm_csr_view *hA,
                       const struct hm_csr_view *dA, const int32_t *rows, int32_t nrows, const int32_t *drows,
                       const double *V, const double *W, double *dV, double *dW) {
  const hm_kernels *C = &hm_kernels_cpu;
  const int32_t cut1 = nrows / 2, cut2 = nrows - nrows / 7; /* lists [0, cut1), [cut1, cut2), [cut2, nrows) */
  const int32_t *lists[2] = {rows, rows + cut1}, counts[2] = {cut1, cut2 - cut1};
  const int32_t *keys[2] = {drows, drows + cut1};
  void *format = NULL;
  HM_TEST_OK(G->prepare(type, hA, 2, lists, counts, keys, HM_FORMAT_AUTO, 0, &format));
  int chunk = 0, sigma = 0;
  double fill = 0;
  HM_TEST_OK(hm_cuda_sell_info(format, 0, &chunk, &sigma, &fill));
  HM_TEST_ASSERT(chunk == 32 && sigma > 1 && fill >= 1.0, "SELL list 0: C %d, sigma %d, fill %g (rows of 0..76 entries need sorting)",
                 chunk, sigma, fill);
  HM_TEST_FAILS(hm_cuda_sell_info(format, 2, NULL, NULL, NULL), HM_ERR_ARGUMENT, "outside");
  const int32_t bad_rows[2] = {0, N}, bad_count = 2;
  const int32_t *bad_list = bad_rows;
  void *bad = NULL;
  HM_TEST_FAILS(G->prepare(type, hA, 1, &bad_list, &bad_count, &bad_list, HM_FORMAT_AUTO, 0, &bad), HM_ERR_ARGUMENT,
                "outside");
  HM_TEST_ASSERT(bad == NULL, "a failed prepare must leave no format");
  /* Format CSR makes no copy; a sigma asked for is taken (cut at the list's length). */
  HM_TEST_OK(G->prepare(type, hA, 1, lists, counts, keys, HM_FORMAT_CSR, 0, &bad));
  HM_TEST_ASSERT(bad == NULL, "format CSR must make no SELL copy");
  const int asked[2] = {1, 1 << 30};
  for (int a = 0; a < 2; a++) {
    void *f = NULL;
    HM_TEST_OK(G->prepare(type, hA, 1, lists, counts, keys, HM_FORMAT_SELL, asked[a], &f));
    int got_sigma = 0;
    HM_TEST_OK(G->format_info(f, 0, NULL, &got_sigma, &fill));
    const int want = asked[a] < counts[0] ? asked[a] : counts[0];
    HM_TEST_ASSERT(got_sigma == want && fill >= 1.0, "SELL with sigma %d asked: sigma %d (want %d), fill %g", asked[a],
                   got_sigma, want, fill);
    G->unprepare(f);
  }
  struct hm_csr_view sA = *dA;
  sA.format = format;
  const size_t len = (size_t)(N + NH) * k * type;
  double *ref = malloc(len * sizeof(double)), *dots = malloc(2 * k * sizeof(double));
  memcpy(ref, W, len * sizeof(double));
  HM_TEST_OK(C->spmmv(type, hA, k, rows, nrows, V, ref));
  double *kref = malloc(len * sizeof(double));
  memcpy(kref, W, len * sizeof(double));
  for (int j = 0; j < 2 * k; j++) dots[j] = 1.0 + j;
  HM_TEST_OK(C->kpm_step(type, hA, k, rows, nrows, 0.45, 0.1, V, kref, dots));
  hm_sell_tuning saved, t;
  hm_cuda_sell_tuning(NULL, &saved);
  const int lanes[3] = {32, 8, 1}, passes[3] = {8, 16, 32};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      for (int u = 0; u < 2; u++) {
        t = saved;
        t.max_lanes = lanes[a];
        t.rows_per_pass = passes[b];
        t.warps_per_block = 1 + (a + b + u) % 8;
        t.prefer_l1 = u;
        t.spmmv_max_k = t.kpm_max_k = 1 << 30; /* the SELL kernels at every k (not the CSR fallback) */
        hm_cuda_sell_tuning(&t, NULL);
        char what[96];
        snprintf(what, sizeof what, "SELL type %d k %d lanes %d pass %d", type, k, lanes[a], passes[b]);
        check_lists(G, type, k, &sA, drows, nrows, W, dV, dW, ref, kref, dots, what);
      }
  /* The CSR kernels (the routing above 'max_k') on all three lists, for traversals with one block
   * per group, a partial last group and the defaults. */
  t = saved;
  t.spmmv_max_k = t.kpm_max_k = 0;
  hm_cuda_sell_tuning(&t, NULL);
  int group0 = 0, iters0 = 0;
  hm_cuda_csr_traversal(0, 0, &group0, &iters0);
  const int groups[3] = {1, 3, group0}, iters[3] = {1, 2, iters0};
  for (int a = 0; a < 3; a++) {
    hm_cuda_csr_traversal(groups[a], iters[a], NULL, NULL);
    char what[96];
    snprintf(what, sizeof what, "CSR type %d k %d group %d tiles %d", type, k, groups[a], iters[a]);
    check_lists(G, type, k, &sA, drows, nrows, W, dV, dW, ref, kref, dots, what);
  }
  hm_cuda_csr_traversal(group0, iters0, NULL, NULL);
  hm_cuda_sell_tuning(&saved, NULL);
  G->unprepare(format);
  free(ref); free(kref); free(dots);
}

static void check(const hm_kernels *G, hm_scalar type, int k) {
  const hm_kernels *C = &hm_kernels_cpu;
  /* Random CSR with 0..76 entries per row over N + NH columns. */
  int64_t *rowptr = malloc(sizeof(int64_t) * (N + 1));
  rowptr[0] = 0;
  /* rows come in groups of 4 of one length (like a lattice site's orbitals); rows 2 and 3 of a group
   * repeat the columns of rows 1 and 0 (equal columns in one slot, as a lattice site's orbitals have);
   * one group in 16 has 13..76 entries per row (rows longer than a warp's 32 entries) */
  for (int i = 0; i < N; i++) {
    const uint64_t r = hm_random_u64(seed, 1, i / 4);
    rowptr[i + 1] = rowptr[i] + (int64_t)(r % 16 == 0 ? 13 + (r >> 8) % 64 : r % 13);
  }
  const int64_t nnz = rowptr[N];
  int32_t *col = malloc(sizeof(int32_t) * nnz + 4);
  double *val = malloc(sizeof(double) * nnz * type + 8);
  for (int i = 0; i < N; i++)
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
      const int twin = i % 4 == 2 ? i - 1 : i % 4 == 3 ? i - 3 : -1;
      col[p] = twin >= 0 ? col[rowptr[twin] + (p - rowptr[i])] : (int32_t)(hm_random_u64(seed, 2, p) % (N + NH));
    }
  for (int64_t p = 0; p < nnz * type; p++) val[p] = rnd(3, p);
  int32_t *rows = malloc(sizeof(int32_t) * N);
  int32_t nrows = 0;
  for (int i = 0; i < N; i++) if (hm_random_u64(seed, 4, i) % 4) rows[nrows++] = i;
  const size_t len = (size_t)(N + NH) * k * type;
  double *V = malloc(len * sizeof(double)), *W = malloc(len * sizeof(double)), *W2 = malloc(len * sizeof(double));
  for (size_t e = 0; e < len; e++) { V[e] = rnd(5, e); W[e] = rnd(6, e); }
  struct hm_csr_view hA = {N, rowptr, col, val, NULL, NULL};
  struct hm_csr_view dA = {N, dev_copy(G, rowptr, sizeof(int64_t) * (N + 1)), dev_copy(G, col, sizeof(int32_t) * nnz + 4),
                           dev_copy(G, val, sizeof(double) * nnz * type + 8), NULL, NULL};
  int32_t *drows = dev_copy(G, rows, sizeof(int32_t) * nrows);
  double *dV = dev_copy(G, V, len * sizeof(double)), *dW = dev_copy(G, W, len * sizeof(double));

  /* spmmv */
  memcpy(W2, W, len * sizeof(double));
  HM_TEST_OK(C->spmmv(type, &hA, k, rows, nrows, V, W2));
  HM_TEST_OK(G->spmmv(type, &dA, k, drows, nrows, dV, dW));
  double *got = malloc(len * sizeof(double));
  HM_TEST_OK(G->download(got, dW, len * sizeof(double)));
  HM_TEST_ASSERT(max_diff(got, W2, len) < 1e-13, "spmmv type %d k %d: differs by %g", type, k, max_diff(got, W2, len));

  /* fused KPM step, accumulating on top of existing dots */
  HM_TEST_OK(G->upload(dW, W, len * sizeof(double)));
  double *dots = calloc(2 * k, sizeof(double)), *gd = calloc(2 * k, sizeof(double));
  for (int j = 0; j < 2 * k; j++) dots[j] = gd[j] = j;
  double *ddots = dev_copy(G, gd, 2 * k * sizeof(double));
  memcpy(W2, W, len * sizeof(double));
  HM_TEST_OK(C->kpm_step(type, &hA, k, rows, nrows, 0.3, -0.2, V, W2, dots));
  HM_TEST_OK(G->kpm_step(type, &dA, k, drows, nrows, 0.3, -0.2, dV, dW, ddots));
  HM_TEST_OK(G->download(got, dW, len * sizeof(double)));
  HM_TEST_OK(G->download(gd, ddots, 2 * k * sizeof(double)));
  HM_TEST_ASSERT(max_diff(got, W2, len) < 1e-13, "kpm_step W type %d k %d: %g", type, k, max_diff(got, W2, len));
  HM_TEST_ASSERT(max_diff(gd, dots, 2 * k) < 1e-12, "kpm_step dots type %d k %d: %g", type, k, max_diff(gd, dots, 2 * k));

  /* dot, axpby, pack_rows */
  double *d1 = malloc(sizeof(double) * 2 * k), *d2 = malloc(sizeof(double) * 2 * k);
  HM_TEST_OK(C->dot(type, N, k, V, W, d1));
  HM_TEST_OK(G->upload(dW, W, len * sizeof(double)));
  HM_TEST_OK(G->dot(type, N, k, dV, dW, d2));
  HM_TEST_ASSERT(max_diff(d2, d1, (size_t)k * type) < 1e-12, "dot type %d k %d: %g", type, k, max_diff(d2, d1, (size_t)k * type));
  double *alpha = malloc(sizeof(double) * 2 * k), *beta = malloc(sizeof(double) * 2 * k);
  for (int j = 0; j < 2 * k; j++) { alpha[j] = rnd(7, j); beta[j] = rnd(8, j); }
  memcpy(W2, W, len * sizeof(double));
  HM_TEST_OK(C->axpby(type, N + NH, k, alpha, V, beta, W2));
  HM_TEST_OK(G->axpby(type, N + NH, k, alpha, dV, beta, dW));
  HM_TEST_OK(G->download(got, dW, len * sizeof(double)));
  HM_TEST_ASSERT(max_diff(got, W2, len) < 1e-14, "axpby type %d k %d: %g", type, k, max_diff(got, W2, len));
  const size_t plen = (size_t)nrows * k * type;
  HM_TEST_OK(C->pack_rows(type, k, rows, nrows, V, W2));
  HM_TEST_OK(G->pack_rows(type, k, drows, nrows, dV, dW));
  HM_TEST_OK(G->download(got, dW, plen * sizeof(double)));
  HM_TEST_ASSERT(memcmp(got, W2, plen * sizeof(double)) == 0, "pack_rows type %d k %d differs", type, k);

  check_sell(G, type, k, &hA, &dA, rows, nrows, drows, V, W, dV, dW);

  G->release((void *)dA.rowptr); G->release((void *)dA.col); G->release((void *)dA.val);
  G->release(drows); G->release(dV); G->release(dW); G->release(ddots);
  free(rowptr); free(col); free(val); free(rows); free(V); free(W); free(W2); free(got);
  free(dots); free(gd); free(d1); free(d2); free(alpha); free(beta);
}

/* Coefficients go to the device asynchronously through a few page-locked slots (async_upload.cuh):
 * many axpby calls queued behind a long kernel must each use their own coefficients, so a slot may
 * not be refilled before its copy ran. y = sum_i (i + 1) x after 40 calls y = (i + 1) x + y. */
static void check_queued_uploads(const hm_kernels *G) {
  const int64_t big = (int64_t)1 << 26, n = 1000;
  double *dbig = NULL, *dx = NULL, *dy = NULL;
  HM_TEST_OK(G->alloc(big * sizeof(double), (void **)&dbig));
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  for (int64_t i = 0; i < n; i++) x[i] = rnd(9, (uint64_t)i);
  dx = dev_copy(G, x, n * sizeof(double));
  HM_TEST_OK(G->alloc(n * sizeof(double), (void **)&dy));
  const double two = 2, one = 1;
  for (int r = 0; r < 4; r++) HM_TEST_OK(G->axpby(HM_REAL, big, 1, &two, dbig, &one, dbig)); /* keeps the device busy */
  const int calls = 40;
  for (int c = 0; c < calls; c++) {
    const double alpha = c + 1;
    HM_TEST_OK(G->axpby(HM_REAL, n, 1, &alpha, dx, &one, dy));
  }
  HM_TEST_OK(G->download(y, dy, n * sizeof(double)));
  double worst = 0;
  for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs(y[i] - calls * (calls + 1) / 2.0 * x[i]));
  HM_TEST_ASSERT(worst < 1e-12, "40 queued axpby calls: y differs from 820 x by %g (coefficients overwritten?)", worst);
  G->release(dbig); G->release(dx); G->release(dy);
  free(x); free(y);
}

/* Uploads of 64 MiB and more go through two page-locked buffers on a stream of their own
 * (host_to_device.cu): 80 MiB and 13 bytes (three chunks, the last one short, an odd length) of
 * random bytes arrive whole, twice: into fresh memory (the first staged upload, which also makes the
 * buffers), then after kernels queued before the upload that write the same memory. */
static void check_staged_upload(const hm_kernels *G) {
  const size_t bytes = ((size_t)80 << 20) + 13, doubles = bytes / sizeof(double);
  unsigned char *h = malloc(bytes), *back = malloc(bytes);
  const int64_t big = (int64_t)1 << 28;
  double *d = NULL, *dbig = NULL;
  HM_TEST_OK(G->alloc(bytes, (void **)&d));
  HM_TEST_OK(G->alloc(big * sizeof(double), (void **)&dbig));
  for (int round = 0; round < 2; round++) {
    for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)(hm_random_uniform(seed, 11 + round, i) * 256);
    const double two = 2, one = 1;
    if (round == 1) { /* the device busy for about 10 ms (longer than filling a staging buffer), then d written */
      for (int r = 0; r < 8; r++) HM_TEST_OK(G->axpby(HM_REAL, big, 1, &two, dbig, &one, dbig));
      HM_TEST_OK(G->axpby(HM_REAL, (int64_t)doubles, 1, &two, d, &one, d));
    }
    HM_TEST_OK(G->upload(d, h, bytes));
    HM_TEST_OK(G->download(back, d, bytes));
    size_t bad = bytes;
    for (size_t i = 0; i < bytes && bad == bytes; i++)
      if (back[i] != h[i]) bad = i;
    HM_TEST_ASSERT(bad == bytes, "staged upload %d of %zu bytes: byte %zu differs (%d, uploaded %d)", round + 1,
                   bytes, bad, bad < bytes ? back[bad] : 0, bad < bytes ? h[bad] : 0);
  }
  G->release(d); G->release(dbig);
  free(h); free(back);
}

/* The device's random-phase block equals the host formula of hm_mvec_random_phase (the same
 * counter-based numbers; cos and sin may differ in the last bit). */
static void check_random_phase(const hm_kernels *G) {
  const int64_t n = 1500, first = 123456789;
  const int k = 3;
  const uint64_t rseed = seed ^ 0x5eed;
  double *got = malloc(2 * n * k * sizeof(double)), *dv = NULL;
  HM_TEST_OK(G->alloc(2 * n * k * sizeof(double), (void **)&dv));
  for (int type = 1; type <= 2; type++) {
    HM_TEST_OK(G->random_phase((hm_scalar)type, first, n, k, 5, rseed, dv)); /* columns 5, 6, 7 */
    HM_TEST_OK(G->download(got, dv, (size_t)type * n * k * sizeof(double)));
    double worst = 0;
    for (int64_t i = 0; i < n; i++)
      for (int j = 0; j < k; j++) {
        const double u = hm_random_uniform(rseed, (uint64_t)(5 + j), (uint64_t)(first + i));
        const size_t e = (size_t)(i * k + j);
        if (type == HM_COMPLEX)
          worst = fmax(worst, fmax(fabs(got[2 * e] - cos(2 * M_PI * u)), fabs(got[2 * e + 1] - sin(2 * M_PI * u))));
        else
          worst = fmax(worst, fabs(got[e] - (u < 0.5 ? -1.0 : 1.0)));
      }
    HM_TEST_ASSERT(worst < 1e-15, "random_phase type %d: differs from the host formula by %g", type, worst);
  }
  G->release(dv);
  free(got);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  int device;
  HM_TEST_OK(hm_gpu_select(0, &device));
  seed = hm_test_seed();
  const hm_kernels *G = hm_kernels_cuda();
  const int widths[] = {1, 2, 3, 8, 13, 32, 64, 300};
  for (int w = 0; w < 8; w++) {
    check(G, HM_COMPLEX, widths[w]);
    check(G, HM_REAL, widths[w]);
  }
  check_queued_uploads(G);
  check_staged_upload(G);
  check_random_phase(G);
  return hm_test_finish();
}
