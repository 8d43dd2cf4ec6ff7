/* Distributed blocks in HDF5: every rank its rows of a [N][k] (complex: [N][k][2]) dataset, the
 * block's data fetched through the mvec API (it may live on a device). */
#include <stdlib.h>
#include "h5util.h"
#include "objects.h"

static double *host_copy(const hm_mvec *v) {
  return malloc(sizeof(double) * ((size_t)v->dist.local * (size_t)v->k * (size_t)v->type + 1));
}

static int write_mvec(hid_t loc, const char *name, const hm_mvec *v, const char *unit, const char *description,
                      int checksum) {
  double *buf = host_copy(v);
  HM_CHECK(buf, HM_ERR_MEMORY, "could not allocate a copy of the %lld local rows of %s", (long long)v->dist.local,
           name);
  int st = hm_mvec_get(v, buf);
  if (!st)
    st = (checksum ? hm_h5_write_rows_checksum : hm_h5_write_rows)(v->ctx, loc, name, v->dist.n_global, v->dist.first,
                                                                  v->dist.local, v->k, (int)v->type, buf, unit,
                                                                  description);
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
  double *buf = host_copy(v);
  HM_CHECK(buf, HM_ERR_MEMORY, "could not allocate %lld local rows for %s", (long long)v->dist.local, name);
  int st = hm_h5_read_rows(loc, name, v->dist.n_global, v->dist.first, v->dist.local, v->k, (int)v->type, buf);
  if (!st) st = hm_mvec_set(v, buf);
  st = hm_h5_agree(v->ctx, st, name); /* a read that failed on one rank fails on all, before the next collective */
  free(buf);
  HM_CALL(st);
  return HM_SUCCESS;
}
