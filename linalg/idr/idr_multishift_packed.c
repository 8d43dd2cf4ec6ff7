/* The layout of multi-shift IDR(s)'s K-wide blocks (x and the s directions dX). The blocks are
 * row-major with a row's K systems side by side, so a converged system left in place still costs
 * its bytes in every row piece the fused update streams (in 32-byte sectors shared with its
 * neighbours). So the systems that still move sit packed in the first npacked columns of every
 * block, in ascending order: the update (idr_shift_update) is one contiguous pass over them. A
 * system that stops stays packed, with zero coefficients, until at least 1/32 of the packed ones
 * have stopped; then (at the end of an outer iteration) their x go to the caller's block and the
 * rest move down. A move costs about (s + 1) reads and writes of the columns behind the first gap,
 * a stopped system s + 3 per step: repacking at 1/32 keeps both to a few percent of a step's
 * traffic (the stops are spread over the run: 808 in 2634 steps in session 30's case). Callers see
 * every system in its own column: unpack restores that before a checkpoint, a stop and the end. */
#include "error_macros.h"
#include "idr_multishift_internal.h"

enum { REPACK_FRACTION = 32 };

void hm_idr_multishift_unpacked(hm_idr_multishift *o) {
  o->npacked = o->K;
  for (int c = 0; c < o->K; c++) o->cols[c] = o->at[c] = c;
}

static int moving(const hm_idr_multishift *o, int c) {
  return o->state[c] == MS_RUNNING || o->state[c] == MS_CLAIMED;
}

/* Columns [from, from + len) of X to [to, to + len), to < from, in pieces that do not overlap (a
 * piece's source is read before a later piece writes over it, as the pieces go up). */
static int move_down(hm_mvec *X, int from, int to, int len) {
  while (len > 0) {
    const int piece = len < from - to ? len : from - to;
    HM_CALL(hm_mvec_copy_columns(X, from, X, to, piece));
    from += piece;
    to += piece;
    len -= piece;
  }
  return HM_SUCCESS;
}

int hm_idr_multishift_repack(hm_idr_multishift *o) {
  int stopped = 0;
  for (int p = 0; p < o->npacked; p++) stopped += !moving(o, o->cols[p]);
  if (stopped == 0 || (long)stopped * REPACK_FRACTION < o->npacked) return HM_SUCCESS;
  for (int p = 0; p < o->npacked; p++) {
    const int c = o->cols[p];
    if (moving(o, c)) continue;
    HM_CALL(hm_mvec_copy_columns(o->x, p, o->xout, c, 1));
    o->at[c] = -1;
  }
  int to = 0;
  for (int p = 0; p < o->npacked;) { /* runs of moving systems in consecutive columns */
    if (!moving(o, o->cols[p])) {
      p++;
      continue;
    }
    int len = 1;
    while (p + len < o->npacked && moving(o, o->cols[p + len])) len++;
    if (to < p) {
      HM_CALL(move_down(o->x, p, to, len));
      for (int l = 0; l < o->s; l++) HM_CALL(move_down(o->dX[l], p, to, len));
    }
    for (int i = 0; i < len; i++) {
      o->cols[to + i] = o->cols[p + i];
      o->at[o->cols[to + i]] = to + i;
    }
    to += len;
    p += len;
  }
  o->npacked = to;
  return HM_SUCCESS;
}

int hm_idr_multishift_unpack(hm_idr_multishift *o) {
  if (o->npacked == o->K) return HM_SUCCESS;
  /* going down: system cols[p] >= p moves up to its own column, which holds a system already moved */
  hm_mvec *blocks[65];
  blocks[0] = o->x;
  for (int l = 0; l < o->s; l++) blocks[l + 1] = o->dX[l];
  for (int p = o->npacked - 1; p >= 0; p--) {
    const int c = o->cols[p];
    if (c == p) continue;
    for (int i = 0; i <= o->s; i++) HM_CALL(hm_mvec_copy_columns(blocks[i], p, blocks[i], c, 1));
  }
  for (int c = 0; c < o->K; c++)
    if (o->at[c] < 0) HM_CALL(hm_mvec_copy_columns(o->xout, c, o->x, c, 1));
  hm_idr_multishift_unpacked(o);
  return HM_SUCCESS;
}
