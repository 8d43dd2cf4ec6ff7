/* Stage 1 of the distributed eigensolver (dense_distributed.h): A <- Q^H A Q panel by panel, Q = I -
 * V T V^H from the QR of the b columns below the band. With X = A V, Y = X T and M = T^H V^H Y
 * (Hermitian), Q^H A Q = A - V W^H - W V^H for W = Y - V M / 2: one product of the trailing columns
 * with V (summed over the ranks) and two rank-b updates of each rank's own columns, all on the ranks'
 * sides (dense_exec.h); only the panel's T, its band entries and the MPI traffic pass the host. */
#include <string.h>
#include "dense_distributed.h"
#include "dense_internal.h"
#include "error_macros.h"

/* The panels: column block k for k = 0 .. panels - 1 has rows below the band. */
static int64_t panel_count(int64_t n, int b) { return n > b ? (n - 1) / b : 0; }

/* The band entries of column block [c0, c0 + width) from blk (host; rows c0 .. c0 + width + kb, leading
 * dimension ld scalars): the diagonal block's lower triangle and, below it, R of the panel's QR. */
static void band_of_block(const hm_dense_columns *c, const double *blk, int64_t ld, int64_t c0, int64_t width,
                          int64_t kb, double *band) {
  const int s = (int)c->type, b = c->b;
  for (int64_t q = 0; q < width; q++) {
    const int64_t col = c0 + q;
    const double *a = blk + s * q * ld - s * c0; /* a[s * row] = A(row, col) */
    for (int64_t row = col; row < c0 + width; row++)
      for (int k = 0; k < s; k++) band[s * ((row - col) + (b + 1) * col) + k] = a[s * row + k];
    for (int64_t p = 0; p <= q && p < kb; p++) /* R(p, q) at row c0 + b + p */
      for (int k = 0; k < s; k++) band[s * ((b + p - q) + (b + 1) * col) + k] = a[s * (c0 + b + p) + k];
  }
}

/* The owner's band entries of the block at c0: its rows c0 .. c0 + width + kb come to the host first. */
static int band_from_owner(const hm_dense_columns *c, const double *aloc, int64_t c0, int64_t width, int64_t kb,
                           double *blk, double *band) {
  const int s = (int)c->type;
  const int64_t rows = width + kb, l = hm_dense_local_of(c0, c->b, c->P);
  HM_CALL(hm_dense_x_copy_block(&c->x, 'D', blk, s * rows, aloc + s * (l * c->n + c0), s * c->n, s * rows, width));
  band_of_block(c, blk, rows, c0, width, kb, band);
  return HM_SUCCESS;
}

/* Every rank's buffers of one panel step; on x's side unless named host. */
typedef struct {
  double *v, *vl, *x, *y, *w, *wl, *small, *t;
  double *stage, *t_host, *blk; /* host */
} panel_buffers;

static void panel_buffers_free(const hm_dense_exec *x, panel_buffers *p) {
  double *side[] = {p->v, p->vl, p->x, p->y, p->w, p->wl, p->small, p->t};
  for (size_t i = 0; i < sizeof side / sizeof *side; i++) hm_dense_x_free(x, side[i]);
  free(p->stage); free(p->t_host); free(p->blk);
}

static int panel_buffers_alloc(const hm_dense_columns *c, panel_buffers *p) {
  const int s = (int)c->type, b = c->b;
  const int64_t mmax = c->n - b > 0 ? c->n - b : 1, mb = s * mmax * b, lb = s * (c->nloc + 1) * b;
  const hm_dense_exec *x = &c->x;
  HM_CALL(hm_dense_x_alloc(x, &p->v, mb));
  HM_CALL(hm_dense_x_alloc(x, &p->vl, lb));
  HM_CALL(hm_dense_x_alloc(x, &p->x, mb));
  HM_CALL(hm_dense_x_alloc(x, &p->y, mb));
  HM_CALL(hm_dense_x_alloc(x, &p->w, mb));
  HM_CALL(hm_dense_x_alloc(x, &p->wl, lb));
  HM_CALL(hm_dense_x_alloc(x, &p->small, s * 2 * b * b));
  HM_CALL(hm_dense_x_alloc(x, &p->t, s * b * b));
  HM_MALLOC(p->stage, c->x.device >= 0 ? mb : 1);
  HM_MALLOC(p->t_host, s * b * b);
  HM_MALLOC(p->blk, s * 2 * b * b);
  return HM_SUCCESS;
}

