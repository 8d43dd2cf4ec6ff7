/* The matrix-free lattice operator against the assembled CSR of the same description, the CSR
 * built here entry by entry from the formula of include/hamlet/stencil.h (an independent path):
 * random descriptions (1..4 orbitals, hops up to range 2, every boundary kind incl. twisted,
 * disorder per site or per orbital, vacancies, Peierls phases with random G/V/K), 3D, 2D and 1D
 * boxes, blocks of R = 1, 2, 4, 16 and 32 columns: products equal to 1e-13 relative; the diagonal
 * equal; Gershgorin bounds that contain the CSR's; KPM moments equal on Hermitian descriptions
 * (R = 1, 2, 4, 16 vectors); what needs entries (dense solvers, SELL) refused by name. Larger boxes
 * (6 to 10 cells a side) give the CPU kernel's fast path (sites whose hops stay inside) sites
 * between the general ones. Wrap phases that break Hermiticity: the matrix-free storage reports
 * the assembled one's defect at the same entry and KPM refuses both with the same message.
 * Graphene-like (2D, 2 orbitals, sparse blocks) and Wannier-like (3D, 19 shifts, dense 1 x 1 or
 * 2 x 2 blocks) random lattices, 6 to 12 cells a side, give the CUDA few-orbital kernel
 * (gpu/stencil_small_cuda.cu; automatic for 1 and 2 orbitals, HAMLET_STENCIL_KERNEL=small adds 4) inner
 * sites next to face sites. 1- and 2-orbital lattices of 1 to 7 cells per axis (3 to 7 slabs),
 * face neighbours or random shifts of reach 2, every boundary kind, vacancies and disorder, one
 * with a field, give that kernel partial tiles, one-slab ranks and wraps onto the box itself.
 * TI-shaped lattices (4 orbitals, face hops, periodic or open) of up to 29 x 13 x 6 cells give the
 * staged kernel (HAMLET_STENCIL_KERNEL=staged) whole and partial tiles and one-site-wide planes.
 * Lattices whose entries are each real-only, imaginary-only, complex or zero, with a twisted slow
 * axis, give the CPU fast path's three groups of hops (kernels_cpu_stencil.c) and real hops turned
 * complex by the twist.
 * Argument "cuda": the matrix-free side on the GPU (the reference stays on the CPU). Run on 1, 2
 * and 3 ranks. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "random.h"
#include "stencil_free.h"
#include "stencil_forced.h"
#include "stencil_shift_pairs.h"
#include "testing.h"

typedef struct {
  hm_stencil s;
  int32_t shift[64 * 3];
  double block[64 * 16 * 2];
  double peierls[64 * 16 * 3];
  double wrap_phase[3 * 64 * 4 * 4];
} description;

/* The same draws on every rank: counter-based from the test's seed. */
static uint64_t draw_seed, draw_count;
static double draw(void) { return hm_random_uniform(draw_seed, 7, draw_count++); }
static int draw_int(int lo, int hi) { return lo + (int)(draw() * (hi - lo + 1)) % (hi - lo + 1); }

/* A random description: Hermitian blocks (H(-R) = H(R)^dagger) unless peierls, whose random
 * phases make it non-Hermitian (fine for products). dims: 3, 2 or 1 axes with more than one cell.
 * large: 6 to 10 cells per axis, so the fast path sits next to the general one. faces: a 3D
 * lattice of 3 to 7 cells per axis whose blocks hop to the 6 face neighbours, without vacancies
 * (the TI's shape; with 4 orbitals, periodic and open boundaries only, it takes the CUDA
 * tensor-core step from 8 or 16 vectors on: stencil_mma_cuda.h). */
