/* hm_mvec: a block of k vectors over an hm_dist, row-major (the k entries of a row are adjacent). */
#ifndef HAMLET_MVEC_H
#define HAMLET_MVEC_H
#include <stdint.h>
#include "dist.h"

typedef struct hm_mvec_s hm_mvec;

#ifdef __cplusplus
extern "C" {
#endif

int hm_mvec_create(hm_context *ctx, const hm_dist *dist, hm_scalar type, int k, hm_mvec **v);
int hm_mvec_destroy(hm_mvec **v);
int hm_mvec_size(const hm_mvec *v, int64_t *local_rows, int *k);
/* Copy the local rows in / out: local_rows * k scalars, row-major (double or double _Complex). */
int hm_mvec_set(hm_mvec *v, const void *values);
int hm_mvec_get(const hm_mvec *v, void *values);
/* Random-phase entries exp(2 pi i phi) (complex) or +-1 (real); phi depends only on
 * (seed, column, global row), so the vectors do not depend on the rank count. */
int hm_mvec_random_phase(hm_mvec *v, uint64_t seed);
/* Collective: dots[j] = <x_j | y_j> for every column j (k scalars of x's type). */
int hm_mvec_dot(const hm_mvec *x, const hm_mvec *y, void *dots);

#ifdef __cplusplus
}
#endif
#endif
