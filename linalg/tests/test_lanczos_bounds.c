/* Spectral bounds that cannot miss the spectrum, on the lattices that defeat a random-sign start:
 * periodic square 2 x 2 and 4 x 4 and cubic 2 x 2 x 2 and 4 x 4 x 4 lattices with nearest-neighbour
 * hopping (few distinct eigenvalues, so a start vector orthogonal to the top mode spans an
 * invariant Krylov space that never sees it), in real and complex arithmetic, assembled and
 * matrix-free:
 * - from adversarial start vectors (constant, staggered +-1, the random-sign vectors the bounds
 *   used to start from, for seeds 1..24, and a Gaussian one) the Lanczos interval contains the
 *   exact spectrum (dense eigenvalues, LAPACK);
 * - the default bounds (Gaussian start of the seed) contain it for seeds 1..8;
 * - KPM with the default bounds gives moments of magnitude <= 1 and a DOS integrating to 1;
 * - the last line of defence: KPM given the interval a random-sign start found before, [lambda_min,
 *   the second-largest eigenvalue], widens to the Gershgorin interval, starts the moments again, says
 *   so (hm_kpm_bounds_widened) and gives a DOS integrating to 1; with a start block of its own too.
 * Argument "cuda": the same on the GPU, compared with the CPU's bounds (a Gaussian block within
 * 1e-12 of the host's) and the exact spectrum. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hamlet/dos.h"
#include "hamlet/kpm.h"
#include "hamlet/stencil.h"
#include "kpm_sums.h"
#include "lanczos.h"
#include "mvec_block.h"
#include "random.h"
#include "testing.h"

enum { STEPS = 40 };
static const double margin = 0.05;

typedef struct {
  int64_t cells[3];
  double t;  /* hopping */
} lattice;

/* The periodic nearest-neighbour lattice as a stencil of one orbital. */
static hm_matrix *make_stencil(hm_context *ctx, const lattice *L, hm_stencil_storage storage) {
  static int32_t shift[7 * 3];
  static double block[7 * 2];
  hm_stencil s;
  HM_TEST_OK(hm_stencil_init(&s));
  memset(shift, 0, sizeof shift);
  memset(block, 0, sizeof block);
  int nb = 1, dims = 0;
  for (int a = 0; a < 3; a++) {
    s.cells[a] = L->cells[a];
    if (L->cells[a] < 2) continue;
    dims++;
    for (int sign = -1; sign <= 1; sign += 2, nb++) {
      shift[3 * nb + a] = sign;
      block[2 * nb] = L->t;
    }
  }
  s.nblocks = nb;
  s.shift = shift;
  s.block = block;
  hm_matrix *A = NULL;
  HM_TEST_OK(hm_matrix_create_stencil(ctx, &s, storage, &A));
  return A;
}

/* The real assembled matrix of a real lattice: CSR from the dense copy of the complex one. */
static hm_matrix *make_real_csr(hm_context *ctx, hm_matrix *Ac) {
  double complex *dense = NULL;
  int64_t n = 0, first, local;
  HM_TEST_OK(hm_test_dense(Ac, &dense, &n));
  hm_dist *dist = NULL;
  HM_TEST_OK(hm_dist_create(ctx, n, 1, 1.0, &dist));
  HM_TEST_OK(hm_dist_range(dist, &first, &local, NULL));
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * (size_t)(local * n + 1));
  double *vals = malloc(sizeof *vals * (size_t)(local * n + 1));
  for (int64_t i = 0; i < local; i++) {
    rowptr[i + 1] = rowptr[i];
    for (int64_t j = 0; j < n; j++) {
      const double complex a = dense[(first + i) + j * n];
      if (a == 0) continue;
      cols[rowptr[i + 1]] = j;
      vals[rowptr[i + 1]++] = creal(a);
    }
  }
  hm_matrix *A = NULL;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, vals, &A));
  hm_dist_destroy(&dist);
  free(rowptr), free(cols), free(vals), free(dense);
  return A;
}

typedef enum { START_CONSTANT, START_STAGGERED, START_SIGNS, START_GAUSS } start_kind;
static const char *const start_name[] = {"constant", "staggered", "random-sign", "gaussian"};

