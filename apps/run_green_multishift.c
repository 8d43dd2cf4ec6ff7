/* The Green's-function run by multi-shift IDR(s): every energy z_e = E_e + i eta of [green] energies
 * from one solve per group of site vectors ([green] rhs_per_solve of them; all by default),
 * (z_e - H) x = e_(i,o) as (-H + z_e) x = e (the operator -H, the shifts z_e). Checkpoints hold the
 * solver's state between outer iterations (method "idr_multishift") followed by the group's start
 * column, the group width and the finished groups' results; a restart continues every shift. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "checkpoint_state.h"
#include "run_green.h"

int green_multishift_chosen(run_state *s) {
  const hm_deck *d = &s->deck;
  /* auto: multi-shift from AUTO_MIN_ENERGIES energies on every backend (on the CPU,
   * bench_multishift, 6 x 6 x 4 TI: 1.03x faster at 21 energies, 1.27x at 101; later with the
   * seed's omega chosen for the family, on an H200: 5.5x faster at 101 energies, TI 40 x 40 x 16;
   * bench/README.md). */
  enum { AUTO_MIN_ENERGIES = 32 };
  if (d->solver.multishift == 2) return 0;
  if (d->solver.multishift == 0 && (d->green.nenergies < AUTO_MIN_ENERGIES || d->solver.precond)) return 0;
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

/* What a checkpoint needs besides the solver: the group being solved and the finished groups. */
typedef struct {
  run_state *s;
  green_results *g;
  int c0, kg; /* the group's first column, the group width */
} group_state;

/* The app's part after the solver's scalars: c0, kg, then per finished column c < c0 and energy:
 * Re G, Im G, iterations, converged, true residual. */
static size_t tail_size(const green_results *g, int c0) { return 2 + 5 * (size_t)g->ne * (size_t)c0; }

static void tail_pack(const group_state *gs, double *t, int dir) {
  green_results *g = gs->g;
  if (dir) {
    t[0] = gs->c0;
    t[1] = gs->kg;
  }
  t += 2;
  for (int c = 0; c < gs->c0; c++)
    for (int e = 0; e < g->ne; e++, t += 5) {
      const size_t i = (size_t)e * g->k + c;
      if (dir) {
        t[0] = creal(g->G[i]);
        t[1] = cimag(g->G[i]);
        t[2] = g->iterations[i];
        t[3] = g->converged[i];
        t[4] = g->true_residual[i];
      } else {
        g->G[i] = CMPLX(t[0], t[1]);
        g->iterations[i] = t[2];
        g->converged[i] = t[3];
        g->true_residual[i] = t[4];
        g->all_converged &= t[3] != 0;
      }
    }
}

static int on_checkpoint(hm_idr_multishift *ms, void *user) {
  group_state *gs = user;
  run_state *s = gs->s;
  RUN_TEST_DELAY(s);
  run_mark m = {0};
  run_mark_now(s, &m);
  int nb = 0, ns = 0;
  int st = hm_idr_multishift_state_size(ms, &nb, &ns);
  const size_t tail = tail_size(gs->g, gs->c0);
  hm_mvec **blocks = calloc((size_t)nb + 1, sizeof *blocks);
  double *scalars = calloc((size_t)ns + tail, sizeof *scalars);
  for (int i = 0; i < nb && !st; i++) st = hm_idr_multishift_state_block(ms, i, &blocks[i]);
  if (!st) st = hm_idr_multishift_state_get(ms, scalars);
  if (!st) {
    tail_pack(gs, scalars + ns, 1);
    st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "idr_multishift", nb, blocks,
                                   ns + (int)tail, scalars, run_identity(s));
  }
  free(blocks);
  free(scalars);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

/* The checkpoint's group (gs->c0, gs->kg, the finished groups' results into g) and its solver state
 * into a new *ms of that group's width (returned in *w). A checkpoint without the app's part (one
 * group) is the first group of all k columns. */
