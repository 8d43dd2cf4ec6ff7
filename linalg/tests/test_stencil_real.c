/* The real-arithmetic matrix-free lattice operator (HM_STENCIL_MATRIX_FREE_REAL) against the complex
 * one of the same description (the tested HM_STENCIL_MATRIX_FREE: test_stencil_free): random real
 * lattices (1 to 4 orbitals, 1D, 2D and 3D boxes, hops of reach up to 2, periodic, open and twisted
 * boundaries with twist 0, disorder per site or per orbital, vacancies; 6 to 10 cells a side in
 * some trials so that the CPU kernel's fast path sits between face sites), blocks of 1, 2, 3, 4, 8,
 * 12, 16 and 32 columns:
 * - a real block x: H_real x equals H_complex (x + 0 i), whose imaginary part is zero (1e-14);
 * - a complex block a + i b: H_complex (a + i b) equals H_real a + i H_real b (1e-14);
 * - the diagonal equals the complex one's real part; the matrix type is HM_REAL;
 * - KPM moments of the real operator with its real random signs equal those of the complex operator
 *   started from the same signs (1e-12), for 1, 3 and 8 vectors;
 * - the complex terms are refused by name: a complex entry, a twist other than 0, a field.
 * Argument "cuda": the real operator on the GPU (the complex reference stays on the CPU): the per-site
 * kernel for 1, 2 and 4 orbitals, the per-entry one for 3 (the tensor-core kernel declines real
 * operators); the few-orbital kernel for 1, 2 and 4 orbitals where HAMLET_STENCIL_KERNEL=small (real
 * operators take it only where forced); the staged kernel where HAMLET_STENCIL_KERNEL=staged on the
 * TI-shaped trials 24..27. Run on 1 and 3 ranks. */
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
  int32_t shift[16 * 3];
  double block[16 * 16 * 2];
} description;

static uint64_t draw_seed, draw_count;
static double draw(void) { return hm_random_uniform(draw_seed, 9, draw_count++); }
static int draw_int(int lo, int hi) { return lo + (int)(draw() * (hi - lo + 1)) % (hi - lo + 1); }

/* A random real symmetric description: H(-R) = H(R)^T, real on-site block. */
static void make_real(description *d, int dims, int large) {
  hm_stencil *s = &d->s;
  HM_TEST_OK(hm_stencil_init(s));
  memset(d->block, 0, sizeof d->block);
  const int o = draw_int(1, 4);
  s->orbitals = o;
  for (int a = 0; a < 3; a++) s->cells[a] = a >= dims ? 1 : large ? draw_int(6, dims == 3 ? 8 : 10) : draw_int(2, 7);
  memset(d->shift, 0, sizeof d->shift);
  for (int i = 0; i < o; i++)
    for (int j = 0; j <= i; j++) d->block[2 * (i * o + j)] = d->block[2 * (j * o + i)] = draw() - 0.5;
  int nb = 1;
  const int pairs = draw_int(1, 4);
  for (int p = 0; p < pairs; p++) {
    int32_t R[3] = {0, 0, 0};
    for (int a = 0; a < dims; a++) R[a] = draw_int(-2, 2);
    if (R[0] == 0 && R[1] == 0 && R[2] == 0) R[0] = 1;
    if (!append_shift_pair(d->shift, nb, R)) continue;
    double *B = d->block + 2 * o * o * nb, *Bt = B + 2 * o * o;
    for (int i = 0; i < o; i++)
      for (int j = 0; j < o; j++) {
        const double v = draw() < 0.2 ? 0 : draw() - 0.5; /* some zero entries: sparse rows */
        B[2 * (i * o + j)] = v;
        Bt[2 * (j * o + i)] = v;
      }
    nb += 2;
  }
  s->nblocks = nb;
  s->shift = d->shift;
  s->block = d->block;
  for (int a = 0; a < 3; a++) {
    s->boundary[a] = draw_int(0, 2);
    s->twist[a] = 0; /* twisted by 0: a real boundary factor */
  }
  s->disorder_w = draw() < 0.7 ? 2 * draw() : 0;
  s->disorder_seed = 11 + (uint64_t)draw_int(0, 1000);
  s->disorder_stream = 3;
  s->disorder_per_site = draw_int(0, 1);
  s->vacancy_p = draw() < 0.5 ? 0.25 * draw() : 0;
  s->vacancy_seed = 5 + (uint64_t)draw_int(0, 1000);
  s->vacancy_stream = 4;
}

/* The TI's shape, real: 4 orbitals, hops to the 6 face neighbours, periodic or open boundaries, no
 * vacancies, planes of 9..29 x 5..13 sites and 3..6 slabs (the staged CUDA kernel's lattices,
 * HAMLET_STENCIL_KERNEL=staged: whole and partial tiles of its real arithmetic). */