/* The start vector of the kind for global rows first .. first + local - 1 of the lattice. */
static hm_mvec *make_start(hm_matrix *H, const lattice *L, start_kind kind, uint64_t seed) {
  const hm_dist *dist;
  hm_scalar type;
  int64_t first, local;
  hm_context *ctx;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  HM_TEST_OK(hm_matrix_info(H, NULL, NULL, &type));
  HM_TEST_OK(hm_matrix_context(H, &ctx));
  HM_TEST_OK(hm_dist_range(dist, &first, &local, NULL));
  double *x = calloc((size_t)(2 * local + 2), sizeof *x);
  for (int64_t i = 0; i < local; i++) {
    const int64_t g = first + i, c[3] = {g % L->cells[0], g / L->cells[0] % L->cells[1], g / L->cells[0] / L->cells[1]};
    double *e = x + (size_t)type * (size_t)i;
    switch (kind) {
      case START_CONSTANT: e[0] = 1; break;
      case START_STAGGERED: e[0] = (c[0] + c[1] + c[2]) % 2 ? -1 : 1; break;
      case START_SIGNS: /* the bounds' former start: random signs (phases) of their own stream */
        hm_random_phase_entry(seed ^ 0x6c616e637a6f73ULL, 0, (uint64_t)g, type == HM_COMPLEX, e);
        break;
      case START_GAUSS: hm_random_gauss_entry(seed, 0, (uint64_t)g, type == HM_COMPLEX, e); break;
    }
  }
  hm_mvec *v = NULL;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, 1, &v));
  HM_TEST_OK(hm_mvec_set(v, x));
  free(x);
  return v;
}

/* KPM with the default (Lanczos) bounds, or, where narrow_hi is finite, with the interval estimate
 * [lo, narrow_hi] that misses the top of the spectrum: moments <= 1, the interval contains the
 * spectrum, the DOS integrates to 1; with the narrow estimate the run must say it widened. */
static void check_kpm(hm_matrix *H, double lo, double hi, double narrow_hi, int own_start, const char *what) {
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = 64;
  opt.vectors = 4;
  opt.seed = 1;
  hm_kpm *kpm = NULL;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  if (!kpm) return;
  if (own_start) { /* a caller's start block must be kept for the restart */
    const hm_dist *dist;
    hm_scalar type;
    hm_context *ctx;
    hm_matrix_dist(H, &dist);
    hm_matrix_info(H, NULL, NULL, &type);
    hm_matrix_context(H, &ctx);
    hm_mvec *V = NULL;
    HM_TEST_OK(hm_mvec_create(ctx, dist, type, opt.vectors, &V));
    HM_TEST_OK(hm_mvec_random_gauss(V, 77));
    HM_TEST_OK(hm_kpm_set_start(kpm, V));
    hm_mvec_destroy(&V);
  }
  if (isfinite(narrow_hi)) HM_TEST_OK(hm_kpm_set_interval_estimate(kpm, lo, narrow_hi));
  HM_TEST_OK(hm_kpm_run(kpm));
  double emin, emax, nlo = 0, nhi = 0, growth = 0;
  int widened = -1;
  HM_TEST_OK(hm_kpm_interval(kpm, &emin, &emax));
  HM_TEST_OK(hm_kpm_bounds_widened(kpm, &widened, &nlo, &nhi, &growth));
  const double tiny = 1e-10 * fmax(fabs(lo), fabs(hi));
  HM_TEST_ASSERT(emin <= lo + tiny && emax >= hi - tiny, "%s: KPM interval [%.15g, %.15g] misses the spectrum [%.15g, %.15g]",
                 what, emin, emax, lo, hi);
  if (isfinite(narrow_hi))
    HM_TEST_ASSERT(widened == 1 && nhi == narrow_hi && growth > 1, "%s: the narrow interval was not reported widened "
                   "(widened %d, narrow [%g, %g], growth %g)", what, widened, nlo, nhi, growth);
  else
    HM_TEST_ASSERT(widened == 0, "%s: the Lanczos interval had to be widened", what);
  const int M = opt.moments, R = opt.vectors;
  double mu[64], mu_vec[4 * 64], scale, shift;
  int64_t n;
  HM_TEST_OK(hm_kpm_moments(kpm, mu, mu_vec));
  HM_TEST_OK(hm_kpm_info(kpm, NULL, NULL, NULL, &scale, &shift, &n));
  double worst = 0;
  for (int i = 0; i < M * R; i++) worst = fmax(worst, fabs(mu_vec[i]));
  HM_TEST_ASSERT(worst <= 1 + 1e-8, "%s: a moment of magnitude %g", what, worst);
  hm_dos_options dopt;
  hm_dos_options_default(&dopt);
  dopt.norm = HM_NORM_UNIT;
  dopt.points = 2001;
  hm_dos *dos = NULL;
  HM_TEST_OK(hm_dos_create(M, R, mu_vec, scale, shift, n, &dopt, &dos));
  if (dos) {
    int p = 0;
    hm_dos_size(dos, &p);
    double *e = malloc(sizeof(double) * p), *rho = malloc(sizeof(double) * p), integral = 0;
    hm_dos_get(dos, e, rho, NULL);
    for (int i = 0; i + 1 < p; i++) integral += 0.5 * (rho[i] + rho[i + 1]) * (e[i + 1] - e[i]);
    HM_TEST_ASSERT(fabs(integral - 1) < 2e-2, "%s: the DOS integrates to %.6f", what, integral);
    free(e), free(rho);
  }
  hm_dos_destroy(&dos);
  hm_kpm_destroy(&kpm);
}

