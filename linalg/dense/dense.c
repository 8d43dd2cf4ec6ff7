/* hm_dense_eigh: the local dense Hermitian eigensolver (LAPACK or cuSOLVER), memory accounting
 * shared by all dense paths, and the LAPACK path itself. */
#include <complex.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <lapacke.h>
#include "dense_gpu.h"
#include "dense_internal.h"
#include "error_macros.h"
#include "gpu_probe.h"

size_t hm_dense_memory_limit(void) {
  const char *s = getenv("HAMLET_DENSE_MEMORY_LIMIT");
  if (!s || !*s) return SIZE_MAX;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return SIZE_MAX; /* unreadable: no cap (documented as an integer) */
  return (size_t)v;
}

size_t hm_dense_host_available(int ranks_on_node) {
  size_t avail = 0;
  FILE *f = fopen("/proc/meminfo", "r");
  if (f) {
    char line[256];
    unsigned long long kib;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) { avail = (size_t)kib * 1024; break; }
    fclose(f);
  }
  if (!avail) avail = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
  if (ranks_on_node > 1) avail /= (size_t)ranks_on_node;
  size_t cap = hm_dense_memory_limit();
  return avail < cap ? avail : cap;
}

const char *hm_dense_bytes_text(double bytes, char *buf) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) { bytes /= 1024; u++; }
  snprintf(buf, 32, u ? "%.2f %s" : "%.0f %s", bytes, unit[u]);
  return buf;
}

/* Workspace sizes from a LAPACK query (lwork = -1). */
static int lapack_query(hm_scalar type, lapack_int n, int vectors, int generalized, lapack_int *lwork,
                        lapack_int *lrwork, lapack_int *liwork) {
  const char jobz = vectors ? 'V' : 'N';
  lapack_int info, iq = 0;
  *lrwork = 0;
  if (type == HM_REAL) {
    double q = 0, a = 0, b = 0, wq = 0;
    info = generalized ? LAPACKE_dsygvd_work(LAPACK_COL_MAJOR, 1, jobz, 'L', n, &a, n ? n : 1, &b, n ? n : 1, &wq,
                                             &q, -1, &iq, -1)
                       : LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jobz, 'L', n, &a, n ? n : 1, &wq, &q, -1, &iq, -1);
    HM_CHECK(info == 0, HM_ERR_LAPACK, "workspace query of dsy%svd failed (info %d)", generalized ? "g" : "e", (int)info);
    HM_CHECK(q < (double)INT_MAX, HM_ERR_MEMORY, "n = %d needs %.3g doubles of LAPACK workspace, more than 32-bit LAPACK can index",
             (int)n, q);
    *lwork = (lapack_int)q;
  } else {
    double complex q = 0, a = 0, b = 0;
    double rq = 0, wq = 0;
    info = generalized ? LAPACKE_zhegvd_work(LAPACK_COL_MAJOR, 1, jobz, 'L', n, &a, n ? n : 1, &b, n ? n : 1, &wq,
                                             &q, -1, &rq, -1, &iq, -1)
                       : LAPACKE_zheevd_work(LAPACK_COL_MAJOR, jobz, 'L', n, &a, n ? n : 1, &wq, &q, -1, &rq, -1,
                                             &iq, -1);
    HM_CHECK(info == 0, HM_ERR_LAPACK, "workspace query of zhe%svd failed (info %d)", generalized ? "g" : "e", (int)info);
    HM_CHECK(creal(q) < (double)INT_MAX && rq < (double)INT_MAX, HM_ERR_MEMORY,
             "n = %d needs %.3g complex + %.3g real words of LAPACK workspace, more than 32-bit LAPACK can index",
             (int)n, creal(q), rq);
    *lwork = (lapack_int)creal(q);
    *lrwork = (lapack_int)rq;
  }
  *liwork = iq;
  return HM_SUCCESS;
}