/* One panel's two-sided update of this rank's trailing columns, V and T known on every rank. */
static int update_trailing(const hm_dense_columns *c, double *aloc, int64_t r0, int64_t m, int64_t kb,
                           panel_buffers *p) {
  const hm_dense_exec *x = &c->x;
  const hm_scalar type = c->type;
  const int s = (int)type;
  /* X = A V over the trailing columns, each rank its own, summed. */
  const int64_t l0 = hm_dense_first_local_at(c, r0), nlt = c->nloc - l0;
  double *a22 = aloc + s * (l0 * c->n + r0);
  HM_CALL(hm_dense_x_rows_at_columns(x, type, c->b, c->rank, c->P, l0, nlt, p->v, m, r0, kb, p->vl));
  HM_CALL(hm_dense_x_gemm(x, type, 'N', 'N', m, kb, nlt, 1, a22, c->n, p->vl, nlt, 0, p->x, m));
  HM_CALL(hm_dense_x_sum(x, c->comm, p->x, p->stage, s * m * kb));
  /* Y = X T, M = T^H (V^H Y), W = Y - V M / 2: on every rank alike. */
  double *vy = p->small, *mm = p->small + s * kb * kb;
  HM_CALL(hm_dense_x_gemm(x, type, 'N', 'N', m, kb, kb, 1, p->x, m, p->t, kb, 0, p->y, m));
  HM_CALL(hm_dense_x_gemm(x, type, 'C', 'N', kb, kb, m, 1, p->v, m, p->y, m, 0, vy, kb));
  HM_CALL(hm_dense_x_gemm(x, type, 'C', 'N', kb, kb, kb, 1, p->t, kb, vy, kb, 0, mm, kb));
  HM_CALL(hm_dense_x_copy(x, 'S', p->w, p->y, s * m * kb));
  HM_CALL(hm_dense_x_gemm(x, type, 'N', 'N', m, kb, kb, -0.5, p->v, m, mm, kb, 1, p->w, m));
  HM_CALL(hm_dense_x_rows_at_columns(x, type, c->b, c->rank, c->P, l0, nlt, p->w, m, r0, kb, p->wl));
  /* A22 -= V Wl^H + W Vl^H on this rank's trailing columns. */
  HM_CALL(hm_dense_x_gemm(x, type, 'N', 'C', m, nlt, kb, -1, p->v, m, p->wl, nlt, 1, a22, c->n));
  return hm_dense_x_gemm(x, type, 'N', 'C', m, nlt, kb, -1, p->w, m, p->vl, nlt, 1, a22, c->n);
}

int hm_dense_band_reduce(const hm_dense_columns *c, double *aloc, double **tpanels, double *band) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, panels = panel_count(n, b);
  memset(band, 0, sizeof(double) * (size_t)(s * (b + 1) * n));
  double *t = NULL;
  HM_MALLOC(t, s * b * b * (panels / c->P + 1) + 1);
  *tpanels = t;
  panel_buffers p = {0};
  int st = hm_dense_agree(c->comm, panel_buffers_alloc(c, &p));
  for (int64_t k = 0; k < panels && !st; k++) {
    const int64_t c0 = k * b, r0 = c0 + b, m = n - r0, kb = m < b ? m : b;
    const int owner = hm_dense_owner_of(c0, b, c->P);
    int info = 0;
    if (owner == c->rank) {
      double *panel = aloc + s * (hm_dense_local_of(c0, b, c->P) * n + r0);
      st = hm_dense_x_panel_qr(&c->x, c->type, m, b, panel, n, p.v, p.t_host, &info);
      if (!st && !info) st = band_from_owner(c, aloc, c0, b, kb, p.blk, band);
      if (!st) memcpy(t + s * b * b * (k / c->P), p.t_host, sizeof(double) * (size_t)(s * kb * kb));
    }
    int worst[2] = {st, info}; /* every rank stops alike */
    HM_CALL_MPI(MPI_Bcast(worst, 2, MPI_INT, owner, c->comm));
    if (st || worst[0]) {
      st = st ? st : hm_error_raise(worst[0], __FILE__, __LINE__, __func__, "panel %lld failed on rank %d", (long long)k, owner);
      break;
    }
    if (worst[1]) {
      st = hm_error_raise(HM_ERR_LAPACK, __FILE__, __LINE__, __func__, "QR of panel %lld: info %d", (long long)k, worst[1]);
      break;
    }
    HM_CALL_GOTO(st, done, hm_dense_x_bcast(&c->x, c->comm, owner, p.v, p.stage, s * m * kb));
    HM_CALL_MPI(MPI_Bcast(p.t_host, (int)(s * kb * kb), MPI_DOUBLE, owner, c->comm));
    HM_CALL_GOTO(st, done, hm_dense_x_copy(&c->x, 'U', p.t, p.t_host, s * kb * kb));
    HM_CALL_GOTO(st, done, update_trailing(c, aloc, r0, m, kb, &p));
  }
  const int64_t last = panels * b; /* the last diagonal block has no panel below it */
  if (!st) {
    const int mine = n > 0 && hm_dense_owner_of(last, b, c->P) == c->rank;
    st = hm_dense_agree(c->comm, mine ? band_from_owner(c, aloc, last, n - last, 0, p.blk, band) : HM_SUCCESS);
  }
  if (!st && MPI_Allreduce(MPI_IN_PLACE, band, (int)(s * (b + 1) * n), MPI_DOUBLE, MPI_SUM, c->comm) != MPI_SUCCESS)
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Allreduce of the band failed");
done:
  panel_buffers_free(&c->x, &p);
  return st;
}