static void make_description(description *d, int dims, int peierls, int large, int faces, int few) {
  hm_stencil *s = &d->s;
  memset(s, 0, sizeof *s); /* periodic, no terms */
  const int o = few ? few : faces && draw_int(0, 1) ? 4 : draw_int(1, 4); /* faces: the TI's 4 orbitals half the time */
  s->orbitals = o;
  for (int a = 0; a < 3; a++)
    s->cells[a] = few                 ? (a < dims - 1 ? draw_int(peierls ? 3 : 1, 7) : a == dims - 1 ? draw_int(3, 7) : 1)
                  : faces             ? draw_int(3, 7)
                  : a >= dims         ? 1
                  : large             ? draw_int(6, dims == 3 ? 8 : 10)
                                      : draw_int(peierls ? 3 : 2, dims == 1 ? 8 : 5);
  if (dims == 3 && s->cells[2] < 3) s->cells[2] = 3;
  int nb = 0;
  /* R = 0: Hermitian */
  d->shift[0] = d->shift[1] = d->shift[2] = 0;
  for (int i = 0; i < o; i++)
    for (int j = 0; j <= i; j++) {
      double re = draw() - 0.5, im = i == j ? 0 : draw() - 0.5;
      d->block[2 * (i * o + j)] = re;
      d->block[2 * (i * o + j) + 1] = im;
      d->block[2 * (j * o + i)] = re;
      d->block[2 * (j * o + i) + 1] = -im;
    }
  nb = 1;
  const int pairs = faces ? 3 : draw_int(1, 4);
  for (int p = 0; p < pairs; p++) {
    int32_t R[3] = {0, 0, 0};
    for (int a = 0; a < dims; a++) R[a] = faces ? (a == p) : draw_int(-2, 2);
    if (R[0] == 0 && R[1] == 0 && R[2] == 0) R[0] = 1;
    if (!append_shift_pair(d->shift, nb, R)) continue;
    double *B = d->block + 2 * o * o * nb, *Bd = B + 2 * o * o;
    for (int i = 0; i < o; i++)
      for (int j = 0; j < o; j++) {
        const double re = draw() - 0.5, im = draw() - 0.5;
        B[2 * (i * o + j)] = re;
        B[2 * (i * o + j) + 1] = im;
        Bd[2 * (j * o + i)] = re; /* the conjugate transpose */
        Bd[2 * (j * o + i) + 1] = -im;
      }
    nb += 2;
  }
  s->nblocks = nb;
  s->shift = d->shift;
  s->block = d->block;
  for (int a = 0; a < 3; a++) {
    s->boundary[a] = draw_int(0, faces && o == 4 ? 1 : 2); /* TI-like: periodic or open (the tensor-core path) */
    s->twist[a] = 6.283185307179586 * draw();
  }
  s->disorder_w = draw() < 0.7 ? 2 * draw() : 0;
  s->disorder_seed = 11 + (uint64_t)draw_int(0, 1000);
  s->disorder_stream = 3;
  s->disorder_per_site = draw_int(0, 1);
  s->vacancy_p = !faces && draw() < 0.5 ? 0.25 * draw() : 0;
  s->vacancy_seed = 5 + (uint64_t)draw_int(0, 1000);
  s->vacancy_stream = 4;
  if (peierls) {
    for (int e = 0; e < nb * o * o * 3; e++) d->peierls[e] = draw() - 0.5;
    for (int e = 0; e < 3 * nb * o * 4; e++) d->wrap_phase[e] = draw() - 0.5;
    s->peierls = d->peierls;
    s->wrap_phase = d->wrap_phase;
  }
}

/* Boundaries, disorder and vacancies drawn as make_description draws them (vacancies: half the time). */
static void draw_terms(hm_stencil *s) {
  for (int a = 0; a < 3; a++) {
    s->boundary[a] = draw_int(0, 2);
    s->twist[a] = 6.283185307179586 * draw();
  }
  s->disorder_w = draw() < 0.7 ? 2 * draw() : 0;
  s->disorder_seed = 11 + (uint64_t)draw_int(0, 1000);
  s->disorder_stream = 3;
  s->disorder_per_site = draw_int(0, 1);
  s->vacancy_p = draw() < 0.5 ? 0.25 * draw() : 0;
  s->vacancy_seed = 5 + (uint64_t)draw_int(0, 1000);
  s->vacancy_stream = 4;
}

/* Block b's entry (i, j) = v and its Hermitian partner: block q's entry (j, i) = conj(v). */
static void set_pair(description *d, int o, int b, int q, int i, int j, double re, double im) {
  d->block[2 * ((b * o + i) * o + j)] = re;
  d->block[2 * ((b * o + i) * o + j) + 1] = im;
  d->block[2 * ((q * o + j) * o + i)] = re;
  d->block[2 * ((q * o + j) * o + i) + 1] = -im;
}

/* A graphene-like random lattice (the CUDA few-orbital kernel's case): 2D, 2 orbitals, 6 to 12
 * cells a side, R = 0 with random on-site energies and A-B hop, B(c - a1) and B(c - a2) from A
 * with random complex amplitudes (5 sparse blocks, 3 hoppings per orbital), half the time a
 * Haldane-like second-neighbour pair on the diagonal along a1 - a2. */
static void make_graphene_like(description *d) {
  hm_stencil *s = &d->s;
  memset(s, 0, sizeof *s);
  memset(d->block, 0, sizeof d->block);
  const int o = 2;
  s->orbitals = o;
  s->cells[0] = draw_int(6, 12);
  s->cells[1] = draw_int(6, 12);
  s->cells[2] = 1;
  static const int32_t R[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {1, -1, 0}, {-1, 1, 0}};
  const int nb = draw() < 0.5 ? 7 : 5;
  memcpy(d->shift, R, sizeof(int32_t) * 3 * (size_t)nb);
  set_pair(d, o, 0, 0, 0, 0, draw() - 0.5, 0);
  set_pair(d, o, 0, 0, 1, 1, draw() - 0.5, 0);
  set_pair(d, o, 0, 0, 0, 1, draw() - 0.5, draw() - 0.5);
  set_pair(d, o, 1, 2, 0, 1, draw() - 0.5, draw() - 0.5); /* A(c) <- B(c - a1); B(c) <- A(c + a1) */
  set_pair(d, o, 3, 4, 0, 1, draw() - 0.5, draw() - 0.5);
  if (nb == 7)
    for (int i = 0; i < o; i++) set_pair(d, o, 5, 6, i, i, draw() - 0.5, draw() - 0.5);
  s->nblocks = nb;
  s->shift = d->shift;
  s->block = d->block;
  draw_terms(s);
}

