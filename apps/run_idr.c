/* method = idr: a linear system A x = b ([rhs]) -> /solver, /solution; or (problem = green) the
 * Green's functions of run_green.c, with the same solver options. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "checkpoint_state.h"
#include "run_green.h"
#include "run_state.h"

static const char *const phase_name[PHASES] = {"build", "setup", "solve", "checkpoint", "io"};

/* The deck's IDR options (the preconditioner is set by the caller). */
void run_idr_options(run_state *s, hm_idr_options *opt) {
  const hm_deck *d = &s->deck;
  APP_CALL(hm_idr_options_default(opt));
  opt->s = d->solver.s;
  opt->smoothing = d->solver.smoothing;
  opt->tol = d->solver.tol;
  opt->maxit = d->solver.maxit;
  opt->omega_angle = d->solver.omega_angle;
  opt->residual_replacement = d->solver.residual_replacement;
  opt->seed = d->solver.seed;
  opt->history = 1;
  opt->stop = run_stop_poll;
  opt->stop_user = &s->stop;
}

/* Jacobi with diag, a one-column block holding the operator's diagonal. */
void run_idr_jacobi(hm_mvec *diag, hm_idr_options *opt) {
  opt->precond = HM_IDR_PRECOND_JACOBI;
  opt->precond_diagonal = diag;
}

/* Checkpoint at the end of an outer iteration: the solver's blocks and small state. */
static int on_checkpoint(hm_idr *idr, void *user) {
  run_state *s = user;
  RUN_TEST_DELAY(s);
  run_mark m = {0};
  run_mark_now(s, &m);
  int nb = 0, ns = 0;
  int st = hm_idr_state_size(idr, &nb, &ns);
  hm_mvec **blocks = calloc((size_t)nb + 1, sizeof *blocks);
  double *scalars = calloc((size_t)ns + 1, sizeof *scalars);
  for (int i = 0; i < nb && !st; i++) st = hm_idr_state_block(idr, i, &blocks[i]);
  if (!st) st = hm_idr_state_get(idr, scalars);
  if (!st) st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "idr", nb, blocks, ns, scalars,
                                                  run_identity(s));
  free(blocks);
  free(scalars);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

/* Continue from a checkpoint: the small state first (it sizes the blocks), then the blocks. */
static void restore(run_state *s, hm_idr *idr) {
  const char *path = s->args->checkpoint_path;
  int ns, nb;
  double *scalars;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "idr", &ns, &scalars));
  APP_CALL_INPUT(hm_idr_restore(idr, 1, scalars));
  free(scalars);
  APP_CALL(hm_idr_state_size(idr, &nb, NULL));
  hm_mvec **blocks = calloc((size_t)nb, sizeof *blocks);
  for (int i = 0; i < nb; i++) APP_CALL(hm_idr_state_block(idr, i, &blocks[i]));
  APP_CALL_INPUT(hm_state_checkpoint_read_blocks(s->ctx, path, nb, blocks));
  free(blocks);
}

/* Per system: iterations, converged, recursive and true residuals as [k] arrays in out at prefix. */
static int write_systems(run_state *s, hm_output *out, hm_idr *idr, const char *prefix, int64_t k) {
  int *it = malloc(sizeof(int) * k), *conv = malloc(sizeof(int) * k);
  double *rec = malloc(sizeof(double) * k), *tru = malloc(sizeof(double) * k), *buf = malloc(sizeof(double) * 2 * k);
  APP_CALL(hm_idr_systems(idr, it, conv, NULL));
  APP_CALL(hm_idr_residuals(idr, rec, tru));
  int all = 1;
  char path[128];
  for (int64_t j = 0; j < k; j++) {
    buf[j] = it[j];
    buf[k + j] = conv[j];
    all &= conv[j];
  }
  const int64_t dims[1] = {k};
  snprintf(path, sizeof path, "%s/iterations", prefix);
  APP_CALL(hm_output_write_array(out, path, HM_REAL, 1, dims, buf, "1", "operator applications per system"));
  snprintf(path, sizeof path, "%s/converged", prefix);
  APP_CALL(hm_output_write_array(out, path, HM_REAL, 1, dims, buf + k, "1", "1 = converged to tol, 0 = not"));
  snprintf(path, sizeof path, "%s/recursive_residual", prefix);
  APP_CALL(hm_output_write_array(out, path, HM_REAL, 1, dims, rec, "1", "recursive ||r|| / ||b|| at the end"));
  snprintf(path, sizeof path, "%s/true_residual", prefix);
  APP_CALL(hm_output_write_array(out, path, HM_REAL, 1, dims, tru, "1", "||b - A x|| / ||b|| recomputed at the end"));
  free(it);
  free(conv);
  free(rec);
  free(tru);
  free(buf);
  return all;
}

void run_idr_write_solver(run_state *s, hm_output *out, int converged) {
  const hm_deck *d = &s->deck;
  APP_CALL(hm_output_write_attribute(out, "/solver", "method", "idr"));
  APP_CALL(hm_output_write_attribute_double(out, "/solver", "s", d->solver.s));
  APP_CALL(hm_output_write_attribute_double(out, "/solver", "tol", d->solver.tol));
  APP_CALL(hm_output_write_attribute_double(out, "/solver", "maxit", d->solver.maxit));
  APP_CALL(hm_output_write_attribute(out, "/solver", "smoothing", d->solver.smoothing ? "yes" : "no"));
  APP_CALL(hm_output_write_attribute(out, "/solver", "precond", d->solver.precond ? "jacobi" : "none"));
  APP_CALL(hm_output_write_attribute_double(out, "/solver", "converged", converged));
}