int hm_dense_band_back(const hm_dense_columns *c, const double *aloc, const double *tpanels, int64_t ncols, double *z) {
  const int s = (int)c->type, b = c->b;
  const int64_t n = c->n, panels = panel_count(n, b);
  if (!panels) return HM_SUCCESS;
  const hm_dense_exec *x = &c->x;
  double *v = NULL, *t = NULL, *work = NULL, *work2 = NULL, *stage = NULL, *t_host = NULL;
  int st = hm_dense_x_alloc(x, &v, s * (n - b) * b);
  if (!st) st = hm_dense_x_alloc(x, &t, s * b * b);
  if (!st) st = hm_dense_x_alloc(x, &work, s * b * (ncols + 1));
  if (!st) st = hm_dense_x_alloc(x, &work2, s * b * (ncols + 1));
  stage = malloc(sizeof(double) * (size_t)(x->device >= 0 ? s * (n - b) * b : 1));
  t_host = malloc(sizeof(double) * (size_t)(s * b * b));
  if (!st && (!stage || !t_host))
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the panels' host staging");
  HM_CALL_GOTO(st, done, hm_dense_agree(c->comm, st));
  for (int64_t k = panels - 1; k >= 0 && !st; k--) {
    const int64_t c0 = k * b, r0 = c0 + b, m = n - r0, kb = m < b ? m : b;
    const int owner = hm_dense_owner_of(c0, b, c->P);
    int mine = HM_SUCCESS;
    if (owner == c->rank) {
      mine = hm_dense_x_unit_lower(x, c->type, m, kb, aloc + s * (hm_dense_local_of(c0, b, c->P) * n + r0), n, v);
      memcpy(t_host, tpanels + s * b * b * (k / c->P), sizeof(double) * (size_t)(s * kb * kb));
    }
    HM_CALL_MPI(MPI_Bcast(&mine, 1, MPI_INT, owner, c->comm));
    if (mine) {
      st = owner == c->rank ? mine : hm_error_raise(mine, __FILE__, __LINE__, __func__, "failed on rank %d", owner);
      break;
    }
    HM_CALL_GOTO(st, done, hm_dense_x_bcast(x, c->comm, owner, v, stage, s * m * kb));
    HM_CALL_MPI(MPI_Bcast(t_host, (int)(s * kb * kb), MPI_DOUBLE, owner, c->comm));
    HM_CALL_GOTO(st, done, hm_dense_x_copy(x, 'U', t, t_host, s * kb * kb));
    if (ncols) st = hm_dense_x_apply_block_reflector(x, c->type, m, ncols, kb, v, m, t, kb, z + s * r0, n, work, work2);
  }
done:
  hm_dense_x_free(x, v); hm_dense_x_free(x, t); hm_dense_x_free(x, work); hm_dense_x_free(x, work2);
  free(stage); free(t_host);
  return st;
}