/* A Wannier-like random lattice: 3D, 1 or 2 orbitals, 4 to 7 cells a side in the plane and 6 to 8
 * along z, dense random blocks on R = 0 and the 18 R with |R|^2 = 1 or 2 (19 shifts: 38 hoppings
 * per orbital at 2 orbitals), H(-R) = H(R)^dagger. */
static void make_wannier_like(description *d, int o) {
  hm_stencil *s = &d->s;
  memset(s, 0, sizeof *s);
  memset(d->block, 0, sizeof d->block);
  s->orbitals = o;
  s->cells[0] = draw_int(4, 7);
  s->cells[1] = draw_int(4, 7);
  s->cells[2] = draw_int(6, 8);
  int nb = 0;
  for (int z = -1; z <= 1; z++)
    for (int y = -1; y <= 1; y++)
      for (int x = -1; x <= 1; x++) {
        if (x * x + y * y + z * z > 2) continue;
        d->shift[3 * nb] = x;
        d->shift[3 * nb + 1] = y;
        d->shift[3 * nb + 2] = z;
        nb++;
      }
  for (int b = 0; b < nb; b++) {
    int q = 0; /* the partner block, -R */
    while (d->shift[3 * q] != -d->shift[3 * b] || d->shift[3 * q + 1] != -d->shift[3 * b + 1] ||
           d->shift[3 * q + 2] != -d->shift[3 * b + 2])
      q++;
    if (q < b) continue;
    for (int i = 0; i < o; i++)
      for (int j = 0; j < o; j++) {
        if (q == b && j < i) continue;
        set_pair(d, o, b, q, i, j, draw() - 0.5, q == b && i == j ? 0 : draw() - 0.5);
      }
  }
  s->nblocks = nb;
  s->shift = d->shift;
  s->block = d->block;
  draw_terms(s);
}

static int vacant(const hm_stencil *s, int64_t site) {
  return s->vacancy_p > 0 && hm_random_uniform(s->vacancy_seed, s->vacancy_stream, (uint64_t)site) < s->vacancy_p;
}

/* Row `row` of the description's matrix, straight from the formula, appended to cols / vals. */
static int64_t reference_row(const hm_stencil *s, int64_t row, int64_t *cols, double complex *vals) {
  const int o = s->orbitals;
  const int64_t site = row / o, nx = s->cells[0], ny = s->cells[1];
  const int i = (int)(row % o);
  const int64_t c[3] = {site % nx, (site / nx) % ny, site / (nx * ny)};
  int64_t n = 0;
  if (vacant(s, site)) return 0;
  const double u = hm_random_uniform(s->disorder_seed, s->disorder_stream,
                                     (uint64_t)(s->disorder_per_site ? site : row));
  if (s->disorder_w != 0) {
    cols[n] = row;
    vals[n++] = s->disorder_w * (u - 0.5);
  }
  for (int b = 0; b < s->nblocks; b++) {
    int64_t t[3], w[3];
    double complex f = 1;
    int dropped = 0;
    for (int a = 0; a < 3; a++) {
      const int64_t v = c[a] + s->shift[3 * b + a];
      w[a] = (int64_t)floor((double)v / (double)s->cells[a]);
      t[a] = v - w[a] * s->cells[a];
      if (w[a] != 0 && s->boundary[a] == HM_BC_OPEN) dropped = 1;
      if (w[a] != 0 && s->boundary[a] == HM_BC_TWISTED) f *= cexp(I * s->twist[a] * (double)w[a]);
    }
    const int64_t ts = t[0] + nx * (t[1] + ny * t[2]);
    if (dropped || vacant(s, ts)) continue;
    for (int j = 0; j < o; j++) {
      const double *a = s->block + 2 * (((size_t)b * o + i) * o + j);
      if (a[0] == 0 && a[1] == 0) continue; /* sparse blocks (graphene-like): no stored zeros */
      double complex v = f * (a[0] + I * a[1]);
      if (s->peierls) {
        const double *g = s->peierls + (((size_t)b * o + i) * o + j) * 3;
        double turns = g[0] * c[0] + g[1] * c[1] + g[2] * c[2];
        for (int ax = 0; ax < 3; ax++) {
          if (w[ax] == 0) continue;
          const double *vk = s->wrap_phase + (((size_t)ax * s->nblocks + b) * o + j) * 4;
          turns += w[ax] * (vk[0] * c[0] + vk[1] * c[1] + vk[2] * c[2]) + vk[3];
        }
        v *= cexp(I * 6.283185307179586 * turns);
      }
      cols[n] = ts * o + j;
      vals[n++] = v;
    }
  }
  return n;
}

