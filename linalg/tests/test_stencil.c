/* hm_stencil assembled (and, on a random model, matrix-free through the same call): twisted rings and open chains against their analytic spectra, a random
 * two-orbital 2D model (twists, open and periodic sides, disorder, vacancies) against its entries
 * written out directly from the definition in stencil.h, and the refusals of bad descriptions. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "random.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A chain of L cells, hopping t to both neighbours: periodic with twist theta has the spectrum
 * 2 t cos((2 pi k + theta) / L), open the spectrum 2 t cos(pi k / (L + 1)), k = 1..L. */
static void chain(hm_context *ctx, int L, int boundary, double theta) {
  const double t = 1.3;
  int32_t shift[6] = {1, 0, 0, -1, 0, 0};
  double block[4] = {t, 0.0, t, 0.0};
  hm_stencil s;
  HM_TEST_OK(hm_stencil_init(&s));
  s.cells[0] = L;
  s.nblocks = 2;
  s.shift = shift;
  s.block = block;
  s.boundary[0] = boundary;
  s.twist[0] = theta;
  hm_matrix *H = NULL;
  HM_TEST_OK(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H));
  double complex *dense = NULL;
  int64_t n = 0;
  double *w = malloc(sizeof *w * (size_t)L), *exact = malloc(sizeof *exact * (size_t)L);
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  HM_TEST_ASSERT(n == L, "n = %lld, want %d", (long long)n, L);
  if (n == L) {
    HM_TEST_OK(hm_test_eigh(n, dense, w, NULL));
    for (int k = 0; k < L; k++)
      exact[k] = boundary == HM_BC_OPEN ? 2 * t * cos(M_PI * (k + 1) / (L + 1)) : 2 * t * cos((2 * M_PI * k + theta) / L);
    qsort(exact, (size_t)L, sizeof *exact, cmp_double);
    for (int k = 0; k < L; k++)
      HM_TEST_ASSERT(fabs(w[k] - exact[k]) < 1e-13, "L %d boundary %d twist %g: eigenvalue %d = %.15g, want %.15g", L,
                     boundary, theta, k, w[k], exact[k]);
  }
  free(dense);
  free(w);
  free(exact);
  hm_matrix_destroy(&H);
}

/* Floor division and the modulo that goes with it. */
static int64_t fdiv(int64_t a, int64_t n) { return a >= 0 ? a / n : -((-a + n - 1) / n); }

/* The dense matrix of s written entry by entry from stencil.h's definition (no field). */
static double complex *direct(const hm_stencil *s) {
  const int no = s->orbitals;
  const int64_t nx = s->cells[0], ny = s->cells[1], nz = s->cells[2], N = nx * ny * nz * no;
  double complex *D = calloc((size_t)(N * N), sizeof *D);
  for (int64_t site = 0; site < nx * ny * nz; site++) {
    const int64_t c[3] = {site % nx, (site / nx) % ny, site / (nx * ny)};
    if (s->vacancy_p > 0 && hm_random_uniform(s->vacancy_seed, s->vacancy_stream, (uint64_t)site) < s->vacancy_p)
      continue;
    for (int i = 0; i < no; i++) {
      const int64_t row = site * no + i;
      if (s->disorder_w > 0)
        D[row + N * row] += s->disorder_w * (hm_random_uniform(s->disorder_seed, s->disorder_stream,
                                                               s->disorder_per_site ? (uint64_t)site : (uint64_t)row) - 0.5);
      for (int b = 0; b < s->nblocks; b++) {
        int64_t t[3];
        double complex f = 1.0;
        for (int a = 0; a < 3; a++) {
          const int64_t u = c[a] + s->shift[3 * b + a], wraps = fdiv(u, s->cells[a]);
          t[a] = u - wraps * s->cells[a];
          if (wraps != 0 && s->boundary[a] == HM_BC_OPEN) f = 0.0;
          if (s->boundary[a] == HM_BC_TWISTED) f *= cexp(I * s->twist[a] * (double)wraps);
        }
        const int64_t target = t[0] + nx * (t[1] + ny * t[2]);
        if (f == 0.0 ||
            (s->vacancy_p > 0 && hm_random_uniform(s->vacancy_seed, s->vacancy_stream, (uint64_t)target) < s->vacancy_p))
          continue;
        for (int j = 0; j < no; j++) {
          const double *e = s->block + 2 * ((b * no + i) * no + j);
          D[row + N * (target * no + j)] += f * CMPLX(e[0], e[1]);
        }
      }
    }
  }
  return D;
}

