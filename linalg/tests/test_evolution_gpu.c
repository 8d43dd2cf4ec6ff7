/* The propagator on the CUDA backend equals the CPU backend's on random inputs (a complex and a real
 * random band matrix; a disordered square lattice as the matrix-free operator in complex and real
 * arithmetic; random states, several steps); skips without a GPU. HAMLET_TEST_SEED replays. */
#include "evolution_testlib.h"

enum { K = 4 };

/* A 20 x 15 open square lattice with on-site disorder, matrix-free (storage: complex or real). */
static int lattice(hm_context *ctx, hm_stencil_storage storage, uint64_t seed, hm_matrix **H) {
  static const int32_t shift[5][3] = {{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
  static const double block[5][2] = {{0, 0}, {-1, 0}, {-1, 0}, {-1, 0}, {-1, 0}};
  hm_stencil st;
  hm_stencil_init(&st);
  st.cells[0] = 20; st.cells[1] = 15; st.cells[2] = 1;
  st.orbitals = 1;
  st.nblocks = 5;
  st.shift = &shift[0][0];
  st.block = &block[0][0];
  for (int a = 0; a < 3; a++) st.boundary[a] = HM_BC_OPEN;
  st.disorder_w = 2.0;
  st.disorder_seed = seed;
  return hm_matrix_create_stencil(ctx, &st, storage, H);
}

/* dense == NULL: the lattice of storage (type) instead of the band matrix. */
static double complex *propagate(hm_backend backend, hm_scalar type, int64_t n, const double complex *dense,
                                 const double complex *psi0, uint64_t seed) {
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  hm_matrix *H;
  if (dense) HM_TEST_OK(evo_matrix_from_dense(ctx, n, type, dense, &H));
  else HM_TEST_OK(lattice(ctx, type == HM_REAL ? HM_STENCIL_MATRIX_FREE_REAL : HM_STENCIL_MATRIX_FREE, seed, &H));
  hm_evolution_options opt;
  hm_evolution_options_default(&opt);
  opt.dt = 1.3;
  opt.bounds = HM_BOUNDS_GERSHGORIN; /* the same interval on both backends */
  hm_evolution *ev;
  hm_mvec *psi;
  HM_TEST_OK(evo_block_of(ctx, H, K, psi0, &psi));
  HM_TEST_OK(hm_evolution_create(H, K, &opt, &ev));
  HM_TEST_OK(hm_evolution_set_state(ev, psi));
  HM_TEST_OK(hm_evolution_step(ev, 7));
  HM_TEST_OK(hm_evolution_get_state(ev, psi));
  double complex *out = malloc(sizeof *out * (size_t)(n * K));
  int64_t first, local;
  const hm_dist *dist;
  hm_mvec_dist(psi, &dist);
  hm_dist_range(dist, &first, &local, NULL);
  double complex *rows = malloc(sizeof *rows * (size_t)(local * K + 1));
  HM_TEST_OK(hm_mvec_get(psi, rows));
  for (int64_t i = 0; i < n * K; i++) out[i] = 0;
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < K; j++) out[j * n + first + i] = rows[i * K + j];
  MPI_Allreduce(MPI_IN_PLACE, out, (int)(2 * n * K), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(rows);
  hm_evolution_destroy(&ev);
  hm_mvec_destroy(&psi);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return out;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  uint64_t seed = hm_test_seed();
  for (int t = 0; t < 2; t++) {
    hm_scalar type = t ? HM_REAL : HM_COMPLEX;
    const int64_t n = 300;
    double complex *dense = evo_random_band(n, 4, 3.0, type, seed + t);
    double complex *psi0 = evo_random_state(n, K, seed + 100 + t);
    double complex *cpu = propagate(HM_BACKEND_CPU, type, n, dense, psi0, seed);
    double complex *gpu = propagate(HM_BACKEND_CUDA, type, n, dense, psi0, seed);
    double worst = 0;
    for (int64_t i = 0; i < n * K; i++) worst = fmax(worst, cabs(cpu[i] - gpu[i]));
    HM_TEST_ASSERT(worst < 1e-11, "%s H: cuda and cpu states differ by %g", t ? "real" : "complex", worst);
    free(dense); free(cpu); free(gpu);
    /* the matrix-free lattice of the same arithmetic (300 sites, as n) */
    cpu = propagate(HM_BACKEND_CPU, type, n, NULL, psi0, seed);
    gpu = propagate(HM_BACKEND_CUDA, type, n, NULL, psi0, seed);
    worst = 0;
    for (int64_t i = 0; i < n * K; i++) worst = fmax(worst, cabs(cpu[i] - gpu[i]));
    HM_TEST_ASSERT(worst < 1e-11, "matrix-free %s lattice: cuda and cpu states differ by %g", t ? "real" : "complex", worst);
    free(psi0); free(cpu); free(gpu);
  }
  return hm_test_finish();
}
