/* The hm_stencil of a supercell of a lattice model: blocks (with the Zeeman term on the R = 0 block),
 * boundaries, twists, seeded disorder and vacancies; lattice_field.c adds the Peierls phases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "lattice_internal.h"
#include "lattice_field.h"

int hm_lattice_params_default(hm_lattice_params *p) {
  HM_CHECK(p, HM_ERR_ARGUMENT, "p is NULL");
  memset(p, 0, sizeof *p);
  p->cells[0] = p->cells[1] = p->cells[2] = 1;
  p->disorder_seed = p->vacancy_seed = 1;
  return HM_SUCCESS;
}

int hm_lattice_params_check(const hm_lattice *L, const hm_lattice_params *p) {
  HM_CHECK(L && p, HM_ERR_ARGUMENT, "L or p is NULL");
  static const char axis[3] = {'x', 'y', 'z'};
  for (int a = 0; a < 3; a++) {
    HM_CHECK(p->cells[a] >= 1, HM_ERR_ARGUMENT, "lattice cells n%c = %lld must be >= 1", axis[a], (long long)p->cells[a]);
    HM_CHECK(p->boundary[a] == HM_BC_PERIODIC || p->boundary[a] == HM_BC_OPEN || p->boundary[a] == HM_BC_TWISTED,
             HM_ERR_ARGUMENT, "lattice boundary in %c is %d: allowed are periodic, open and twisted", axis[a],
             p->boundary[a]);
    HM_CHECK(isfinite(p->twist[a]) && isfinite(p->zeeman[a]) && isfinite(p->field[a]), HM_ERR_ARGUMENT,
             "lattice twist, zeeman and field must be finite");
    HM_CHECK(p->twist[a] == 0 || p->boundary[a] == HM_BC_TWISTED, HM_ERR_DECK,
             "twist %c = %g needs boundary twisted in %c (it is %s there): twist applies to twisted directions only",
             axis[a], p->twist[a], axis[a], p->boundary[a] == HM_BC_OPEN ? "open" : "periodic");
  }
  HM_CHECK(p->cells[0] < (INT64_C(1) << 40) / p->cells[1] / p->cells[2] / L->orbitals, HM_ERR_ARGUMENT,
           "lattice %lld x %lld x %lld cells of %d orbitals is too large (below 2^40 rows)", (long long)p->cells[0],
           (long long)p->cells[1], (long long)p->cells[2], L->orbitals);
  HM_CHECK(isfinite(p->disorder_w) && p->disorder_w >= 0, HM_ERR_ARGUMENT,
           "lattice disorder_w = %g must be finite and >= 0", p->disorder_w);
  HM_CHECK(p->vacancy_p >= 0 && p->vacancy_p < 1, HM_ERR_DECK,
           "vacancies = %g is a probability: allowed are values in [0, 1)", p->vacancy_p);
  if (p->zeeman[0] != 0 || p->zeeman[1] != 0 || p->zeeman[2] != 0) {
    int up = 0, down = 0;
    for (int i = 0; i < L->orbitals; i++) {
      up += L->spin[i] == HM_LATTICE_SPIN_UP;
      down += L->spin[i] == HM_LATTICE_SPIN_DOWN;
    }
    HM_CHECK(up > 0 && up == down, HM_ERR_DECK,
             "zeeman needs orbitals labelled spin up and down in pairs (the k-th up with the k-th down); the model "
             "has %d up and %d down (hamlet's format labels them: 'orbital x y z up')", up, down);
  }
  return HM_SUCCESS;
}

/* B . sigma on the pairs (k-th up orbital, k-th down orbital) of the R = 0 block (block 0). */
static void add_zeeman(const hm_lattice *L, const double B[3], double complex *b0) {
  const int n = L->orbitals;
  int u = 0, d = 0;
  for (;;) {
    while (u < n && L->spin[u] != HM_LATTICE_SPIN_UP) u++;
    while (d < n && L->spin[d] != HM_LATTICE_SPIN_DOWN) d++;
    if (u == n || d == n) return;
    b0[u * n + u] += B[2];
    b0[d * n + d] -= B[2];
    b0[u * n + d] += B[0] - I * B[1];
    b0[d * n + u] += B[0] + I * B[1];
    u++;
    d++;
  }
}

void hm_lattice_stencil_free(hm_lattice_stencil *s) {
  if (!s) return;
  free(s->shift);
  free(s->block);
  free(s->peierls);
  free(s->wrap_phase);
  memset(s, 0, sizeof *s);
}

int hm_lattice_make_stencil(const hm_lattice *L, const hm_lattice_params *p, hm_lattice_stencil *s) {
  HM_CHECK(s, HM_ERR_ARGUMENT, "s is NULL");
  memset(s, 0, sizeof *s);
  HM_CALL(hm_lattice_params_check(L, p));
  const int n = L->orbitals, nb = L->nblocks;
  const size_t entries = (size_t)nb * (size_t)n * (size_t)n;
  s->shift = malloc(sizeof *s->shift * 3 * (size_t)nb);
  double complex *block = malloc(sizeof *block * entries);
  s->block = (double *)block;
  if (!s->shift || !block) {
    hm_lattice_stencil_free(s);
    HM_RAISE(HM_ERR_MEMORY, "cannot hold %d blocks of %d x %d", nb, n, n);
  }
  memcpy(s->shift, L->shift, sizeof *s->shift * 3 * (size_t)nb);
  memcpy(block, L->block, sizeof *block * entries);
  add_zeeman(L, p->zeeman, block);
  hm_stencil *st = &s->stencil;
  memset(st, 0, sizeof *st); /* hm_stencil_init's defaults, set below field by field */
  memcpy(st->cells, p->cells, sizeof st->cells);
  st->orbitals = n;
  st->nblocks = nb;
  st->shift = s->shift;
  st->block = s->block;
  memcpy(st->boundary, p->boundary, sizeof st->boundary);
  memcpy(st->twist, p->twist, sizeof st->twist);
  st->disorder_w = p->disorder_w;
  st->disorder_seed = p->disorder_seed;
  st->disorder_stream = HM_LATTICE_DISORDER_STREAM;
  st->disorder_per_site = 0;
  st->vacancy_p = p->vacancy_p;
  st->vacancy_seed = p->vacancy_seed;
  st->vacancy_stream = HM_LATTICE_VACANCY_STREAM;
  if (p->field[0] != 0 || p->field[1] != 0 || p->field[2] != 0) {
    int e = hm_lattice_field(L, p, s);
    if (e) {
      hm_lattice_stencil_free(s);
      return hm_error_trace(e, __FILE__, __LINE__, __func__);
    }
    st->peierls = s->peierls;
    st->wrap_phase = s->wrap_phase;
    st->block = s->block;
  }
  return HM_SUCCESS;
}
