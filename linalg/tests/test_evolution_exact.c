/* The Chebyshev propagator against independent references:
 * 1. the Bessel functions of Miller's recurrence against libm's jn;
 * 2. U(t) psi against exp(-i H t) psi from the eigenvectors of the dense H (LAPACK), to 1e-10, for a
 *    TI slab (complex H), a random complex band matrix and a random real one (the real-H path);
 * 3. the norm of every column conserved to 1e-12 per step;
 * 4. U(t1) U(t2) psi = U(t1 + t2) psi;
 * 5. the matrix-free lattice operator (complex and real arithmetic) propagates as its assembled twin;
 * 6. bad arguments refused with messages that name them.
 * Random inputs follow HAMLET_TEST_SEED. */
#define _XOPEN_SOURCE 700
#include "bessel.h"
#include "evolution_testlib.h"

enum { K = 3 };

static void check_bessel(void) {
  const double xs[] = {1e-3, 0.5, 1, 7.25, 40, 150};
  double worst = 0;
  for (int a = 0; a < 6; a++) {
    int nmax = (int)(xs[a] + 40);
    double *J = malloc(sizeof *J * (size_t)(nmax + 1));
    HM_TEST_OK(hm_bessel_j(xs[a], nmax, J));
    for (int n = 0; n <= nmax; n++) worst = fmax(worst, fabs(J[n] - jn(n, xs[a])));
    free(J);
  }
  HM_TEST_ASSERT(worst < 1e-13, "J_n(x) off libm's jn by %g", worst);
  /* The order's tail bound: 2 sum_{n >= N} |J_n| <= accuracy, and N - 1 would not do. */
  int N;
  double *J;
  HM_TEST_OK(hm_bessel_order(30, 1e-12, &N, &J));
  double tail = 0, prev_tail;
  for (int n = N; n < N + 200; n++) tail += 2 * fabs(jn(n, 30));
  prev_tail = tail + 2 * fabs(jn(N - 1, 30));
  HM_TEST_ASSERT(tail <= 1e-12 && prev_tail > 1e-12, "order %d at x = 30: tail %g, one less %g", N, tail, prev_tail);
  free(J);
}

