/* method = lobpcg: extreme eigenpairs (optionally by shift-and-invert) -> /eigen. */
#include <math.h>
#include <string.h>
#include "checkpoint_state.h"
#include "lobpcg_checkpoint.h"
#include "run_lobpcg_transform.h"
#include "lanczos.h"
#include "lobpcg_report.h"
#include "run_state.h"

enum { PHASE_BUILD, PHASE_SETUP, PHASE_SOLVE, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "setup", "solve", "checkpoint", "io"};
static const char *const energy_unit = "energy (units of the Hamiltonian)";

/* What the progress callback needs: the run, and the transform whose inner tolerance follows the
 * outer residual (NULL without one). */
typedef struct {
  run_state *s;
  hm_shift_invert *si;
  hm_lobpcg *lob;
} progress_user;

static void on_progress(int iteration, int nev, const double *values, const double *residuals, int converged,
                        void *user) {
  progress_user *u = user;
  run_state *s = u->s;
  RUN_TEST_DELAY(s);
  (void)values;
  hm_progress_update(&s->progress, iteration < s->deck.solver.maxit ? iteration : s->deck.solver.maxit,
                     s->deck.solver.maxit);
  (void)converged;
  if (u->si) { /* the smallest residual of the pairs still iterating (equal on every rank) */
    const double tol = s->deck.solver.tol;
    double next = INFINITY;
    for (int j = 0; j < nev; j++)
      if (residuals[j] > tol) next = fmin(next, residuals[j]);
    int refresh = 0;
    hm_shift_invert_set_outer_residual(u->si, isfinite(next) ? next : tol, &refresh);
    if (refresh) hm_lobpcg_request_refresh(u->lob); /* its images hold the looser solves' errors */
  }
}

/* Checkpoint: everything the next iteration reads (lobpcg_checkpoint.h), so a restart is bitwise. */
static int on_checkpoint(hm_lobpcg *lob, void *user) {
  run_state *s = user;
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_mvec *blocks[3];
  int nblocks, nscalars;
  double *scalars = NULL;
  int st = hm_lobpcg_checkpoint_state(lob, &nblocks, blocks, &nscalars, &scalars);
  if (!st)
    st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "lobpcg", nblocks, blocks, nscalars,
                                   scalars, run_identity(s));
  free(scalars);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

/* Continue from a checkpoint: the blocks and scalars as saved, checked (finite, full rank). The
 * check is collective, so every rank returns the same refusal (no abort racing the message). */
static int restore(run_state *s, hm_lobpcg *lob) {
  const char *path = s->args->checkpoint_path;
  int n, nblocks, unused;
  double *scalars, *mine;
  hm_mvec *blocks[3];
  APP_CALL(hm_lobpcg_checkpoint_state(lob, &nblocks, blocks, &unused, &mine));
  free(mine);
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "lobpcg", &n, &scalars));
  APP_CALL_INPUT(hm_state_checkpoint_read_blocks(s->ctx, path, nblocks, blocks));
  int st = hm_lobpcg_checkpoint_restore(lob, n, scalars);
  if (st && s->rank == 0) fprintf(stderr, "hamlet: checkpoint '%s' refused: %s", path, hm_error_message());
  free(scalars);
  return st;
}

static const char *reason_word(hm_lobpcg_reason r) {
  switch (r) {
    case HM_LOBPCG_CONVERGED: return "converged";
    case HM_LOBPCG_MAXIT: return "maxit";
    case HM_LOBPCG_STAGNATED: return "stagnated";
    default: return "not run";
  }
}

/* A lower bound of the mass matrix's smallest eigenvalue for the error bounds: Gershgorin's where it
 * is positive (rigorous: lumped and most consistent masses), else the smallest Lanczos Ritz value less
 * its residual (an estimate: said so in /eigen). 0 where neither is positive (no bounds). */
static double mass_lower_bound(run_state *s, hm_matrix *M, const char **source) {
  double lo, hi;
  APP_CALL(hm_matrix_gershgorin(M, &lo, &hi));
  *source = "gershgorin";
  if (lo > 0) return lo;
  APP_CALL(hm_lanczos_bounds(M, 60, s->deck.solver.seed, 0.0, &lo, &hi));
  *source = "lanczos estimate";
  return lo > 0 ? lo : 0;
}