static void rhs(run_state *s, hm_matrix *H, hm_mvec **b) {
  const hm_deck *d = &s->deck;
  const hm_dist *dist;
  hm_scalar type;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
  if (d->rhs.kind == 2) {
    APP_CALL(hm_mtx_read_vector(s->ctx, d->rhs.file, dist, b));
    hm_scalar bt;
    APP_CALL(hm_mvec_type(*b, &bt));
    if (bt != type) {
      if (s->rank == 0)
        fprintf(stderr, "hamlet: %s: [rhs] file %s is %s but the matrix is %s; they must match\n", d->name,
                d->rhs.file, bt == HM_COMPLEX ? "complex" : "real", type == HM_COMPLEX ? "complex" : "real");
      hm_app_exit(HM_EXIT_USAGE);
    }
    return;
  }
  APP_CALL(hm_mvec_create(s->ctx, dist, type, 1, b));
  if (d->rhs.kind == 1) {
    APP_CALL(hm_mvec_random_phase(*b, d->solver.seed + 1));
  } else {
    int64_t local;
    APP_CALL(hm_mvec_size(*b, &local, NULL));
    double *one = calloc((size_t)(local * type) + 1, sizeof(double));
    for (int64_t i = 0; i < local; i++) one[i * type] = 1.0;
    APP_CALL(hm_mvec_set(*b, one));
    free(one);
  }
}

static int run_linear(run_state *s, hm_matrix *H) {
  run_mark m = {0};
  run_mark_now(s, &m);
  const hm_dist *dist;
  hm_scalar type;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
  hm_mvec *b, *x, *diag;
  rhs(s, H, &b);
  APP_CALL(hm_mvec_create(s->ctx, dist, type, 1, &x));
  APP_CALL(hm_mvec_create(s->ctx, dist, type, 1, &diag));
  hm_operator *A;
  APP_CALL(hm_operator_create_matrix(H, &A));
  hm_idr_options opt;
  run_idr_options(s, &opt);
  if (s->deck.solver.precond) {
    APP_CALL(hm_matrix_diagonal(H, diag));
    run_idr_jacobi(diag, &opt);
  }
  opt.checkpoint_every = s->deck.checkpoint_every;
  opt.checkpoint_seconds = s->deck.checkpoint_seconds;
  opt.checkpoint = on_checkpoint;
  opt.checkpoint_user = s;
  hm_idr *idr;
  APP_CALL(hm_idr_create(A, &opt, &idr));
  if (s->args->checkpoint_path) restore(s, idr);
  run_phase_add(s, &m, PHASE_SETUP);
  run_mark_now(s, &m);
  int st = hm_idr_solve(idr, b, x);
  if (st == HM_ERR_STOPPED) { /* signal or walltime: the state at the end of this outer iteration is complete */
    hm_error_clear();
    hm_progress_finish(&s->progress);
    APP_CALL(on_checkpoint(idr, s));
    int it = 0;
    APP_CALL(hm_idr_systems(idr, &it, NULL, NULL));
    char where[96];
    snprintf(where, sizeof where, "at iteration %d of at most %d", it, s->deck.solver.maxit);
    free(m.joules);
    hm_idr_destroy(&idr);
    hm_operator_destroy(&A);
    hm_mvec_destroy(&b);
    hm_mvec_destroy(&x);
    hm_mvec_destroy(&diag);
    return run_stopped(s, where);
  }
  if (st && st != HM_ERR_NOT_CONVERGED && st != HM_ERR_BREAKDOWN) APP_CALL(st);
  if (st && s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
  hm_error_clear();
  run_phase_add(s, &m, PHASE_SOLVE);
  run_phase_exclude(s, PHASE_SOLVE, PHASE_CHECKPOINT); /* checkpoints ran inside the solve */

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  int converged = write_systems(s, out, idr, "/solver", 1);
  run_idr_write_solver(s, out, converged);
  int length = 0;
  APP_CALL(hm_idr_history(idr, 0, NULL, 0, &length));
  double *hist = malloc(sizeof(double) * (size_t)(length + 1));
  APP_CALL(hm_idr_history(idr, 0, hist, length, &length));
  const int64_t hdims[1] = {length};
  APP_CALL(hm_output_write_array(out, "/solver/history", HM_REAL, 1, hdims, hist, "1",
                                 "||r|| / ||b|| after 0, 1, ... operator applications"));
  if (s->deck.solver.vectors) APP_CALL(hm_output_write_mvec(out, "/solution/x", x, "1", "the solution x of A x = b"));
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  if (s->rank == 0) {
    double rec, tru;
    int it;
    hm_idr_residuals(idr, &rec, &tru);
    hm_idr_systems(idr, &it, NULL, NULL);
    run_print_header(s, "IDR(s) linear solve", H);
    printf("  idr(%d)       %s after %d iterations: residual %.3g (recursive), %.3g (true)\n", s->deck.solver.s,
           converged ? "converged" : "NOT converged", it, rec, tru);
    run_print_timing(s);
  }
  free(hist);
  hm_idr_destroy(&idr);
  hm_operator_destroy(&A);
  hm_mvec_destroy(&b);
  hm_mvec_destroy(&x);
  hm_mvec_destroy(&diag);
  return converged ? HM_EXIT_OK : HM_EXIT_NOT_CONVERGED;
}

int run_idr(run_state *s, hm_matrix *H, hm_matrix *mass) {
  (void)mass; /* none: a standard problem */
  run_set_phases(s, PHASES, phase_name);
  return s->deck.solver.problem ? run_green(s, H) : run_linear(s, H);
}
