/* CPU (OpenMP) products of the matrix-free lattice operator (stencil_exec.h): y = H x and the fused
 * KPM step, over the slab runs of a list. Traversal: the slab plane is cut into tiles whose three
 * planes of vector rows (the slab and its neighbours) fit a core's L2; a thread takes a tile and
 * marches along the slabs, so a neighbour's rows are read from memory about once. Columns in the
 * inner loops as kernels_cpu.c does: two real accumulators (Re a x, Im a x), combined at the end. */
#include <complex.h>
#include <math.h>
#include <omp.h>
#include <string.h>
#include "error_macros.h"
#include "kernels_cpu_stencil.h"
#include "row_sums.h"

enum { TILE_BYTES = 512 * 1024 };

typedef struct {
  int64_t tile_sites, ntiles; /* plane tiles */
  int64_t zchunk, nzchunks;   /* slabs a work item marches over */
  int64_t slabs;              /* slabs of the list */
} traversal;

static traversal plan(const hm_stencil_exec *E, int list, int k) {
  traversal t;
  t.slabs = 0;
  for (int r = 0; r < E->nruns[list]; r++) t.slabs += E->run[list][r][1] - E->run[list][r][0];
  const int64_t per_site = 3 * (int64_t)E->orbitals * k * 16;
  t.tile_sites = TILE_BYTES / per_site > 16 ? TILE_BYTES / per_site : 16;
  if (t.tile_sites > E->slab_sites) t.tile_sites = E->slab_sites;
  t.ntiles = (E->slab_sites + t.tile_sites - 1) / t.tile_sites;
  const int64_t want = 8 * (int64_t)omp_get_max_threads(); /* work items, for balance */
  t.zchunk = t.slabs;
  if (t.ntiles < want && t.slabs > 0) {
    const int64_t per_tile = (want + t.ntiles - 1) / t.ntiles;
    t.zchunk = (t.slabs + per_tile - 1) / per_tile;
  }
  if (t.zchunk < 1) t.zchunk = 1;
  t.nzchunks = t.slabs ? (t.slabs + t.zchunk - 1) / t.zchunk : 0;
  return t;
}

/* The local slab at position p of list's runs. */
static inline int64_t slab_at(const hm_stencil_exec *E, int list, int64_t p) {
  for (int r = 0; r < E->nruns[list]; r++) {
    const int64_t len = E->run[list][r][1] - E->run[list][r][0];
    if (p < len) return E->run[list][r][0] + p;
    p -= len;
  }
  return -1;
}

/* (H x) of orbital i of the site at local slab l, plane index q (cell c, global site) into lin / swp
 * (2k doubles each: lin = sum Re(a) x, swp = sum Im(a) x). nb_row, nb_w, nb_f: each block's target
 * row (-1: none), wraps and boundary factor, computed once per site. */
static inline void orbital_row(const hm_stencil_exec *E, const int k, int i, int64_t self_row, int64_t site,
                               const int64_t c[3], const int64_t *nb_row, const int64_t (*nb_w)[3],
                               const double complex *nb_f, const double *x, double *lin, double *swp) {
  const int o = E->orbitals, width = 2 * k;
  for (int j = 0; j < width; j++) lin[j] = swp[j] = 0;
  for (int b = 0; b < E->nblocks; b++) {
    if (nb_row[b] < 0) continue;
    const double *blk = E->block + 2 * ((size_t)o * o * b + (size_t)i * o);
    for (int j = 0; j < o; j++) {
      /* real arithmetic: C's complex multiply calls a NaN-handling routine */
      const double fr = creal(nb_f[b]), fi = cimag(nb_f[b]);
      double ar = blk[2 * j] * fr - blk[2 * j + 1] * fi, ai = blk[2 * j] * fi + blk[2 * j + 1] * fr;
      if (E->has_peierls) {
        const double turns = 6.283185307179586 * hm_stencil_peierls_turns(E, b, i, j, c, nb_w[b]);
        const double pc = cos(turns), ps = sin(turns), r2 = ar * pc - ai * ps;
        ai = ar * ps + ai * pc;
        ar = r2;
      }
      if (ar == 0 && ai == 0) continue;
      const double *xr = x + (size_t)(nb_row[b] + j) * width;
      for (int q = 0; q < width; q++) {
        lin[q] += ar * xr[q];
        swp[q] += ai * xr[q];
      }
    }
  }
  const double d = hm_stencil_disorder(E, site, i);
  if (d != 0) {
    const double *xr = x + (size_t)(self_row + i) * width;
    for (int q = 0; q < width; q++) lin[q] += d * xr[q];
  }
}

/* Each block's target for the site at cell c (row, wraps, boundary factor; vacant targets: none). */
static inline void site_targets(const hm_stencil_exec *E, const int64_t c[3], int64_t *nb_row, int64_t (*nb_w)[3],
                                double complex *nb_f) {
  for (int b = 0; b < E->nblocks; b++) {
    double angle;
    nb_row[b] = hm_stencil_target(E, E->shift + 3 * b, c, nb_w[b], &angle);
    nb_f[b] = angle == 0 ? 1.0 : cexp(I * angle);
    if (nb_row[b] >= 0 && E->vacancy_p > 0) {
      int64_t t[3];
      for (int a = 0; a < 3; a++) t[a] = c[a] + E->shift[3 * b + a] - nb_w[b][a] * E->cells[a];
      if (hm_stencil_vacant(E, t[0] + E->cells[0] * (t[1] + E->cells[1] * t[2]))) nb_row[b] = -1;
    }
  }
}

