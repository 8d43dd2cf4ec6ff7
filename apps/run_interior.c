/* method = interior: every eigenpair in [interior] window by Chebyshev filter diagonalization
 * (include/hamlet/interior.h) -> /eigen, as the other eigensolvers, with the window, the count
 * estimate, the filter degree, the search space and the passes as attributes. */
#include <stdio.h>
#include <stdlib.h>
#include "checkpoint_state.h"
#include "interior_checkpoint.h"
#include "run_state.h"

enum { PHASE_BUILD, PHASE_SETUP, PHASE_SOLVE, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "setup", "solve", "checkpoint", "io"};

/* Checkpoint after a filter pass: everything the next pass reads (interior_checkpoint.h). */
static int on_checkpoint(hm_interior *in, void *user) {
  run_state *s = user;
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_mvec **blocks = NULL;
  int nblocks, nscalars;
  double *scalars = NULL;
  int st = hm_interior_checkpoint_state(in, &nblocks, &blocks, &nscalars, &scalars);
  if (!st)
    st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "interior", nblocks, blocks, nscalars,
                                   scalars, run_identity(s));
  free(blocks);
  free(scalars);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

/* After every filter pass: the agreed stop request of signals and the walltime (stop.h). */
static int stop_after_pass(void *user) {
  run_state *s = user;
  RUN_TEST_DELAY(s);
  return run_stop_poll(&s->stop);
}

/* Continue from a checkpoint: its scalars checked against this run, then its blocks. Collective, so
 * every rank returns the same refusal. */
static int restore(run_state *s, hm_interior *in) {
  const char *path = s->args->checkpoint_path;
  int n, nblocks;
  double *scalars;
  hm_mvec **blocks = NULL;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "interior", &n, &scalars));
  int st = hm_interior_checkpoint_restore(in, n, scalars, &nblocks, &blocks);
  free(scalars);
  if (st) {
    if (s->rank == 0) fprintf(stderr, "hamlet: checkpoint '%s' refused: %s", path, hm_error_message());
    return st;
  }
  st = hm_state_checkpoint_read_blocks(s->ctx, path, nblocks, blocks);
  free(blocks);
  APP_CALL_INPUT(st);
  return HM_SUCCESS;
}

static void write_interior(run_state *s, hm_output *out, hm_interior *in, hm_matrix *H) {
  const hm_deck *d = &s->deck;
  int found, degree, search, passes, converged;
  double estimate, lo, hi;
  APP_CALL(hm_interior_info(in, &found, &estimate, &degree, &search, &passes, &converged));
  APP_CALL(hm_interior_bounds(in, &lo, &hi));
  double *values = malloc(sizeof(double) * (size_t)(found + 1)), *res = malloc(sizeof(double) * (size_t)(found + 1));
  if (!values || !res) APP_CALL(HM_ERR_MEMORY);
  APP_CALL(hm_interior_values(in, values));
  APP_CALL(hm_interior_residuals(in, res));
  const int64_t dims[1] = {found};
  APP_CALL(hm_output_write_array(out, "/eigen/values", HM_REAL, 1, dims, values, "energy (units of the Hamiltonian)",
                                 "every eigenvalue in the window, ascending, all copies of degenerate ones"));
  APP_CALL(hm_output_write_array(out, "/eigen/residuals", HM_REAL, 1, dims, res, "1",
                                 "residuals ||Hx - lambda x|| / max(|spectral bound|)"));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "method", "interior"));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "window_min", d->interior.emin));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "window_max", d->interior.emax));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "found", found));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "count_estimate", estimate));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "degree", degree));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "search", search));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "passes", passes));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "tol", d->interior.tol));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "stopped", converged ? "converged" : "max_passes"));
  if (d->interior.vectors && found > 0) {
    const hm_dist *dist;
    hm_scalar type;
    APP_CALL(hm_matrix_dist(H, &dist));
    APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
    hm_mvec *V;
    APP_CALL(hm_mvec_create(s->ctx, dist, type, found, &V));
    APP_CALL(hm_interior_vectors(in, V));
    APP_CALL(hm_output_write_mvec(out, "/eigen/vectors", V, "1", "eigenvectors, orthonormal (column j: value j)"));
    hm_mvec_destroy(&V);
  }
  if (s->rank == 0) {
    run_print_header(s, "interior eigenpairs (Chebyshev filter diagonalization)", H);
    printf("  window       [%.10g, %.10g] in the spectral interval [%.6g, %.6g]\n", d->interior.emin, d->interior.emax,
           lo, hi);
    printf("  interior     %d passes, filter degree %d, search space %d, KPM count estimate %.1f, tol %g%s\n", passes,
           degree, search, estimate, d->interior.tol, converged ? "" : " (NOT converged: max passes reached)");
    if (found == 0) {
      printf("  eigenvalues  none: the window holds no eigenvalue\n");
    } else {
      printf("  eigenvalues  %d:", found);
      for (int i = 0; i < found && i < 8; i++) printf(" %.10g", values[i]);
      printf("%s\n", found > 8 ? " ..." : "");
    }
  }
  free(values);
  free(res);
}

int run_interior(run_state *s, hm_matrix *H, hm_matrix *mass) {
  (void)mass; /* none: a standard problem */
  const hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_interior_options opt;
  APP_CALL(hm_interior_options_default(&opt));
  opt.emin = d->interior.emin;
  opt.emax = d->interior.emax;
  opt.tol = d->interior.tol;
  opt.search = d->interior.search;
  opt.degree = d->interior.degree;
  hm_interior *in;
  APP_CALL(hm_interior_create(H, &opt, &in));
  APP_CALL(hm_interior_set_checkpoint(in, d->checkpoint_every, d->checkpoint_seconds, on_checkpoint, s,
                                      stop_after_pass, s));
  if (s->args->checkpoint_path && restore(s, in)) {
    hm_interior_destroy(&in);
    return HM_EXIT_USAGE;
  }
  run_phase_add(s, &m, PHASE_SETUP);
  run_mark_now(s, &m);
  const int st = hm_interior_run(in);
  if (st == HM_ERR_STOPPED) { /* signal or walltime: the blocks after the last pass are a complete state */
    hm_error_clear();
    hm_progress_finish(&s->progress);
    APP_CALL(on_checkpoint(in, s));
    int passes = 0;
    APP_CALL(hm_interior_info(in, NULL, NULL, NULL, NULL, &passes, NULL));
    char where[64];
    snprintf(where, sizeof where, "after filter pass %d", passes);
    free(m.joules);
    hm_interior_destroy(&in);
    return run_stopped(s, where);
  }
  APP_CALL(st);
  run_phase_add(s, &m, PHASE_SOLVE);
  run_phase_exclude(s, PHASE_SOLVE, PHASE_CHECKPOINT); /* checkpoints ran inside the solve */
  hm_progress_finish(&s->progress);
  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  write_interior(s, out, in, H);
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  if (s->rank == 0) run_print_timing(s);
  int converged;
  APP_CALL(hm_interior_info(in, NULL, NULL, NULL, NULL, NULL, &converged));
  hm_interior_destroy(&in);
  return converged ? HM_EXIT_OK : HM_EXIT_NOT_CONVERGED;
}
