/* The local Chern marker with the Fermi projector at small temperature against the EXACT step
 * projector to 1e-8.
 * On an open 8 x 8 Qi-Wu-Zhang flake (u = 1, mu = 0 in the level gap of the edge states) the dense
 * reference is P = U theta(mu - E) U^H from LAPACK eigenpairs of an independently assembled dense H.
 * The KPM marker of every row with P = 1 / (1 + exp((H - mu) / T)), T = d / 30 (d: distance from mu to
 * the nearest eigenvalue, so exp(-d / T) = 1e-13) and M = ln(1e11) / (pi T scale) undamped moments
 * (the series' error exp(-M pi T scale) = 1e-11), equals the reference to 1e-8 on every row, and the
 * marker sums to 0 to 1e-8; the Jackson-damped step with the same M is NOT within 1e-8 (it converges
 * algebraically). P e_r of a few rows equals the dense P's columns to 1e-9. The Fermi coefficients
 * reproduce the Fermi function to 1e-12 and decay at the rate asinh(pi T scale) of their poles.
 * Bad temperatures fail with their messages. Argument: cpu (default) or cuda (the same on the GPU);
 * any rank count. */
#include <math.h>
#include <string.h>
#include "conductivity_testlib.h"
#include "hamlet/marker.h"
#include "projector_series.h"

enum { L = 8, N = 2 * L * L };

/* Positions of the rows first .. first + local - 1 (row = 2 (cx + L cy) + o), centred. */
static void positions(int64_t first, int64_t local, double *x, double *y) {
  for (int64_t i = 0; i < local; i++) {
    const int64_t cell = (first + i) / 2;
    x[i] = cell % L - 0.5 * (L - 1);
    y[i] = cell / L - 0.5 * (L - 1);
  }
}

/* C = A B for dense column-major N x N matrices. */
static void matmul(const double complex *A, const double complex *B, double complex *C) {
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      double complex s = 0;
      for (int k = 0; k < N; k++) s += A[(size_t)k * N + i] * B[(size_t)j * N + k];
      C[(size_t)j * N + i] = s;
    }
}

/* The exact step projector P (column-major) and the marker -4 pi Im [P X Q Y P]_rr of every row. */
static void dense_reference(const double *w, const double complex *U, double mu, double complex *P, double *ref) {
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      double complex s = 0;
      for (int k = 0; k < N && w[k] < mu; k++) s += U[(size_t)k * N + i] * conj(U[(size_t)k * N + j]);
      P[(size_t)j * N + i] = s;
    }
  double x[N], y[N];
  positions(0, N, x, y);
  double complex *A = malloc(sizeof(double complex) * N * N), *B = malloc(sizeof(double complex) * N * N);
  for (int j = 0; j < N; j++) /* A = Y P */
    for (int i = 0; i < N; i++) A[(size_t)j * N + i] = y[i] * P[(size_t)j * N + i];
  matmul(P, A, B); /* B = P Y P; Q Y P = Y P - P Y P */
  for (size_t e = 0; e < (size_t)N * N; e++) A[e] -= B[e];
  for (int j = 0; j < N; j++) /* B = X Q Y P */
    for (int i = 0; i < N; i++) B[(size_t)j * N + i] = x[i] * A[(size_t)j * N + i];
  for (int r = 0; r < N; r++) { /* [P B]_rr */
    double complex s = 0;
    for (int k = 0; k < N; k++) s += P[(size_t)k * N + r] * B[(size_t)r * N + k];
    ref[r] = -4 * M_PI * cimag(s);
  }
  free(A);
  free(B);
}