/* U(t) psi with `steps` steps of dt vs the exact propagator; the norm's drift per step. */
static void check_against_dense(hm_context *ctx, hm_matrix *H, const double complex *dense, int64_t n, uint64_t seed,
                                const char *what) {
  const double dt = 0.35;
  const int steps = 10;
  double complex *psi0 = evo_random_state(n, K, seed);
  double complex *ref = evo_exact(n, dense, dt * steps, K, psi0);
  HM_TEST_ASSERT(ref != NULL, "%s: zheevd failed", what);
  if (!ref) return;
  hm_evolution_options opt;
  hm_evolution_options_default(&opt);
  opt.dt = dt;
  hm_evolution *ev;
  hm_mvec *psi;
  HM_TEST_OK(evo_block_of(ctx, H, K, psi0, &psi));
  HM_TEST_OK(hm_evolution_create(H, K, &opt, &ev));
  HM_TEST_OK(hm_evolution_set_state(ev, psi));
  double drift = 0, norms[K], before[K] = {1, 1, 1};
  for (int s = 0; s < steps; s++) {
    HM_TEST_OK(hm_evolution_step(ev, 1));
    HM_TEST_OK(hm_evolution_norms(ev, norms));
    for (int j = 0; j < K; j++) drift = fmax(drift, fabs(norms[j] - before[j]));
    for (int j = 0; j < K; j++) before[j] = norms[j];
  }
  HM_TEST_ASSERT(drift < 1e-12, "%s: the norm changed by %g in one step", what, drift);
  HM_TEST_OK(hm_evolution_get_state(ev, psi));
  double err = evo_block_error(psi, K, ref);
  HM_TEST_ASSERT(err < 1e-10, "%s: U(t) psi off the exact exp(-iHt) psi by %g", what, err);
  int steps_done, order;
  double time;
  hm_evolution_info(ev, NULL, &steps_done, &time, &order);
  HM_TEST_ASSERT(steps_done == steps && fabs(time - steps * dt) < 1e-14, "%s: %d steps, time %g", what, steps_done, time);
  /* A sloppier accuracy takes fewer terms and misses the reference by about that much, no more. */
  hm_evolution *rough;
  opt.accuracy = 1e-6;
  HM_TEST_OK(hm_evolution_create(H, K, &opt, &rough));
  int rough_order;
  hm_evolution_info(rough, NULL, NULL, NULL, &rough_order);
  HM_TEST_ASSERT(rough_order < order, "%s: accuracy 1e-6 takes %d terms, 1e-12 %d", what, rough_order, order);
  hm_mvec *psi1;
  HM_TEST_OK(evo_block_of(ctx, H, K, psi0, &psi1));
  HM_TEST_OK(hm_evolution_set_state(rough, psi1));
  HM_TEST_OK(hm_evolution_step(rough, steps));
  HM_TEST_OK(hm_evolution_get_state(rough, psi1));
  double rough_err = evo_block_error(psi1, K, ref);
  HM_TEST_ASSERT(rough_err < steps * 1e-6 * sqrt(K), "%s: accuracy 1e-6 misses by %g", what, rough_err);
  hm_evolution_destroy(&rough);
  hm_mvec_destroy(&psi1);

  /* Composition: one step of t1 then one of t2 equals one step of t1 + t2. */
  const double t1 = 0.8, t2 = 2.3;
  hm_evolution *e1, *e2, *e12;
  opt.accuracy = 1e-12;
  opt.dt = t1;
  HM_TEST_OK(hm_evolution_create(H, K, &opt, &e1));
  opt.dt = t2;
  HM_TEST_OK(hm_evolution_create(H, K, &opt, &e2));
  opt.dt = t1 + t2;
  HM_TEST_OK(hm_evolution_create(H, K, &opt, &e12));
  hm_mvec *a, *b;
  HM_TEST_OK(evo_block_of(ctx, H, K, psi0, &a));
  HM_TEST_OK(evo_block_of(ctx, H, K, psi0, &b));
  HM_TEST_OK(hm_evolution_set_state(e1, a));
  HM_TEST_OK(hm_evolution_step(e1, 1));
  HM_TEST_OK(hm_evolution_get_state(e1, a));
  HM_TEST_OK(hm_evolution_set_state(e2, a));
  HM_TEST_OK(hm_evolution_step(e2, 1));
  HM_TEST_OK(hm_evolution_get_state(e2, a));
  HM_TEST_OK(hm_evolution_set_state(e12, b));
  HM_TEST_OK(hm_evolution_step(e12, 1));
  HM_TEST_OK(hm_evolution_get_state(e12, b));
  double complex *bglob = evo_exact(n, dense, t1 + t2, K, psi0);
  double comp = evo_block_error(a, K, bglob), direct = evo_block_error(b, K, bglob);
  HM_TEST_ASSERT(comp < 1e-10 && direct < 1e-10, "%s: U(t1) U(t2) psi off by %g, U(t1 + t2) psi by %g", what, comp, direct);
  free(bglob);
  hm_evolution_destroy(&e1); hm_evolution_destroy(&e2); hm_evolution_destroy(&e12);
  hm_mvec_destroy(&a); hm_mvec_destroy(&b);
  hm_evolution_destroy(&ev);
  hm_mvec_destroy(&psi);
  free(psi0);
  free(ref);
}

static void check_errors(hm_context *ctx, hm_matrix *H) {
  hm_evolution_options opt;
  hm_evolution_options_default(&opt);
  hm_evolution *ev = NULL;
  opt.dt = 0;
  HM_TEST_FAILS(hm_evolution_create(H, 1, &opt, &ev), HM_ERR_ARGUMENT, "dt = 0");
  opt.dt = 0.1;
  opt.accuracy = 0;
  HM_TEST_FAILS(hm_evolution_create(H, 1, &opt, &ev), HM_ERR_ARGUMENT, "accuracy = 0");
  opt.accuracy = 1e-12;
  HM_TEST_FAILS(hm_evolution_create(H, 0, &opt, &ev), HM_ERR_ARGUMENT, "vectors = 0");
  HM_TEST_OK(hm_evolution_create(H, 2, &opt, &ev));
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  hm_mvec *narrow, *real;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &narrow));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 2, &real));
  HM_TEST_FAILS(hm_evolution_set_state(ev, narrow), HM_ERR_ARGUMENT, "vectors = 2");
  HM_TEST_FAILS(hm_evolution_set_state(ev, real), HM_ERR_ARGUMENT, "complex block");
  HM_TEST_FAILS(hm_evolution_step(ev, -1), HM_ERR_ARGUMENT, "steps = -1");
  hm_mvec_destroy(&narrow);
  hm_mvec_destroy(&real);
  hm_evolution_destroy(&ev);
}

/* A disordered square lattice, 7 x 6 open, as a stencil: assembled (checked against the dense
 * reference) and matrix-free in complex and real arithmetic (checked against the assembled state). */
