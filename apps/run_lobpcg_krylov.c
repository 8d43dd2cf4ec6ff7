/* method = lobpcg, transform = shift_invert, outer = krylov_schur (or auto): thick-restart Lanczos on
 * T = (A - shift B)^-1 B (krylov_schur.h) instead of LOBPCG, /eigen written like the LOBPCG path.
 * At each restart boundary: the progress line, checkpoints (io's solver checkpoint, method
 * "krylov_schur") and the stop request (signal, walltime). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checkpoint_state.h"
#include "krylov_schur.h"
#include "run_lobpcg_transform.h"

enum { PHASE_BUILD, PHASE_SETUP, PHASE_SOLVE, PHASE_CHECKPOINT, PHASE_IO, PHASES }; /* run_lobpcg.c's */

/* lambda = shift + 1 / theta ascending, and the true residuals of A x = lambda B x of X's columns
 * reordered the same way into V (nev columns). */
static void original_pairs(run_state *s, hm_shift_invert *si, const double *theta, hm_mvec *X, hm_mvec *V,
                           double *values, double *rel, double *nrm, double *norms) {
  const int nev = s->deck.solver.nev;
  const double shift = s->deck.solver.shift;
  int *order = malloc(sizeof(int) * nev);
  for (int i = 0; i < nev; i++) order[i] = i;
  for (int i = 0; i < nev; i++)
    for (int j = i + 1; j < nev; j++)
      if (1.0 / theta[order[j]] < 1.0 / theta[order[i]]) { int t = order[i]; order[i] = order[j]; order[j] = t; }
  for (int i = 0; i < nev; i++) APP_CALL(hm_mvec_copy_columns(X, order[i], V, i, 1));
  for (int i = 0; i < nev; i++) values[i] = shift + 1.0 / theta[order[i]];
  APP_CALL(hm_shift_invert_residuals(si, V, values, rel, nrm, norms));
  free(order);
}

/* Per restart: the progress line (restarts of at most maxit) with the converged count and the
 * largest Ritz estimate relative to |theta|. */
static void on_progress(int restarts, int converged, int nev, double worst, void *user) {
  run_state *s = user;
  RUN_TEST_DELAY(s);
  char detail[96];
  snprintf(detail, sizeof detail, "%d/%d converged, largest estimate %.3g", converged, nev, worst);
  hm_progress_set_detail(&s->progress, detail);
  hm_progress_update(&s->progress, restarts < s->deck.solver.maxit ? restarts : s->deck.solver.maxit,
                     s->deck.solver.maxit);
}

static int on_checkpoint(const hm_krylov_schur_state *state, void *user) {
  run_state *s = user;
  run_mark m = {0};
  run_mark_now(s, &m);
  const int st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "krylov_schur", 2,
                                           state->blocks, state->nscalars, state->scalars, run_identity(s));
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

/* hamlet restart: the checkpoint's scalars, then its blocks (a file that cannot be read is bad input,
 * exit 2; the solver checks in between that the state fits this problem). */
static int on_resume(hm_krylov_schur_state *state, void *user) {
  run_state *s = user;
  if (!state->blocks[0])
    APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, s->args->checkpoint_path, "krylov_schur",
                                                    &state->nscalars, &state->scalars));
  else
    APP_CALL_INPUT(hm_state_checkpoint_read_blocks(s->ctx, s->args->checkpoint_path, 2, state->blocks));
  return HM_SUCCESS;
}

static void write_results(run_state *s, hm_output *out, hm_shift_invert *si, const hm_krylov_schur_info *info,
                          const double *values, const double *rel, const double *nrm, const double *norms, hm_mvec *V) {
  const int nev = s->deck.solver.nev;
  run_write_pairs(s, out, values, rel, nrm, s->deck.solver.vectors ? V : NULL);
  const int done = info->converged >= nev;
  run_transform_info ti;
  run_write_transform(s, out, si, "krylov_schur", "(A - shift B)^-1 B", norms, &ti);
  APP_CALL(hm_output_write_attribute(out, "/eigen", "stopped", done ? "converged" : "maxit"));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "iterations", info->restarts));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "ncv", info->ncv));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "outer_solves", (double)info->solves)); /* restarts: all */
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "converged", info->converged));
  /* the check for missed copies of degenerate eigenvalues (krylov_schur.h) */
  APP_CALL(hm_output_write_attribute(out, "/eigen", "verified", info->verified ? "yes" : "no"));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "copies_found", info->copies));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "verify_solves", (double)info->verify_solves));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "tol", s->deck.solver.tol));
  if (s->rank == 0) {
    printf("  krylov-schur shift-and-invert at %.10g (%s): %d restarts of %d vectors, %d of %d converged (%s), "
           "%lld column solves, tol %g\n", s->deck.solver.shift, ti.method, info->restarts, info->ncv, info->converged,
           nev, done ? "converged" : "maxit", (long long)ti.solves, s->deck.solver.tol);
    printf("  verification from a fresh vector: %s, %d missed cop%s found, %lld column solves\n",
           info->verified ? "nothing further missed" : "not completed", info->copies, info->copies == 1 ? "y" : "ies",
           (long long)info->verify_solves);
  }
  run_print_transform_summary(s, &ti, values, nrm);
}

