/* hm_stencil: validation, the owned model, its slab distribution, and the public entry points. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "stencil_free.h"
#include "stencil_internal.h"

int hm_stencil_init(hm_stencil *s) {
  HM_CHECK(s, HM_ERR_ARGUMENT, "s is NULL");
  memset(s, 0, sizeof *s);
  s->cells[0] = s->cells[1] = s->cells[2] = 1;
  s->orbitals = 1;
  s->nblocks = 1;
  s->disorder_stream = 0x5354454e43494c31ULL; /* fixed defaults; callers reproducing a model set their own */
  s->vacancy_stream = 0x5354454e43494c32ULL;
  return HM_SUCCESS;
}

void hm_stencil_model_free(hm_stencil_model *m) {
  free(m->shift);
  free(m->block);
  free(m->peierls);
  free(m->wrap_phase);
  free(m->slab_row);
  memset(m, 0, sizeof *m);
}

static double complex entry(const hm_stencil_model *m, int b, int i, int j) {
  const int no = m->ex.orbitals;
  const double *e = m->block + 2 * (((size_t)b * no + i) * no + j);
  return CMPLX(e[0], e[1]);
}

/* The block with shift -R of block b, or -1. */
static int partner(const hm_stencil_model *m, int b) {
  const int32_t *r = m->shift + 3 * b;
  for (int q = 0; q < m->ex.nblocks; q++) {
    const int32_t *p = m->shift + 3 * q;
    if (p[0] == -r[0] && p[1] == -r[1] && p[2] == -r[2]) return q;
  }
  return -1;
}

/* H(-R) = H(R)^dagger block by block (-H(R)^dagger for an anti-Hermitian description). With a field
 * the entry's phase G . c is part of the hop: the partner's gradient is minus this one's and its
 * constant carries the G . R of the shift. */
static int check_hermitian(const hm_stencil_model *m, int antihermitian) {
  const double sign = antihermitian ? -1.0 : 1.0;
  const int no = m->ex.orbitals, nb = m->ex.nblocks;
  double largest = 0.0;
  for (size_t e = 0; e < (size_t)nb * no * no; e++) largest = fmax(largest, cabs(CMPLX(m->block[2 * e], m->block[2 * e + 1])));
  const double tol = 1e-12 * (largest > 0.0 ? largest : 1.0);
  for (int b = 0; b < nb; b++) {
    const int32_t *r = m->shift + 3 * b;
    const int q = partner(m, b);
    HM_CHECK(q >= 0, HM_ERR_ARGUMENT,
             "hopping block %d (R = %d %d %d) has no block with R = %d %d %d: give both (H(-R) = H(R)^dagger)", b,
             r[0], r[1], r[2], -r[0], -r[1], -r[2]);
    for (int i = 0; i < no; i++)
      for (int j = 0; j < no; j++) {
        double complex back = entry(m, q, j, i);
        if (m->peierls) {
          const double *g = m->peierls + 3 * (((size_t)b * no + i) * no + j);
          const double *gq = m->peierls + 3 * (((size_t)q * no + j) * no + i);
          for (int a = 0; a < 3; a++)
            HM_CHECK(fabs(g[a] + gq[a]) <= 1e-12 * (1.0 + fabs(g[a])), HM_ERR_ARGUMENT,
                     "Peierls gradient of block %d entry (%d, %d) is not minus that of block %d entry (%d, %d)", b, i, j,
                     q, j, i);
          back *= cexp(I * 6.283185307179586 * (gq[0] * r[0] + gq[1] * r[1] + gq[2] * r[2]));
        }
        const double defect = cabs(back - sign * conj(entry(m, b, i, j)));
        HM_CHECK(defect <= tol, HM_ERR_ARGUMENT,
                 "the %s: entry (%d, %d) of block %d (R = %d %d %d) and entry (%d, %d) of block %d (R = %d %d %d) "
                 "differ from %sconjugates by %.3g (allowed %.3g)",
                 antihermitian ? "anti-Hermitian description is not anti-Hermitian" : "Hamiltonian is not Hermitian",
                 i, j, b, r[0], r[1], r[2], j, i, q, -r[0], -r[1], -r[2], antihermitian ? "minus " : "", defect, tol);
      }
  }
  return HM_SUCCESS;
}