static void check_matrix_free(hm_context *ctx, uint64_t seed) {
  const int32_t shift[5][3] = {{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
  const double block[5][2] = {{0, 0}, {-1, 0}, {-1, 0}, {-1, 0}, {-1, 0}};
  hm_stencil st;
  hm_stencil_init(&st);
  st.cells[0] = 7; st.cells[1] = 6; st.cells[2] = 1;
  st.orbitals = 1;
  st.nblocks = 5;
  st.shift = &shift[0][0];
  st.block = &block[0][0];
  for (int a = 0; a < 3; a++) st.boundary[a] = HM_BC_OPEN;
  st.disorder_w = 2.5;
  st.disorder_seed = seed;
  const hm_stencil_storage storage[3] = {HM_STENCIL_ASSEMBLED, HM_STENCIL_MATRIX_FREE, HM_STENCIL_MATRIX_FREE_REAL};
  hm_mvec *state[3] = {NULL, NULL, NULL};
  double complex *psi0 = NULL, *dense = NULL;
  int64_t n = 42;
  for (int k = 0; k < 3; k++) {
    hm_matrix *H;
    HM_TEST_OK(hm_matrix_create_stencil(ctx, &st, storage[k], &H));
    if (k == 0) {
      HM_TEST_OK(hm_test_dense(H, &dense, &n));
      psi0 = evo_random_state(n, K, seed + 9);
    }
    hm_evolution_options opt;
    hm_evolution_options_default(&opt);
    opt.dt = 0.9;
    opt.bounds = HM_BOUNDS_GERSHGORIN;
    hm_evolution *ev;
    HM_TEST_OK(evo_block_of(ctx, H, K, psi0, &state[k]));
    HM_TEST_OK(hm_evolution_create(H, K, &opt, &ev));
    HM_TEST_OK(hm_evolution_set_state(ev, state[k]));
    HM_TEST_OK(hm_evolution_step(ev, 6));
    HM_TEST_OK(hm_evolution_get_state(ev, state[k]));
    hm_evolution_destroy(&ev);
    hm_matrix_destroy(&H);
  }
  double complex *ref = evo_exact(n, dense, 0.9 * 6, K, psi0);
  double err = ref ? evo_block_error(state[0], K, ref) : 1;
  HM_TEST_ASSERT(err < 1e-10, "assembled stencil: U(t) psi off the exact one by %g", err);
  for (int k = 1; k < 3; k++) {
    /* the assembled state gathered as the reference of the matrix-free ones */
    const hm_dist *dist;
    hm_mvec_dist(state[0], &dist);
    int64_t first, local;
    hm_dist_range(dist, &first, &local, NULL);
    double complex *rows = malloc(sizeof *rows * (size_t)(local * K + 1)), *glob = calloc((size_t)(n * K), sizeof *glob);
    hm_mvec_get(state[0], rows);
    for (int64_t i = 0; i < local; i++)
      for (int j = 0; j < K; j++) glob[j * n + first + i] = rows[i * K + j];
    MPI_Allreduce(MPI_IN_PLACE, glob, (int)(2 * n * K), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* the same arithmetic in another order: rounding only, which differs between CPUs (1.2e-12 seen) */
    double diff = evo_block_error(state[k], K, glob);
    HM_TEST_ASSERT(diff < 1e-10, "matrix-free (%s) differs from assembled by %g", k == 1 ? "complex" : "real", diff);
    free(rows); free(glob);
  }
  for (int k = 0; k < 3; k++) hm_mvec_destroy(&state[k]);
  free(psi0); free(dense); free(ref);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  uint64_t seed = hm_test_seed();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  check_bessel();
  check_matrix_free(ctx, seed);

  hm_matrix *ti;
  HM_TEST_OK(hm_test_ti_slab(ctx, 3, 3, 2, 1.0, NULL, &ti));
  double complex *dense;
  int64_t n;
  HM_TEST_OK(hm_test_dense(ti, &dense, &n));
  check_against_dense(ctx, ti, dense, n, seed, "TI slab");
  check_errors(ctx, ti);
  free(dense);
  hm_matrix_destroy(&ti);

  for (int t = 0; t < 2; t++) {
    hm_scalar type = t ? HM_REAL : HM_COMPLEX;
    const int64_t nb = 41;
    double complex *band = evo_random_band(nb, 3, 4.0, type, seed + 17 * (t + 1));
    hm_matrix *B;
    HM_TEST_OK(evo_matrix_from_dense(ctx, nb, type, band, &B));
    check_against_dense(ctx, B, band, nb, seed + 5, t ? "real band" : "complex band");
    hm_matrix_destroy(&B);
    free(band);
  }
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
