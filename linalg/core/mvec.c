/* hm_mvec: row-major blocks of k vectors in the memory of the context's backend. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "mpi_large.h"
#include "objects.h"
#include "hamlet/mvec.h"
#include "mvec_block.h"
#include "random.h"

int hm_mvec_create(hm_context *ctx, const hm_dist *dist, hm_scalar type, int k, hm_mvec **v) {
  HM_CALL(hm_mvec_create_with_halo(ctx, dist, type, k, 0, v));
  return HM_SUCCESS;
}

int hm_mvec_create_with_halo(hm_context *ctx, const hm_dist *dist, hm_scalar type, int k, int32_t nhalo,
                             hm_mvec **v) {
  HM_CHECK(ctx && dist && v, HM_ERR_ARGUMENT, "ctx, dist or v is NULL");
  HM_CHECK(nhalo >= 0, HM_ERR_ARGUMENT, "nhalo = %d halo rows, must be >= 0", (int)nhalo);
  *v = NULL;
  HM_CHECK(type == HM_REAL || type == HM_COMPLEX, HM_ERR_ARGUMENT, "type %d is not HM_REAL (1) or HM_COMPLEX (2)", (int)type);
  HM_CHECK(k >= 1, HM_ERR_ARGUMENT, "k = %d columns, must be >= 1", k);
  hm_mvec *m;
  HM_MALLOC(m, 1);
  m->ctx = ctx;
  m->type = type;
  m->k = k;
  HM_CALL(hm_dist_copy(dist, &m->dist));
  m->halo_capacity = nhalo;
  size_t n = (size_t)(dist->local + nhalo) * (size_t)k * (size_t)type;
  int st = ctx->kernels->alloc(n * sizeof(double), (void **)&m->data);
  if (st) {
    hm_dist_free(&m->dist);
    free(m);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  *v = m;
  return HM_SUCCESS;
}

int hm_mvec_destroy(hm_mvec **v) {
  if (!v || !*v) return HM_SUCCESS;
  (*v)->ctx->kernels->release((*v)->data);
  hm_dist_free(&(*v)->dist);
  free(*v);
  *v = NULL;
  return HM_SUCCESS;
}

int hm_mvec_reserve_halo(struct hm_mvec_s *v, int32_t nhalo) {
  if (nhalo <= v->halo_capacity) return HM_SUCCESS;
  const hm_kernels *K = v->ctx->kernels;
  size_t row = (size_t)v->k * (size_t)v->type * sizeof(double);
  double *p;
  HM_CALL(K->alloc((size_t)(v->dist.local + nhalo) * row, (void **)&p));
  HM_CALL(K->copy(p, v->data, (size_t)v->dist.local * row));
  K->release(v->data);
  v->data = p;
  v->halo_capacity = nhalo;
  return HM_SUCCESS;
}

int hm_mvec_size(const hm_mvec *v, int64_t *local_rows, int *k) {
  HM_CHECK(v, HM_ERR_ARGUMENT, "v is NULL");
  if (local_rows) *local_rows = v->dist.local;
  if (k) *k = v->k;
  return HM_SUCCESS;
}

int hm_mvec_set(hm_mvec *v, const void *values) {
  HM_CHECK(v && (values || v->dist.local == 0), HM_ERR_ARGUMENT, "v or values is NULL");
  HM_CALL(v->ctx->kernels->upload(v->data, values, sizeof(double) * (size_t)v->dist.local * (size_t)v->k * (size_t)v->type));
  return HM_SUCCESS;
}

int hm_mvec_get(const hm_mvec *v, void *values) {
  HM_CHECK(v && (values || v->dist.local == 0), HM_ERR_ARGUMENT, "v or values is NULL");
  HM_CALL(v->ctx->kernels->download(values, v->data, sizeof(double) * (size_t)v->dist.local * (size_t)v->k * (size_t)v->type));
  return HM_SUCCESS;
}

int hm_mvec_random_phase(hm_mvec *v, uint64_t seed) {
  HM_CALL(hm_mvec_random_phase_columns(v, seed, 0));
  return HM_SUCCESS;
}

typedef int (*random_block_fn)(hm_scalar type, int64_t first, int64_t n, int k, int col0, uint64_t seed, double *data);
typedef void (*random_entry_fn)(uint64_t seed, uint64_t stream, uint64_t counter, int complex_, double *out);

/* A counter-based random block: by the backend's kernel where it has one, else entry by entry. */
static int random_block(hm_mvec *v, uint64_t seed, int col0, random_block_fn kernel, random_entry_fn entry) {
  HM_CHECK(v, HM_ERR_ARGUMENT, "v is NULL");
  HM_CHECK(col0 >= 0, HM_ERR_ARGUMENT, "col0 = %d, must be >= 0", col0);
  const int64_t first = v->dist.first, k = v->k;
  const hm_kernels *K = v->ctx->kernels;
  if (kernel) { /* made where the block lives: no host pass and no upload */
    HM_CALL(kernel(v->type, first, v->dist.local, v->k, col0, seed, v->data));
    return HM_SUCCESS;
  }
  /* made on the host: in place where the block is host memory (no second block at the peak of a
   * KPM run's memory), else in a host copy moved to the backend's memory */
  double *data = v->data;
  if (K->device_memory) HM_MALLOC(data, (size_t)v->dist.local * (size_t)k * (size_t)v->type + 1);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < v->dist.local; i++) {
    for (int64_t j = 0; j < k; j++)
      entry(seed, (uint64_t)(col0 + j), (uint64_t)(first + i), v->type == HM_COMPLEX,
            data + (size_t)v->type * (size_t)(i * k + j));
  }
  if (!K->device_memory) return HM_SUCCESS;
  int st = hm_mvec_set(v, data);
  free(data);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_mvec_random_phase_columns(hm_mvec *v, uint64_t seed, int col0) {
  HM_CHECK(v, HM_ERR_ARGUMENT, "v is NULL");
  HM_CALL(random_block(v, seed, col0, v->ctx->kernels->random_phase, hm_random_phase_entry));
  return HM_SUCCESS;
}

int hm_mvec_random_gauss(hm_mvec *v, uint64_t seed) {
  HM_CHECK(v, HM_ERR_ARGUMENT, "v is NULL");
  HM_CALL(random_block(v, seed, 0, v->ctx->kernels->random_gauss, hm_random_gauss_entry));
  return HM_SUCCESS;
}

int hm_mvec_dot(const hm_mvec *x, const hm_mvec *y, void *dots) {
  HM_CHECK(x && y && dots, HM_ERR_ARGUMENT, "x, y or dots is NULL");
  HM_CHECK(x->type == y->type && x->k == y->k && x->dist.local == y->dist.local, HM_ERR_ARGUMENT,
           "blocks differ: type %d/%d, k %d/%d, local rows %lld/%lld", (int)x->type, (int)y->type,
           x->k, y->k, (long long)x->dist.local, (long long)y->dist.local);
  double *local;
  const size_t n = (size_t)x->k * (size_t)x->type; /* 2k passes INT_MAX for k > 2^30 */
  HM_MALLOC(local, n);
  HM_CALL(x->ctx->kernels->dot(x->type, x->dist.local, x->k, x->data, y->data, local));
  int st = hm_mpi_allreduce_large(local, dots, n, MPI_DOUBLE, MPI_SUM, x->ctx->comm);
  free(local);
  HM_CALL(st);
  return HM_SUCCESS;
}
