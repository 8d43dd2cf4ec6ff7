/* IDR(s) on an indefinite system, as shift-and-invert's inner solve runs it (s = 4, no
 * preconditioner; linalg/transform/shifted_solve.c), on the CUDA backend against the CPU backend
 * and against a dense LAPACK reference. The matrix is a random sparse symmetric (real) or
 * Hermitian (complex) A shifted into the middle of its spectrum, S = A - sigma I, applied four ways:
 *   matrix  S assembled, hm_operator_create_matrix;
 *   shell0  a shell operator whose callback is hm_matrix_apply of the assembled S (the shell path alone);
 *   shell   a shell operator y = A x - sigma x (hm_matrix_apply + hm_mvec_axpby: shifted_solve's apply_shifted),
 *   library hm_shifted_solve itself (shift-and-invert's inner solve: MINRES on this indefinite S,
 *           linalg/transform/minres.c),
 * for 1 and 2 right-hand sides. Every solve must converge (true residual <= tol), equal the dense
 * solution V (Lambda - sigma)^-1 V^H b to cond(S) x tol (a bound from the dense eigenvalues), and
 * the CUDA and CPU solutions must agree to that bound too; a solve that does not converge prints
 * its residual history. Fresh random matrix values and right-hand sides on every run (the seed is
 * printed: HAMLET_TEST_SEED replays it). Skips without a GPU; `test_idr_shell_gpu cpu` runs the CPU
 * half alone (the cpu-labelled variant: the shell paths against the reference). */
#include <string.h>
#include "idr_testlib.h"
#include "shifted_solve.h"

enum { N = 240, NOFF = 4, KMAX = 2 };
static const int64_t offsets[NOFF] = {1, 5, 17, 60}; /* no two sum to N: no duplicate entries */

typedef struct {
  uint64_t seed;
  int complex_values;
  double sigma; /* subtracted on the diagonal (0: A itself) */
} sym_matrix;

/* Entry (a, a + off_q mod N) of the upper pattern; (a + off_q, a) is its conjugate. */
static double complex pair_value(const sym_matrix *m, int64_t a, int q) {
  return 0.5 * idr_test_hash(m->seed, (uint64_t)a, 10 + (uint64_t)q) +
         (m->complex_values ? 0.5 * I * idr_test_hash(m->seed, (uint64_t)a, 20 + (uint64_t)q) : 0);
}

static int sym_row(int64_t i, int64_t *cols, double complex *vals, const void *p) {
  const sym_matrix *m = p;
  int c = 0;
  cols[c] = i;
  vals[c++] = 2.0 * idr_test_hash(m->seed, (uint64_t)i, 1) - m->sigma;
  for (int q = 0; q < NOFF; q++) {
    cols[c] = (i + offsets[q]) % N;
    vals[c++] = pair_value(m, i, q);
    const int64_t a = (i - offsets[q] + N) % N;
    cols[c] = a;
    vals[c++] = conj(pair_value(m, a, q));
  }
  return c;
}

typedef struct {
  hm_matrix *A;
  double sigma;
} shifted_shell;

/* y = A x - sigma x, as shifted_solve.c's apply_shifted (B = I). */
static int apply_shifted(hm_mvec *x, hm_mvec *y, void *user) {
  const shifted_shell *s = user;
  int st = hm_matrix_apply(s->A, x, y);
  if (st || s->sigma == 0.0) return st;
  int k;
  hm_scalar type;
  hm_mvec_size(x, NULL, &k);
  hm_mvec_type(x, &type);
  double a[2 * KMAX] = {0}, b[2 * KMAX] = {0};
  for (int j = 0; j < k; j++) a[(int)type * j] = -s->sigma, b[(int)type * j] = 1.0;
  return hm_mvec_axpby(y, a, x, b);
}

typedef enum { OP_MATRIX, OP_SHELL0, OP_SHELL, OP_LIBRARY, OP_COUNT } op_kind;
static const char *op_names[OP_COUNT] = {"matrix", "shell0", "shell", "library"};

typedef struct {
  int status, its[KMAX];
  double true_res[KMAX];
  double complex x[N * KMAX];
} outcome;