int hm_dense_lapack(hm_scalar type, int64_t n64, void *A, int64_t lda, void *B, int64_t ldb, int vectors,
                    double *w) {
  const lapack_int n = (lapack_int)n64;
  const int generalized = B != NULL;
  lapack_int lwork = 0, lrwork = 0, liwork = 0;
  HM_CALL(lapack_query(type, n, vectors, generalized, &lwork, &lrwork, &liwork));
  const size_t need = (size_t)lwork * sizeof(double) * (size_t)type + (size_t)lrwork * sizeof(double) +
                      (size_t)liwork * sizeof(lapack_int);
  /* Small workspaces (LOBPCG's projected problems) skip reading /proc/meminfo unless capped. */
  const size_t cap = hm_dense_memory_limit();
  const size_t avail = need <= cap && need < ((size_t)64 << 20) ? cap : hm_dense_host_available(1);
  char t1[32], t2[32];
  HM_CHECK(need <= avail, HM_ERR_MEMORY,
           "LAPACK %s of order n = %lld needs %s of workspace (besides the matrices), %s available",
           type == HM_REAL ? (generalized ? "dsygvd" : "dsyevd") : (generalized ? "zhegvd" : "zheevd"),
           (long long)n64, hm_dense_bytes_text((double)need, t1), hm_dense_bytes_text((double)avail, t2));
  double *work = malloc(sizeof(double) * (size_t)type * (size_t)(lwork > 0 ? lwork : 1));
  double *rwork = malloc(sizeof(double) * (size_t)(lrwork > 0 ? lrwork : 1));
  lapack_int *iwork = malloc(sizeof(lapack_int) * (size_t)(liwork > 0 ? liwork : 1));
  if (!work || !rwork || !iwork) {
    free(work); free(rwork); free(iwork);
    HM_RAISE(HM_ERR_MEMORY, "could not allocate %s of LAPACK workspace", hm_dense_bytes_text((double)need, t1));
  }
  const char jobz = vectors ? 'V' : 'N';
  lapack_int info;
  if (type == HM_REAL)
    info = generalized ? LAPACKE_dsygvd_work(LAPACK_COL_MAJOR, 1, jobz, 'L', n, A, (lapack_int)lda, B, (lapack_int)ldb,
                                             w, work, lwork, iwork, liwork)
                       : LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jobz, 'L', n, A, (lapack_int)lda, w, work, lwork, iwork,
                                             liwork);
  else
    info = generalized ? LAPACKE_zhegvd_work(LAPACK_COL_MAJOR, 1, jobz, 'L', n, A, (lapack_int)lda, B, (lapack_int)ldb,
                                             w, (lapack_complex_double *)work, lwork, rwork, lrwork, iwork, liwork)
                       : LAPACKE_zheevd_work(LAPACK_COL_MAJOR, jobz, 'L', n, A, (lapack_int)lda, w,
                                             (lapack_complex_double *)work, lwork, rwork, lrwork, iwork, liwork);
  free(work); free(rwork); free(iwork);
  HM_CHECK(!(generalized && info > n), HM_ERR_NUMERIC,
           "B is not positive definite: its leading minor of order %d is not (Cholesky failed)", (int)(info - n));
  HM_CHECK(info == 0, HM_ERR_LAPACK, "LAPACK %s returned info = %d (%s)",
           type == HM_REAL ? (generalized ? "dsygvd" : "dsyevd") : (generalized ? "zhegvd" : "zheevd"), (int)info,
           info < 0 ? "an illegal argument" : "the eigenvalue iteration did not converge");
  return HM_SUCCESS;
}

/* AUTO in the local call: a GPU only where it is built, visible and the order pays for it. */
static int pick_local_method(int64_t n, hm_dense_method *m) {
  *m = HM_DENSE_LAPACK;
  if (n < HM_DENSE_GPU_MIN_N || !hm_gpu_compiled()) return HM_SUCCESS;
  int devices = 0;
  HM_CALL(hm_gpu_device_count(&devices));
  if (devices > 0) *m = HM_DENSE_CUSOLVER;
  return HM_SUCCESS;
}

int hm_dense_eigh(hm_scalar type, int64_t n, void *A, int64_t lda, void *B, int64_t ldb, int vectors,
                  hm_dense_method method, double *w) {
  HM_CHECK(type == HM_REAL || type == HM_COMPLEX, HM_ERR_ARGUMENT, "type %d is not HM_REAL (1) or HM_COMPLEX (2)",
           (int)type);
  HM_CHECK(n >= 0 && n < INT_MAX, HM_ERR_ARGUMENT, "n = %lld, must be in [0, %d]", (long long)n, INT_MAX - 1);
  HM_CHECK(vectors == 0 || vectors == 1, HM_ERR_ARGUMENT, "vectors = %d, must be 0 or 1", vectors);
  HM_CHECK(method >= HM_DENSE_AUTO && method <= HM_DENSE_DISTRIBUTED, HM_ERR_ARGUMENT,
           "method %d is not one of HM_DENSE_AUTO (0), LAPACK (1), CUSOLVER (2), SCALAPACK (3), DISTRIBUTED (4)",
           (int)method);
  HM_CHECK(method != HM_DENSE_SCALAPACK && method != HM_DENSE_DISTRIBUTED, HM_ERR_ARGUMENT,
           "HM_DENSE_%s needs a distributed matrix: use hm_dense_eigh_matrix; allowed here: AUTO, LAPACK, CUSOLVER",
           method == HM_DENSE_SCALAPACK ? "SCALAPACK" : "DISTRIBUTED");
  if (n == 0) return HM_SUCCESS;
  HM_CHECK(A && w, HM_ERR_ARGUMENT, "A or w is NULL");
  HM_CHECK(lda >= n && lda < INT_MAX, HM_ERR_ARGUMENT, "lda = %lld, must be >= n = %lld", (long long)lda, (long long)n);
  HM_CHECK(!B || (ldb >= n && ldb < INT_MAX), HM_ERR_ARGUMENT, "ldb = %lld, must be >= n = %lld", (long long)ldb,
           (long long)n);
  HM_CHECK(B != A, HM_ERR_ARGUMENT, "A and B must be distinct arrays");
  if (method == HM_DENSE_AUTO) HM_CALL(pick_local_method(n, &method));
  if (method == HM_DENSE_CUSOLVER) {
    HM_CHECK(hm_gpu_compiled(), HM_ERR_BACKEND,
             "HM_DENSE_CUSOLVER asked, but this hamlet was built without CUDA; allowed here: AUTO, LAPACK");
    HM_CALL(hm_dense_cuda_eigh((int)type, n, A, lda, B, ldb, vectors, w, hm_dense_memory_limit()));
  } else {
    HM_CALL(hm_dense_lapack(type, n, A, lda, B, ldb, vectors, w));
  }
  return HM_SUCCESS;
}