static hm_matrix *reference_matrix(hm_context *ctx, const hm_stencil *s, const hm_dist *dist) {
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  const int64_t per_row = (int64_t)s->nblocks * s->orbitals + 1;
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * (size_t)(local * per_row + 1));
  double complex *vals = malloc(sizeof *vals * (size_t)(local * per_row + 1));
  for (int64_t r = 0; r < local; r++)
    rowptr[r + 1] = rowptr[r] + reference_row(s, first + r, cols + rowptr[r], vals + rowptr[r]);
  hm_matrix *A = NULL;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, HM_COMPLEX, rowptr, cols, vals, &A));
  free(rowptr);
  free(cols);
  free(vals);
  return A;
}

/* max |a - b| / max |b| over all ranks. */
static double relative_difference(const double *a, const double *b, size_t n) {
  double diff = 0, size = 0;
  for (size_t e = 0; e < n; e++) {
    diff = fmax(diff, fabs(a[e] - b[e]));
    size = fmax(size, fabs(b[e]));
  }
  double both[2] = {diff, size}, all[2];
  MPI_Allreduce(both, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all[1] > 0 ? all[0] / all[1] : all[0];
}

static void compare_products(hm_context *cpu, hm_context *ctx, hm_matrix *A, hm_matrix *ref, const hm_dist *dist,
                             const hm_dist *cdist, int R, const char *what) {
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  const size_t len = 2 * (size_t)local * R;
  double *x = malloc(sizeof(double) * len + 8), *y = malloc(sizeof(double) * len + 8),
         *yref = malloc(sizeof(double) * len + 8);
  for (int64_t r = 0; r < local; r++)
    for (int j = 0; j < R; j++)
      for (int p = 0; p < 2; p++)
        x[2 * (r * R + j) + p] = hm_random_uniform(41, (uint64_t)(2 * j + p), (uint64_t)(first + r)) - 0.5;
  hm_mvec *vx, *vy, *cx, *cy;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &vx));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &vy));
  HM_TEST_OK(hm_mvec_create(cpu, cdist, HM_COMPLEX, R, &cx));
  HM_TEST_OK(hm_mvec_create(cpu, cdist, HM_COMPLEX, R, &cy));
  HM_TEST_OK(hm_mvec_set(vx, x));
  HM_TEST_OK(hm_mvec_set(cx, x));
  HM_TEST_OK(hm_matrix_apply(A, vx, vy));
  HM_TEST_OK(hm_matrix_apply(ref, cx, cy));
  HM_TEST_OK(hm_mvec_get(vy, y));
  HM_TEST_OK(hm_mvec_get(cy, yref));
  /* The two products sum each row's terms in different orders: a few eps of the terms' size, which
   * cancellation can leave above 1e-14 of the largest |y| on small random lattices (1.3e-14 seen); a
   * wrong hop or phase is O(1). */
  const double rel = relative_difference(y, yref, len);
  HM_TEST_ASSERT(rel <= 1e-13, "%s, R = %d: products differ by %.3g relative", what, R, rel);
  hm_mvec_destroy(&vx);
  hm_mvec_destroy(&vy);
  hm_mvec_destroy(&cx);
  hm_mvec_destroy(&cy);
  free(x);
  free(y);
  free(yref);
}

static void compare_diagonal(hm_context *cpu, hm_context *ctx, hm_matrix *A, hm_matrix *ref, const hm_dist *dist,
                             const hm_dist *cdist, const char *what) {
  int64_t local;
  hm_dist_range(dist, NULL, &local, NULL);
  hm_mvec *d, *dref;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &d));
  HM_TEST_OK(hm_mvec_create(cpu, cdist, HM_COMPLEX, 1, &dref));
  HM_TEST_OK(hm_matrix_diagonal(A, d));
  HM_TEST_OK(hm_matrix_diagonal(ref, dref));
  double *a = malloc(sizeof(double) * 2 * (size_t)local + 8), *b = malloc(sizeof(double) * 2 * (size_t)local + 8);
  HM_TEST_OK(hm_mvec_get(d, a));
  HM_TEST_OK(hm_mvec_get(dref, b));
  const double rel = relative_difference(a, b, 2 * (size_t)local);
  HM_TEST_ASSERT(rel <= 1e-14, "%s: diagonals differ by %.3g relative", what, rel);
  double lo, hi, rlo, rhi;
  HM_TEST_OK(hm_matrix_gershgorin(A, &lo, &hi));
  HM_TEST_OK(hm_matrix_gershgorin(ref, &rlo, &rhi));
  HM_TEST_ASSERT(lo <= rlo + 1e-12 && hi >= rhi - 1e-12, "%s: Gershgorin [%g, %g] does not contain the CSR's [%g, %g]",
                 what, lo, hi, rlo, rhi);
  hm_mvec_destroy(&d);
  hm_mvec_destroy(&dref);
  free(a);
  free(b);
}

