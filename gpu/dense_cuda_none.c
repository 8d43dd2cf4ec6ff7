/* Built without CUDA: the cuSOLVER dense path says so. */
#include "error_macros.h"
#include "../linalg/dense/dense_gpu.h"

int hm_dense_cuda_eigh(int type, int64_t n, void *A, int64_t lda, void *B, int64_t ldb, int vectors, double *w,
                       size_t limit) {
  (void)type; (void)n; (void)A; (void)lda; (void)B; (void)ldb; (void)vectors; (void)w; (void)limit;
  HM_RAISE(HM_ERR_BACKEND, "the cuSOLVER dense path needs CUDA; hamlet was built without it");
}

/* The distributed eigensolver's device calls: never reached without a CUDA context. */
#define HM_DENSE_NO_CUDA HM_RAISE(HM_ERR_BACKEND, "the distributed dense solver's device side needs CUDA")
int hm_dense_cuda_alloc(int device, double **p, int64_t count) { (void)device; (void)count; *p = NULL; HM_DENSE_NO_CUDA; }
void hm_dense_cuda_free(int device, double *p) { (void)device; (void)p; }
void hm_dense_cuda_finish(int device) { (void)device; }
int hm_dense_cuda_free_bytes(int device, double *bytes) { (void)device; *bytes = 0; HM_DENSE_NO_CUDA; }
int hm_dense_cuda_copy_block(int device, char dir, double *dst, int64_t ldd, const double *src, int64_t lds,
                             int64_t rows, int64_t cols) {
  (void)device; (void)dir; (void)dst; (void)ldd; (void)src; (void)lds; (void)rows; (void)cols;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_gemm(int device, int type, char ta, char tb, int64_t m, int64_t n, int64_t k, const double *alpha,
                       const double *A, int64_t lda, const double *B, int64_t ldb, const double *beta, double *C,
                       int64_t ldc) {
  (void)device; (void)type; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)alpha; (void)A; (void)lda; (void)B;
  (void)ldb; (void)beta; (void)C; (void)ldc;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_rows_at_columns(int device, int type, int b, int rank, int P, int64_t l0, int64_t nlt,
                                  const double *src, int64_t ld, int64_t g0, int64_t k, double *dst) {
  (void)device; (void)type; (void)b; (void)rank; (void)P; (void)l0; (void)nlt; (void)src; (void)ld; (void)g0; (void)k;
  (void)dst;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_unit_lower(int device, int type, int64_t m, int64_t k, const double *A, int64_t lda, double *v) {
  (void)device; (void)type; (void)m; (void)k; (void)A; (void)lda; (void)v;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_geqrf(int device, int type, int64_t m, int64_t k, double *A, int64_t lda, double *tau, int *info) {
  (void)device; (void)type; (void)m; (void)k; (void)A; (void)lda; (void)tau; *info = 0;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_has_stedc(void) { return 0; }
int hm_dense_cuda_stedc(int device, int64_t n, double *d, double *e, double *z, int *info) {
  (void)device; (void)n; (void)d; (void)e; (void)z; *info = 0;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_trsm(int device, int type, char side, char trans, int64_t m, int64_t n, const double *L, int64_t ldl,
                       double *X, int64_t ldx) {
  (void)device; (void)type; (void)side; (void)trans; (void)m; (void)n; (void)L; (void)ldl; (void)X; (void)ldx;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_rot(int device, int64_t len, double *a, double *b, double c, double s) {
  (void)device; (void)len; (void)a; (void)b; (void)c; (void)s;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_gather_columns(int device, int64_t rows, int64_t count, const double *src, int64_t lds,
                                 const int64_t *idx, double *dst, int64_t ldd) {
  (void)device; (void)rows; (void)count; (void)src; (void)lds; (void)idx; (void)dst; (void)ldd;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_secular_vectors(int device, int64_t K, int64_t cols, const double *dl, const double *wt, const int64_t *origin,
                                  const double *offset, const int64_t *perm, double *s, int64_t lds) {
  (void)device; (void)K; (void)cols; (void)dl; (void)wt; (void)origin; (void)offset; (void)perm; (void)s; (void)lds;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_transpose(int device, int type, int64_t rows, int64_t cols, const double *src, int64_t lds,
                            double *dst) {
  (void)device; (void)type; (void)rows; (void)cols; (void)src; (void)lds; (void)dst;
  HM_DENSE_NO_CUDA;
}
int hm_dense_cuda_widen(int device, int64_t n, int64_t cols, const double *src, int64_t lds, double *dst, int64_t ldd) {
  (void)device; (void)n; (void)cols; (void)src; (void)lds; (void)dst; (void)ldd;
  HM_DENSE_NO_CUDA;
}
