/* The layout of multi-shift IDR(s)'s blocks of shifted systems (x and the s directions dX). The
 * blocks are row-major with a row's systems side by side, so a converged system left in place still
 * costs its bytes in every row piece the fused update streams, and a block narrowed only in the
 * columns it touches is not one stream (H200: the update over 628 of 808 columns ran at
 * 81% of the copy bandwidth, over all 808 at 95%). So x and every dX hold only the packed systems,
 * npacked columns wide, in ascending order: the update (idr_shift_update) streams exactly them. A
 * system that stops stays packed, with zero coefficients, until at least 1/REPACK_FRACTION of the
 * packed ones have stopped; then (at the end of an outer iteration) their x go to the caller's block
 * and every block is copied into a narrower one. A repack moves each kept column once per block
 * ((s + 1) reads and writes), a stopped system costs s + 3 per step: repacking at 1/16 keeps both
 * to a few percent of a step's traffic (the stops are spread over the run: 808 in 2634 steps in
 * the TI benchmark's case). Callers see every system in its own column of K-wide blocks: unpack restores
 * that before a checkpoint, a stop and the end. */
#include "error_macros.h"
#include "idr_multishift_internal.h"

enum { REPACK_FRACTION = 16 };

void hm_idr_multishift_unpacked(hm_idr_multishift *o) {
  o->npacked = o->K;
  for (int c = 0; c < o->K; c++) o->cols[c] = o->at[c] = c;
}

static int moving(const hm_idr_multishift *o, int c) {
  return o->state[c] == MS_RUNNING || o->state[c] == MS_CLAIMED;
}

/* Entry i of a column map, NULL standing for i itself. */
static int column(const int *map, int i) { return map ? map[i] : i; }

/* *B replaced by a block of `width` columns holding, for i < n, its column from[i] in column to[i]
 * (either map NULL: i; runs of consecutive columns in one copy each); the new block's other columns
 * are zero. */
static int rebuild(hm_idr_multishift *o, hm_mvec **B, int width, int n, const int *from, const int *to) {
  hm_mvec *nb = NULL;
  HM_CALL(hm_mvec_create(o->base->ctx, o->base->dist, HM_COMPLEX, width, &nb));
  int st = HM_SUCCESS;
  for (int i = 0; i < n && !st;) {
    const int f = column(from, i), t = column(to, i);
    int len = 1;
    while (i + len < n && column(from, i + len) == f + len && column(to, i + len) == t + len) len++;
    st = hm_mvec_copy_columns(*B, f, nb, t, len);
    i += len;
  }
  if (st) {
    hm_mvec_destroy(&nb);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  hm_mvec_destroy(B);
  *B = nb;
  return HM_SUCCESS;
}

int hm_idr_multishift_repack(hm_idr_multishift *o) {
  int stopped = 0;
  for (int p = 0; p < o->npacked; p++) stopped += !moving(o, o->cols[p]);
  if (stopped == 0 || (long)stopped * REPACK_FRACTION < o->npacked || stopped == o->npacked) return HM_SUCCESS;
  int *from = o->want, kept = 0; /* want: scratch here (confirm is done with it) */
  for (int p = 0; p < o->npacked; p++) {
    const int c = o->cols[p];
    if (moving(o, c)) {
      from[kept++] = p;
      continue;
    }
    HM_CALL(hm_mvec_copy_columns(o->x, p, o->xout, c, 1));
    o->at[c] = -1;
  }
  HM_CALL(rebuild(o, &o->x, kept, kept, from, NULL));
  for (int l = 0; l < o->s; l++) HM_CALL(rebuild(o, &o->dX[l], kept, kept, from, NULL));
  for (int i = 0; i < kept; i++) {
    o->cols[i] = o->cols[from[i]];
    o->at[o->cols[i]] = i;
  }
  o->npacked = kept;
  o->prof.repacks++;
  return HM_SUCCESS;
}

int hm_idr_multishift_unpack(hm_idr_multishift *o) {
  if (o->npacked == o->K) return HM_SUCCESS;
  HM_CALL(rebuild(o, &o->x, o->K, o->npacked, NULL, o->cols));
  for (int l = 0; l < o->s; l++) HM_CALL(rebuild(o, &o->dX[l], o->K, o->npacked, NULL, o->cols));
  for (int c = 0; c < o->K; c++) /* a packed-out system's x from the caller's block; its directions stay 0 */
    if (o->at[c] < 0) HM_CALL(hm_mvec_copy_columns(o->xout, c, o->x, c, 1));
  hm_idr_multishift_unpacked(o);
  return HM_SUCCESS;
}