static int check_sizes(const hm_stencil *s) {
  static const char axis[3] = {'x', 'y', 'z'};
  HM_CHECK(s->orbitals >= 1 && s->orbitals <= 4096, HM_ERR_ARGUMENT, "orbitals = %d per cell: allowed 1 to 4096",
           s->orbitals);
  HM_CHECK(s->nblocks >= 1 && s->nblocks <= 100000, HM_ERR_ARGUMENT, "nblocks = %d: allowed 1 to 100000", s->nblocks);
  HM_CHECK(s->shift && s->block, HM_ERR_ARGUMENT, "shift or block is NULL");
  HM_CHECK(!s->peierls == !s->wrap_phase, HM_ERR_ARGUMENT, "peierls and wrap_phase must be given together");
  int64_t sites = 1;
  for (int a = 0; a < 3; a++) {
    HM_CHECK(s->cells[a] >= 1 && s->cells[a] <= (INT64_C(1) << 40), HM_ERR_ARGUMENT,
             "cells in %c = %lld: allowed 1 to 2^40", axis[a], (long long)s->cells[a]);
    HM_CHECK(s->boundary[a] == HM_BC_PERIODIC || s->boundary[a] == HM_BC_OPEN || s->boundary[a] == HM_BC_TWISTED,
             HM_ERR_ARGUMENT, "boundary in %c is %d: allowed periodic (0), open (1), twisted (2)", axis[a],
             s->boundary[a]);
    HM_CHECK(isfinite(s->twist[a]), HM_ERR_ARGUMENT, "twist in %c is not finite", axis[a]);
    HM_CHECK(sites <= INT64_MAX / s->cells[a] / s->orbitals, HM_ERR_ARGUMENT, "the lattice has more than 2^63 rows");
    sites *= s->cells[a];
  }
  HM_CHECK(isfinite(s->disorder_w) && s->disorder_w >= 0.0 && s->disorder_w <= 1e12, HM_ERR_ARGUMENT,
           "disorder_w = %g: allowed 0 to 1e12", s->disorder_w);
  HM_CHECK(s->vacancy_p >= 0.0 && s->vacancy_p < 1.0, HM_ERR_ARGUMENT, "vacancy probability %g: allowed [0, 1)",
           s->vacancy_p);
  const size_t nentries = (size_t)s->nblocks * (size_t)s->orbitals * (size_t)s->orbitals;
  for (size_t e = 0; e < 2 * nentries; e++)
    HM_CHECK(isfinite(s->block[e]) && fabs(s->block[e]) <= 1e150, HM_ERR_ARGUMENT,
             "block entry %zu is not finite or above 1e150 in size", e / 2);
  for (int b = 0; b < s->nblocks; b++)
    for (int a = 0; a < 3; a++) {
      const int32_t r = s->shift[3 * b + a];
      HM_CHECK(r > -(1 << 20) && r < (1 << 20), HM_ERR_ARGUMENT, "block %d: R in %c = %d: allowed |R| < 2^20", b,
               axis[a], (int)r);
      HM_CHECK(!s->peierls || s->boundary[a] == HM_BC_OPEN || (int64_t)(r < 0 ? -r : r) < s->cells[a],
               HM_ERR_ARGUMENT,
               "block %d: with a magnetic field every hop must be shorter than the supercell: |R_%c| = %d but %lld "
               "cells",
               b, axis[a], (int)r, (long long)s->cells[a]);
    }
  for (int b = 0; b < s->nblocks; b++)
    for (int q = 0; q < b; q++)
      HM_CHECK(memcmp(s->shift + 3 * b, s->shift + 3 * q, 3 * sizeof(int32_t)) != 0, HM_ERR_ARGUMENT,
               "blocks %d and %d have the same R = %d %d %d: give each R once", q, b, s->shift[3 * b],
               s->shift[3 * b + 1], s->shift[3 * b + 2]);
  return HM_SUCCESS;
}

static int copy_array(const void *src, size_t bytes, void **dst) {
  *dst = NULL;
  if (!src) return HM_SUCCESS;
  *dst = malloc(bytes);
  HM_CHECK(*dst, HM_ERR_MEMORY, "could not allocate %zu bytes for the lattice description", bytes);
  memcpy(*dst, src, bytes);
  return HM_SUCCESS;
}

