/* CPU (OpenMP) products of the matrix-free lattice operator (stencil_exec.h): y = H x and the fused
 * KPM step (both dots in the same pass), over the slab runs of a list. Traversal: the slab plane is
 * cut into square-ish tiles whose three planes of vector rows (the slab and its neighbours) fit a
 * core's L2; a thread takes a tile and marches along the slabs, so a neighbour's rows are read from
 * memory about once. Two paths per site: the fast one, for sites none of whose in-plane hops wraps
 * (no Peierls phases, no vacancies), adds a per-slab table's offsets to the site's own row; the
 * general one (faces, phases, vacancies) works out every target from the cell. Columns innermost:
 * two sums (Re a x, Im a x) combined at the end, in pairs or four-double vectors (the table groups a
 * row's hops so that a real-only or imaginary-only value adds to one sum only); complex widths of a
 * multiple of four wide vectors (R = 16, 32 with AVX-512) in one fused pass from registers into W and
 * the dots. A real operator
 * (E->real: real blocks, no twist, no phases) works on real blocks, one sum per column. */
#include <complex.h>
#include <math.h>
#include <omp.h>
#include <string.h>
#include "error_macros.h"
#include "kernels_cpu_stencil.h"
#include "row_sums.h"

/* Three planes of a tile's vector rows (the slab and its two neighbours) held in a core's L2 while a
 * thread marches along the slabs, with room left for the streamed W: a quarter of a 2 MiB L2 or half
 * of a 1 MiB one (on this 2-core machine 256 KiB to 64 MiB tiles timed the same, within noise). */
enum { TILE_BYTES = 512 * 1024 };

typedef struct {
  int64_t tx, ty, nx_tiles, ntiles; /* plane tiles: tx x ty sites of the plane's p0 x p1 */
  int64_t p0, p1;                   /* the slab plane: cells of the axes below slow (1 where none) */
  int64_t zchunk, nzchunks;         /* slabs a work item marches over */
  int64_t slabs;                    /* slabs of the list */
} traversal;

/* Square-ish tiles: a tile's rows of y-neighbours outside it are read again by the next tile, so
 * the share of re-read rows is about 2 / tx + 2 / ty (1D planes: whole rows, none). */