/* Two orbitals on a 5 x 4 x 3 box, hops up to range 2 in random directions with random amplitudes
 * (each with its Hermitian partner), x twisted, y open, z periodic, disorder, vacancies. */
static void random_model(hm_context *ctx, uint64_t seed, int per_site) {
  enum { NB = 7, NO = 2 };
  int32_t shift[3 * NB] = {0, 0, 0};
  double block[NB * NO * NO * 2];
  for (int p = 1; p < NB; p += 2)
    for (int a = 0; a < 3; a++) {
      shift[3 * p + a] = (int32_t)(hm_random_u64(seed, 1, (uint64_t)(3 * p + a)) % 5) - 2;
      shift[3 * (p + 1) + a] = -shift[3 * p + a];
    }
  shift[3 * 1] = 1; shift[3 * 1 + 1] = 0; shift[3 * 1 + 2] = 0; /* distinct R for sure */
  shift[3 * 2] = -1; shift[3 * 2 + 1] = 0; shift[3 * 2 + 2] = 0;
  shift[3 * 3] = 2; shift[3 * 3 + 1] = 1; shift[3 * 3 + 2] = 0;
  shift[3 * 4] = -2; shift[3 * 4 + 1] = -1; shift[3 * 4 + 2] = 0;
  shift[3 * 5] = 1; shift[3 * 5 + 1] = -2; shift[3 * 5 + 2] = 1;
  shift[3 * 6] = -1; shift[3 * 6 + 1] = 2; shift[3 * 6 + 2] = -1;
  uint64_t k = 0;
  for (int b = 0; b < NB; b += (b == 0 ? 1 : 2))
    for (int i = 0; i < NO; i++)
      for (int j = 0; j < NO; j++) {
        double complex v = CMPLX(hm_random_uniform(seed, 2, k) - 0.5, hm_random_uniform(seed, 3, k) - 0.5);
        k++;
        if (b == 0) {
          if (j < i) continue;
          if (j == i) v = creal(v);
          block[2 * (i * NO + j)] = creal(v), block[2 * (i * NO + j) + 1] = cimag(v);
          block[2 * (j * NO + i)] = creal(v), block[2 * (j * NO + i) + 1] = -cimag(v);
        } else {
          block[2 * ((b * NO + i) * NO + j)] = creal(v), block[2 * ((b * NO + i) * NO + j) + 1] = cimag(v);
          block[2 * (((b + 1) * NO + j) * NO + i)] = creal(v), block[2 * (((b + 1) * NO + j) * NO + i) + 1] = -cimag(v);
        }
      }
  hm_stencil s;
  HM_TEST_OK(hm_stencil_init(&s));
  s.cells[0] = 5, s.cells[1] = 4, s.cells[2] = 3;
  s.orbitals = NO;
  s.nblocks = NB;
  s.shift = shift;
  s.block = block;
  s.boundary[0] = HM_BC_TWISTED, s.boundary[1] = HM_BC_OPEN, s.boundary[2] = HM_BC_PERIODIC;
  s.twist[0] = 0.37;
  s.disorder_w = 1.5, s.disorder_seed = seed, s.disorder_per_site = per_site;
  s.vacancy_p = 0.15, s.vacancy_seed = seed + 1;
  hm_matrix *H = NULL;
  HM_TEST_OK(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H));
  double complex *dense = NULL, *D = direct(&s);
  int64_t n = 0;
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  double worst = 0.0;
  for (int64_t e = 0; dense && e < n * n; e++) worst = fmax(worst, cabs(dense[e] - D[e]));
  HM_TEST_ASSERT(n == 120 && worst < 1e-15, "n = %lld, largest difference from the definition %.3g", (long long)n,
                 worst);
  /* Vacant sites: rows and columns zero, counted alike by hm_stencil_vacancies. */
  int64_t vacant = -1, zero_rows = 0;
  HM_TEST_OK(hm_stencil_vacancies(&s, &vacant));
  for (int64_t r = 0; dense && r < n; r++) {
    int zero = 1;
    for (int64_t c = 0; c < n; c++) zero &= dense[r + n * c] == 0.0;
    zero_rows += zero;
  }
  HM_TEST_ASSERT(vacant > 0 && zero_rows == NO * vacant, "%lld vacant sites, %lld zero rows", (long long)vacant,
                 (long long)zero_rows);
  free(dense);
  free(D);
  /* The matrix-free storage behind the same call gives the same products (3 columns). */
  hm_matrix *F = NULL;
  HM_TEST_OK(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_MATRIX_FREE, &F));
  const hm_dist *dist = NULL;
  hm_mvec *x = NULL, *y = NULL, *z = NULL;
  int64_t local = 0;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  HM_TEST_OK(hm_dist_range(dist, NULL, &local, NULL));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 3, &x));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 3, &y));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 3, &z));
  HM_TEST_OK(hm_mvec_random_phase(x, seed + 5));
  HM_TEST_OK(hm_matrix_apply(H, x, y));
  if (F) HM_TEST_OK(hm_matrix_apply(F, x, z));
  double complex *yv = calloc((size_t)(3 * local + 1), sizeof *yv), *zv = calloc((size_t)(3 * local + 1), sizeof *zv);
  HM_TEST_OK(hm_mvec_get(y, yv));
  HM_TEST_OK(hm_mvec_get(z, zv));
  double gap = 0.0;
  for (int64_t e = 0; e < 3 * local; e++) gap = fmax(gap, cabs(yv[e] - zv[e]));
  HM_TEST_ASSERT(F && gap < 1e-14, "matrix-free and assembled products differ by %.3g", gap);
  free(yv);
  free(zv);
  hm_mvec_destroy(&x);
  hm_mvec_destroy(&y);
  hm_mvec_destroy(&z);
  hm_matrix_destroy(&F);
  hm_matrix_destroy(&H);
}

