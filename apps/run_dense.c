/* method = dense: all eigenvalues (and eigenvectors) by LAPACK, cuSOLVER, ScaLAPACK or hamlet's distributed
 * two-stage solver -> /eigen. */
#include "run_state.h"

enum { PHASE_BUILD, PHASE_SETUP, PHASE_SOLVE, PHASE_CHECKPOINT, PHASE_IO, PHASES };
/* the phases of method = lobpcg (the same /timing groups; no checkpoint is written) */
static const char *const phase_name[PHASES] = {"build", "setup", "solve", "checkpoint", "io"};
static const char *const energy_unit = "energy (units of the Hamiltonian)";

int run_dense(run_state *s, hm_matrix *H, hm_matrix *M) {
  const hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  int64_t n;
  hm_scalar type;
  const hm_dist *dist;
  APP_CALL(hm_matrix_info(H, &n, NULL, &type));
  APP_CALL(hm_matrix_dist(H, &dist));
  double *w = malloc(sizeof(double) * (size_t)n);
  hm_mvec *Z = NULL;
  run_mark m = {0};
  run_mark_now(s, &m);
  if (d->solver.vectors) APP_CALL(hm_mvec_create(s->ctx, dist, type, (int)n, &Z));
  run_phase_add(s, &m, PHASE_SETUP);
  run_mark_now(s, &m);
  APP_CALL(hm_dense_eigh_matrix(H, M, d->solver.vectors, (hm_dense_method)d->solver.dense_solver, w, Z));
  run_phase_add(s, &m, PHASE_SOLVE);

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  APP_CALL(hm_output_write_array(out, "/eigen/values", HM_REAL, 1, &n, w, energy_unit, "all eigenvalues, ascending"));
  static const char *const solver_word[] = {"auto", "lapack", "cusolver", "scalapack", "distributed"};
  APP_CALL(hm_output_write_attribute(out, "/eigen", "method", "dense"));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "dense_solver", solver_word[d->solver.dense_solver]));
  if (Z) APP_CALL(hm_output_write_mvec(out, "/eigen/vectors", Z, "1", "eigenvectors (column j: eigenvalue j)"));
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  if (s->rank == 0) {
    run_print_header(s, "all eigenvalues (dense)", H);
    printf("  eigenvalues  %lld from %.10g to %.10g\n", (long long)n, w[0], w[n - 1]);
    run_print_timing(s);
  }
  hm_mvec_destroy(&Z);
  free(w);
  return HM_EXIT_OK;
}