/* auto: Krylov-Schur (2 to 5 times fewer column solves, bench/README.md), also where the inner
 * solve is iterative on an indefinite A - shift B (MINRES reaches its fixed 0.001 tol). A restart
 * continues the checkpoint's method. */
int run_outer_is_krylov_schur(const run_state *s) {
  const int outer = s->deck.solver.outer; /* 0 = lobpcg, 1 = krylov_schur, 2 = auto */
  if (outer != 2) return outer == 1;
  if (s->args->checkpoint_path) { /* also a LOBPCG checkpoint written before auto was the default */
    char *method = NULL;
    APP_CALL_INPUT(hm_state_checkpoint_method(s->ctx, s->args->checkpoint_path, &method));
    const int ks = !strcmp(method, "krylov_schur");
    free(method);
    return ks;
  }
  return 1;
}

int run_krylov_schur(run_state *s, hm_matrix *H, hm_shift_invert *si, run_mark *mark) {
  const hm_deck *d = &s->deck;
  run_mark m = *mark;
  APP_CALL(hm_shift_invert_set_outer_residual(si, 0.1 * d->solver.tol, NULL)); /* inner solves to 1e-3 tol */
  hm_krylov_schur_options opt;
  hm_krylov_schur_options_default(&opt, d->solver.nev);
  opt.tol = d->solver.tol;
  opt.maxit = d->solver.maxit;
  opt.seed = d->solver.seed;
  opt.verify = d->solver.verify_copies;
  opt.progress = on_progress;
  opt.progress_user = s;
  opt.checkpoint_every = d->checkpoint_every;
  opt.checkpoint_seconds = d->checkpoint_seconds;
  opt.checkpoint = on_checkpoint; /* also on a stop request, without checkpoint keys */
  opt.checkpoint_user = s;
  opt.stop = run_stop_poll;
  opt.stop_user = &s->stop;
  if (s->args->checkpoint_path) opt.resume = on_resume, opt.resume_user = s;
  const hm_dist *dist;
  hm_scalar type;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
  const int nev = d->solver.nev;
  hm_mvec *X, *V;
  APP_CALL(hm_mvec_create(s->ctx, dist, type, nev, &X));
  APP_CALL(hm_mvec_create(s->ctx, dist, type, nev, &V));
  run_phase_add(s, &m, PHASE_SETUP);

  run_mark_now(s, &m);
  double *theta = malloc(sizeof(double) * nev), *values = malloc(sizeof(double) * nev);
  double *rel = malloc(sizeof(double) * nev), *nrm = malloc(sizeof(double) * nev), norms[2];
  hm_krylov_schur_info info = {0};
  const int st = hm_krylov_schur_solve(si, &opt, theta, NULL, X, &info);
  if (st == HM_ERR_STOPPED || (st == HM_ERR_INPUT && opt.resume)) { /* the same status on every rank */
    int code = HM_EXIT_USAGE;
    if (st == HM_ERR_STOPPED) {
      hm_error_clear();
      hm_progress_finish(&s->progress);
      char where[96];
      snprintf(where, sizeof where, "at restart %d of at most %d", info.restarts, opt.maxit);
      code = run_stopped(s, where);
    } else if (s->rank == 0) {
      fprintf(stderr, "hamlet: checkpoint '%s' refused: %s", s->args->checkpoint_path, hm_error_message());
    }
    free(m.joules);
    mark->joules = NULL;
    hm_mvec_destroy(&X), hm_mvec_destroy(&V);
    hm_shift_invert_destroy(&si);
    free(theta), free(values), free(rel), free(nrm);
    return code;
  }
  APP_CALL(st);
  hm_progress_finish(&s->progress);
  original_pairs(s, si, theta, X, V, values, rel, nrm, norms);
  run_phase_add(s, &m, PHASE_SOLVE);
  run_phase_exclude(s, PHASE_SOLVE, PHASE_CHECKPOINT); /* checkpoints ran inside the solve */

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  if (s->rank == 0) run_print_header(s, "Krylov-Schur eigenpairs", H);
  write_results(s, out, si, &info, values, rel, nrm, norms, V);
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  mark->joules = NULL;
  if (s->rank == 0) run_print_timing(s);
  hm_mvec_destroy(&X), hm_mvec_destroy(&V);
  hm_shift_invert_destroy(&si);
  free(theta), free(values), free(rel), free(nrm);
  return info.converged >= nev ? HM_EXIT_OK : HM_EXIT_NOT_CONVERGED;
}
