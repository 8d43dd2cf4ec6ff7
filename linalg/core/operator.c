/* hm_operator: a matrix, a shifted matrix or a callback behind one apply call. */
#include <complex.h>
#include <string.h>
#include "error_macros.h"
#include "objects.h"
#include "hamlet/operator.h"
#include "matrix_hermitian.h"

typedef enum { OP_MATRIX, OP_SHIFTED, OP_SHELL } op_kind;

struct hm_operator_s {
  op_kind kind;
  hm_context *ctx;
  struct hm_dist_s dist; /* own copy */
  hm_scalar type;
  hm_matrix *A;
  int nz;
  double *z;             /* nz scalars of type (host) */
  double *alpha, *beta;  /* per-column factors of the shift update, grown to the block width */
  int factors_k;
  hm_operator_fn apply;
  void *user;
};

static int make(hm_context *ctx, const hm_dist *dist, hm_scalar type, op_kind kind, hm_operator **op) {
  HM_CHECK(op, HM_ERR_ARGUMENT, "op is NULL");
  *op = NULL;
  hm_operator *o;
  HM_MALLOC(o, 1);
  o->kind = kind;
  o->ctx = ctx;
  o->type = type;
  int st = hm_dist_copy(dist, &o->dist);
  if (st) {
    free(o);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  *op = o;
  return HM_SUCCESS;
}

int hm_operator_create_matrix(hm_matrix *A, hm_operator **op) {
  HM_CHECK(A, HM_ERR_ARGUMENT, "A is NULL");
  HM_CALL(make(A->ctx, &A->dist, A->type, OP_MATRIX, op));
  (*op)->A = A;
  return HM_SUCCESS;
}

int hm_operator_create_shifted(hm_matrix *A, int nz, const void *z, hm_operator **op) {
  HM_CHECK(A && z, HM_ERR_ARGUMENT, "A or z is NULL");
  HM_CHECK(nz >= 1, HM_ERR_ARGUMENT, "nz = %d shifts; must be 1 (all columns) or the block width", nz);
  HM_CALL(make(A->ctx, &A->dist, A->type, OP_SHIFTED, op));
  hm_operator *o = *op;
  o->A = A;
  o->nz = nz;
  o->z = malloc(sizeof(double) * (size_t)nz * (size_t)A->type);
  if (!o->z) {
    hm_operator_destroy(op);
    HM_RAISE(HM_ERR_MEMORY, "could not allocate %d shifts", nz);
  }
  memcpy(o->z, z, sizeof(double) * (size_t)nz * (size_t)A->type);
  return HM_SUCCESS;
}

int hm_operator_create_shell(hm_context *ctx, const hm_dist *dist, hm_scalar type, hm_operator_fn apply, void *user,
                             hm_operator **op) {
  HM_CHECK(ctx && dist && apply, HM_ERR_ARGUMENT, "ctx, dist or apply is NULL");
  HM_CHECK(type == HM_REAL || type == HM_COMPLEX, HM_ERR_ARGUMENT, "type %d is not HM_REAL (1) or HM_COMPLEX (2)",
           (int)type);
  HM_CALL(make(ctx, dist, type, OP_SHELL, op));
  (*op)->apply = apply;
  (*op)->user = user;
  return HM_SUCCESS;
}

int hm_operator_destroy(hm_operator **op) {
  if (!op || !*op) return HM_SUCCESS;
  hm_dist_free(&(*op)->dist);
  free((*op)->z);
  free((*op)->alpha);
  free((*op)->beta);
  free(*op);
  *op = NULL;
  return HM_SUCCESS;
}

/* The factors of y = z x - y (alpha = z per column, beta = -1) for a block of k columns. */
static int shift_factors(hm_operator *o, int k) {
  HM_CHECK(o->nz == 1 || o->nz == k, HM_ERR_ARGUMENT,
           "the shifted operator has %d shifts but is applied to a block of %d columns", o->nz, k);
  if (o->factors_k != k) {
    free(o->alpha);
    free(o->beta);
    o->factors_k = 0;
    o->alpha = calloc((size_t)k * (size_t)o->type, sizeof(double));
    o->beta = calloc((size_t)k * (size_t)o->type, sizeof(double));
    HM_CHECK(o->alpha && o->beta, HM_ERR_MEMORY, "could not allocate factors for %d columns", k);
    const size_t t = (size_t)o->type;
    for (int j = 0; j < k; j++) {
      memcpy(o->alpha + t * j, o->z + t * (o->nz == 1 ? 0 : j), t * sizeof(double));
      o->beta[t * j] = -1.0;
    }
    o->factors_k = k;
  }
  return HM_SUCCESS;
}

int hm_operator_apply(hm_operator *op, hm_mvec *x, hm_mvec *y) {
  HM_CHECK(op && x && y, HM_ERR_ARGUMENT, "op, x or y is NULL");
  HM_CHECK(x != y && x->k == y->k, HM_ERR_ARGUMENT, "x and y must be distinct blocks of equal width (%d, %d)",
           x->k, y->k);
  HM_CHECK(x->type == op->type && y->type == op->type, HM_ERR_ARGUMENT,
           "blocks of scalar type %d/%d given to an operator of type %d", (int)x->type, (int)y->type, (int)op->type);
  HM_CHECK(x->dist.local == op->dist.local && y->dist.local == op->dist.local, HM_ERR_ARGUMENT,
           "blocks of %lld/%lld local rows given to an operator of %lld", (long long)x->dist.local,
           (long long)y->dist.local, (long long)op->dist.local);
  switch (op->kind) {
    case OP_MATRIX:
      HM_CALL(hm_matrix_apply(op->A, x, y));
      break;
    case OP_SHIFTED:
      HM_CALL(shift_factors(op, x->k));
      HM_CALL(hm_matrix_apply(op->A, x, y));
      HM_CALL(x->ctx->kernels->axpby(x->type, x->dist.local, x->k, op->alpha, x->data, op->beta, y->data));
      break;
    case OP_SHELL: {
      hm_error_clear(); /* a message left by the callback is then its own: keep it, add the trace */
      int st = op->apply(x, y, op->user);
      if (st > 0 && st <= HM_ERR_INPUT && hm_error_message()[0]) return hm_error_trace(st, __FILE__, __LINE__, __func__);
      HM_CHECK(st == 0, st > 0 && st <= HM_ERR_INTERNAL ? st : HM_ERR_INTERNAL,
               "the operator's callback returned status %d", st);
      break;
    }
  }
  return HM_SUCCESS;
}

int hm_operator_info(const hm_operator *op, const hm_dist **dist, hm_scalar *type) {
  HM_CHECK(op, HM_ERR_ARGUMENT, "op is NULL");
  if (dist) *dist = &op->dist;
  if (type) *type = op->type;
  return HM_SUCCESS;
}

int hm_operator_context(const hm_operator *op, hm_context **ctx) {
  HM_CHECK(op && ctx, HM_ERR_ARGUMENT, "op or ctx is NULL");
  *ctx = op->ctx;
  return HM_SUCCESS;
}

int hm_operator_require_hermitian(const hm_operator *op, const char *who) {
  HM_CHECK(op, HM_ERR_ARGUMENT, "op is NULL");
  /* A shifted matrix A - z is Hermitian only for real z; the solvers that ask use plain matrices. */
  if (op->A) HM_CALL(hm_matrix_require_hermitian(op->A, who));
  return HM_SUCCESS;
}