/* One work item (tile, chunk of slabs) of list: out = H x (kpm = 0) or the KPM step into W with the
 * dots added to vv, wv (kpm = 1). */
HM_INLINE void work_item(const hm_stencil_exec *E, int list, const traversal *t, int64_t item, const int k,
                         int kpm, double s, double bshift, const double *x, double *y, double *vv, double *wv) {
  const int o = E->orbitals, width = 2 * k;
  const int64_t tile = item / t->nzchunks, zc = item % t->nzchunks;
  const int64_t q0 = tile * t->tile_sites, q1 = q0 + t->tile_sites < E->slab_sites ? q0 + t->tile_sites : E->slab_sites;
  const int64_t p1 = (zc + 1) * t->zchunk < t->slabs ? (zc + 1) * t->zchunk : t->slabs;
  int64_t nb_row[E->nblocks], nb_w[E->nblocks][3];
  double complex nb_f[E->nblocks];
  double lin[width], swp[width];
  for (int64_t p = zc * t->zchunk; p < p1; p++) {
    const int64_t l = slab_at(E, list, p);
    for (int64_t q = q0; q < q1; q++) {
      int64_t c[3];
      const int64_t site = hm_stencil_cell(E, l, q, c), self = (l * E->slab_sites + q) * o;
      const int vacant = hm_stencil_vacant(E, site);
      if (!vacant) site_targets(E, c, nb_row, nb_w, nb_f);
      for (int i = 0; i < o; i++) {
        if (vacant) {
          for (int j = 0; j < width; j++) lin[j] = swp[j] = 0;
        } else {
          orbital_row(E, k, i, self, site, c, nb_row, (const int64_t(*)[3])nb_w, nb_f, x, lin, swp);
        }
        double *yi = y + (size_t)(self + i) * width;
        if (!kpm) {
          for (int j = 0; j < k; j++) {
            yi[2 * j] = lin[2 * j] - swp[2 * j + 1];
            yi[2 * j + 1] = lin[2 * j + 1] + swp[2 * j];
          }
          continue;
        }
        const double *vi = x + (size_t)(self + i) * width;
        for (int j = 0; j < k; j++) {
          const double vr = vi[2 * j], vm = vi[2 * j + 1];
          const double wr = 2.0 * s * (lin[2 * j] - swp[2 * j + 1] - bshift * vr) - yi[2 * j];
          const double wm = 2.0 * s * (lin[2 * j + 1] + swp[2 * j] - bshift * vm) - yi[2 * j + 1];
          yi[2 * j] = wr;
          yi[2 * j + 1] = wm;
          vv[j] += vr * vr + vm * vm;
          wv[j] += wr * vr + wm * vm;
        }
      }
    }
  }
}

static int list_of(const hm_stencil_exec *E, const int32_t *rows) {
  if (rows == &E->key[HM_STENCIL_INTERIOR]) return HM_STENCIL_INTERIOR;
  if (rows == &E->key[HM_STENCIL_BOUNDARY]) return HM_STENCIL_BOUNDARY;
  return -1;
}

/* Inside the parallel region: the list's items, with k a constant where the caller made it one. */
HM_INLINE void run_items(const hm_stencil_exec *E, int list, const traversal *t, const int k, int kpm, double s,
                         double b, const double *x, double *y, double *partial, double *dots) {
  double vv[k], wv[k];
  for (int j = 0; j < k; j++) vv[j] = wv[j] = 0;
#pragma omp for schedule(static)
  for (int64_t item = 0; item < t->ntiles * t->nzchunks; item++) work_item(E, list, t, item, k, kpm, s, b, x, y, vv, wv);
  if (kpm) hm_add_thread_partials(k, vv, wv, partial, dots);
}

static int stencil_run(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, int kpm, double s,
                       double b, const double *x, double *y, double *dots) {
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "the matrix-free lattice operator is complex; the block is real");
  const int list = list_of(E, rows);
  HM_CHECK(list >= 0, HM_ERR_ARGUMENT,
           "a matrix-free product was given a row list; it takes only the matrix's interior or boundary slabs");
  const traversal t = plan(E, list, k);
  if (t.slabs == 0) return HM_SUCCESS;
  double *partial = NULL;
  if (kpm) HM_MALLOC(partial, (size_t)omp_get_max_threads() * 2 * (size_t)k);
#pragma omp parallel
  switch (k) {
    case 1: run_items(E, list, &t, 1, kpm, s, b, x, y, partial, dots); break;
    case 2: run_items(E, list, &t, 2, kpm, s, b, x, y, partial, dots); break;
    case 4: run_items(E, list, &t, 4, kpm, s, b, x, y, partial, dots); break;
    case 8: run_items(E, list, &t, 8, kpm, s, b, x, y, partial, dots); break;
    case 16: run_items(E, list, &t, 16, kpm, s, b, x, y, partial, dots); break;
    case 32: run_items(E, list, &t, 32, kpm, s, b, x, y, partial, dots); break;
    default: run_items(E, list, &t, k, kpm, s, b, x, y, partial, dots); break;
  }
  free(partial);
  return HM_SUCCESS;
}

int hm_cpu_stencil_spmmv(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, const double *x,
                         double *y) {
  HM_CALL(stencil_run(type, E, k, rows, 0, 0, 0, x, y, NULL));
  return HM_SUCCESS;
}

int hm_cpu_stencil_kpm_step(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, double s,
                            double b, const double *V, double *W, double *dots) {
  HM_CALL(stencil_run(type, E, k, rows, 1, s, b, V, W, dots));
  return HM_SUCCESS;
}