static void compare_kpm(hm_matrix *A, hm_matrix *ref, double lo, double hi, int vectors, const char *what) {
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = 40;
  opt.vectors = vectors;
  opt.seed = 17;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = lo - 0.01 * (hi - lo) - 1e-3;
  opt.emax = hi + 0.01 * (hi - lo) + 1e-3;
  double mu[40], muref[40];
  hm_kpm *k = NULL, *kr = NULL;
  HM_TEST_OK(hm_kpm_create(A, &opt, &k));
  HM_TEST_OK(hm_kpm_create(ref, &opt, &kr));
  HM_TEST_OK(hm_kpm_run(k));
  HM_TEST_OK(hm_kpm_run(kr));
  HM_TEST_OK(hm_kpm_moments(k, mu, NULL));
  HM_TEST_OK(hm_kpm_moments(kr, muref, NULL));
  double diff = 0;
  for (int m = 0; m < 40; m++) diff = fmax(diff, fabs(mu[m] - muref[m]));
  HM_TEST_ASSERT(diff <= 1e-12 * fabs(muref[0]), "%s, %d vectors: KPM moments differ by %.3g (mu_0 = %g)", what,
                 vectors, diff, muref[0]);
  hm_kpm_destroy(&k);
  hm_kpm_destroy(&kr);
}

/* What needs entries says so; the SELL format is refused, AUTO / CSR accepted. */
static void check_refusals(hm_matrix *A) {
  int64_t n;
  hm_matrix_info(A, &n, NULL, NULL);
  double *w = malloc(sizeof(double) * (size_t)n);
  HM_TEST_FAILS(hm_dense_eigh_matrix(A, NULL, 0, HM_DENSE_AUTO, w, NULL), HM_ERR_ARGUMENT, "use storage = assembled");
  free(w);
  HM_TEST_FAILS(hm_matrix_set_format(A, HM_FORMAT_SELL, 0), HM_ERR_ARGUMENT, "use storage = assembled");
  HM_TEST_OK(hm_matrix_set_format(A, HM_FORMAT_CSR, 0));
}

/* The GPU kernel choice is validated in one place: words, values, matrices that store entries, and
 * HAMLET_STENCIL_KERNEL (the default of a new operator: an unknown word fails the create). */
static void check_kernel_choice(hm_context *ctx, const hm_stencil *s, hm_matrix *A, hm_matrix *assembled) {
  hm_stencil_kernel k = HM_STENCIL_KERNEL_AUTO;
  HM_TEST_OK(hm_stencil_kernel_from_word("box", &k));
  HM_TEST_ASSERT(k == HM_STENCIL_KERNEL_BOX, "'box' read as kernel %d", (int)k);
  HM_TEST_FAILS(hm_stencil_kernel_from_word("fast", &k), HM_ERR_ARGUMENT,
                "'fast' is unknown: allowed are auto, staged, box, mma, small, site");
  HM_TEST_FAILS(hm_matrix_set_stencil_kernel(A, (hm_stencil_kernel)6), HM_ERR_ARGUMENT, "allowed are 0 (auto) to 5");
  HM_TEST_FAILS(hm_matrix_set_stencil_kernel(assembled, HM_STENCIL_KERNEL_BOX), HM_ERR_ARGUMENT,
                "applies to a matrix-free operator");
  HM_TEST_OK(hm_matrix_set_stencil_kernel(A, HM_STENCIL_KERNEL_AUTO));
  const char *was = getenv("HAMLET_STENCIL_KERNEL");
  char saved[32] = "";
  if (was) snprintf(saved, sizeof saved, "%s", was);
  setenv("HAMLET_STENCIL_KERNEL", "fastest", 1);
  hm_matrix *B = NULL;
  HM_TEST_FAILS(hm_stencil_matrix_free_create(ctx, s, &B), HM_ERR_ARGUMENT,
                "HAMLET_STENCIL_KERNEL=fastest: allowed are auto, staged, box, mma, small, site");
  HM_TEST_ASSERT(B == NULL, "a refused operator was returned");
  if (was) setenv("HAMLET_STENCIL_KERNEL", saved, 1);
  else unsetenv("HAMLET_STENCIL_KERNEL");
}

/* Wrap phases that pair every wrapping hop with its partner's conjugate are accepted; constants that
 * differ between a block and its partner break the pairing only on the wrapping hops: the
 * matrix-free storage must find the defect the assembled CSR has, at the same entry, and KPM must
 * refuse both with the same message. 5 x 6 x 5 cells (hops up to 2: no entries merge). */