int hm_stencil_model_make(const hm_stencil *s, hm_stencil_model *m) {
  HM_CHECK(s && m, HM_ERR_ARGUMENT, "s or m is NULL");
  memset(m, 0, sizeof *m);
  HM_CALL(check_sizes(s));
  hm_stencil_exec *ex = &m->ex;
  for (int a = 0; a < 3; a++) {
    ex->cells[a] = s->cells[a];
    ex->boundary[a] = s->boundary[a];
    ex->twist[a] = s->twist[a];
  }
  ex->orbitals = s->orbitals;
  ex->nblocks = s->nblocks;
  ex->disorder_w = s->disorder_w;
  ex->disorder_seed = s->disorder_seed;
  ex->disorder_stream = s->disorder_stream;
  ex->disorder_per_site = s->disorder_per_site != 0;
  ex->vacancy_p = s->vacancy_p;
  ex->vacancy_seed = s->vacancy_seed;
  ex->vacancy_stream = s->vacancy_stream;
  ex->has_peierls = s->peierls != NULL;
  ex->slow = s->cells[2] > 1 ? 2 : s->cells[1] > 1 ? 1 : 0;
  ex->slab_sites = 1;
  for (int a = 0; a < ex->slow; a++) ex->slab_sites *= s->cells[a];
  ex->first_slab = 0;
  ex->local_slabs = s->cells[ex->slow];
  const size_t nb = (size_t)s->nblocks, no = (size_t)s->orbitals;
  int st = copy_array(s->shift, sizeof(int32_t) * 3 * nb, (void **)&m->shift);
  if (!st) st = copy_array(s->block, sizeof(double) * 2 * nb * no * no, (void **)&m->block);
  if (!st) st = copy_array(s->peierls, sizeof(double) * 3 * nb * no * no, (void **)&m->peierls);
  if (!st) st = copy_array(s->wrap_phase, sizeof(double) * 12 * nb * no, (void **)&m->wrap_phase);
  if (!st) {
    m->slab_row = malloc(sizeof(int64_t) * (size_t)ex->local_slabs);
    if (!m->slab_row) st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the slab table");
  }
  if (!st) {
    for (int64_t g = 0; g < ex->local_slabs; g++) m->slab_row[g] = g * ex->slab_sites * ex->orbitals;
    ex->shift = m->shift;
    ex->block = m->block;
    ex->peierls = m->peierls;
    ex->wrap_phase = m->wrap_phase;
    ex->slab_row = m->slab_row;
    st = check_hermitian(m, s->antihermitian);
  }
  if (st) {
    hm_stencil_model_free(m);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  return HM_SUCCESS;
}

int hm_matrix_create_stencil(hm_context *ctx, const hm_stencil *s, hm_stencil_storage storage, hm_matrix **A) {
  HM_CHECK(ctx && s && A, HM_ERR_ARGUMENT, "ctx, s or A is NULL");
  *A = NULL;
  HM_CHECK(storage == HM_STENCIL_ASSEMBLED || storage == HM_STENCIL_MATRIX_FREE || storage == HM_STENCIL_MATRIX_FREE_REAL,
           HM_ERR_ARGUMENT,
           "storage = %d: allowed HM_STENCIL_ASSEMBLED (0), HM_STENCIL_MATRIX_FREE (1) or HM_STENCIL_MATRIX_FREE_REAL (2)",
           (int)storage);
  hm_stencil_model m;
  HM_CALL(hm_stencil_model_make(s, &m));
  /* The matrix-free storage keeps its own copy of the description (stencil_free.c). */
  int st = storage == HM_STENCIL_ASSEMBLED     ? hm_stencil_assemble(ctx, &m, A)
           : storage == HM_STENCIL_MATRIX_FREE ? hm_stencil_matrix_free_create(ctx, s, A)
                                               : hm_stencil_matrix_free_create_real(ctx, s, A);
  hm_stencil_model_free(&m);
  if (st) return hm_error_trace(st, __FILE__, __LINE__, __func__);
  return HM_SUCCESS;
}

int hm_stencil_vacancies(const hm_stencil *s, int64_t *vacant_sites) {
  HM_CHECK(s && vacant_sites, HM_ERR_ARGUMENT, "s or vacant_sites is NULL");
  HM_CHECK(s->vacancy_p >= 0.0 && s->vacancy_p < 1.0, HM_ERR_ARGUMENT, "vacancy probability %g: allowed [0, 1)",
           s->vacancy_p);
  const int64_t sites = s->cells[0] * s->cells[1] * s->cells[2];
  const hm_stencil_exec ex = {.vacancy_p = s->vacancy_p, .vacancy_seed = s->vacancy_seed,
                              .vacancy_stream = s->vacancy_stream};
  int64_t count = 0;
  if (s->vacancy_p > 0.0) {
#pragma omp parallel for reduction(+ : count) schedule(static)
    for (int64_t site = 0; site < sites; site++) count += hm_stencil_vacant(&ex, site);
  }
  *vacant_sites = count;
  return HM_SUCCESS;
}