/* Every start vector's interval contains [lo, hi]; on the GPU also the CPU's interval (cpu_H). */
static void check_lattice(hm_matrix *H, hm_matrix *cpu_H, const lattice *L, const char *what, uint64_t seed) {
  double complex *dense = NULL;
  int64_t n = 0;
  HM_TEST_OK(hm_test_dense(cpu_H, &dense, &n));
  double *w = malloc(sizeof(double) * (size_t)n);
  HM_TEST_OK(hm_test_eigh(n, dense, w, NULL));
  const double lo = w[0], hi = w[n - 1], tiny = 1e-10 * fmax(fabs(lo), fabs(hi));
  double second = lo; /* the largest eigenvalue below the top: where a start blind to the top stops */
  for (int64_t i = 0; i < n; i++)
    if (w[i] < hi - 1e-8) second = w[i];
  char msg[300];
  for (int kind = START_CONSTANT; kind <= START_GAUSS; kind++) {
    const int seeds = kind == START_SIGNS ? 24 : kind == START_GAUSS ? 4 : 1;
    for (int sd = 1; sd <= seeds; sd++) {
      hm_mvec *v0 = make_start(H, L, (start_kind)kind, (uint64_t)sd + (kind == START_GAUSS ? seed : 0));
      double emin = NAN, emax = NAN;
      int invariant = -1;
      HM_TEST_OK(hm_lanczos_bounds_from(H, STEPS, v0, margin, &emin, &emax, &invariant));
      snprintf(msg, sizeof msg, "%s, %s start %d", what, start_name[kind], sd);
      HM_TEST_ASSERT(emin <= lo + tiny && emax >= hi - tiny,
                     "%s: Lanczos interval [%.15g, %.15g] (invariant Krylov space %d) misses the spectrum [%.15g, %.15g]",
                     msg, emin, emax, invariant, lo, hi);
      if (H != cpu_H) { /* the GPU's interval from the same start equals the CPU's */
        hm_mvec *c0 = make_start(cpu_H, L, (start_kind)kind, (uint64_t)sd + (kind == START_GAUSS ? seed : 0));
        double cmin, cmax;
        HM_TEST_OK(hm_lanczos_bounds_from(cpu_H, STEPS, c0, margin, &cmin, &cmax, NULL));
        HM_TEST_ASSERT(fabs(cmin - emin) <= 1e-9 * (hi - lo) && fabs(cmax - emax) <= 1e-9 * (hi - lo),
                       "%s: GPU interval [%.15g, %.15g], CPU [%.15g, %.15g]", msg, emin, emax, cmin, cmax);
        hm_mvec_destroy(&c0);
      }
      hm_mvec_destroy(&v0);
    }
  }
  for (uint64_t sd = 1; sd <= 8; sd++) { /* the bounds KPM uses: a Gaussian start of the seed */
    double emin, emax;
    HM_TEST_OK(hm_lanczos_bounds(H, STEPS, sd, margin, &emin, &emax));
    HM_TEST_ASSERT(emin <= lo + tiny && emax >= hi - tiny,
                   "%s, default bounds of seed %llu: [%.15g, %.15g] misses the spectrum [%.15g, %.15g]", what,
                   (unsigned long long)sd, emin, emax, lo, hi);
  }
  snprintf(msg, sizeof msg, "%s, KPM on the Lanczos interval", what);
  check_kpm(H, lo, hi, INFINITY, 0, msg);
  snprintf(msg, sizeof msg, "%s, KPM given [%g, %g] (the top missed)", what, lo, second + 0.05 * (second - lo));
  check_kpm(H, lo, hi, second + 0.05 * (second - lo), 0, msg);
  snprintf(msg, sizeof msg, "%s, KPM with its own start block given [%g, %g]", what, lo, second + 0.05 * (second - lo));
  check_kpm(H, lo, hi, second + 0.05 * (second - lo), 1, msg);
  free(w);
  free(dense);
}

