/* hm_dist: global rows split into contiguous rank-local ranges, proportional to per-rank weights. */
#ifndef HAMLET_DIST_H
#define HAMLET_DIST_H
#include "export.h"
#include <stdint.h>
#include "context.h"

typedef struct hm_dist_s hm_dist;

#ifdef __cplusplus
extern "C" {
#endif

/* Collective. n_global rows split so that rank r gets about weight_r / sum(weights) of them, in
 * whole multiples of `block` rows (n_global must be a multiple of block; weight > 0), where
 * weight_r is the weight given times the context's weight (hm_context_set_weight). */
HM_API int hm_dist_create(hm_context *ctx, int64_t n_global, int64_t block, double weight, hm_dist **dist);
HM_API int hm_dist_destroy(hm_dist **dist);
/* First global row of this rank, its local row count, and the global row count. */
HM_API int hm_dist_range(const hm_dist *dist, int64_t *first, int64_t *local, int64_t *n_global);

#ifdef __cplusplus
}
#endif
#endif