/* The bounds' part of the summary and /eigen: each eigenvalue's bound, and where a bound misses the
 * tolerance, what limits it and what to use instead. */
static void write_bounds(run_state *s, hm_output *out, hm_lobpcg *lob, const double *values, const double *backward,
                         double b_min, const char *b_source) {
  const int nev = s->deck.solver.nev;
  const int64_t dims[1] = {nev};
  double *bound = malloc(sizeof(double) * nev);
  int *ok = malloc(sizeof(int) * nev), missed = 0;
  APP_CALL(hm_lobpcg_error_bounds(lob, bound, ok));
  APP_CALL(hm_output_write_array(out, "/eigen/error_bounds", HM_REAL, 1, dims, bound, energy_unit,
                                 "a-posteriori bounds |lambda - lambda_true| <= bound from the residual of fresh "
                                 "products: min(||r||_B^-1 / ||x||_B, ||r||^2_B^-1 / (||x||^2_B gap)) with "
                                 "||r||_B^-1 <= ||r|| / sqrt(b_min); NaN where b_min is unknown"));
  double worst = 0, worst_backward = 0;
  for (int j = 0; j < nev; j++) {
    missed += !ok[j];
    if (!ok[j]) worst = fmax(worst, bound[j] / fmax(fabs(values[j]), 1e-300)), worst_backward = fmax(worst_backward, backward[j]);
  }
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "b_min", b_min));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "b_min_source", b_source));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "bounds_missing_tol", missed));
  if (s->rank == 0) {
    printf("  bounds      ");
    for (int j = 0; j < nev && j < 8; j++) printf(" %.3g", bound[j]);
    printf("%s  (|lambda - exact| <=; converged: <= tol |lambda| + rounding)\n", nev > 8 ? " ..." : "");
    if (missed)
      printf("  note         %d of %d eigenvalues are NOT converged: error bounds up to %.3g |lambda| > tol %g. The "
             "residuals stopped at backward error %.3g; above double precision's rounding (%.0e) it is LOBPCG's basis "
             "on a stiff pencil that limits them, not the arithmetic. For the smallest eigenpairs of a stiff SPD pencil use "
             "transform = shift_invert with shift = 0\n", missed, nev, worst, s->deck.solver.tol, worst_backward,
             HM_LOBPCG_ROUNDING);
  }
  free(bound);
  free(ok);
}

