/* An in-place one-dimensional DCT of K doubles with FFTW (dos.c, projector_series.c): the buffer
 * and the plan made, or destroyed, inside the one critical section every hamlet FFTW planner call
 * shares, since FFTW's planner is not thread-safe. */
#ifndef HAMLET_KPM_DCT_H
#define HAMLET_KPM_DCT_H
#include <fftw3.h>
#include "error_macros.h"

typedef struct {
  double *buf; /* K doubles, transformed in place by hm_dct_execute */
  fftw_plan plan;
} hm_dct;

/* kind: FFTW_REDFT10 (DCT-II) or FFTW_REDFT01 (DCT-III); name: for the error message. */
static inline int hm_dct_create(int K, fftw_r2r_kind kind, const char *name, hm_dct *d) {
  d->plan = NULL;
  d->buf = fftw_malloc(sizeof(double) * (size_t)K);
  HM_CHECK(d->buf, HM_ERR_MEMORY, "could not allocate %d doubles for the DCT", K);
#pragma omp critical(hm_fftw_planner)
  d->plan = fftw_plan_r2r_1d(K, d->buf, d->buf, kind, FFTW_ESTIMATE);
  if (!d->plan) {
    fftw_free(d->buf);
    d->buf = NULL;
    HM_RAISE(HM_ERR_FFTW, "fftw_plan_r2r_1d(%d, %s) failed", K, name);
  }
  return HM_SUCCESS;
}

static inline void hm_dct_execute(hm_dct *d) { fftw_execute(d->plan); }

static inline void hm_dct_destroy(hm_dct *d) {
  if (d->plan) {
#pragma omp critical(hm_fftw_planner)
    fftw_destroy_plan(d->plan);
  }
  fftw_free(d->buf);
  d->plan = NULL;
  d->buf = NULL;
}
#endif
