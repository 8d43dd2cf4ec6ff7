/* The Green's-function run by multi-shift IDR(s): every energy z_e = E_e + i eta of [green] energies
 * from one solve per batch of site vectors, (z_e - H) x = e_(i,o) as (-H + z_e) x = e (the operator
 * -H, the shifts z_e). Checkpoints hold the solver's state between outer iterations (method
 * "idr_multishift"); a restart continues every shift. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "checkpoint_state.h"
#include "run_green.h"

int green_multishift_chosen(run_state *s) {
  const hm_deck *d = &s->deck;
  /* auto = per-energy solves for now: on the H100 (session 26, bench/multishift_green.sh, 40 x 40 x 16
   * TI, 101 energies) multi-shift took 90 s against 41 s for the per-energy batches, 2% of its traffic
   * bound; it becomes the default once it is faster. */
  if (d->solver.multishift != 1) return 0;
  if (d->solver.precond) {
    if (d->solver.multishift == 1 && s->rank == 0)
      fprintf(stderr, "hamlet: %s: [solver] multishift = yes, but precond = jacobi is not shift-invariant: "
              "solving one energy at a time instead\n", d->name);
    return 0;
  }
  return 1;
}

/* Asked at the end of every outer iteration (the test hooks' delay, then the signal and walltime poll). */
static int stop_poll(void *user) {
  run_state *s = user;
  RUN_TEST_DELAY(s);
  return run_stop_poll(&s->stop);
}

static int on_checkpoint(hm_idr_multishift *ms, void *user) {
  run_state *s = user;
  RUN_TEST_DELAY(s);
  run_mark m = {0};
  run_mark_now(s, &m);
  int nb = 0, ns = 0;
  int st = hm_idr_multishift_state_size(ms, &nb, &ns);
  hm_mvec **blocks = calloc((size_t)nb + 1, sizeof *blocks);
  double *scalars = calloc((size_t)ns + 1, sizeof *scalars);
  for (int i = 0; i < nb && !st; i++) st = hm_idr_multishift_state_block(ms, i, &blocks[i]);
  if (!st) st = hm_idr_multishift_state_get(ms, scalars);
  if (!st)
    st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "idr_multishift", nb, blocks, ns, scalars,
                                   run_identity(s));
  free(blocks);
  free(scalars);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

static void restore(run_state *s, hm_idr_multishift *ms, int k) {
  const char *path = s->args->checkpoint_path;
  int ns, nb;
  double *scalars;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "idr_multishift", &ns, &scalars));
  APP_CALL_INPUT(hm_idr_multishift_restore(ms, k, scalars));
  free(scalars);
  APP_CALL(hm_idr_multishift_state_size(ms, &nb, NULL));
  hm_mvec **blocks = calloc((size_t)nb, sizeof *blocks);
  for (int i = 0; i < nb; i++) APP_CALL(hm_idr_multishift_state_block(ms, i, &blocks[i]));
  APP_CALL_INPUT(hm_state_checkpoint_read_blocks(s->ctx, path, nb, blocks));
  free(blocks);
}

int green_multishift(run_state *s, hm_matrix *H, hm_mvec *B, green_results *g) {
  const hm_deck *d = &s->deck;
  const int k = g->k, ne = g->ne;
  const hm_dist *dist;
  APP_CALL(hm_matrix_dist(H, &dist));
  for (int e = 0; e < ne; e++) {
    g->energy[e] = d->green.energies[e];
    g->z[e] = CMPLX(g->energy[e], d->green.eta);
  }
  const double complex zero = 0;
  hm_operator *A; /* 0 - H */
  APP_CALL(hm_operator_create_shifted(H, 1, &zero, &A));
  hm_idr_options opt;
  APP_CALL(hm_idr_options_default(&opt));
  opt.s = d->solver.s;
  opt.tol = d->solver.tol;
  opt.maxit = d->solver.maxit;
  opt.omega_angle = d->solver.omega_angle;
  opt.seed = d->solver.seed;
  opt.history = 0;
  opt.stop = stop_poll;
  opt.stop_user = s;
  opt.checkpoint_every = d->checkpoint_every;
  opt.checkpoint_seconds = d->checkpoint_seconds;
  hm_idr_multishift *ms;
  APP_CALL(hm_idr_multishift_create(A, &opt, ne, g->z, &ms));
  APP_CALL(hm_idr_multishift_set_checkpoint(ms, on_checkpoint, s));
  if (s->args->checkpoint_path) restore(s, ms, k);
  hm_mvec *X, *Xe;
  APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, k * ne, &X));
  APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, k, &Xe));
  int st = hm_idr_multishift_solve(ms, B, X);
  if (st == HM_ERR_STOPPED) { /* the state at the end of this outer iteration is complete */
    hm_error_clear();
    hm_progress_finish(&s->progress);
    APP_CALL(on_checkpoint(ms, s));
    hm_idr_multishift_destroy(&ms);
    hm_operator_destroy(&A);
    hm_mvec_destroy(&X);
    hm_mvec_destroy(&Xe);
    return 1;
  }
  if (st && st != HM_ERR_NOT_CONVERGED && st != HM_ERR_BREAKDOWN) APP_CALL(st);
  if (st && s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
  hm_error_clear();
  const size_t K = (size_t)k * ne;
  int *its = malloc(sizeof(int) * K), *conv = malloc(sizeof(int) * K);
  double *tru = malloc(sizeof(double) * K);
  APP_CALL(hm_idr_multishift_results(ms, its, conv, NULL, tru));
  for (int e = 0; e < ne; e++) { /* column e k + j of X: energy e, system j, the layout of g */
    APP_CALL(hm_mvec_copy_columns(X, e * k, Xe, 0, k));
    APP_CALL(hm_mvec_dot(B, Xe, g->G + (size_t)e * k));
    for (int j = 0; j < k; j++) {
      const size_t c = (size_t)e * k + j;
      g->iterations[c] = its[c];
      g->converged[c] = conv[c];
      g->true_residual[c] = tru[c];
      g->all_converged &= conv[c];
    }
    for (int i = 0; i < g->ns; i++) {
      g->rho[(size_t)e * g->ns + i] = 0;
      for (int o = 0; o < 4; o++) g->rho[(size_t)e * g->ns + i] -= cimag(g->G[(size_t)e * k + 4 * i + o]) / M_PI;
    }
  }
  free(its);
  free(conv);
  free(tru);
  hm_idr_multishift_destroy(&ms);
  hm_operator_destroy(&A);
  hm_mvec_destroy(&X);
  hm_mvec_destroy(&Xe);
  return 0;
}
