/* ChebFD (hm_interior) against the dense spectrum (zheevd of the gathered matrix): every eigenvalue
 * in the window to 1e-9 of the spectral scale, all copies of degenerate ones, none from outside;
 * the vectors orthonormal with the reported residuals. Cases: the surface Dirac states of a TI slab
 * in the bulk gap, a periodic cubic lattice (levels of high degeneracy), a disordered square
 * lattice (windows with eigenvalues 1e-7 inside and outside their edges), an empty window, and a
 * search space above the memory limit (refused before the filter). Argument "cuda": the same on the
 * GPU backend (skips without a GPU). Random disorder: HAMLET_TEST_SEED. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "interior_checkpoint.h"
#include "testing.h"

static hm_backend backend = HM_BACKEND_CPU;

/* Real nearest-neighbour lattice of L^dim sites, hopping -1, periodic, on-site potential from
 * uniform [-w/2, w/2] (seeded; the same on every rank). */
static int lattice(hm_context *ctx, int dim, int L, double w, uint64_t seed, hm_matrix **H) {
  int64_t n = 1;
  for (int d = 0; d < dim; d++) n *= L;
  hm_dist *dist;
  int st = hm_dist_create(ctx, n, 1, 1.0, &dist);
  if (st) return st;
  int64_t first, local, ng;
  hm_dist_range(dist, &first, &local, &ng);
  double *pot = malloc(sizeof(double) * (size_t)n);
  srand48((long)seed);
  for (int64_t i = 0; i < n; i++) pot[i] = w * (drand48() - 0.5);
  int64_t *rowptr = malloc(sizeof(int64_t) * (size_t)(local + 1)), *cols = malloc(sizeof(int64_t) * (size_t)local * 7);
  double *val = malloc(sizeof(double) * (size_t)local * 7);
  int64_t e = 0;
  rowptr[0] = 0;
  for (int64_t r = 0; r < local; r++) {
    const int64_t i = first + r;
    cols[e] = i;
    val[e++] = pot[i];
    int64_t stride = 1;
    for (int d = 0; d < dim; d++) {
      const int64_t x = (i / stride) % L;
      for (int s = -1; s <= 1; s += 2) {
        cols[e] = i + (((x + s + L) % L) - x) * stride;
        val[e++] = -1;
      }
      stride *= L;
    }
    rowptr[r + 1] = e;
  }
  st = hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, val, H);
  free(pot); free(rowptr); free(cols); free(val);
  hm_dist_destroy(&dist);
  return st;
}

/* Run ChebFD on [emin, emax] and compare with the dense eigenvalues of H. Returns pairs found. */
static int check_window(const char *name, hm_matrix *H, double emin, double emax) {
  double complex *dense;
  int64_t n;
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  double *w = malloc(sizeof(double) * (size_t)n);
  HM_TEST_ASSERT(hm_test_eigh(n, dense, w, NULL) == 0, "%s: zheevd failed", name);
  free(dense);
  const double scale = fmax(fabs(w[0]), fabs(w[n - 1]));
  int first = 0, count = 0;
  while (first < n && w[first] < emin) first++;
  while (first + count < n && w[first + count] <= emax) count++;

  hm_interior_options opt;
  hm_interior_options_default(&opt);
  opt.emin = emin;
  opt.emax = emax;
  opt.tol = 1e-10;
  opt.verbosity = getenv("HM_DEBUG") ? 1 : 0;
  hm_interior *in;
  HM_TEST_OK(hm_interior_create(H, &opt, &in));
  HM_TEST_OK(hm_interior_run(in));
  int found = -1, degree, search, passes, converged;
  double estimate;
  HM_TEST_OK(hm_interior_info(in, &found, &estimate, &degree, &search, &passes, &converged));
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("%s: window [%g, %g] dense %d found %d estimate %.1f degree %d search %d passes %d\n", name, emin, emax,
           count, found, estimate, degree, search, passes);
  HM_TEST_ASSERT(converged == 1, "%s: not converged after %d passes", name, passes);
  HM_TEST_ASSERT(found == count, "%s: found %d eigenvalues in [%g, %g], dense has %d", name, found, emin, emax, count);
  if (found == count && found > 0) {
    double *v = malloc(sizeof(double) * found), *r = malloc(sizeof(double) * found);
    HM_TEST_OK(hm_interior_values(in, v));
    HM_TEST_OK(hm_interior_residuals(in, r));
    double worst = 0, worst_r = 0;
    for (int i = 0; i < found; i++) {
      worst = fmax(worst, fabs(v[i] - w[first + i]));
      worst_r = fmax(worst_r, r[i]);
      HM_TEST_ASSERT(v[i] >= emin && v[i] <= emax, "%s: value %.15g reported outside the window", name, v[i]);
    }
    HM_TEST_ASSERT(worst <= 1e-9 * scale, "%s: eigenvalues off the dense ones by %g (scale %g)", name, worst, scale);
    HM_TEST_ASSERT(worst_r <= 1e-10 * 1.0001, "%s: residual %g above tol", name, worst_r);
    /* Orthonormal vectors (a copy found twice would show as a Gram entry near 1 off the diagonal). */
    const hm_dist *d;
    hm_scalar type;
    int64_t ng, nnz;
    hm_matrix_dist(H, &d);
    hm_matrix_info(H, &ng, &nnz, &type);
    hm_context *ctx;
    hm_matrix_context(H, &ctx);
    hm_mvec *V;
    HM_TEST_OK(hm_mvec_create(ctx, d, type, found, &V));
    HM_TEST_OK(hm_interior_vectors(in, V));
    double *G = malloc(sizeof(double) * (size_t)found * found * type);
    HM_TEST_OK(hm_mvec_gram(V, V, G));
    double off = 0;
    for (int i = 0; i < found; i++)
      for (int j = 0; j < found; j++) {
        const double *g = G + (size_t)(i * found + j) * type;
        off = fmax(off, fabs(g[0] - (i == j)) + (type == HM_COMPLEX ? fabs(g[1]) : 0));
      }
    HM_TEST_ASSERT(off < 1e-10, "%s: eigenvectors not orthonormal (%g)", name, off);
    free(G);
    hm_mvec_destroy(&V);
    free(v);
    free(r);
  }
  hm_interior_destroy(&in);
  free(w);
  return found;
}