/* One IDR(s) solve of S X = B (k columns of rhs) on `backend` through operator kind `kind`. */
static void solve_on(hm_backend backend, hm_scalar type, op_kind kind, const sym_matrix *m, int k,
                     const double complex *rhs, outcome *out) {
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  sym_matrix plain = *m, shifted = *m;
  plain.sigma = 0.0;
  hm_matrix *A = NULL, *S = NULL;
  HM_TEST_OK(idr_test_matrix(ctx, N, type, sym_row, &shifted, 1 + 2 * NOFF, &S));
  if (kind == OP_SHELL || kind == OP_LIBRARY)
    HM_TEST_OK(idr_test_matrix(ctx, N, type, sym_row, &plain, 1 + 2 * NOFF, &A));
  const hm_dist *dist;
  hm_matrix_dist(S, &dist);
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  hm_mvec *b, *x;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, k, &b));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, k, &x));
  double *buf = calloc((size_t)(local * k * 2) + 1, sizeof(double));
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++) {
      const double complex z = rhs[(first + i) * KMAX + j];
      buf[(i * k + j) * type] = creal(z);
      if (type == HM_COMPLEX) buf[(i * k + j) * 2 + 1] = cimag(z);
    }
  HM_TEST_OK(hm_mvec_set(b, buf));
  free(buf);
  if (kind == OP_LIBRARY) { /* the library's inner solve: MINRES */
    hm_shifted_solve *solver = NULL;
    out->status = hm_shifted_solve_create(A, NULL, m->sigma, 4000, &solver);
    if (!out->status) {
      HM_TEST_ASSERT(!hm_shifted_solve_definite(solver), "A - sigma I was taken for definite (%s)",
                     hm_shifted_solve_method(solver));
      out->status = hm_shifted_solve_apply(solver, 1e-10, b, x);
    }
    if (out->status) {
      int rank;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) printf("library (%s, %s, k = %d): status %d: %s\n", backend == HM_BACKEND_CUDA ? "cuda" : "cpu",
                            type == HM_COMPLEX ? "complex" : "real", k, out->status, hm_error_message());
      hm_error_clear();
    }
    int64_t its = 0;
    double worst = INFINITY;
    if (solver) hm_shifted_solve_stats(solver, &its, &worst);
    for (int j = 0; j < k; j++) out->its[j] = (int)(its / k), out->true_res[j] = worst;
    hm_shifted_solve_destroy(&solver);
    double complex *all = malloc(sizeof *all * N * (size_t)k);
    HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x, all));
    for (int64_t i = 0; i < N; i++)
      for (int j = 0; j < k; j++) out->x[i * KMAX + j] = all[i * k + j];
    free(all);
    hm_mvec_destroy(&b), hm_mvec_destroy(&x);
    hm_matrix_destroy(&A), hm_matrix_destroy(&S);
    hm_context_destroy(&ctx);
    return;
  }
  shifted_shell shell = {kind == OP_SHELL ? A : S, kind == OP_SHELL ? m->sigma : 0.0};
  hm_operator *op;
  if (kind == OP_MATRIX) HM_TEST_OK(hm_operator_create_matrix(S, &op));
  else HM_TEST_OK(hm_operator_create_shell(ctx, dist, type, apply_shifted, &shell, &op));
  hm_idr_options opt;
  hm_idr_options_default(&opt);
  opt.s = 4;
  opt.tol = 1e-10;
  opt.maxit = 4000;
  opt.precond = HM_IDR_PRECOND_NONE;
  hm_idr *idr;
  HM_TEST_OK(hm_idr_create(op, &opt, &idr));
  out->status = hm_idr_solve(idr, b, x);
  hm_error_clear();
  HM_TEST_OK(hm_idr_systems(idr, out->its, NULL, NULL));
  HM_TEST_OK(hm_idr_residuals(idr, NULL, out->true_res));
  double complex *all = malloc(sizeof *all * N * (size_t)k);
  HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x, all));
  for (int64_t i = 0; i < N; i++)
    for (int j = 0; j < k; j++) out->x[i * KMAX + j] = all[i * k + j];
  free(all);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int j = 0; j < k; j++) {
    if (out->status == HM_SUCCESS && out->true_res[j] <= opt.tol) continue;
    int len = 0;
    HM_TEST_OK(hm_idr_history(idr, j, NULL, 0, &len));
    double *h = malloc(sizeof *h * (size_t)(len + 1));
    HM_TEST_OK(hm_idr_history(idr, j, h, len, &len));
    if (rank == 0) {
      printf("history (%s, %s, %s, k = %d, system %d, status %d, %d iterations, true residual %.3e):",
             backend == HM_BACKEND_CUDA ? "cuda" : "cpu", type == HM_COMPLEX ? "complex" : "real", op_names[kind], k,
             j, out->status, out->its[j], out->true_res[j]);
      for (int t = 0; t < len; t += t < 20 ? 1 : 50) printf(" %d:%.3e", t, h[t]);
      printf(" last %d:%.3e\n", len - 1, h[len - 1]);
    }
    free(h);
  }
  hm_idr_destroy(&idr);
  hm_operator_destroy(&op);
  hm_mvec_destroy(&b);
  hm_mvec_destroy(&x);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&S);
  hm_context_destroy(&ctx);
}

/* The dense reference X = V (Lambda - sigma)^-1 V^H B for the k columns, and cond(S); sigma is set
 * to the middle of the widest of the 20 gaps around the middle of the spectrum. */
