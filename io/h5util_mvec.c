/* Distributed blocks in HDF5: every rank its rows of a [N][k] (complex: [N][k][2]) dataset, the
 * block's data fetched through the mvec API (it may live on a device). */
#include <stdlib.h>
#include "h5util.h"
#include "hamlet/mvec.h"

typedef struct {
  int64_t n_global, first, local;
  int k;
  hm_scalar type;
} block_shape;

static int shape_of(const hm_mvec *v, block_shape *b) {
  const hm_dist *dist;
  HM_CALL(hm_mvec_dist(v, &dist));
  HM_CALL(hm_dist_range(dist, &b->first, &b->local, &b->n_global));
  HM_CALL(hm_mvec_size(v, NULL, &b->k));
  HM_CALL(hm_mvec_type(v, &b->type));
  return HM_SUCCESS;
}

static double *host_copy(const block_shape *b) {
  return malloc(sizeof(double) * ((size_t)b->local * (size_t)b->k * (size_t)b->type + 1));
}

static int write_mvec(hid_t loc, const char *name, const hm_mvec *v, const char *unit, const char *description,
                      int checksum) {
  block_shape b;
  hm_context *ctx;
  HM_CALL(shape_of(v, &b));
  HM_CALL(hm_mvec_context(v, &ctx));
  double *buf = host_copy(&b);
  HM_CHECK(buf, HM_ERR_MEMORY, "could not allocate a copy of the %lld local rows of %s", (long long)b.local, name);
  int st = hm_mvec_get(v, buf);
  if (!st)
    st = (checksum ? hm_h5_write_rows_checksum : hm_h5_write_rows)(ctx, loc, name, b.n_global, b.first, b.local, b.k,
                                                                  (int)b.type, buf, unit, description);
  free(buf);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_h5_write_mvec(hid_t loc, const char *name, const hm_mvec *v, const char *unit, const char *description) {
  HM_CALL(write_mvec(loc, name, v, unit, description, 0));
  return HM_SUCCESS;
}

int hm_h5_write_mvec_checksum(hid_t loc, const char *name, const hm_mvec *v, const char *unit,
                              const char *description) {
  HM_CALL(write_mvec(loc, name, v, unit, description, 1));
  return HM_SUCCESS;
}

int hm_h5_read_mvec(hid_t loc, const char *name, hm_mvec *v) {
  block_shape b;
  hm_context *ctx;
  HM_CALL(shape_of(v, &b));
  HM_CALL(hm_mvec_context(v, &ctx));
  double *buf = host_copy(&b);
  HM_CHECK(buf, HM_ERR_MEMORY, "could not allocate %lld local rows for %s", (long long)b.local, name);
  int st = hm_h5_read_rows(loc, name, b.n_global, b.first, b.local, b.k, (int)b.type, buf);
  if (!st) st = hm_mvec_set(v, buf);
  st = hm_h5_agree(ctx, st, name); /* a read that failed on one rank fails on all, before the next collective */
  free(buf);
  HM_CALL(st);
  return HM_SUCCESS;
}
