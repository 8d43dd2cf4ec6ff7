/* LOBPCG's block helpers: views of narrower width, operator calls on views, Gram blocks and
 * block updates with the small matrices in LAPACK's column-major complex form. */
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "lobpcg_internal.h"
#include "lobpcg_small.h"
#include "mvec_block.h"

struct hm_mvec_s hm_lobpcg_view(const hm_mvec *owner, int k) {
  struct hm_mvec_s v = *owner;
  v.k = k;
  return v;
}

/* After an operator call on a k-column view: if the callee regrew the view's buffer (room for a
 * matrix's halo; the owner's old buffer is then released), the owner takes a buffer of its own
 * width with that room and the view's k-column content. Later views inherit the room. */
static int adopt(hm_mvec *owner, struct hm_mvec_s *v, int k) {
  if (v->data == owner->data) return HM_SUCCESS;
  const hm_kernels *K = owner->ctx->kernels;
  const size_t row = (size_t)owner->k * (size_t)owner->type * sizeof(double);
  double *p;
  int st = K->alloc((size_t)(owner->dist.local + v->halo_capacity) * row, (void **)&p);
  if (!st) st = K->copy(p, v->data, (size_t)owner->dist.local * (size_t)k * (size_t)owner->type * sizeof(double));
  K->release(v->data);
  owner->data = st ? NULL : p;
  owner->halo_capacity = st ? 0 : v->halo_capacity;
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_lobpcg_apply(hm_operator *op, hm_mvec *x, int k, hm_mvec *y) {
  if (k == 0) return HM_SUCCESS;
  struct hm_mvec_s xv = hm_lobpcg_view(x, k), yv = hm_lobpcg_view(y, k);
  int st = hm_operator_apply(op, &xv, &yv);
  int sx = adopt(x, &xv, k), sy = adopt(y, &yv, k);
  HM_CALL(st);
  HM_CALL(sx);
  HM_CALL(sy);
  return HM_SUCCESS;
}

/* G at (r0, c0) = the first rows x cols of X^H Y[:, y0 : y0 + ny]. */
static int gram_block(const hm_lobpcg *L, const hm_mvec *X, const hm_mvec *Y, int y0, int ny, double complex *G,
                      int ld, int r0, int c0, int rows, int cols) {
  if (rows == 0 || cols == 0) return HM_SUCCESS;
  double *g;
  double complex *full;
  HM_MALLOC(g, (size_t)X->k * ny * L->type);
  full = malloc(sizeof *full * (size_t)X->k * ny);
  int st = full ? hm_mvec_gram_columns(X, Y, y0, ny, g)
                : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "no memory for a Gram block");
  if (!st) {
    hm_lobpcg_unpack(L->type, X->k, ny, g, full, X->k);
    for (int c = 0; c < cols; c++)
      for (int r = 0; r < rows; r++) G[(r0 + r) + (size_t)(c0 + c) * ld] = full[r + (size_t)c * X->k];
  }
  free(full);
  free(g);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_lobpcg_gram(const hm_lobpcg *L, const hm_mvec *X, const hm_mvec *Y, double complex *G, int ld, int r0, int c0,
                   int rows, int cols) {
  HM_CALL(gram_block(L, X, Y, 0, Y->k, G, ld, r0, c0, rows, cols));
  return HM_SUCCESS;
}

int hm_lobpcg_gram_columns(const hm_lobpcg *L, const hm_mvec *X, const hm_mvec *Y, int y0, double complex *G, int ld,
                           int r0, int c0, int rows, int cols) {
  HM_CALL(gram_block(L, X, Y, y0, cols, G, ld, r0, c0, rows, cols));
  return HM_SUCCESS;
}

int hm_lobpcg_update(const hm_lobpcg *L, hm_mvec *Y, double beta, const hm_mvec *X, const double complex *M, int ld,
                     int r0, int rows, double sign) {
  if (X->k == 0 || Y->k == 0) return HM_SUCCESS;
  double *c;
  HM_MALLOC(c, (size_t)X->k * Y->k * L->type);
  for (int j = 0; j < Y->k; j++)
    for (int i = 0; i < rows; i++) {
      double complex v = sign * M[(r0 + i) + (size_t)j * ld];
      size_t at = ((size_t)i * Y->k + j) * L->type;
      c[at] = creal(v);
      if (L->type == HM_COMPLEX) c[at + 1] = cimag(v);
    }
  double b[2] = {beta, 0};
  int st = hm_mvec_update(Y, b, X, c);
  free(c);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_lobpcg_zero(const hm_lobpcg *L, hm_mvec *v) {
  double *z;
  HM_MALLOC(z, (size_t)v->k * L->type);
  int st = hm_mvec_axpby(v, z, v, z);
  free(z);
  HM_CALL(st);
  return HM_SUCCESS;
}

void hm_lobpcg_alias_b(hm_lobpcg *L) {
  if (L->B) return;
  L->BXP = L->XP;
  L->BXP2 = L->XP2;
  L->BW = L->W;
}

void hm_lobpcg_swap(hm_mvec **a, hm_mvec **b) {
  hm_mvec *t = *a;
  *a = *b;
  *b = t;
}