static void check_wrap_hermitian(hm_context *ctx) {
  description d;
  make_description(&d, 3, 1, 0, 0, 0);
  hm_stencil *s = &d.s;
  const int o = s->orbitals, nb = s->nblocks;
  s->cells[0] = 5;
  s->cells[1] = 6;
  s->cells[2] = 5;
  s->vacancy_p = 0;
  s->disorder_w = 0; /* no diagonal sums: both storages see the same largest entry */
  for (int a = 0; a < 3; a++) s->boundary[a] = HM_BC_TWISTED;
  memset(d.peierls, 0, sizeof d.peierls); /* zero gradients: the interior is Hermitian */
  memset(d.wrap_phase, 0, sizeof d.wrap_phase);
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  for (int broken = 0; broken < 2; broken++) {
    if (broken)
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < nb; b++)
          for (int j = 0; j < o; j++) d.wrap_phase[((a * nb + b) * o + j) * 4 + 3] = 0.01 * (1 + a + 3 * b);
    hm_matrix *free_op = NULL, *assembled = NULL;
    HM_TEST_OK(hm_matrix_create_stencil(ctx, s, HM_STENCIL_MATRIX_FREE, &free_op));
    HM_TEST_OK(hm_matrix_create_stencil(ctx, s, HM_STENCIL_ASSEMBLED, &assembled));
    if (!free_op || !assembled) return;
    const double want = assembled->hermitian_defect;
    HM_TEST_ASSERT(fabs(free_op->hermitian_defect - want) <= 1e-12 * (1 + want),
                   "wrap phases %s: matrix-free defect %.17g, assembled %.17g", broken ? "broken" : "paired",
                   free_op->hermitian_defect, want);
    hm_kpm *k = NULL;
    if (!broken) {
      HM_TEST_ASSERT(want <= 1e-13, "paired wrap phases: the assembled defect is %g", want);
      HM_TEST_OK(hm_kpm_create(free_op, &opt, &k));
      hm_kpm_destroy(&k);
    } else {
      HM_TEST_ASSERT(want > 1e-3, "broken wrap phases: the assembled defect is only %g", want);
      HM_TEST_ASSERT(free_op->defect_row == assembled->defect_row && free_op->defect_col == assembled->defect_col,
                     "broken wrap phases: matrix-free worst entry (%lld, %lld), assembled (%lld, %lld)",
                     (long long)free_op->defect_row, (long long)free_op->defect_col,
                     (long long)assembled->defect_row, (long long)assembled->defect_col);
      char message[2][1024];
      hm_matrix *both[2] = {assembled, free_op};
      for (int m = 0; m < 2; m++) {
        const int st = hm_kpm_create(both[m], &opt, &k);
        snprintf(message[m], sizeof message[m], "%s", hm_error_message());
        HM_TEST_ASSERT(st == HM_ERR_INPUT && strstr(message[m], "KPM needs a Hermitian matrix"),
                       "%s storage: KPM gave %d, not a refusal (%d): %s", m ? "matrix-free" : "assembled", st,
                       HM_ERR_INPUT, message[m]);
        hm_kpm_destroy(&k);
        hm_error_clear();
      }
      const char *theirs = strstr(message[0], "KPM needs"), *mine = strstr(message[1], "KPM needs");
      HM_TEST_ASSERT(mine && theirs && strcmp(mine, theirs) == 0, "the refusals differ:\n  %s  %s", theirs, mine);
    }
    hm_matrix_destroy(&free_op);
    hm_matrix_destroy(&assembled);
  }
}

/* Trials 50..55: the TI's shape on larger boxes (4 orbitals, hops to the 6 face neighbours, periodic
 * or open boundaries, no vacancies): what the staged CUDA kernel serves (HAMLET_STENCIL_KERNEL=staged,
 * gpu/stencil_staged_cuda.cu), with planes of 9..29 x 5..13 sites that its tiles (32 x 8 to 4 x 4
 * sites) cover partly; trial 50 exactly 32 x 8 (whole tiles at R = 1, 2, 4, 8, 16), trial 51 one site
 * wide in y (its y hops wrap onto the site itself or are dropped). Drawn after the other trials. */
static void make_ti_shaped(description *d, int trial) {
  make_description(d, 3, 0, 0, 1, 4); /* faces, 4 orbitals: periodic or open, no vacancies */
  hm_stencil *s = &d->s;
  s->cells[0] = trial == 50 ? 32 : draw_int(9, 29);
  s->cells[1] = trial == 50 ? 8 : trial == 51 ? 1 : draw_int(5, 13);
  s->cells[2] = draw_int(3, 6);
}

