#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lapacke.h>
#include "testing.h"
#include "objects.h"
#include "gpu_probe.h"

int hm_test_failures = 0;

uint64_t hm_test_seed(void) {
  const char *env = getenv("HAMLET_TEST_SEED");
  uint64_t seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("HAMLET_TEST_SEED=%llu\n", (unsigned long long)seed);
  return seed;
}

int hm_test_selected(const char *list, int trial) {
  if (!list) return 1;
  for (const char *p = list; *p;) {
    char *end;
    const long a = strtol(p, &end, 10);
    long b = a;
    if (*end == '-') b = strtol(end + 1, &end, 10);
    if (trial >= a && trial <= b) return 1;
    p = *end == ',' ? end + 1 : end + strlen(end);
  }
  return 0;
}

void hm_test_expect_failure(int status, int code, const char *needle, const char *expr, const char *file, int line) {
  const char *msg = hm_error_message();
  if (status != code) {
    fprintf(stderr, "FAIL %s:%d: %s returned %d, expected %d\n%s", file, line, expr, status, code, msg);
    hm_test_failures++;
  } else if (needle && !strstr(msg, needle)) {
    fprintf(stderr, "FAIL %s:%d: %s: message lacks \"%s\":\n%s", file, line, expr, needle, msg);
    hm_test_failures++;
  }
  hm_error_clear();
}

int hm_test_finish(void) {
  int total = 0, rank = 0;
  MPI_Allreduce(&hm_test_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%s (%d failure%s)\n", total ? "FAILED" : "PASSED", total, total == 1 ? "" : "s");
  MPI_Finalize();
  return total ? 1 : 0;
}

int hm_test_dense(hm_matrix *A, double complex **dense, int64_t *n_out) {
  int64_t n, first, local;
  hm_scalar type;
  const hm_dist *dist;
  int st;
  if ((st = hm_matrix_info(A, &n, NULL, &type)) || (st = hm_matrix_dist(A, &dist))) return st;
  hm_dist_range(dist, &first, &local, NULL);
  hm_context *ctx = dist->ctx;
  const int k = 16;
  hm_mvec *x, *y;
  if ((st = hm_mvec_create(ctx, dist, type, k, &x)) || (st = hm_mvec_create(ctx, dist, type, k, &y))) return st;
  double complex *d = calloc((size_t)(n * n), sizeof *d);
  double *xv = calloc((size_t)(local * k * type) + 1, sizeof(double));
  double *yv = calloc((size_t)(local * k * type) + 1, sizeof(double));
  double complex *mine = calloc((size_t)(n * k), sizeof *mine);
  double complex *all = calloc((size_t)(n * k), sizeof *all);
  for (int64_t c0 = 0; c0 < n; c0 += k) {
    memset(xv, 0, sizeof(double) * (size_t)(local * k * type));
    for (int j = 0; j < k && c0 + j < n; j++) {
      int64_t g = c0 + j;
      if (g >= first && g < first + local) xv[((g - first) * k + j) * type] = 1.0;
    }
    hm_mvec_set(x, xv);
    if ((st = hm_matrix_apply(A, x, y))) return st;
    hm_mvec_get(y, yv);
    memset(mine, 0, sizeof(double complex) * (size_t)(n * k));
    for (int64_t i = 0; i < local; i++)
      for (int j = 0; j < k; j++)
        mine[(first + i) * k + j] = type == HM_COMPLEX ? CMPLX(yv[2 * (i * k + j)], yv[2 * (i * k + j) + 1]) : yv[i * k + j];
    MPI_Allreduce(mine, all, (int)(2 * n * k), MPI_DOUBLE, MPI_SUM, ctx->comm);
    for (int64_t i = 0; i < n; i++)
      for (int j = 0; j < k && c0 + j < n; j++) d[(c0 + j) * n + i] = all[i * k + j];
  }
  free(xv); free(yv); free(mine); free(all);
  hm_mvec_destroy(&x);
  hm_mvec_destroy(&y);
  *dense = d;
  *n_out = n;
  return 0;
}

int hm_test_eigh(int64_t n, const double complex *dense, double *w, double complex *vec) {
  double complex *a = malloc(sizeof *a * (size_t)(n * n));
  memcpy(a, dense, sizeof *a * (size_t)(n * n));
  lapack_int info = LAPACKE_zheevd(LAPACK_COL_MAJOR, vec ? 'V' : 'N', 'U', (lapack_int)n,
                                   (lapack_complex_double *)a, (lapack_int)n, w);
  if (vec) memcpy(vec, a, sizeof *a * (size_t)(n * n));
  free(a);
  return (int)info;
}

int hm_test_pencil_eigenvalues(hm_matrix *A, hm_matrix *B, double *w) {
  double complex *a = NULL, *b = NULL;
  int64_t n;
  int st = hm_test_dense(A, &a, &n);
  if (!st && B) st = hm_test_dense(B, &b, &n);
  if (!st)
    st = B ? (int)LAPACKE_zhegv(LAPACK_COL_MAJOR, 1, 'N', 'U', (lapack_int)n, (lapack_complex_double *)a, (lapack_int)n,
                                (lapack_complex_double *)b, (lapack_int)n, w)
           : hm_test_eigh(n, a, w, NULL);
  free(a), free(b);
  return st;
}

int hm_test_requires(const char *what) {
  const char *list = getenv("HAMLET_TEST_REQUIRE");
  size_t n = strlen(what);
  for (const char *p = list; p && *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, what, n) == 0) return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

int hm_test_no_gpu(void) {
  int devices = 0;
  if (hm_gpu_compiled()) {
    if (hm_gpu_device_count(&devices)) { /* a broken driver or runtime is not "no GPU" */
      printf("FAIL: the CUDA device query failed (not \"no device\"):\n%s", hm_error_message());
      MPI_Finalize();
      return 1;
    }
    if (devices > 0) return 0;
  }
  const char *why = hm_gpu_compiled() ? "no CUDA device visible" : "hamlet was built without CUDA";
  MPI_Finalize();
  if (hm_test_requires("gpu")) {
    printf("FAIL: %s, but HAMLET_TEST_REQUIRE=%s requires the GPU\n", why, getenv("HAMLET_TEST_REQUIRE"));
    return 1;
  }
  printf("%s: skipped\n", why);
  return 77;
}

int hm_test_ti_slab(hm_context *ctx, int64_t nx, int64_t ny, int64_t nz, double disorder_w, hm_ti_params *p,
                    hm_matrix **H) {
  hm_ti_params q;
  hm_ti_params_default(&q);
  q.nx = nx; q.ny = ny; q.nz = nz;
  q.boundary[2] = HM_BC_OPEN;
  q.disorder_w = disorder_w;
  if (p) *p = q;
  return hm_ti_build(ctx, &q, H);
}