static void refusals(hm_context *ctx) {
  int32_t shift[6] = {1, 0, 0, -1, 0, 0};
  double block[4] = {1.0, 0.5, 1.0, 0.5}; /* H(-R) = H(R), not its conjugate */
  hm_stencil s;
  hm_matrix *H = NULL;
  hm_stencil_init(&s);
  s.cells[0] = 4, s.nblocks = 2, s.shift = shift, s.block = block;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H), HM_ERR_ARGUMENT, "not Hermitian");
  /* anti-Hermitian: A(-R) = -A(R)^dagger, as the real A = -i v of a real chain's velocity is */
  double skew[4] = {1.0, 0.0, -1.0, 0.0};
  s.antihermitian = 1;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H), HM_ERR_ARGUMENT,
                "anti-Hermitian description is not anti-Hermitian");
  s.block = skew;
  HM_TEST_OK(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_MATRIX_FREE_REAL, &H));
  hm_matrix_destroy(&H);
  s.antihermitian = 0;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H), HM_ERR_ARGUMENT, "not Hermitian");
  s.block = block;
  s.nblocks = 1;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H), HM_ERR_ARGUMENT, "has no block with R = -1 0 0");
  int32_t twice[6] = {1, 0, 0, 1, 0, 0};
  s.nblocks = 2, s.shift = twice;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H), HM_ERR_ARGUMENT, "the same R");
  block[1] = block[3] = 0.0;
  s.shift = shift;
  s.vacancy_p = 1.0;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H), HM_ERR_ARGUMENT, "allowed [0, 1)");
  s.vacancy_p = 0.0, s.boundary[1] = 5;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H), HM_ERR_ARGUMENT, "boundary in y is 5");
  s.boundary[1] = HM_BC_PERIODIC, s.cells[0] = 1;
  double G[2 * 3] = {0.1, 0, 0, -0.1, 0, 0}, wrap[3 * 2 * 4] = {0};
  s.peierls = G, s.wrap_phase = wrap;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H), HM_ERR_ARGUMENT,
                "shorter than the supercell");
  s.peierls = NULL, s.wrap_phase = NULL;
  HM_TEST_FAILS(hm_matrix_create_stencil(ctx, &s, (hm_stencil_storage)7, &H), HM_ERR_ARGUMENT, "storage = 7");
  HM_TEST_ASSERT(H == NULL, "a refused description left a matrix");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  const uint64_t seed = hm_test_seed();
  chain(ctx, 7, HM_BC_TWISTED, 0.7);
  chain(ctx, 6, HM_BC_PERIODIC, 0.0);
  chain(ctx, 9, HM_BC_OPEN, 0.0);
  chain(ctx, 1, HM_BC_TWISTED, 1.1); /* one cell: both hops land on itself, 2 t cos(theta) */
  random_model(ctx, seed, 0);
  random_model(ctx, seed + 17, 1);
  refusals(ctx);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
