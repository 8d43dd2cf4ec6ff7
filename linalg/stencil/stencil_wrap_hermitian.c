/* The Hermitian defect of a matrix-free lattice without assembling it. hm_stencil_model_make checked
 * the blocks (H(-R) = H(R)^dagger, Peierls gradients opposite), which makes every hop that stays
 * inside the box Hermitian with its partner, and twists always are (e^(i theta w) against
 * e^(-i theta w)). What is left are the Peierls phases of the hops that wrap: the caller's
 * wrap_phase terms may break the pairing there. So each rank visits its sites within hopping range
 * of a face, and for each hop that wraps compares it with its partner hop back (block -R, entry
 * (j, i), wraps -w) as matrix_hermitian.c compares a_ij with conj(a_ji); the worst pair of all
 * ranks, ties to the smaller (row, col), fills the matrix's defect, so KPM, LOBPCG and the dense
 * solvers refuse it with the assembled path's message. */
#include <complex.h>
#include <math.h>
#include "error_macros.h"
#include "hermitian_worst.h"
#include "stencil_free.h"
#include "stencil_internal.h"

/* Block b's entry (i, j) hopping from cell c with wraps w: amplitude, twist, Peierls phase. */
static double complex hop_value(const hm_stencil_exec *E, int b, int i, int j, const int64_t c[3],
                                const int64_t w[3]) {
  const int o = E->orbitals;
  const double *a = E->block + 2 * (((size_t)b * o + i) * o + j);
  double angle = 0;
  for (int x = 0; x < 3; x++)
    if (w[x] != 0 && E->boundary[x] == HM_BC_TWISTED) angle += E->twist[x] * (double)w[x];
  const double turns = hm_stencil_peierls_turns(E, b, i, j, c, w);
  return CMPLX(a[0], a[1]) * cexp(I * angle) * cexp(I * 6.283185307179586 * turns);
}

/* The wrapping hops of the site at cell c against their partners. */
static void check_site(const hm_stencil_exec *E, const int *partner, const int64_t c[3], hm_hermitian_worst *w) {
  const int o = E->orbitals;
  const int64_t site = c[0] + E->cells[0] * (c[1] + E->cells[1] * c[2]);
  if (hm_stencil_vacant(E, site)) return; /* a vacant site's row and column are zero */
  for (int b = 0; b < E->nblocks; b++) {
    const int32_t *R = E->shift + 3 * b;
    int64_t t[3], wraps[3], back[3];
    int wrapped = 0, dropped = 0;
    for (int a = 0; a < 3; a++) {
      const int64_t u = c[a] + R[a];
      wraps[a] = (u >= 0 && u < E->cells[a]) ? 0 : hm_stencil_floor_div(u, E->cells[a]);
      t[a] = u - wraps[a] * E->cells[a];
      back[a] = -wraps[a];
      wrapped |= wraps[a] != 0;
      dropped |= wraps[a] != 0 && E->boundary[a] == HM_BC_OPEN;
    }
    if (!wrapped || dropped) continue;
    const int64_t target = t[0] + E->cells[0] * (t[1] + E->cells[1] * t[2]);
    if (hm_stencil_vacant(E, target)) continue;
    const int q = partner[b];
    for (int i = 0; i < o; i++)
      for (int j = 0; j < o; j++) {
        const double complex there = hop_value(E, b, i, j, c, wraps);
        const double complex back_hop = q >= 0 ? hop_value(E, q, j, i, t, back) : 0;
        hm_hermitian_keep_worse(w, cabs(there - conj(back_hop)), site * o + i, target * o + j);
      }
  }
}

static int near_face(const hm_stencil_exec *E, const int64_t *reach, int a, int64_t x) {
  return x < reach[a] || x >= E->cells[a] - reach[a];
}

int hm_stencil_wrap_defect(struct hm_matrix_s *M) {
  const struct hm_stencil_part *P = M->stencil;
  const hm_stencil *s = &P->host;
  hm_stencil_exec E = P->exec; /* stencil_exec.h's arithmetic on the host copies */
  E.shift = s->shift;
  E.block = s->block;
  E.peierls = s->peierls;
  E.wrap_phase = s->wrap_phase;
  E.slab_row = P->slab_row;
  hm_hermitian_worst w = {0, 0, 0};
  if (E.has_peierls) {
    int *partner = NULL;
    HM_MALLOC(partner, (size_t)E.nblocks);
    int64_t reach[3] = {0, 0, 0}; /* the longest hop along each axis */
    for (int b = 0; b < E.nblocks; b++) {
      const int32_t *R = E.shift + 3 * b;
      partner[b] = -1;
      for (int q = 0; q < E.nblocks; q++)
        if (E.shift[3 * q] == -R[0] && E.shift[3 * q + 1] == -R[1] && E.shift[3 * q + 2] == -R[2]) partner[b] = q;
      for (int a = 0; a < 3; a++) reach[a] = llabs((long long)R[a]) > reach[a] ? llabs((long long)R[a]) : reach[a];
    }
    int above = 0; /* a hop along an axis of one cell above the slabs: every site wraps */
    for (int a = E.slow + 1; a < 3; a++) above |= reach[a] > 0;
    const int64_t p0 = E.slow > 0 ? E.cells[0] : 1, p1 = E.slow > 1 ? E.cells[1] : 1;
    const int64_t rx = E.slow > 0 ? reach[0] : 0;
    for (int64_t l = 0; l < E.local_slabs; l++) {
      const int slab_near = above || near_face(&E, reach, E.slow, E.first_slab + l);
      for (int64_t y = 0; y < p1; y++) {
        const int row_near = slab_near || (E.slow == 2 && near_face(&E, reach, 1, y));
        for (int64_t x = 0; x < p0; x++) {
          if (!row_near && x == rx && p0 - rx > x) x = p0 - rx; /* skip the row's middle */
          if (x >= p0) break;
          int64_t c[3];
          hm_stencil_cell(&E, l, y * p0 + x, c);
          if (row_near || near_face(&E, reach, 0, x)) check_site(&E, partner, c, &w);
        }
      }
    }
    free(partner);
  }
  const int P_ranks = M->ctx->size;
  double mine[3] = {w.defect, (double)w.row, (double)w.col}, *all = NULL;
  HM_MALLOC(all, 3 * (size_t)P_ranks);
  const int st = MPI_Allgather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, M->ctx->comm);
  if (st) {
    free(all);
    HM_RAISE(HM_ERR_MPI, "MPI error %d gathering the wrapped hops' Hermitian defect", st);
  }
  hm_hermitian_worst g = {0, 0, 0};
  for (int r = 0; r < P_ranks; r++) hm_hermitian_keep_worse(&g, all[3 * r], (int64_t)all[3 * r + 1], (int64_t)all[3 * r + 2]);
  free(all);
  M->hermitian_defect = g.defect;
  M->defect_row = g.row;
  M->defect_col = g.col;
  return HM_SUCCESS;
}