/* Trials 56 and 57: the TI's shape with random values on the TI's entry kinds only (each entry of a
 * direction's block real, imaginary or zero where the TI's is: the Dirac matrices' pattern), which the
 * staged CUDA kernel serves with those kinds compiled in (gpu/stencil_staged_cuda.cu, ti_kind). The
 * pattern is symmetric under transposition, so the blocks stay each other's conjugate transposes. */
static void make_ti_kinded(description *d, int trial) {
  make_ti_shaped(d, trial);
  hm_stencil *s = &d->s;
  for (int b = 0; b < s->nblocks; b++) {
    const int32_t *R = s->shift + 3 * b;
    const int axis = R[0] != 0 ? 0 : R[1] != 0 ? 1 : R[2] != 0 ? 2 : -1;
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        double *v = d->block + 2 * (16 * b + 4 * i + j);
        const int real = i == j || (axis == 1 && i + j == 3);
        const int imaginary = i != j && ((axis == 0 && i + j == 3) || (axis == 2 && (i ^ 2) == j));
        if (!real) v[0] = 0;
        if (!imaginary) v[1] = 0;
      }
  }
}

/* Trials 58..61: 4 orbitals, 6 to 8
 * cells a side, the face pairs and half the time a pair of reach 2, each entry (with its Hermitian
 * partner) drawn real-only, imaginary-only, complex or zero (the R = 0 diagonal real), z twisted (the
 * slabs' axis: its twist turns a real or imaginary hop complex in the CPU slab table), x and y any
 * boundary, no vacancies (the fast path serves the inner sites). */
static void make_mixed_kinds(description *d) {
  hm_stencil *s = &d->s;
  memset(s, 0, sizeof *s);
  memset(d->block, 0, sizeof d->block);
  const int o = 4;
  s->orbitals = o;
  for (int a = 0; a < 3; a++) s->cells[a] = draw_int(6, 8);
  d->shift[0] = d->shift[1] = d->shift[2] = 0;
  int nb = 1;
  const int pairs = draw() < 0.5 ? 4 : 3;
  for (int p = 0; p < pairs; p++) {
    int32_t R[3] = {p == 0, p == 1, p == 2};
    if (p == 3)
      for (int a = 0; a < 3; a++) R[a] = a == 2 ? 2 : draw_int(-2, 2);
    nb += append_shift_pair(d->shift, nb, R) ? 2 : 0;
  }
  for (int b = 0; b < nb; b += b == 0 ? 1 : 2) { /* block 0 is its own partner; then pairs (b, b + 1) */
    const int q = b == 0 ? 0 : b + 1;
    for (int i = 0; i < o; i++)
      for (int j = b == 0 ? i : 0; j < o; j++) {
        const int kind = b == 0 && i == j ? 0 : draw_int(0, 3); /* real, imaginary, complex, zero */
        const double re = draw() - 0.5, im = draw() - 0.5;
        if (kind < 3) set_pair(d, o, b, q, i, j, kind == 1 ? 0 : re, kind == 0 ? 0 : im);
      }
  }
  s->nblocks = nb;
  s->shift = d->shift;
  s->block = d->block;
  draw_terms(s);
  s->boundary[2] = HM_BC_TWISTED;
  s->vacancy_p = 0;
}

static void report_progress(const char *what, double t0) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) fprintf(stderr, "%s: done at %.1f s\n", what, MPI_Wtime() - t0);
}