/* A checkpoint kept in memory: the scalars and copies of the blocks after pass `at`. */
typedef struct {
  int at, nblocks, nscalars, taken;
  double *scalars;
  hm_mvec *blocks[64];
} saved_state;

static int save_at(hm_interior *in, void *user) {
  saved_state *c = user;
  int passes;
  hm_interior_info(in, NULL, NULL, NULL, NULL, &passes, NULL);
  if (passes != c->at) return HM_SUCCESS;
  hm_mvec **blocks;
  HM_CALL(hm_interior_checkpoint_state(in, &c->nblocks, &blocks, &c->nscalars, &c->scalars));
  HM_CHECK(c->nblocks <= 64, HM_ERR_ARGUMENT, "%d checkpoint blocks: this test keeps 64", c->nblocks);
  for (int b = 0; b < c->nblocks; b++) {
    const hm_dist *dist;
    int k;
    hm_scalar type;
    hm_context *ctx;
    HM_CALL(hm_mvec_dist(blocks[b], &dist));
    HM_CALL(hm_mvec_size(blocks[b], NULL, &k));
    HM_CALL(hm_mvec_type(blocks[b], &type));
    HM_CALL(hm_mvec_context(blocks[b], &ctx));
    HM_CALL(hm_mvec_create(ctx, dist, type, k, &c->blocks[b]));
    HM_CALL(hm_mvec_copy_columns(blocks[b], 0, c->blocks[b], 0, k));
  }
  free(blocks);
  c->taken = 1;
  return HM_SUCCESS;
}

static int stop_after_save(void *user) { return ((saved_state *)user)->taken; }

/* A run stopped after pass 2 (HM_ERR_STOPPED) and restored from its checkpoint into a new solver
 * ends at the eigenvalues, residuals and pass count of an uninterrupted run, bit for bit; a
 * checkpoint of another window is refused. */