static void write_lobpcg(run_state *s, hm_output *out, hm_lobpcg *lob, hm_matrix *H, double b_min,
                         const char *b_source) {
  const int nev = s->deck.solver.nev;
  int iterations, converged;
  hm_lobpcg_reason reason;
  APP_CALL(hm_lobpcg_info(lob, &iterations, &converged, &reason));
  double *values = malloc(sizeof(double) * nev), *res = malloc(sizeof(double) * nev);
  APP_CALL(hm_lobpcg_eigenvalues(lob, values));
  APP_CALL(hm_lobpcg_residuals(lob, res));
  const int64_t dims[2] = {nev, (int64_t)iterations + 1};
  APP_CALL(hm_output_write_array(out, "/eigen/values", HM_REAL, 1, dims, values, energy_unit,
                                 s->deck.solver.which ? "the nev largest eigenvalues, descending"
                                                      : "the nev smallest eigenvalues, ascending"));
  APP_CALL(hm_output_write_array(out, "/eigen/residuals", HM_REAL, 1, dims, res, "1",
                                 "relative residuals ||Ax - lambda Bx|| / (|lambda| ||Bx||)"));
  double *hv = malloc(sizeof(double) * (size_t)nev * (iterations + 1)), *hr = malloc(sizeof(double) * (size_t)nev * (iterations + 1));
  APP_CALL(hm_lobpcg_history(lob, hv, hr));
  const int64_t hdims[2] = {(int64_t)iterations + 1, nev};
  APP_CALL(hm_output_write_array(out, "/eigen/history/values", HM_REAL, 2, hdims, hv, energy_unit,
                                 "eigenvalue estimates after each iteration (row 0: the start block)"));
  APP_CALL(hm_output_write_array(out, "/eigen/history/residuals", HM_REAL, 2, hdims, hr, "1",
                                 "relative residuals after each iteration"));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "method", "lobpcg"));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "which", s->deck.solver.which ? "largest" : "smallest"));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "stopped", reason_word(reason)));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "iterations", iterations));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "converged", converged));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "tol", s->deck.solver.tol));
  static const char *const test_word[] = {"auto", "relative", "norm"};
  hm_lobpcg_report rep;
  double *backward = malloc(sizeof(double) * nev);
  APP_CALL(hm_lobpcg_convergence_report(lob, &rep, backward));
  APP_CALL(hm_output_write_array(out, "/eigen/backward_errors", HM_REAL, 1, dims, backward, "1",
                                 "normwise backward errors ||Ax - lambda Bx|| / ((norm_A + |lambda| norm_B) ||x||)"));
  APP_CALL(hm_output_write_attribute(out, "/eigen", "convergence", test_word[rep.test]));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "norm_pairs", rep.norm_pairs));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "norm_A", rep.norm_a));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "norm_B", rep.norm_b));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "locked", rep.locked));
  APP_CALL(hm_output_write_attribute_double(out, "/eigen", "reachable_tol", rep.reachable));
  if (s->deck.solver.vectors) {
    const hm_dist *dist;
    hm_scalar type;
    APP_CALL(hm_matrix_dist(H, &dist));
    APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
    hm_mvec *V;
    APP_CALL(hm_mvec_create(s->ctx, dist, type, nev, &V));
    APP_CALL(hm_lobpcg_eigenvectors(lob, V));
    APP_CALL(hm_output_write_mvec(out, "/eigen/vectors", V, "1", "eigenvectors, B-orthonormal (column j: pair j)"));
    hm_mvec_destroy(&V);
  }
  if (s->rank == 0) {
    printf("  lobpcg       %d iterations, %d of %d converged (%s), tol %g\n", iterations, converged, nev,
           reason_word(reason), s->deck.solver.tol);
    printf("  convergence  %s test (%d of %d pairs by the norm test), ||A|| ~ %.3g, ||B|| ~ %.3g, %d locked\n",
           test_word[rep.test], rep.norm_pairs, nev, rep.norm_a, rep.norm_b, rep.locked);
    if (rep.reachable > s->deck.solver.tol && s->deck.solver.tol > 0 && converged == nev)
      printf("  note         the residual test stopped at %.3g where rounding kept it from tol %g; the error bounds "
             "below still meet tol\n", rep.reachable, s->deck.solver.tol);
    printf("  eigenvalues ");
    for (int i = 0; i < nev && i < 8; i++) printf(" %.10g", values[i]);
    printf("%s\n", nev > 8 ? " ..." : "");
  }
  write_bounds(s, out, lob, values, backward, b_min, b_source);
  free(backward);
  free(values);
  free(res);
  free(hv);
  free(hr);
}