static void make_real_ti(description *d) {
  make_real(d, 3, 0);
  hm_stencil *s = &d->s;
  const int o = 4;
  s->orbitals = o;
  s->cells[0] = draw_int(9, 29);
  s->cells[1] = draw_int(5, 13);
  s->cells[2] = draw_int(3, 6);
  memset(d->block, 0, sizeof d->block);
  for (int i = 0; i < o; i++)
    for (int j = 0; j <= i; j++) d->block[2 * (i * o + j)] = d->block[2 * (j * o + i)] = draw() - 0.5;
  for (int p = 0; p < 3; p++) { /* blocks 1 + 2p, 2 + 2p: the unit step along axis p and its transpose */
    for (int a = 0; a < 3; a++) {
      d->shift[3 * (1 + 2 * p) + a] = a == p;
      d->shift[3 * (2 + 2 * p) + a] = -(a == p);
    }
    double *B = d->block + 2 * o * o * (1 + 2 * p), *Bt = B + 2 * o * o;
    for (int i = 0; i < o; i++)
      for (int j = 0; j < o; j++) B[2 * (i * o + j)] = Bt[2 * (j * o + i)] = draw() - 0.5;
  }
  s->nblocks = 7;
  for (int a = 0; a < 3; a++) s->boundary[a] = draw_int(0, 1);
  s->vacancy_p = 0;
}

/* max |a - b| / max |b| over all ranks (|b| at least 1e-300). */
static double relative_difference(const double *a, const double *b, size_t n, size_t stride_a, size_t stride_b) {
  double diff = 0, size = 0;
  for (size_t e = 0; e < n; e++) {
    diff = fmax(diff, fabs(a[e * stride_a] - b[e * stride_b]));
    size = fmax(size, fabs(b[e * stride_b]));
  }
  double both[2] = {diff, size}, all[2];
  MPI_Allreduce(both, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all[1] > 0 ? all[0] / all[1] : all[0];
}

/* y = A x for a block of `type` with R columns from the host array x (local rows). */
static void apply(hm_context *ctx, hm_matrix *A, hm_scalar type, int R, const double *x, double *y) {
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  hm_mvec *vx, *vy;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, R, &vx));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, R, &vy));
  HM_TEST_OK(hm_mvec_set(vx, x));
  HM_TEST_OK(hm_matrix_apply(A, vx, vy));
  HM_TEST_OK(hm_mvec_get(vy, y));
  hm_mvec_destroy(&vx);
  hm_mvec_destroy(&vy);
}

static void compare_products(hm_context *cpu, hm_context *ctx, hm_matrix *Ar, hm_matrix *Ac, int64_t first,
                             int64_t local, int R, const char *what) {
  const size_t n = (size_t)local * R;
  double *a = malloc(sizeof(double) * n + 8), *b = malloc(sizeof(double) * n + 8), *z = malloc(sizeof(double) * 2 * n + 8);
  double *ya = malloc(sizeof(double) * n + 8), *yb = malloc(sizeof(double) * n + 8),
         *yz = malloc(sizeof(double) * 2 * n + 8), *both = malloc(sizeof(double) * 2 * n + 8);
  for (int64_t r = 0; r < local; r++)
    for (int j = 0; j < R; j++) {
      const size_t e = (size_t)(r * R + j);
      a[e] = hm_random_uniform(41, (uint64_t)(2 * j), (uint64_t)(first + r)) - 0.5;
      b[e] = hm_random_uniform(41, (uint64_t)(2 * j + 1), (uint64_t)(first + r)) - 0.5;
      z[2 * e] = a[e];
      z[2 * e + 1] = 0;
    }
  /* a real block: H_real a against H_complex (a + 0 i) */
  apply(ctx, Ar, HM_REAL, R, a, ya);
  apply(cpu, Ac, HM_COMPLEX, R, z, yz);
  double rel = relative_difference(ya, yz, n, 1, 2);
  HM_TEST_ASSERT(rel <= 1e-14, "%s, R = %d: real products differ from the complex operator's by %.3g", what, R, rel);
  double im = 0;
  for (size_t e = 0; e < n; e++) im = fmax(im, fabs(yz[2 * e + 1]));
  HM_TEST_ASSERT(im <= 1e-14, "%s, R = %d: the complex operator gives a real block an imaginary part %.3g", what, R, im);
  /* a complex block: H_complex (a + i b) against H_real a + i H_real b */
  for (size_t e = 0; e < n; e++) z[2 * e + 1] = b[e];
  apply(cpu, Ac, HM_COMPLEX, R, z, yz);
  apply(ctx, Ar, HM_REAL, R, b, yb);
  for (size_t e = 0; e < n; e++) {
    both[2 * e] = ya[e];
    both[2 * e + 1] = yb[e];
  }
  rel = relative_difference(both, yz, 2 * n, 1, 1);
  HM_TEST_ASSERT(rel <= 1e-14, "%s, R = %d: H (a + i b) differs from H a + i H b by %.3g", what, R, rel);
  free(a), free(b), free(z), free(ya), free(yb), free(yz), free(both);
}