static void check_restart(hm_matrix *H, double emin, double emax) {
  hm_interior_options opt;
  hm_interior_options_default(&opt);
  opt.emin = emin;
  opt.emax = emax;
  opt.tol = 1e-10;
  hm_interior *whole, *first, *second, *other;
  HM_TEST_OK(hm_interior_create(H, &opt, &whole));
  HM_TEST_OK(hm_interior_run(whole));
  saved_state c = {.at = 2};
  HM_TEST_OK(hm_interior_create(H, &opt, &first));
  HM_TEST_OK(hm_interior_set_checkpoint(first, 1, 0, save_at, &c, stop_after_save, &c));
  HM_TEST_FAILS(hm_interior_run(first), HM_ERR_STOPPED, "stopped after filter pass 2");
  HM_TEST_ASSERT(c.taken, "no checkpoint was taken at pass 2");
  hm_interior_destroy(&first);
  HM_TEST_OK(hm_interior_create(H, &opt, &second));
  int nblocks;
  hm_mvec **blocks = NULL;
  HM_TEST_OK(hm_interior_checkpoint_restore(second, c.nscalars, c.scalars, &nblocks, &blocks));
  HM_TEST_ASSERT(nblocks == c.nblocks, "the restore made %d blocks, the checkpoint has %d", nblocks, c.nblocks);
  for (int b = 0; b < nblocks && b < c.nblocks; b++) {
    int k;
    hm_mvec_size(c.blocks[b], NULL, &k);
    HM_TEST_OK(hm_mvec_copy_columns(c.blocks[b], 0, blocks[b], 0, k));
  }
  free(blocks);
  HM_TEST_OK(hm_interior_run(second));
  int n1, n2, p1, p2;
  HM_TEST_OK(hm_interior_info(whole, &n1, NULL, NULL, NULL, &p1, NULL));
  HM_TEST_OK(hm_interior_info(second, &n2, NULL, NULL, NULL, &p2, NULL));
  HM_TEST_ASSERT(n1 == n2 && p1 == p2 && n1 > 0, "restarted: %d pairs in %d passes, uninterrupted %d in %d", n2, p2, n1,
                 p1);
  if (n1 == n2 && n1 > 0) {
    double *v1 = malloc(sizeof(double) * (size_t)n1 * 4), *v2 = v1 + n1, *r1 = v1 + 2 * n1, *r2 = v1 + 3 * n1;
    HM_TEST_OK(hm_interior_values(whole, v1));
    HM_TEST_OK(hm_interior_values(second, v2));
    HM_TEST_OK(hm_interior_residuals(whole, r1));
    HM_TEST_OK(hm_interior_residuals(second, r2));
    HM_TEST_ASSERT(!memcmp(v1, v2, sizeof(double) * (size_t)n1) && !memcmp(r1, r2, sizeof(double) * (size_t)n1),
                   "restarted values or residuals differ from the uninterrupted run's (first %.17g vs %.17g)", v2[0],
                   v1[0]);
    free(v1);
  }
  opt.emax = emax + 0.01;
  HM_TEST_OK(hm_interior_create(H, &opt, &other));
  HM_TEST_FAILS(hm_interior_checkpoint_restore(other, c.nscalars, c.scalars, &nblocks, &blocks), HM_ERR_INPUT,
                "the checkpoint is of window");
  hm_interior_destroy(&other);
  hm_interior_destroy(&second);
  hm_interior_destroy(&whole);
  for (int b = 0; b < c.nblocks; b++) hm_mvec_destroy(&c.blocks[b]);
  free(c.scalars);
}

/* Arguments: [cuda | ranks] ("ranks": 3 ranks, oversubscribed on small machines, where each
 * reduction waits for a time slice: the slab, the disordered window and the restart only). */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int ranks = argc > 1 && strcmp(argv[1], "ranks") == 0;
  if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
    HM_TEST_NEED_GPU();
    backend = HM_BACKEND_CUDA;
  }
  const uint64_t seed = hm_test_seed();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  hm_matrix *H;

  /* TI slab, open in z: the surface Dirac cone fills the bulk gap around 0. */
  HM_TEST_OK(hm_test_ti_slab(ctx, 4, 4, 6, 0.0, NULL, &H));
  int surface = check_window("ti slab", H, -0.6, 0.6);
  HM_TEST_ASSERT(surface >= 4, "ti slab: only %d surface states in [-0.6, 0.6]", surface);
  hm_matrix_destroy(&H);

  /* Periodic cubic lattice 6^3: levels -2 (cos kx + cos ky + cos kz), degenerate up to 24 fold. */
  HM_TEST_OK(lattice(ctx, 3, 6, 0.0, seed, &H));
  if (!ranks) {
    int zero = check_window("cubic lattice E = 0", H, -0.5, 0.5);
    HM_TEST_ASSERT(zero >= 20, "cubic lattice: %d copies at E = 0", zero);
    check_window("cubic lattice E = -1, 1", H, -1.2, 1.3);
    /* Empty: no level between 0 and 1. */
    int none = check_window("cubic lattice empty", H, 0.2, 0.8);
    HM_TEST_ASSERT(none == 0, "empty window: %d found", none);
  }

  /* A search space above the memory limit is refused with the estimate and the bytes needed. */
  hm_interior_options opt;
  hm_interior_options_default(&opt);
  opt.emin = -3;
  opt.emax = 3;
  opt.memory_limit = 1e5;
  hm_interior *in;
  HM_TEST_OK(hm_interior_create(H, &opt, &in));
  HM_TEST_FAILS(hm_interior_run(in), HM_ERR_MEMORY, "above the memory limit");
  hm_interior_destroy(&in);
  hm_matrix_destroy(&H);

  /* Disordered square lattice 16^2: windows whose edges sit 1e-7 inside and outside eigenvalues. */
  HM_TEST_OK(lattice(ctx, 2, 16, 2.0, seed, &H));
  double complex *dense;
  int64_t n;
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  double *w = malloc(sizeof(double) * (size_t)n);
  HM_TEST_OK(hm_test_eigh(n, dense, w, NULL));
  free(dense);
  check_window("disordered", H, -0.3, 0.3);
  check_restart(H, -0.3, 0.3);
  const int i0 = (int)n / 2 - 6, i1 = (int)n / 2 + 6;
  if (!ranks) {
    check_window("edges inside", H, w[i0] - 1e-7, w[i1] + 1e-7);
    check_window("edges outside", H, w[i0] + 1e-7, w[i1] - 1e-7);
  }
  free(w);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