static void reference(hm_scalar type, sym_matrix *m, int k, const double complex *rhs, double complex *xref,
                      double *cond) {
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  sym_matrix plain = *m;
  plain.sigma = 0.0;
  hm_matrix *A;
  HM_TEST_OK(idr_test_matrix(ctx, N, type, sym_row, &plain, 1 + 2 * NOFF, &A));
  double complex *dense = NULL, *v = malloc(sizeof *v * N * N);
  double *w = malloc(sizeof *w * N);
  int64_t n = 0;
  HM_TEST_OK(hm_test_dense(A, &dense, &n));
  HM_TEST_OK(hm_test_eigh(n, dense, w, v));
  int best = N / 2 - 10;
  for (int i = N / 2 - 10; i < N / 2 + 10; i++)
    if (w[i + 1] - w[i] > w[best + 1] - w[best]) best = i;
  m->sigma = 0.5 * (w[best] + w[best + 1]);
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < N; i++) lo = fmin(lo, fabs(w[i] - m->sigma)), hi = fmax(hi, fabs(w[i] - m->sigma));
  *cond = hi / lo;
  for (int j = 0; j < k; j++)
    for (int i = 0; i < N; i++) xref[i * KMAX + j] = 0;
  for (int e = 0; e < N; e++)
    for (int j = 0; j < k; j++) {
      double complex c = 0;
      for (int i = 0; i < N; i++) c += conj(v[i + (size_t)e * N]) * rhs[i * KMAX + j];
      c /= w[e] - m->sigma;
      for (int i = 0; i < N; i++) xref[i * KMAX + j] += c * v[i + (size_t)e * N];
    }
  free(dense), free(v), free(w);
  hm_matrix_destroy(&A);
  hm_context_destroy(&ctx);
}

/* max over columns of ||a_j - b_j|| / ||b_j|| */
static double column_diff(const double complex *a, const double complex *b, int k) {
  double worst = 0;
  for (int j = 0; j < k; j++) {
    double d = 0, nb = 0;
    for (int i = 0; i < N; i++) d += pow(cabs(a[i * KMAX + j] - b[i * KMAX + j]), 2), nb += pow(cabs(b[i * KMAX + j]), 2);
    worst = fmax(worst, sqrt(d / nb));
  }
  return worst;
}

static void check(const char *where, const outcome *o, const double complex *xref, int k, double bound) {
  HM_TEST_ASSERT(o->status == HM_SUCCESS, "%s: IDR(s) returned status %d (%d iterations, true residual %.3e)", where,
                 o->status, o->its[0], o->true_res[0]);
  for (int j = 0; j < k; j++)
    HM_TEST_ASSERT(o->true_res[j] <= 1e-10, "%s: system %d true residual %.3e > tol 1e-10 after %d iterations", where,
                   j, o->true_res[j], o->its[j]);
  const double d = column_diff(o->x, xref, k);
  HM_TEST_ASSERT(d <= bound, "%s: %.3e from the dense solution (bound cond x tol x 10 = %.3e)", where, d, bound);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cpu_only = argc > 1 && strcmp(argv[1], "cpu") == 0;
  if (!cpu_only) HM_TEST_NEED_GPU();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const uint64_t seed = hm_test_seed();
  static outcome cpu, gpu;
  static double complex rhs[N * KMAX], xref[N * KMAX];
  for (int t = 0; t < 2; t++) {
    const hm_scalar type = t == 0 ? HM_REAL : HM_COMPLEX;
    sym_matrix m = {seed + (uint64_t)t, type == HM_COMPLEX, 0.0};
    for (int i = 0; i < N; i++)
      for (int j = 0; j < KMAX; j++)
        rhs[i * KMAX + j] = idr_test_hash(seed, (uint64_t)i, 500 + (uint64_t)j) +
                            (type == HM_COMPLEX ? I * idr_test_hash(seed, (uint64_t)i, 600 + (uint64_t)j) : 0);
    double cond = 0;
    reference(type, &m, KMAX, rhs, xref, &cond);
    const double bound = 10.0 * cond * 1e-10;
    for (int k = 1; k <= KMAX; k++)
      for (int kind = 0; kind < OP_COUNT; kind++) {
        char where[128];
        solve_on(HM_BACKEND_CPU, type, (op_kind)kind, &m, k, rhs, &cpu);
        snprintf(where, sizeof where, "cpu %s %s k = %d", type == HM_COMPLEX ? "complex" : "real", op_names[kind], k);
        check(where, &cpu, xref, k, bound);
        if (rank == 0)
          printf("%-26s sigma %+.4f cond %.3g: %d iterations, true residual %.2e, from dense %.2e\n", where, m.sigma,
                 cond, cpu.its[0], cpu.true_res[0], column_diff(cpu.x, xref, k));
        if (cpu_only) continue;
        solve_on(HM_BACKEND_CUDA, type, (op_kind)kind, &m, k, rhs, &gpu);
        snprintf(where, sizeof where, "cuda %s %s k = %d", type == HM_COMPLEX ? "complex" : "real", op_names[kind], k);
        check(where, &gpu, xref, k, bound);
        const double d = column_diff(gpu.x, cpu.x, k);
        HM_TEST_ASSERT(d <= 2 * bound, "%s: %.3e from the CPU solution (bound %.3e)", where, d, 2 * bound);
        if (rank == 0)
          printf("%-26s %d iterations (cpu %d), true residual %.2e, from cpu %.2e\n", where, gpu.its[0], cpu.its[0],
                 gpu.true_res[0], d);
      }
  }
  return hm_test_finish();
}