static void compare_diagonal(hm_context *cpu, hm_context *ctx, hm_matrix *Ar, hm_matrix *Ac, int64_t local,
                             const char *what) {
  const hm_dist *dr, *dc;
  hm_matrix_dist(Ar, &dr);
  hm_matrix_dist(Ac, &dc);
  hm_mvec *d, *dref;
  HM_TEST_OK(hm_mvec_create(ctx, dr, HM_REAL, 1, &d));
  HM_TEST_OK(hm_mvec_create(cpu, dc, HM_COMPLEX, 1, &dref));
  HM_TEST_OK(hm_matrix_diagonal(Ar, d));
  HM_TEST_OK(hm_matrix_diagonal(Ac, dref));
  double *x = malloc(sizeof(double) * (size_t)local + 8), *y = malloc(sizeof(double) * 2 * (size_t)local + 8);
  HM_TEST_OK(hm_mvec_get(d, x));
  HM_TEST_OK(hm_mvec_get(dref, y));
  const double rel = relative_difference(x, y, (size_t)local, 1, 2);
  HM_TEST_ASSERT(rel <= 1e-14, "%s: the real diagonal differs by %.3g", what, rel);
  hm_mvec_destroy(&d);
  hm_mvec_destroy(&dref);
  free(x);
  free(y);
}

/* The real operator's KPM (its own random signs) against the complex operator's from the same signs. */
static void compare_kpm(hm_context *cpu, hm_matrix *Ar, hm_matrix *Ac, int64_t first, int64_t local, int R,
                        const char *what) {
  double lo, hi;
  HM_TEST_OK(hm_matrix_gershgorin(Ac, &lo, &hi));
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = 40;
  opt.vectors = R;
  opt.seed = 23;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = lo - 0.01 * (hi - lo) - 1e-3;
  opt.emax = hi + 0.01 * (hi - lo) + 1e-3;
  hm_kpm *kr = NULL, *kc = NULL;
  HM_TEST_OK(hm_kpm_create(Ar, &opt, &kr));
  HM_TEST_OK(hm_kpm_create(Ac, &opt, &kc));
  double *signs = malloc(sizeof(double) * 2 * (size_t)local * R + 8);
  for (int64_t r = 0; r < local; r++)
    for (int j = 0; j < R; j++) {
      hm_random_phase_entry(opt.seed, (uint64_t)j, (uint64_t)(first + r), 0, signs + 2 * (r * R + j));
      signs[2 * (r * R + j) + 1] = 0;
    }
  const hm_dist *dc;
  hm_matrix_dist(Ac, &dc);
  hm_mvec *V0;
  HM_TEST_OK(hm_mvec_create(cpu, dc, HM_COMPLEX, R, &V0));
  HM_TEST_OK(hm_mvec_set(V0, signs));
  HM_TEST_OK(hm_kpm_set_start(kc, V0));
  HM_TEST_OK(hm_kpm_run(kr));
  HM_TEST_OK(hm_kpm_run(kc));
  double mu[40], muc[40];
  HM_TEST_OK(hm_kpm_moments(kr, mu, NULL));
  HM_TEST_OK(hm_kpm_moments(kc, muc, NULL));
  double diff = 0;
  for (int m = 0; m < 40; m++) diff = fmax(diff, fabs(mu[m] - muc[m]));
  HM_TEST_ASSERT(diff <= 1e-12, "%s, %d vectors: real KPM moments differ from the complex ones by %.3g", what, R, diff);
  hm_mvec_destroy(&V0);
  hm_kpm_destroy(&kr);
  hm_kpm_destroy(&kc);
  free(signs);
}

