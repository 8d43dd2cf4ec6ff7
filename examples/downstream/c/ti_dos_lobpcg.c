/* A downstream C program built against an installed hamlet (find_package(hamlet) or pkg-config):
 *  1. the KPM density of states of a disordered 3D topological-insulator slab, written to OUT.h5
 *     (/hamiltonian, /kpm, /dos); the Fortran twin writes the same file;
 *  2. the lowest eigenvalues of the 1D Laplacian tridiag(-1, 2, -1), given to LOBPCG as a
 *     matrix-free callback, checked against the exact 2 - 2 cos(j pi / (N + 1)).
 * Run: mpiexec -n 2 ./ti_dos_lobpcg_c [OUT.h5 [auto|cpu|cuda]]; exit 0 when every eigenvalue is right.
 * The backend (default auto: the GPU where one is visible) lets a GPU run be checked against a CPU one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "hamlet.h"

/* On failure: hamlet's whole error text, then stop every rank (the others may wait in a collective). */
#define CHECK(call)                                                                   \
  do {                                                                                \
    if ((call) != HM_SUCCESS) {                                                       \
      fprintf(stderr, "ti_dos_lobpcg_c: %s failed:\n%s\n", #call, hm_error_message()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
    }                                                                                 \
  } while (0)

enum { NX = 8, NY = 8, NZ = 4, MOMENTS = 128, VECTORS = 8, POINTS = 201 };
enum { LAPLACE_N = 200, NEV = 5 };

static int ti_dos(hm_context *ctx, const char *path) {
  hm_ti_params p;
  hm_matrix *H = NULL;
  hm_kpm *kpm = NULL;
  hm_dos *dos = NULL;
  hm_output *out = NULL;
  hm_kpm_options kopt;
  hm_dos_options dopt;
  double mu[MOMENTS], scale, shift, *mu_vec = malloc(sizeof(double) * MOMENTS * VECTORS);
  int64_t n;
  if (!mu_vec) return 1;
  CHECK(hm_ti_params_default(&p));
  p.nx = NX; p.ny = NY; p.nz = NZ;
  p.t = 1.0; p.m = 2.0;
  p.boundary[0] = HM_BC_PERIODIC; p.boundary[1] = HM_BC_PERIODIC; p.boundary[2] = HM_BC_OPEN;
  p.disorder_w = 0.5;
  p.disorder_seed = 7;
  CHECK(hm_ti_build(ctx, &p, &H));
  CHECK(hm_kpm_options_default(&kopt));
  kopt.moments = MOMENTS;
  kopt.vectors = VECTORS;
  kopt.seed = 1;
  CHECK(hm_kpm_create(H, &kopt, &kpm));
  CHECK(hm_kpm_run(kpm));
  CHECK(hm_kpm_moments(kpm, mu, mu_vec));
  CHECK(hm_kpm_info(kpm, NULL, NULL, NULL, &scale, &shift, &n));
  CHECK(hm_dos_options_default(&dopt));
  dopt.points = POINTS;
  CHECK(hm_dos_create(MOMENTS, VECTORS, mu_vec, scale, shift, n, &dopt, &dos));
  CHECK(hm_output_create(ctx, path, &out));
  CHECK(hm_output_write_input(out, "# examples/downstream/c\n[ti]\nnx = 8\nny = 8\nnz = 4\n"));
  CHECK(hm_output_write_provenance(out));
  CHECK(hm_output_write_ti(out, &p, H));
  CHECK(hm_output_write_kpm(out, kpm, &dopt));
  CHECK(hm_output_write_dos(out, dos));
  CHECK(hm_output_commit(&out));
  CHECK(hm_dos_destroy(&dos));
  CHECK(hm_kpm_destroy(&kpm));
  CHECK(hm_matrix_destroy(&H));
  free(mu_vec);
  return 0;
}

/* y = A x for the k columns of this rank's rows; the edge rows come from the neighbouring ranks. */
static int laplacian(hm_mvec *x, hm_mvec *y, void *user) {
  (void)user;
  int64_t local;
  int k, rank, size;
  int s = hm_mvec_size(x, &local, &k);
  if (s) return s;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* rows -1 and local are the ghosts (0 at the Dirichlet ends) */
  double *xv = calloc((size_t)(local + 2) * k, sizeof(double)), *yv = malloc(sizeof(double) * (size_t)(local * k + 1));
  if (!xv || !yv) { free(xv); free(yv); return HM_ERR_MEMORY; }
  s = hm_mvec_get(x, xv + k);
  int below = rank > 0 ? rank - 1 : MPI_PROC_NULL, above = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(xv + local * k, k, MPI_DOUBLE, above, 1, xv, k, MPI_DOUBLE, below, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(xv + k, k, MPI_DOUBLE, below, 2, xv + (local + 1) * k, k, MPI_DOUBLE, above, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++)
      yv[i * k + j] = 2 * xv[(i + 1) * k + j] - xv[i * k + j] - xv[(i + 2) * k + j];
  if (!s) s = hm_mvec_set(y, yv);
  free(xv);
  free(yv);
  return s;
}

static int lobpcg_laplace(hm_context *ctx, int rank) {
  hm_dist *dist = NULL;
  hm_operator *A = NULL;
  hm_lobpcg *lob = NULL;
  hm_lobpcg_options opt;
  double values[NEV], residuals[NEV];
  int iterations, converged, wrong = 0;
  hm_lobpcg_reason reason;
  CHECK(hm_dist_create(ctx, LAPLACE_N, 1, 1.0, &dist));
  CHECK(hm_operator_create_shell(ctx, dist, HM_REAL, laplacian, NULL, &A));
  CHECK(hm_lobpcg_options_default(&opt));
  opt.nev = NEV;
  opt.block = NEV + 3;
  opt.tol = 1e-9;
  opt.maxit = 2000;
  CHECK(hm_lobpcg_create(A, NULL, &opt, &lob));
  CHECK(hm_lobpcg_run(lob));
  CHECK(hm_lobpcg_info(lob, &iterations, &converged, &reason));
  CHECK(hm_lobpcg_eigenvalues(lob, values));
  CHECK(hm_lobpcg_residuals(lob, residuals));
  if (rank == 0) printf("LOBPCG, 1D Laplacian N = %d: %d of %d converged in %d iterations\n", LAPLACE_N, converged, NEV,
                        iterations);
  for (int j = 1; j <= NEV; j++) {
    double exact = 2 - 2 * cos(j * acos(-1.0) / (LAPLACE_N + 1));
    if (rank == 0) printf("lambda %d = %.16f exact %.16f residual %.3e\n", j, values[j - 1], exact, residuals[j - 1]);
    if (!(fabs(values[j - 1] - exact) <= 1e-8 * exact)) wrong++;
  }
  CHECK(hm_lobpcg_destroy(&lob));
  CHECK(hm_operator_destroy(&A));
  CHECK(hm_dist_destroy(&dist));
  return reason != HM_LOBPCG_CONVERGED || wrong > 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *backend_name = argc > 2 ? argv[2] : "auto";
  hm_backend backend = HM_BACKEND_AUTO;
  if (!strcmp(backend_name, "cpu")) backend = HM_BACKEND_CPU;
  else if (!strcmp(backend_name, "cuda")) backend = HM_BACKEND_CUDA;
  else if (strcmp(backend_name, "auto")) {
    if (rank == 0) fprintf(stderr, "ti_dos_lobpcg_c: backend '%s': allowed are auto, cpu, cuda\n", backend_name);
    MPI_Finalize();
    return 2;
  }
  hm_context *ctx = NULL;
  CHECK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  if (rank == 0) printf("hamlet %s from C\n", hm_version());
  int failed = ti_dos(ctx, argc > 1 ? argv[1] : "ti_dos_c.h5");
  failed |= lobpcg_laplace(ctx, rank);
  CHECK(hm_context_destroy(&ctx));
  MPI_Finalize();
  return failed;
}