static traversal plan(const hm_stencil_exec *E, int list, int k, int column_bytes) {
  traversal t;
  t.slabs = hm_stencil_list_slabs(E, list);
  t.p0 = E->slow > 0 ? E->cells[0] : 1;
  t.p1 = E->slow > 1 ? E->cells[1] : 1;
  const int64_t per_site = 3 * (int64_t)E->orbitals * k * column_bytes;
  const int64_t want_sites = TILE_BYTES / per_site > 16 ? TILE_BYTES / per_site : 16;
  int64_t side = (int64_t)sqrt((double)want_sites);
  if (side < 8) side = 8;
  t.tx = t.p0 < side ? t.p0 : side;
  t.ty = want_sites / t.tx > 1 ? want_sites / t.tx : 1;
  if (t.ty >= t.p1) { /* the whole y extent fits: widen in x */
    t.ty = t.p1;
    t.tx = want_sites / t.ty > t.tx ? want_sites / t.ty : t.tx;
    if (t.tx > t.p0) t.tx = t.p0;
  }
  t.nx_tiles = (t.p0 + t.tx - 1) / t.tx;
  t.ntiles = t.nx_tiles * ((t.p1 + t.ty - 1) / t.ty);
  const int64_t want = 4 * (int64_t)omp_get_max_threads(); /* work items, for balance */
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
 * row (-1: none), wraps and boundary factor, computed once per site. Always inlined: GCC stopped
 * inlining it once the fast rows grew, and the face sites' path then took 11% of a TI step at R = 2. */
HM_INLINE void orbital_row(const hm_stencil_exec *E, const int cplx, const int k, int i, int64_t self_row,
                           int64_t site, const int64_t c[3], const int64_t *nb_row, const int64_t (*nb_w)[3],
                           const double complex *nb_f, const double *x, double *lin, double *swp) {
  const int width = cplx ? 2 * k : k; /* real: hops, factors and phases are real (stencil_free.c checked) */
  for (int j = 0; j < width; j++) lin[j] = swp[j] = 0;
  for (int e = E->hop_first[i]; e < E->hop_first[i + 1]; e++) { /* the blocks' non-zero entries of row i */
    const int b = E->hops[e].b, j = E->hops[e].j;
    if (nb_row[b] < 0) continue;
    /* real arithmetic: C's complex multiply calls a NaN-handling routine */
    const double fr = creal(nb_f[b]), fi = cimag(nb_f[b]), re = E->hops[e].re, im = E->hops[e].im;
    double ar = re * fr - im * fi, ai = re * fi + im * fr;
    if (E->has_peierls) {
      const double turns = 6.283185307179586 * hm_stencil_peierls_turns(E, b, i, j, c, nb_w[b]);
      const double pc = cos(turns), ps = sin(turns), r2 = ar * pc - ai * ps;
      ai = ar * ps + ai * pc;
      ar = r2;
    }
    const double *xr = x + (size_t)(nb_row[b] + j) * width;
    if (!cplx) {
      for (int q = 0; q < width; q++) lin[q] += ar * xr[q];
      continue;
    }
    for (int q = 0; q < width; q++) {
      lin[q] += ar * xr[q];
      swp[q] += ai * xr[q];
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
    if (nb_row[b] >= 0 && hm_stencil_hop_vacant(E, b, c, nb_w[b])) nb_row[b] = -1;
  }
}

/* A hop of one slab's table: its value (a twist of the slow axis applied) and the offset (doubles) of
 * its column's row from the site's own orbital-0 row, valid for the slab's sites whose in-plane hops
 * stay inside the box. */
typedef struct {
  double re, im;
  int64_t off;
} slab_hop;

/* A row's hops in the slab table, grouped by value: real-only hops add to the sums of Re(a) x only,
 * imaginary-only ones to those of Im(a) x only, complex ones to both (the TI's Dirac matrices and
 * graphene's hops are all real or imaginary: half the multiply-adds of treating them as complex). */
enum { HOPS_REAL, HOPS_IMAG, HOPS_COMPLEX, HOP_KINDS };

HM_INLINE int hop_kind(double re, double im) { return im == 0 ? HOPS_REAL : re == 0 ? HOPS_IMAG : HOPS_COMPLEX; }

/* The sites of the fast path: no Peierls phases, no vacancies, no hop along an axis above slow
 * (one cell: every such hop wraps); in-plane axis a: cells lo[a] <= c < hi[a], whose hops do not wrap. */
typedef struct {
  int on;
  int64_t lo[2], hi[2];
} fast_region;

static fast_region fast_sites(const hm_stencil_exec *E) {
  fast_region f = {0, {0, 0}, {1, 1}};
  if (E->has_peierls || E->vacancy_p > 0) return f;
  int64_t rmin[3] = {0, 0, 0}, rmax[3] = {0, 0, 0};
  for (int b = 0; b < E->nblocks; b++)
    for (int a = 0; a < 3; a++) {
      const int64_t r = E->shift[3 * b + a];
      rmin[a] = r < rmin[a] ? r : rmin[a];
      rmax[a] = r > rmax[a] ? r : rmax[a];
    }
  for (int a = E->slow + 1; a < 3; a++)
    if (rmin[a] != 0 || rmax[a] != 0) return f;
  for (int a = 0; a < 2 && a < E->slow; a++) {
    f.lo[a] = -rmin[a];
    f.hi[a] = E->cells[a] - rmax[a];
  }
  f.on = 1;
  return f;
}

/* Local slab l's hop table for vector rows of `width` doubles: row orbital i's hops of kind g at
 * first[HOP_KINDS * i + g] .. first[HOP_KINDS * i + g + 1] (the row's at first[HOP_KINDS * i] ..
 * first[HOP_KINDS * (i + 1)]); hops along the slow axis resolved to the slab they land in (own or
 * ghost), twisted ends turned (before the grouping: a turned real value is complex), open ends dropped.
 * Returns the offset (doubles) of the farthest target site's orbital-0 row: the rows a site is the
 * first to read. */
static int64_t slab_table(const hm_stencil_exec *E, int64_t l, int width, int32_t *first, slab_hop *h) {
  const int o = E->orbitals, slow = E->slow;
  const int64_t g = E->first_slab + l, n = E->cells[slow], self = l * E->slab_sites * o;
  int m = 0;
  int64_t far = 0;
  for (int i = 0; i < o; i++) {
    slab_hop row[E->hop_first[i + 1] - E->hop_first[i] + 1];
    int nrow = 0;
    for (int e = E->hop_first[i]; e < E->hop_first[i + 1]; e++) {
      const hm_stencil_hop *p = &E->hops[e];
      const int32_t *R = E->shift + 3 * p->b;
      const int64_t u = g + R[slow], w = (u >= 0 && u < n) ? 0 : hm_stencil_floor_div(u, n);
      double re = p->re, im = p->im;
      if (w != 0 && E->boundary[slow] == 1) continue; /* HM_BC_OPEN */
      if (w != 0 && E->boundary[slow] == 2) {         /* the general path's factor, same arithmetic */
        const double complex f = cexp(I * (E->twist[slow] * (double)w));
        const double fr = creal(f), fi = cimag(f), r2 = re * fr - im * fi;
        im = re * fi + im * fr;
        re = r2;
      }
      const int64_t base = E->slab_row[u - w * n];
      if (base < 0) continue;
      int64_t inplane = 0, stride = 1;
      for (int a = 0; a < slow; a++) {
        inplane += R[a] * stride;
        stride *= E->cells[a];
      }
      row[nrow++] = (slab_hop){re, im, (base - self + (int64_t)o * inplane + p->j) * width};
      const int64_t site = base - self + (int64_t)o * inplane;
      far = site > far ? site : far;
    }
    for (int kind = 0; kind < HOP_KINDS; kind++) {
      first[HOP_KINDS * i + kind] = m;
      for (int e = 0; e < nrow; e++)
        if (hop_kind(row[e].re, row[e].im) == kind) h[m++] = row[e];
    }
  }
  first[HOP_KINDS * o] = m;
  return far * width;
}

/* A column's complex entry as two doubles; aligned(8) lets it load from any double. */
typedef double pair __attribute__((vector_size(16), aligned(8)));

typedef double quad __attribute__((vector_size(32), aligned(8)));

HM_INLINE pair load_pair(const double *p) {
  pair v;
  memcpy(&v, p, sizeof v);
  return v;
}

HM_INLINE quad load_quad(const double *p) {
  quad v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* One group of row i's hops (kind: a constant after inlining) into two sets of pair sums, two hops per
 * iteration (with one or two columns the adds' latency bounds a row, not their count; pairs, so that
 * the compiler does not gather across hops): real-only hops add to l only, imaginary-only ones to s. */
HM_INLINE void pair_group(const int kind, const int k, const slab_hop *h, int e0, int e1, const double *xs, pair *l0,
                          pair *s0, pair *l1, pair *s1) {
  int e = e0;
  for (; e + 1 < e1; e += 2) {
    const double *xa = xs + h[e].off, *xb = xs + h[e + 1].off;
    const double ra = h[e].re, ia = h[e].im, rb = h[e + 1].re, ib = h[e + 1].im;
    for (int j = 0; j < k; j++) {
      const pair va = load_pair(xa + 2 * j), vb = load_pair(xb + 2 * j);
      if (kind != HOPS_IMAG) {
        l0[j] += ra * va;
        l1[j] += rb * vb;
      }
      if (kind != HOPS_REAL) {
        s0[j] += ia * va;
        s1[j] += ib * vb;
      }
    }
  }
  if (e < e1) {
    const double *xa = xs + h[e].off;
    for (int j = 0; j < k; j++) {
      const pair va = load_pair(xa + 2 * j);
      if (kind != HOPS_IMAG) l0[j] += h[e].re * va;
      if (kind != HOPS_REAL) s0[j] += h[e].im * va;
    }
  }
}

/* One group of row i's hops into nq four-double sums of a chunk (xs: the chunk's first column). */
HM_INLINE void quad_group(const int kind, const int nq, const slab_hop *h, int e0, int e1, const double *xs, quad *l,
                          quad *w) {
  for (int e = e0; e < e1; e++) {
    const double *xr = xs + h[e].off;
    const double ar = h[e].re, ai = h[e].im;
    for (int j = 0; j < nq; j++) {
      const quad v = load_quad(xr + 4 * j);
      if (kind != HOPS_IMAG) l[j] += ar * v;
      if (kind != HOPS_REAL) w[j] += ai * v;
    }
  }
}

/* Row i's sums from a slab table (g: its group bounds, first + HOP_KINDS i): lin = sum Re(a) x,
 * swp = sum Im(a) x over the columns. Even widths beyond two columns: four doubles (two columns) per
 * add, in chunks of 16 columns (16 sums in registers); otherwise pairs. */
HM_INLINE void fast_row(const int k, const slab_hop *h, const int32_t *g, const double *xs, double *lin, double *swp) {
  if (k > 2 && k % 2 == 0) {
    for (int c0 = 0; c0 < k; c0 += 16) {
      const int nq = (k - c0 < 16 ? k - c0 : 16) / 2;
      quad l[8], w[8];
      for (int j = 0; j < nq; j++) l[j] = w[j] = (quad){0, 0, 0, 0};
      quad_group(HOPS_REAL, nq, h, g[0], g[1], xs + 2 * c0, l, w);
      quad_group(HOPS_IMAG, nq, h, g[1], g[2], xs + 2 * c0, l, w);
      quad_group(HOPS_COMPLEX, nq, h, g[2], g[3], xs + 2 * c0, l, w);
      for (int j = 0; j < nq; j++)
        for (int q = 0; q < 4; q++) {
          lin[2 * c0 + 4 * j + q] = l[j][q];
          swp[2 * c0 + 4 * j + q] = w[j][q];
        }
    }
    return;
  }
  pair l0[k], s0[k], l1[k], s1[k]; /* one or two columns, or odd widths */
  for (int j = 0; j < k; j++) l0[j] = s0[j] = l1[j] = s1[j] = (pair){0, 0};
  pair_group(HOPS_REAL, k, h, g[0], g[1], xs, l0, s0, l1, s1);
  pair_group(HOPS_IMAG, k, h, g[1], g[2], xs, l0, s0, l1, s1);
  pair_group(HOPS_COMPLEX, k, h, g[2], g[3], xs, l0, s0, l1, s1);
  for (int j = 0; j < k; j++) {
    const pair l = l0[j] + l1[j], w = s0[j] + s1[j];
    lin[2 * j] = l[0];
    lin[2 * j + 1] = l[1];
    swp[2 * j] = w[0];
    swp[2 * j + 1] = w[1];
  }
}

/* The widest vectors -march gives: eight doubles (four columns) with AVX-512, four otherwise. A chunk
 * of CHUNK_REGS vectors of a row keeps its 2 x CHUNK_REGS sums in registers (AVX-512 has 32, AVX2 16
 * with room left for the loaded row and the hop's two values). */
#if defined(__AVX512F__)
typedef double wide __attribute__((vector_size(64), aligned(8), may_alias));
typedef long long wide_lanes __attribute__((vector_size(64)));
enum { WIDE = 8, CHUNK_REGS = 8 };
#define WIDE_SWAP ((wide_lanes){1, 0, 3, 2, 5, 4, 7, 6})
#define WIDE_SIGN ((wide){-1, 1, -1, 1, -1, 1, -1, 1})
#else
typedef double wide __attribute__((vector_size(32), aligned(8), may_alias));
typedef long long wide_lanes __attribute__((vector_size(32)));
enum { WIDE = 4, CHUNK_REGS = 4 };
#define WIDE_SWAP ((wide_lanes){1, 0, 3, 2})
#define WIDE_SIGN ((wide){-1, 1, -1, 1})
#endif

/* Loads and stores through the type itself (aligned(8), may_alias): a memcpy of 64 bytes went through
 * the stack in two halves, and the whole-vector reload stalled on the store forwarding. */
HM_INLINE wide load_wide(const double *p) { return *(const wide *)p; }

HM_INLINE void store_wide(double *p, wide v) { *(wide *)p = v; }

/* Complex rows whose width is a multiple of four vectors take the fused row below, in chunks of four
 * or CHUNK_REGS vectors (a compile-time count: the sums must not spill to the stack). */
HM_INLINE int fused_width(const int k) { return (2 * k) % (4 * WIDE) == 0; }

/* One group of row i's hops into the nv wide sums of a chunk (xs: the chunk's first double), as
 * quad_group. */
HM_INLINE void wide_group(const int kind, const int nv, const slab_hop *h, int e0, int e1, const double *xs, wide *l,
                          wide *w) {
  for (int e = e0; e < e1; e++) {
    const double *xr = xs + h[e].off;
    const double ar = h[e].re, ai = h[e].im;
#pragma GCC unroll 8
    for (int j = 0; j < nv; j++) {
      const wide v = load_wide(xr + WIDE * j);
      if (kind != HOPS_IMAG) l[j] += ar * v;
      if (kind != HOPS_REAL) w[j] += ai * v;
    }
  }
}

/* Row i of the fast path in one pass, complex columns (g: its group bounds): the sums
 * lin = sum Re(a) x, swp = sum Im(a) x of a chunk stay in registers and go straight into
 * y = lin + i swp + d x (kpm = 0) or the KPM step W = 2 s (H V - b V) - W, with the dots' per-lane
 * partials (re and im lanes apart) added to vvp, wvp (2k doubles each). No round trip of the sums
 * through memory, no scalar tail per column. */
HM_INLINE void fast_row_fused(const int k, const int nv, const slab_hop *h, const int32_t *g, const double *xs,
                              double d, const double *xi, double *yi, int kpm, double s, double bshift, double *vvp,
                              double *wvp) {
  const int width = 2 * k;
  for (int c0 = 0; c0 < width; c0 += nv * WIDE) {
    wide l[CHUNK_REGS] = {{0}}, w[CHUNK_REGS] = {{0}};
    wide_group(HOPS_REAL, nv, h, g[0], g[1], xs + c0, l, w);
    wide_group(HOPS_IMAG, nv, h, g[1], g[2], xs + c0, l, w);
    wide_group(HOPS_COMPLEX, nv, h, g[2], g[3], xs + c0, l, w);
#pragma GCC unroll 8
    for (int j = 0; j < nv; j++) {
      const int at = c0 + WIDE * j;
      const wide v = load_wide(xi + at);
      wide hx = l[j];
      if (d != 0) hx += d * v;
      hx += WIDE_SIGN * __builtin_shuffle(w[j], WIDE_SWAP); /* i swp: (-Im swp, Re swp) per column */
      if (!kpm) {
        store_wide(yi + at, hx);
        continue;
      }
      const wide wn = 2.0 * s * (hx - bshift * v) - load_wide(yi + at);
      store_wide(yi + at, wn);
      store_wide(vvp + at, load_wide(vvp + at) + v * v);
      store_wide(wvp + at, load_wide(wvp + at) + wn * v);
    }
  }
}

/* Row i's sums for real blocks, columns of one double: lin = sum a x. One or two columns: two hops per
 * iteration into two sets of sums (add latency, as fast_row); wider blocks four-double vectors in
 * chunks of 32 columns, or one sum per column where the width is not a multiple of 4. */
HM_INLINE void fast_row_real(const int k, const slab_hop *h, int n, const double *xs, double *lin) {
  if (k <= 2) {
    double l0[k], l1[k];
    for (int j = 0; j < k; j++) l0[j] = l1[j] = 0;
    int e = 0;
    for (; e + 1 < n; e += 2) {
      const double *xa = xs + h[e].off, *xb = xs + h[e + 1].off;
      for (int j = 0; j < k; j++) {
        l0[j] += h[e].re * xa[j];
        l1[j] += h[e + 1].re * xb[j];
      }
    }
    if (e < n)
      for (int j = 0; j < k; j++) l0[j] += h[e].re * xs[h[e].off + j];
    for (int j = 0; j < k; j++) lin[j] = l0[j] + l1[j];
    return;
  }
  if (k % 4 == 0) {
    for (int c0 = 0; c0 < k; c0 += 32) {
      const int nq = (k - c0 < 32 ? k - c0 : 32) / 4;
      quad l[8];
      for (int j = 0; j < nq; j++) l[j] = (quad){0, 0, 0, 0};
      for (int e = 0; e < n; e++) {
        const double *xr = xs + h[e].off + c0;
        for (int j = 0; j < nq; j++) l[j] += h[e].re * load_quad(xr + 4 * j);
      }
      for (int j = 0; j < nq; j++)
        for (int q = 0; q < 4; q++) lin[c0 + 4 * j + q] = l[j][q];
    }
    return;
  }
  for (int j = 0; j < k; j++) lin[j] = 0;
  for (int e = 0; e < n; e++) {
    const double *xr = xs + h[e].off;
    for (int j = 0; j < k; j++) lin[j] += h[e].re * xr[j];
  }
}

/* y_i = lin + i swp (kpm = 0), or the KPM step W = 2 s (H V - b V) - W with its dots. */
HM_INLINE void store_row(const int cplx, const int k, int kpm, double s, double bshift, const double *lin,
                         const double *swp, const double *vi, double *yi, double *vv, double *wv) {
  if (!cplx) { /* real: y = lin, or W = 2 s (lin - b V) - W */
    for (int j = 0; j < k; j++) {
      if (!kpm) {
        yi[j] = lin[j];
        continue;
      }
      const double w = 2.0 * s * (lin[j] - bshift * vi[j]) - yi[j];
      yi[j] = w;
      vv[j] += vi[j] * vi[j];
      wv[j] += w * vi[j];
    }
    return;
  }
  if (!kpm) {
    for (int j = 0; j < k; j++) {
      yi[2 * j] = lin[2 * j] - swp[2 * j + 1];
      yi[2 * j + 1] = lin[2 * j + 1] + swp[2 * j];
    }
    return;
  }
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

/* The general path for the site at local slab l, plane index q: every target, wrap and phase
 * worked out from its cell (boundary sites, Peierls phases, vacancies). */
HM_INLINE void general_site(const hm_stencil_exec *E, const int cplx, const int k, int kpm, double s, double bshift,
                            int64_t l, int64_t q, const double *x, double *y, double *vv, double *wv) {
  const int o = E->orbitals, width = cplx ? 2 * k : k;
  int64_t nb_row[E->nblocks], nb_w[E->nblocks][3];
  double complex nb_f[E->nblocks];
  double lin[width], swp[width];
  int64_t c[3];
  const int64_t site = hm_stencil_cell(E, l, q, c), self = (l * E->slab_sites + q) * o;
  const int vacant = hm_stencil_vacant(E, site);
  if (!vacant) site_targets(E, c, nb_row, nb_w, nb_f);
  for (int i = 0; i < o; i++) {
    if (vacant) {
      for (int j = 0; j < width; j++) lin[j] = swp[j] = 0;
    } else {
      orbital_row(E, cplx, k, i, self, site, c, nb_row, (const int64_t(*)[3])nb_w, nb_f, x, lin, swp);
    }
    store_row(cplx, k, kpm, s, bshift, lin, swp, x + (size_t)(self + i) * width, y + (size_t)(self + i) * width, vv, wv);
  }
}

/* Ask for what the fast site `ahead` sites on reads from memory rather than from the tile's planes in
 * L2: its farthest target's rows of V (the next slab's) and its own rows of W, `doubles` each. One
 * core's bandwidth is bound by the misses it has in flight; these overlap the current site's sums
 * (one thread of this 2-core VM, TI 80 x 80 x 40 at R = 16: 8% less time, 12% with the fused rows'
 * prefetches spread over the rows; spread over the rows at R = 2 they cost 4%). */
enum { PREFETCH_AHEAD = 1 };

HM_INLINE void prefetch_site(const double *far_v, const double *own_w, int doubles) {
  for (int b = 0; b < doubles; b += 8) { /* 64-byte lines */
    __builtin_prefetch(far_v + b);
    __builtin_prefetch(own_w + b, 1);
  }
}

/* The fast path for the sites q0 .. q1 - 1 of local slab l (consecutive in x): the slab's table (far:
 * the offset of its farthest target site), the offsets added to each site's own row, the seeded
 * disorder on the diagonal. */
HM_INLINE void fast_sites_run(const hm_stencil_exec *E, const int cplx, const int k, int kpm, double s, double bshift,
                              int64_t l, int64_t q0, int64_t q1, const int32_t *first, const slab_hop *h, int64_t far,
                              const double *x, double *y, double *vv, double *wv) {
  const int o = E->orbitals, width = cplx ? 2 * k : k;
  if (cplx && fused_width(k)) {
    const int nv = (2 * k) % (CHUNK_REGS * WIDE) == 0 ? CHUNK_REGS : 4; /* vectors per chunk, a constant */
    double vvp[2 * k], wvp[2 * k];
    if (kpm)
      for (int j = 0; j < 2 * k; j++) vvp[j] = wvp[j] = 0;
    for (int64_t q = q0; q < q1; q++) {
      const int64_t self = (l * E->slab_sites + q) * o, site = (E->first_slab + l) * E->slab_sites + q;
      const double *xs = x + (size_t)self * width;
      const int ahead = q + PREFETCH_AHEAD < q1;
      const double site_d = E->disorder_per_site ? hm_stencil_disorder(E, site, 0) : 0;
      for (int i = 0; i < o; i++) {
        if (ahead) { /* a row at a time: a burst of the site's lines waited for the line fill buffers */
          const int64_t next = PREFETCH_AHEAD * o + i;
          prefetch_site(xs + far + next * width, y + (size_t)(self + next) * width, width);
        }
        const double d = E->disorder_per_site ? site_d : hm_stencil_disorder(E, site, i);
        fast_row_fused(k, nv, h, first + HOP_KINDS * i, xs, d, xs + (size_t)i * width,
                       y + (size_t)(self + i) * width, kpm, s, bshift, vvp, wvp);
      }
    }
    if (kpm)
      for (int j = 0; j < k; j++) {
        vv[j] += vvp[2 * j] + vvp[2 * j + 1];
        wv[j] += wvp[2 * j] + wvp[2 * j + 1];
      }
    return;
  }
  double lin[width], swp[width];
  for (int64_t q = q0; q < q1; q++) {
    const int64_t self = (l * E->slab_sites + q) * o, site = (E->first_slab + l) * E->slab_sites + q;
    const double *xs = x + (size_t)self * width;
    if (q + PREFETCH_AHEAD < q1)
      prefetch_site(xs + far + PREFETCH_AHEAD * o * width, y + (size_t)(self + PREFETCH_AHEAD * o) * width, o * width);
    const double site_d = E->disorder_per_site ? hm_stencil_disorder(E, site, 0) : 0;
    for (int i = 0; i < o; i++) {
      const int32_t *g = first + HOP_KINDS * i; /* a real operator's hops are all real-only */
      if (cplx) fast_row(k, h, g, xs, lin, swp);
      else fast_row_real(k, h + g[0], g[HOP_KINDS] - g[0], xs, lin);
      const double d = E->disorder_per_site ? site_d : hm_stencil_disorder(E, site, i);
      const double *xi = xs + (size_t)i * width;
      if (d != 0)
        for (int j = 0; j < width; j++) lin[j] += d * xi[j];
      store_row(cplx, k, kpm, s, bshift, lin, swp, xi, y + (size_t)(self + i) * width, vv, wv);
    }
  }
}

/* One work item (tile, chunk of slabs) of list: out = H x (kpm = 0) or the KPM step into W with the
 * dots added to vv, wv (kpm = 1). Each tile row's sites split into the fast middle and the general
 * ends. first, h: this thread's slab table. */
HM_INLINE void work_item(const hm_stencil_exec *E, int list, const traversal *t, const fast_region *f, int64_t item,
                         const int cplx, const int k, int kpm, double s, double bshift, const double *x, double *y, double *vv,
                         double *wv, int32_t *first, slab_hop *h) {
  const int64_t tile = item / t->nzchunks, zc = item % t->nzchunks;
  const int64_t x0 = (tile % t->nx_tiles) * t->tx, y0 = (tile / t->nx_tiles) * t->ty;
  const int64_t x1 = x0 + t->tx < t->p0 ? x0 + t->tx : t->p0, y1 = y0 + t->ty < t->p1 ? y0 + t->ty : t->p1;
  const int64_t p1 = (zc + 1) * t->zchunk < t->slabs ? (zc + 1) * t->zchunk : t->slabs;
  for (int64_t p = zc * t->zchunk; p < p1; p++) {
    const int64_t l = slab_at(E, list, p);
    const int64_t far = f->on ? slab_table(E, l, cplx ? 2 * k : k, first, h) : 0;
    for (int64_t yy = y0; yy < y1; yy++) {
      int64_t xa = x1, xb = x1; /* fast sites: [xa, xb) */
      if (f->on && yy >= f->lo[1] && yy < f->hi[1]) {
        xa = f->lo[0] > x0 ? (f->lo[0] < x1 ? f->lo[0] : x1) : x0;
        xb = f->hi[0] < x1 ? (f->hi[0] > xa ? f->hi[0] : xa) : x1;
      }
      const int64_t row = yy * t->p0;
      for (int64_t xx = x0; xx < xa; xx++) general_site(E, cplx, k, kpm, s, bshift, l, row + xx, x, y, vv, wv);
      fast_sites_run(E, cplx, k, kpm, s, bshift, l, row + xa, row + xb, first, h, far, x, y, vv, wv);
      for (int64_t xx = xb; xx < x1; xx++) general_site(E, cplx, k, kpm, s, bshift, l, row + xx, x, y, vv, wv);
    }
  }
}

static int list_of(const hm_stencil_exec *E, const int32_t *rows) {
  if (rows == &E->key[HM_STENCIL_INTERIOR]) return HM_STENCIL_INTERIOR;
  if (rows == &E->key[HM_STENCIL_BOUNDARY]) return HM_STENCIL_BOUNDARY;
  return -1;
}

/* Inside the parallel region: the list's items, with k a constant where the caller made it one. */
HM_INLINE void run_items(const hm_stencil_exec *E, int list, const traversal *t, const fast_region *f, const int cplx,
                         const int k, int kpm, double s, double b, const double *x, double *y, double *partial, double *dots,
                         int32_t *firsts, slab_hop *tables) {
  double vv[k], wv[k];
  for (int j = 0; j < k; j++) vv[j] = wv[j] = 0;
  const int me = omp_get_thread_num();
  int32_t *first = firsts + (size_t)me * (HOP_KINDS * E->orbitals + 1);
  slab_hop *h = tables + (size_t)me * (E->nhops + 1);
#pragma omp for schedule(static)
  for (int64_t item = 0; item < t->ntiles * t->nzchunks; item++)
    work_item(E, list, t, f, item, cplx, k, kpm, s, b, x, y, vv, wv, first, h);
  if (kpm) hm_add_thread_partials(k, vv, wv, partial, dots);
}

/* One case per (arithmetic, width): k and cplx constants inside the inlined loops. */
#define RUN_ITEMS(cplx, kk) run_items(E, list, &t, &f, cplx, kk, kpm, s, b, x, y, partial, dots, firsts, tables)
#define RUN_WIDTHS(cplx)                \
  switch (k) {                          \
    case 1: RUN_ITEMS(cplx, 1); break;  \
    case 2: RUN_ITEMS(cplx, 2); break;  \
    case 4: RUN_ITEMS(cplx, 4); break;  \
    case 8: RUN_ITEMS(cplx, 8); break;  \
    case 16: RUN_ITEMS(cplx, 16); break; \
    case 32: RUN_ITEMS(cplx, 32); break; \
    default: RUN_ITEMS(cplx, k); break; \
  }

static int stencil_run(hm_scalar type, const hm_stencil_exec *E, int k, const int32_t *rows, int kpm, double s,
                       double b, const double *x, double *y, double *dots) {
  const hm_scalar mine = E->real ? HM_REAL : HM_COMPLEX;
  HM_CHECK(type == mine, HM_ERR_ARGUMENT, "the matrix-free lattice operator is %s; the block is %s",
           mine == HM_REAL ? "real" : "complex", type == HM_REAL ? "real" : "complex");
  const int list = list_of(E, rows);
  HM_CHECK(list >= 0, HM_ERR_ARGUMENT,
           "a matrix-free product was given a row list; it takes only the matrix's interior or boundary slabs");
  const traversal t = plan(E, list, k, (int)sizeof(double) * (int)type);
  if (t.slabs == 0) return HM_SUCCESS;
  const fast_region f = fast_sites(E);
  const size_t threads = (size_t)omp_get_max_threads();
  double *partial = NULL;
  int32_t *firsts = NULL;
  slab_hop *tables = NULL;
  int st = HM_SUCCESS;
  firsts = malloc(sizeof *firsts * threads * ((size_t)HOP_KINDS * E->orbitals + 1));
  tables = malloc(sizeof *tables * threads * ((size_t)E->nhops + 1));
  if (kpm) partial = malloc(sizeof *partial * threads * 2 * (size_t)k);
  if (!firsts || !tables || (kpm && !partial))
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the per-thread hop tables");
  if (!st) {
#pragma omp parallel
    {
      if (E->real) RUN_WIDTHS(0) else RUN_WIDTHS(1)
    }
  }
  free(partial);
  free(firsts);
  free(tables);
  return st;
}
#undef RUN_WIDTHS
#undef RUN_ITEMS

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