/* The Gaussian block on the GPU against the host formula. */
static void check_gauss_block(hm_context *ctx, hm_scalar type) {
  hm_dist *dist = NULL;
  HM_TEST_OK(hm_dist_create(ctx, 1000, 1, 1.0, &dist));
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  hm_mvec *v = NULL;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, 3, &v));
  HM_TEST_OK(hm_mvec_random_gauss(v, 99));
  double *x = malloc(sizeof(double) * 2 * 3 * (size_t)local + 8), sum2 = 0, diff = 0;
  HM_TEST_OK(hm_mvec_get(v, x));
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < 3; j++) {
      double e[2] = {0, 0};
      hm_random_gauss_entry(99, (uint64_t)j, (uint64_t)(first + i), type == HM_COMPLEX, e);
      for (int c = 0; c < (int)type; c++) {
        const double got = x[(size_t)type * (size_t)(i * 3 + j) + c];
        diff = fmax(diff, fabs(got - e[c]));
        sum2 += got * got;
      }
    }
  HM_TEST_ASSERT(diff <= 1e-12, "the Gaussian block differs from the host formula by %g", diff);
  double total = 0;
  MPI_Allreduce(&sum2, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  /* E|x|^2 = 1 per entry: 3000 entries, sd of the mean about sqrt(2 / 3000) (real) */
  HM_TEST_ASSERT(fabs(total / 3000 - 1) < 0.15, "the Gaussian entries' mean square is %g, not 1", total / 3000);
  hm_mvec_destroy(&v);
  hm_dist_destroy(&dist);
  free(x);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *cpu = NULL, *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &cpu));
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  const uint64_t seed = hm_test_seed();
  check_gauss_block(ctx, HM_REAL);
  check_gauss_block(ctx, HM_COMPLEX);
  const lattice lattices[] = {{{4, 4, 1}, 1.0}, {{2, 2, 1}, 1.0}, {{2, 2, 2}, -1.0}, {{4, 4, 4}, 1.0}, {{4, 4, 1}, -1.0}};
  const hm_stencil_storage storages[] = {HM_STENCIL_ASSEMBLED, HM_STENCIL_MATRIX_FREE, HM_STENCIL_MATRIX_FREE_REAL};
  const char *const storage_name[] = {"assembled complex", "matrix-free complex", "matrix-free real", "assembled real"};
  for (size_t l = 0; l < sizeof lattices / sizeof *lattices; l++) {
    const lattice *L = &lattices[l];
    for (int s = 0; s < 4; s++) {
      hm_matrix *H = NULL, *Hc = NULL;
      if (s < 3) {
        H = make_stencil(ctx, L, storages[s]);
        Hc = cuda ? make_stencil(cpu, L, storages[s]) : H;
      } else { /* real CSR from the assembled complex lattice */
        hm_matrix *Ac = make_stencil(cpu, L, HM_STENCIL_ASSEMBLED);
        H = make_real_csr(ctx, Ac);
        Hc = cuda ? make_real_csr(cpu, Ac) : H;
        hm_matrix_destroy(&Ac);
      }
      if (!H || !Hc) continue;
      char what[200];
      snprintf(what, sizeof what, "%lld x %lld x %lld periodic lattice, t = %g, %s%s", (long long)L->cells[0],
               (long long)L->cells[1], (long long)L->cells[2], L->t, storage_name[s], cuda ? " on the GPU" : "");
      check_lattice(H, Hc, L, what, seed);
      if (Hc != H) hm_matrix_destroy(&Hc);
      hm_matrix_destroy(&H);
    }
  }
  hm_context_destroy(&ctx);
  hm_context_destroy(&cpu);
  return hm_test_finish();
}