static void restore(run_state *s, hm_operator *A, const hm_idr_options *opt, group_state *gs, hm_idr_multishift **ms,
                    int *w) {
  const char *path = s->args->checkpoint_path;
  int ns, nb, nsolver;
  double *scalars;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "idr_multishift", &ns, &scalars));
  *w = (int)scalars[0];
  APP_CALL(hm_idr_multishift_create(A, opt, gs->g->ne, gs->g->z, ms));
  APP_CALL_INPUT(hm_idr_multishift_restore(*ms, *w, scalars));
  APP_CALL(hm_idr_multishift_state_size(*ms, &nb, &nsolver));
  gs->c0 = 0;
  gs->kg = *w;
  if (ns > nsolver) {
    const double *t = scalars + nsolver;
    const int c0 = (int)t[0], kg = (int)t[1];
    const int fits = c0 >= 0 && c0 < gs->g->k && kg >= *w && c0 + *w <= gs->g->k &&
                     (size_t)ns == nsolver + tail_size(gs->g, c0);
    if (!fits) {
      if (s->rank == 0)
        fprintf(stderr, "hamlet: %s: the multi-shift checkpoint's group (first column %d, width %d, %d values) does "
                "not fit the %d site orbitals of its deck's Green's-function run\n", path, c0, kg, ns, gs->g->k);
      hm_app_exit(HM_EXIT_USAGE);
    }
    gs->c0 = c0;
    gs->kg = kg;
    tail_pack(gs, (double *)t, 0);
  }
  free(scalars);
  hm_mvec **blocks = calloc((size_t)nb, sizeof *blocks);
  for (int i = 0; i < nb; i++) APP_CALL(hm_idr_multishift_state_block(*ms, i, &blocks[i]));
  APP_CALL_INPUT(hm_state_checkpoint_read_blocks(s->ctx, path, nb, blocks));
  free(blocks);
}

/* One group's results: G of its w columns from c0 at every energy, iterations, convergence. */
static void group_results(run_state *s, hm_idr_multishift *ms, hm_mvec *Bg, hm_mvec *X, hm_mvec *Xe, int c0, int w,
                          green_results *g) {
  const int ne = g->ne, k = g->k;
  const size_t K = (size_t)w * ne;
  int *its = malloc(sizeof(int) * K), *conv = malloc(sizeof(int) * K);
  double *tru = malloc(sizeof(double) * K);
  double complex *dots = malloc(sizeof(double complex) * (size_t)w);
  APP_CALL(hm_idr_multishift_results(ms, its, conv, NULL, tru));
  for (int e = 0; e < ne; e++) { /* column e w + j of X: energy e, system c0 + j */
    APP_CALL(hm_mvec_copy_columns(X, e * w, Xe, 0, w));
    APP_CALL(hm_mvec_dot(Bg, Xe, dots));
    for (int j = 0; j < w; j++) {
      const size_t c = (size_t)e * k + c0 + j, q = (size_t)e * w + j;
      g->G[c] = dots[j];
      g->iterations[c] = its[q];
      g->converged[c] = conv[q];
      g->true_residual[c] = tru[q];
      g->all_converged &= conv[q];
    }
  }
  free(its);
  free(conv);
  free(tru);
  free(dots);
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
  const int per = d->green.rhs_per_solve;
  group_state gs = {s, g, 0, per > 0 && per < k ? per : k};
  hm_idr_multishift *ms = NULL;
  int w = 0;
  if (s->args->checkpoint_path) restore(s, A, &opt, &gs, &ms, &w);
  for (; gs.c0 < k; gs.c0 += gs.kg) {
    if (!ms) {
      w = gs.kg < k - gs.c0 ? gs.kg : k - gs.c0;
      APP_CALL(hm_idr_multishift_create(A, &opt, ne, g->z, &ms));
    }
    APP_CALL(hm_idr_multishift_set_checkpoint(ms, on_checkpoint, &gs));
    hm_mvec *Bg, *X, *Xe;
    APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, w, &Bg));
    APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, w * ne, &X));
    APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, w, &Xe));
    APP_CALL(hm_mvec_copy_columns(B, gs.c0, Bg, 0, w));
    int st = hm_idr_multishift_solve(ms, Bg, X);
    if (st == HM_ERR_STOPPED) { /* the state at the end of this outer iteration is complete */
      hm_error_clear();
      hm_progress_finish(&s->progress);
      APP_CALL(on_checkpoint(ms, &gs));
    } else {
      if (st && st != HM_ERR_NOT_CONVERGED && st != HM_ERR_BREAKDOWN) APP_CALL(st);
      if (st && s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
      hm_error_clear();
      group_results(s, ms, Bg, X, Xe, gs.c0, w, g);
    }
    hm_idr_multishift_destroy(&ms);
    hm_mvec_destroy(&Bg);
    hm_mvec_destroy(&X);
    hm_mvec_destroy(&Xe);
    if (st == HM_ERR_STOPPED) {
      hm_operator_destroy(&A);
      return 1;
    }
  }
  for (int e = 0; e < ne; e++)
    for (int i = 0; i < g->ns; i++) {
      g->rho[(size_t)e * g->ns + i] = 0;
      for (int o = 0; o < 4; o++) g->rho[(size_t)e * g->ns + i] -= cimag(g->G[(size_t)e * k + 4 * i + o]) / M_PI;
    }
  hm_operator_destroy(&A);
  return 0;
}