/* The Fermi series against the Fermi function (Clenshaw at 41 energies) and its decay rate. */
static void check_coefficients(double scale, double mu, double T, int M) {
  double *a = malloc(sizeof(double) * M);
  HM_TEST_OK(hm_projector_coefficients(M, scale, 0, mu, T, a));
  double worst = 0;
  for (int j = 0; j <= 40; j++) {
    const double x = -1 + j / 20.0, e = x / scale;
    double b1 = 0, b2 = 0;
    for (int n = M - 1; n >= 1; n--) {
      const double b0 = a[n] + 2 * x * b1 - b2;
      b2 = b1, b1 = b0;
    }
    const double series = a[0] + x * b1 - b2, exact = 1 / (1 + exp((e - mu) / T));
    worst = fmax(worst, fabs(series - exact));
  }
  /* envelope max |a_n| over windows of 64 at M/4 and M/2: ratio exp(-rate M/4), rate = asinh(pi T scale)
   * (the poles mu +- i pi T lie on the Bernstein ellipse of that parameter) */
  double env[2] = {0, 0};
  for (int w = 0; w < 2; w++)
    for (int n = (w + 1) * M / 4; n < (w + 1) * M / 4 + 64; n++) env[w] = fmax(env[w], fabs(a[n]));
  const double rate = log(env[0] / env[1]) / (M / 4), want = asinh(M_PI * T * scale);
  printf("Fermi series: |f - sum a_n T_n| <= %.2e; |a_n| near n = %d: %.2e, %d: %.2e, %d: %.2e; decay rate %.5f "
         "(poles: %.5f)\n",
         worst, M / 4, env[0], M / 2, env[1], M - 1, fabs(a[M - 1]) + fabs(a[M - 2]), rate, want);
  HM_TEST_ASSERT(worst < 1e-12, "the Fermi series misses the Fermi function by %g", worst);
  HM_TEST_ASSERT(fabs(rate / want - 1) < 0.05, "coefficients decay at rate %g, the poles say %g", rate, want);
  HM_TEST_ASSERT(fabs(a[M - 1]) + fabs(a[M - 2]) < 1e-11, "the last coefficients %g, %g are not negligible", a[M - 1],
                 a[M - 2]);
  free(a);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && !strcmp(argv[1], "cuda");
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));

  /* the flake, assembled twice: densely here, as a stencil matrix by linalg */
  double blk[QWZ_BLOCKS * 8];
  qwz_blocks(1.0, 0, blk);
  const int64_t cells[3] = {L, L, 1};
  const int bc[3] = {HM_BC_OPEN, HM_BC_OPEN, HM_BC_OPEN};
  const double twist[3] = {0, 0, 0};
  double complex *D = malloc(sizeof(double complex) * N * N), *U = malloc(sizeof(double complex) * N * N);
  double complex *P = malloc(sizeof(double complex) * N * N);
  stencil_dense(cells, 2, QWZ_BLOCKS, qwz_shift, blk, bc, twist, D);
  double w[N], ref[N];
  HM_TEST_OK(hm_test_eigh(N, D, w, U));
  hm_stencil s;
  hm_stencil_init(&s);
  s.cells[0] = s.cells[1] = L;
  s.cells[2] = 1;
  s.orbitals = 2;
  s.nblocks = QWZ_BLOCKS;
  s.shift = qwz_shift;
  s.block = blk;
  for (int a = 0; a < 3; a++) s.boundary[a] = HM_BC_OPEN;
  hm_matrix *H;
  HM_TEST_OK(hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, &H));

  const double mu = 0, emin = -3.1, emax = 3.1, scale = 2 / (emax - emin); /* |E| <= |u| + 2 */
  double d = INFINITY;
  for (int k = 0; k < N; k++) d = fmin(d, fabs(w[k] - mu));
  HM_TEST_ASSERT(w[0] > emin && w[N - 1] < emax && d > 0.05, "spectrum [%g, %g], gap %g at mu", w[0], w[N - 1], d);
  const double T = d / 30;
  int M = (int)ceil(log(1e11) / (M_PI * T * scale));
  M += M % 2;
  printf("8 x 8 QWZ flake (u = 1): spectrum [%.4f, %.4f], nearest level to mu = %g at %.4f; T = d / 30 = %.5f "
         "(exp(-d/T) = %.1e), M = ln(1e11) / (pi T scale) = %d (scale %.4f)\n",
         w[0], w[N - 1], mu, d, T, exp(-d / T), M, scale);
  check_coefficients(scale, mu, T, M);
  dense_reference(w, U, mu, P, ref);

  const hm_dist *dist;
  int64_t first, local;
  HM_TEST_OK(hm_matrix_dist(H, &dist));
  HM_TEST_OK(hm_dist_range(dist, &first, &local, NULL));
  double *x = malloc(sizeof(double) * (local + 1)), *y = malloc(sizeof(double) * (local + 1));
  positions(first, local, x, y);
  int64_t rows[N];
  for (int r = 0; r < N; r++) rows[r] = r;
  double fermi[N], jackson[N];
  HM_TEST_OK(hm_marker_local_temperature(H, x, y, emin, emax, mu, T, M, N, rows, fermi));
  HM_TEST_OK(hm_marker_local(H, x, y, emin, emax, mu, M, N, rows, jackson));
  double wf = 0, wj = 0, sum = 0, sum_ref = 0, big = 0;
  for (int r = 0; r < N; r++) {
    wf = fmax(wf, fabs(fermi[r] - ref[r]));
    wj = fmax(wj, fabs(jackson[r] - ref[r]));
    sum += fermi[r], sum_ref += ref[r], big = fmax(big, fabs(ref[r]));
  }
  printf("marker of all %d rows (largest %.3f): |Fermi - exact| <= %.2e, |Jackson step - exact| <= %.2e; sum %.2e "
         "(exact %.2e)\n",
         N, big, wf, wj, sum, sum_ref);
  HM_TEST_ASSERT(big > 0.5, "the exact marker is small (%g): the test compares nothing", big);
  HM_TEST_ASSERT(wf < 1e-8, "the Fermi projector's marker is %g off the exact one (want 1e-8)", wf);
  HM_TEST_ASSERT(fabs(sum) < 1e-8, "the Fermi projector's marker sums to %g (want 0 to 1e-8)", sum);
  HM_TEST_ASSERT(wj > 1e-8 && wj > 1000 * wf, "the Jackson step (%g off) should be far less accurate than Fermi (%g)",
                 wj, wf);

  /* P e_r for five rows: columns of the exact P */
  const int pick[5] = {0, 7, 63, 64, N - 1}, k = 5;
  hm_mvec *V, *PV;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, k, &V));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, k, &PV));
  double complex *buf = calloc((size_t)(local * k + 1), sizeof(double complex));
  for (int j = 0; j < k; j++)
    if (pick[j] >= first && pick[j] < first + local) buf[(pick[j] - first) * k + j] = 1;
  HM_TEST_OK(hm_mvec_set(V, buf));
  HM_TEST_OK(hm_fermi_projector_apply_temperature(H, emin, emax, mu, T, M, V, PV));
  HM_TEST_OK(hm_mvec_get(PV, buf));
  double wp = 0;
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++) wp = fmax(wp, cabs(buf[i * k + j] - P[(size_t)pick[j] * N + first + i]));
  double wp_all = wp;
  MPI_Allreduce(&wp, &wp_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  printf("P e_r of 5 rows: |Fermi - exact P| <= %.2e\n", wp_all);
  HM_TEST_ASSERT(wp_all < 1e-9, "P e differs from the exact projector's columns by %g", wp_all);

  /* bad temperatures */
  HM_TEST_FAILS(hm_marker_local_temperature(H, x, y, emin, emax, mu, -0.1, M, 1, rows, fermi), HM_ERR_ARGUMENT,
                "temperature = -0.1: must be finite and >= 0");
  HM_TEST_FAILS(hm_fermi_projector_apply_temperature(H, emin, emax, mu, NAN, M, V, PV), HM_ERR_ARGUMENT,
                "must be finite and >= 0");
  HM_TEST_FAILS(hm_fermi_projector_apply_temperature(H, emin, emax, mu, INFINITY, M, V, PV), HM_ERR_ARGUMENT,
                "temperature = inf");

  free(buf);
  free(x);
  free(y);
  free(D);
  free(U);
  free(P);
  hm_mvec_destroy(&V);
  hm_mvec_destroy(&PV);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
