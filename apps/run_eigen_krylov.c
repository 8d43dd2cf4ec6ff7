/* method = lobpcg, transform = shift_invert, outer = krylov_schur: thick-restart Lanczos on
 * T = (A - shift B)^-1 B (krylov_schur.h) instead of LOBPCG, /eigen written like the LOBPCG path.
 * No checkpoints yet: checkpoint keys and a restart are refused (exit 2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "krylov_schur.h"
#include "run_eigen_transform.h"

enum { PHASE_BUILD, PHASE_SETUP, PHASE_SOLVE, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "setup", "solve", "checkpoint", "io"};

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
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "converged", info->converged));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "tol", s->deck.solver.tol));
  if (s->rank == 0) {
    printf("  krylov-schur shift-and-invert at %.10g (%s): %d restarts of %d vectors, %d of %d converged (%s), "
           "%lld column solves, tol %g\n", s->deck.solver.shift, ti.method, info->restarts, info->ncv, info->converged,
           nev, done ? "converged" : "maxit", (long long)ti.solves, s->deck.solver.tol);
  }
  run_print_transform_summary(s, &ti, values, nrm);
}

int run_krylov_schur(run_state *s, hm_matrix *H, hm_matrix *M) {
  const hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  if (s->args->checkpoint_path || d->checkpoint_every > 0 || d->checkpoint_seconds > 0) { /* not silently */
    if (s->rank == 0)
      fprintf(stderr, "hamlet: [solver] outer = krylov_schur writes and reads no checkpoints yet: drop [run] "
                      "checkpoint_every / checkpoint_seconds, or use outer = lobpcg\n");
    return HM_EXIT_USAGE;
  }
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_shift_invert *si;
  APP_CALL(hm_shift_invert_create_inner(H, M, d->solver.shift, (hm_shift_invert_inner)d->solver.inner,
                                        d->solver.inner_maxit, &si));
  APP_CALL(hm_shift_invert_set_outer_residual(si, 0.1 * d->solver.tol, NULL)); /* inner solves to 1e-3 tol */
  hm_krylov_schur_options opt;
  hm_krylov_schur_options_default(&opt, d->solver.nev);
  opt.tol = d->solver.tol;
  opt.maxit = d->solver.maxit;
  opt.seed = d->solver.seed;
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
  hm_krylov_schur_info info;
  APP_CALL(hm_krylov_schur_solve(si, &opt, theta, NULL, X, &info));
  original_pairs(s, si, theta, X, V, values, rel, nrm, norms);
  run_phase_add(s, &m, PHASE_SOLVE);

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  if (s->rank == 0) run_print_header(s, "Krylov-Schur eigenpairs", H);
  write_results(s, out, si, &info, values, rel, nrm, norms, V);
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  if (s->rank == 0) run_print_timing(s);
  hm_mvec_destroy(&X), hm_mvec_destroy(&V);
  hm_shift_invert_destroy(&si);
  free(theta), free(values), free(rel), free(nrm);
  return info.converged >= nev ? HM_EXIT_OK : HM_EXIT_NOT_CONVERGED;
}
