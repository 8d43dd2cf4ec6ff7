/* hm_operator: what the iterative solvers apply: a matrix, a shifted matrix z - A (the shift applied
 * with the product; no shifted copy is stored), or a user callback y = Op x (matrix-free operators,
 * Fortran callers). */
#ifndef HAMLET_OPERATOR_H
#define HAMLET_OPERATOR_H
#include "export.h"
#include "matrix.h"
#include "mvec.h"

typedef struct hm_operator_s hm_operator;

/* y = Op x for a block x of any width; x and y are distinct blocks of equal width over the
 * operator's distribution. Return 0 on success, non-zero to stop the solver with that status. */
typedef int (*hm_operator_fn)(hm_mvec *x, hm_mvec *y, void *user);

#ifdef __cplusplus
extern "C" {
#endif

/* Op = A (A must outlive the operator). */
HM_API int hm_operator_create_matrix(hm_matrix *A, hm_operator **op);
/* Op = z - A: nz = 1 (one shift for every column) or nz = the width of the blocks it will be
 * applied to (shift z[j] for column j). z holds nz scalars of A's type (double or double _Complex). */
HM_API int hm_operator_create_shifted(hm_matrix *A, int nz, const void *z, hm_operator **op);
/* Op = the callback apply(x, y, user), over blocks of the given distribution and type. */
HM_API int hm_operator_create_shell(hm_context *ctx, const hm_dist *dist, hm_scalar type, hm_operator_fn apply, void *user,
                             hm_operator **op);
HM_API int hm_operator_destroy(hm_operator **op);
/* Collective: y = Op x. */
HM_API int hm_operator_apply(hm_operator *op, hm_mvec *x, hm_mvec *y);
/* The distribution (owned by op) and scalar type of the blocks the operator acts on. */
HM_API int hm_operator_info(const hm_operator *op, const hm_dist **dist, hm_scalar *type);
/* The context the operator was made in. */
HM_API int hm_operator_context(const hm_operator *op, hm_context **ctx);

#ifdef __cplusplus
}
#endif
#endif