/* Arguments: [cuda | cpu] [TRIALS] (TRIALS as "24-29,38-49": only those trials are compared; a quicker
 * run under compute-sanitizer or on oversubscribed ranks). */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  const char *only = argc > 2 ? argv[2] : NULL;
  if (cuda) HM_TEST_NEED_GPU();
  const int untuned = cuda ? tuning_missing() : 0; /* a tuning variant in a build that does not read it */
  if (untuned) return untuned;
  hm_context *cpu = NULL, *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &cpu));
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  const uint64_t seed = hm_test_seed();
  draw_seed = seed;
  const int trials = 62;
  /* HAMLET_TEST_PROGRESS=1: a line per trial with the seconds so far, so a slow run (several ranks
   * sharing one GPU and its host cores) can be told from a hung one. */
  const int progress = getenv("HAMLET_TEST_PROGRESS") != NULL;
  const double t0 = MPI_Wtime();
  uint64_t draws_before_new_kinds = 0;
  for (int trial = 0; trial < trials; trial++) {
    if (trial == 30) draws_before_new_kinds = draw_count;
    /* 30..33 graphene-like, 34..37 Wannier-like (the CUDA few-orbital kernel's models); 38..49 1 or
     * 2 orbitals on 1..7 cells per axis, shifts of reach 1 (faces) or 2, every boundary kind (the
     * few-orbital kernel's tiles, fast path and faces on small boxes), one with a field (the
     * kernel declines it: the per-entry kernel serves it); 50..55 the TI's shape (make_ti_shaped); 56, 57
     * the TI's shape and entry kinds (make_ti_kinded); 58..61 entries of each kind (make_mixed_kinds) */
    const int large = trial >= 18 && trial < 24, faces = (trial >= 24 && trial < 30) || (trial >= 38 && trial % 2 == 0);
    const int graphene = trial >= 30 && trial < 34, wannier = trial >= 34 && trial < 38, few = trial >= 38 && trial < 50;
    const int dims = few ? 3 - trial % 3 : faces || wannier ? 3 : graphene ? 2 : 3 - trial % 3;
    const int peierls = (trial < 24 && trial % 4 == 3) || trial == 43;
    description d;
    if (graphene) make_graphene_like(&d);
    else if (wannier) make_wannier_like(&d, trial == 37 ? 1 : 2);
    else if (trial >= 58) make_mixed_kinds(&d);
    else if (trial >= 56) make_ti_kinded(&d, trial);
    else if (trial >= 50) make_ti_shaped(&d, trial);
    else make_description(&d, dims, peierls, large, faces, few ? 1 + trial % 2 : 0);
    if ((large || graphene || wannier) && trial % 2 == 0) d.s.vacancy_p = 0; /* vacancies take the general path everywhere */
    if (!hm_test_selected(only, trial)) continue; /* skipped trials are still drawn: the same lattices */
    char what[200];
    snprintf(what, sizeof what, "trial %d (seed %llu): %lld x %lld x %lld cells, %d orbitals, %d blocks, bc %d%d%d, "
             "w %.2f%s, p %.2f%s", trial, (unsigned long long)seed, (long long)d.s.cells[0], (long long)d.s.cells[1],
             (long long)d.s.cells[2], d.s.orbitals, d.s.nblocks, d.s.boundary[0], d.s.boundary[1], d.s.boundary[2],
             d.s.disorder_w, d.s.disorder_per_site ? " per site" : "", d.s.vacancy_p, peierls ? ", Peierls" : "");
    hm_matrix *A = NULL, *ref = NULL;
    HM_TEST_OK(hm_stencil_matrix_free_create(ctx, &d.s, &A));
    if (!A) continue;
    const hm_dist *dist;
    hm_matrix_dist(A, &dist);
    int64_t first, local, n, slab_rows = d.s.orbitals;
    hm_dist_range(dist, &first, &local, &n);
    for (int a = 0; a < (d.s.cells[2] > 1 ? 2 : d.s.cells[1] > 1 ? 1 : 0); a++) slab_rows *= d.s.cells[a];
    hm_dist *cdist = NULL;
    HM_TEST_OK(hm_dist_create(cpu, n, slab_rows, 1.0, &cdist));
    int64_t cfirst, clocal;
    hm_dist_range(cdist, &cfirst, &clocal, NULL);
    HM_TEST_ASSERT(cfirst == first && clocal == local, "%s: the CPU split differs", what);
    ref = reference_matrix(cpu, &d.s, cdist);
    int64_t nnz, nnz_ref;
    hm_matrix_info(A, NULL, &nnz, NULL);
    hm_matrix_info(ref, NULL, &nnz_ref, NULL);
    HM_TEST_ASSERT(nnz >= nnz_ref, "%s: %lld equivalent entries, fewer than the CSR's %lld", what, (long long)nnz,
                   (long long)nnz_ref);
    const int widths[6] = {1, 2, 4, 16, 24, 32}; /* 24: slices of 8 columns in a wider block (the box kernel) */
    for (int w = 0; w < 6; w++) compare_products(cpu, ctx, A, ref, dist, cdist, widths[w], what);
    compare_diagonal(cpu, ctx, A, ref, dist, cdist, what);
    if (!peierls) {
      double lo, hi;
      HM_TEST_OK(hm_matrix_gershgorin(A, &lo, &hi));
      const int vectors[6] = {1, 2, 4, 8, 16, 32};
      for (int v = 0; v < 6; v++) compare_kpm(A, ref, lo, hi, vectors[v], what);
    }
    if (trial == 0) {
      check_refusals(A);
      check_kernel_choice(ctx, &d.s, A, ref);
    }
    if (progress) report_progress(what, t0);
    hm_matrix_destroy(&A);
    hm_matrix_destroy(&ref);
    hm_dist_destroy(&cdist);
  }
  long long served;
  if (cuda && !only && forced_kernel(&served) >= 0)
    HM_TEST_ASSERT(served > 0, "HAMLET_STENCIL_KERNEL=%s forced, yet that kernel served no product (it fell back)",
                   getenv("HAMLET_STENCIL_KERNEL"));
  draw_count = draws_before_new_kinds; /* the wrap check's description as before trials 30..37 came */
  check_wrap_hermitian(ctx);
  hm_context_destroy(&ctx);
  hm_context_destroy(&cpu);
  return hm_test_finish();
}