/* A complex entry, a twist other than 0 and a field: refused by name, and named by hm_stencil_complex_term. */
static void check_refusals(hm_context *ctx) {
  description d;
  make_real(&d, 2, 0);
  hm_matrix *A = NULL;
  char term[256];
  int is_complex = -1;
  HM_TEST_OK(hm_stencil_complex_term(&d.s, &is_complex, term, sizeof term));
  HM_TEST_ASSERT(is_complex == 0, "a real description is called complex: %s", term);
  d.s.boundary[0] = HM_BC_TWISTED;
  d.s.twist[0] = 0.3;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &d.s, HM_STENCIL_MATRIX_FREE_REAL, &A), HM_ERR_ARGUMENT, "twist of 0.3");
  d.s.twist[0] = 0;
  /* a complex Hermitian pair: R = 0's entries (0, 1) and (1, 0), or with one orbital blocks R1 and -R1 */
  d.block[2 * 1 + 1] = 0.25;
  d.block[2 * (d.s.orbitals > 1 ? d.s.orbitals : 2) + 1] = -0.25;
  HM_TEST_OK(hm_stencil_complex_term(&d.s, &is_complex, term, sizeof term));
  HM_TEST_ASSERT(is_complex == 1 && strstr(term, "imaginary part 0.25"), "the complex entry is not named: %s", term);
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &d.s, HM_STENCIL_MATRIX_FREE_REAL, &A), HM_ERR_ARGUMENT, "not real");
  HM_TEST_ASSERT(!A, "a refused description left a matrix");
  double peierls[16 * 16 * 3] = {0}, wrap[3 * 16 * 4 * 4] = {0};
  make_real(&d, 2, 0);
  d.s.peierls = peierls;
  d.s.wrap_phase = wrap;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &d.s, HM_STENCIL_MATRIX_FREE_REAL, &A), HM_ERR_ARGUMENT, "magnetic field");
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &d.s, (hm_stencil_storage)3, &A), HM_ERR_ARGUMENT,
                "HM_STENCIL_MATRIX_FREE_REAL (2)");
}

/* Arguments: [cuda | cpu] [TRIALS] (TRIALS as "0-2,24": only those trials are compared; a quicker run
 * on oversubscribed ranks). */
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
  for (int trial = 0; trial < 28; trial++) {
    const int dims = 3 - trial % 3, large = trial >= 12 && trial < 18;
    description d;
    if (trial >= 24) make_real_ti(&d); /* 24..27: the TI's shape */
    else make_real(&d, dims, large);
    if (large && trial % 2 == 0) d.s.vacancy_p = 0; /* vacancies take the general path everywhere */
    if (!hm_test_selected(only, trial)) continue; /* skipped trials are still drawn: the same lattices */
    char what[200];
    snprintf(what, sizeof what, "trial %d (seed %llu): %lld x %lld x %lld cells, %d orbitals, %d blocks, bc %d%d%d, "
             "w %.2f%s, p %.2f", trial, (unsigned long long)seed, (long long)d.s.cells[0], (long long)d.s.cells[1],
             (long long)d.s.cells[2], d.s.orbitals, d.s.nblocks, d.s.boundary[0], d.s.boundary[1], d.s.boundary[2],
             d.s.disorder_w, d.s.disorder_per_site ? " per site" : "", d.s.vacancy_p);
    hm_matrix *Ar = NULL, *Ac = NULL;
    HM_TEST_OK(hm_matrix_create_stencil(ctx, &d.s, HM_STENCIL_MATRIX_FREE_REAL, &Ar));
    HM_TEST_OK(hm_matrix_create_stencil(cpu, &d.s, HM_STENCIL_MATRIX_FREE, &Ac));
    if (!Ar || !Ac) continue;
    hm_scalar type;
    HM_TEST_OK(hm_matrix_info(Ar, NULL, NULL, &type));
    HM_TEST_ASSERT(type == HM_REAL, "%s: the real operator's type is %d", what, (int)type);
    const hm_dist *dr, *dc;
    hm_matrix_dist(Ar, &dr);
    hm_matrix_dist(Ac, &dc);
    int64_t first, local, cfirst, clocal;
    hm_dist_range(dr, &first, &local, NULL);
    hm_dist_range(dc, &cfirst, &clocal, NULL);
    HM_TEST_ASSERT(first == cfirst && local == clocal, "%s: the real and complex operators split the rows differently",
                   what);
    const int widths[8] = {1, 2, 3, 4, 8, 12, 16, 32};
    for (int w = 0; w < 8; w++) compare_products(cpu, ctx, Ar, Ac, first, local, widths[w], what);
    compare_diagonal(cpu, ctx, Ar, Ac, local, what);
    const int vectors[3] = {1, 3, 8};
    for (int v = 0; v < 3; v++) compare_kpm(cpu, Ar, Ac, first, local, vectors[v], what);
    hm_matrix_destroy(&Ar);
    hm_matrix_destroy(&Ac);
  }
  long long served;
  const int forced = cuda && !only ? forced_kernel(&served) : -1;
  if (forced >= 0)
    HM_TEST_ASSERT(served > 0, "HAMLET_STENCIL_KERNEL=%s forced, yet that kernel served no product (it fell back)",
                   getenv("HAMLET_STENCIL_KERNEL"));
  check_refusals(ctx);
  hm_context_destroy(&ctx);
  hm_context_destroy(&cpu);
  return hm_test_finish();
}