int run_lobpcg(run_state *s, hm_matrix *H, hm_matrix *M) {
  const hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_operator *A, *B = NULL;
  APP_CALL(hm_operator_create_matrix(H, &A));
  if (M) APP_CALL(hm_operator_create_matrix(M, &B));
  hm_shift_invert *si = NULL; /* transform = shift_invert: LOBPCG's A is B (A - shift B)^-1 B */
  if (d->solver.transform) {
    APP_CALL(hm_shift_invert_create_inner(H, M, d->solver.shift, (hm_shift_invert_inner)d->solver.inner,
                                          d->solver.inner_maxit, &si));
    if (run_outer_is_krylov_schur(s)) { /* outer = krylov_schur, or auto (run_lobpcg_krylov.c) */
      hm_operator_destroy(&B);
      hm_operator_destroy(&A);
      return run_krylov_schur(s, H, si, &m);
    }
    hm_operator_destroy(&A);
    APP_CALL(hm_shift_invert_operator(si, &A));
    APP_CALL(hm_shift_invert_set_outer_residual(si, d->solver.tol, NULL)); /* inner solves to 0.01 tol */
  }
  hm_lobpcg_options opt;
  APP_CALL(hm_lobpcg_options_default(&opt));
  opt.nev = d->solver.nev;
  opt.block = d->solver.block;
  opt.tol = d->solver.tol;
  opt.maxit = d->solver.maxit;
  opt.which = d->solver.which ? HM_LOBPCG_LARGEST : HM_LOBPCG_SMALLEST;
  opt.precond = d->solver.precond ? HM_LOBPCG_PRECOND_JACOBI : HM_LOBPCG_PRECOND_NONE;
  if (si) opt.which = HM_LOBPCG_LARGEST, opt.precond = HM_LOBPCG_PRECOND_NONE;
  opt.precond_matrix = H;
  opt.seed = d->solver.seed;
  opt.convergence = (hm_lobpcg_convergence)d->solver.convergence;
  opt.history = 1;
  opt.progress = on_progress;
  progress_user user = {s, si, NULL};
  opt.progress_user = &user;
  opt.checkpoint_every = d->checkpoint_every;
  opt.checkpoint_seconds = d->checkpoint_seconds;
  opt.checkpoint = on_checkpoint;
  opt.checkpoint_user = s;
  opt.stop = run_stop_poll;
  opt.stop_user = &s->stop;
  hm_lobpcg *lob;
  /* shift-and-invert: ||T|| from the Ritz values (the power steps would cost 20 inner solves) */
  if (si) APP_CALL(hm_lobpcg_create_norm_from_ritz(A, B, &opt, &lob));
  else APP_CALL(hm_lobpcg_create(A, B, &opt, &lob));
  user.lob = lob;
  double b_min = 1;
  const char *b_source = "identity";
  if (M && !si) {
    b_min = mass_lower_bound(s, M, &b_source);
    if (b_min > 0) APP_CALL(hm_lobpcg_set_b_min(lob, b_min));
  }
  if (si) APP_CALL(hm_lobpcg_set_refresh_on_lock(lob, 0)); /* T is bounded: no image drift to repair */
  if (s->args->checkpoint_path && restore(s, lob)) {
    hm_lobpcg_destroy(&lob);
    hm_operator_destroy(&B);
    hm_operator_destroy(&A);
    hm_shift_invert_destroy(&si);
    return HM_EXIT_USAGE;
  }
  run_phase_add(s, &m, PHASE_SETUP);

  run_mark_now(s, &m);
  const int st = hm_lobpcg_run(lob);
  if (st == HM_ERR_STOPPED) { /* signal or walltime: X, P and the iteration are a complete state */
    hm_error_clear();
    hm_progress_finish(&s->progress);
    APP_CALL(on_checkpoint(lob, s));
    int iterations = 0;
    APP_CALL(hm_lobpcg_info(lob, &iterations, NULL, NULL));
    char where[96];
    snprintf(where, sizeof where, "at iteration %d of at most %d", iterations, opt.maxit);
    free(m.joules);
    hm_lobpcg_destroy(&lob);
    hm_operator_destroy(&B);
    hm_operator_destroy(&A);
    hm_shift_invert_destroy(&si);
    return run_stopped(s, where);
  }
  APP_CALL(st);
  run_phase_add(s, &m, PHASE_SOLVE);
  run_phase_exclude(s, PHASE_SOLVE, PHASE_CHECKPOINT); /* checkpoints ran inside the solve */
  hm_progress_finish(&s->progress);

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  if (s->rank == 0) run_print_header(s, "LOBPCG eigenpairs", H);
  if (si) APP_CALL(hm_shift_invert_set_outer_residual(si, 0.1 * d->solver.tol, NULL)); /* final Ritz: tighter */
  if (si) run_write_shift_invert(s, out, lob, si, H);
  else write_lobpcg(s, out, lob, H, b_min, b_source);
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  if (s->rank == 0) run_print_timing(s);
  hm_lobpcg_reason reason;
  APP_CALL(hm_lobpcg_info(lob, NULL, NULL, &reason));
  hm_lobpcg_destroy(&lob);
  hm_operator_destroy(&B);
  hm_operator_destroy(&A);
  hm_shift_invert_destroy(&si);
  return reason == HM_LOBPCG_CONVERGED ? HM_EXIT_OK : HM_EXIT_NOT_CONVERGED;
}
