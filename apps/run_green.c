/* method = idr with problem = green: the Green's functions G_ii(E + i eta) of the ti or lattice model
 * at the [green] sites (cells), one batch of orbitals x sites systems (z - H) x = e_(i,o) per energy,
 * and the LDOS -Im sum_o G / pi -> /green, /ldos. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "checkpoint_state.h"
#include "run_green.h"
#include "run_state.h"

/* Unit vectors e_(site, orbital) as the columns of a block (one per orbital of each site). */
static void site_vectors(run_state *s, const hm_dist *dist, hm_mvec *B) {
  const hm_deck *d = &s->deck;
  int64_t first, local;
  APP_CALL(hm_dist_range(dist, &first, &local, NULL));
  const int no = s->site_orbitals, k = no * d->green.nsites;
  double complex *e = calloc((size_t)(local * k) + 1, sizeof(double complex));
  for (int i = 0; i < d->green.nsites; i++) {
    const int64_t *xyz = d->green.sites[i];
    for (int o = 0; o < no; o++) {
      int64_t row = no * (xyz[0] + d->ti.nx * (xyz[1] + d->ti.ny * xyz[2])) + o;
      if (row >= first && row < first + local) e[(row - first) * k + no * i + o] = 1;
    }
  }
  APP_CALL(hm_mvec_set(B, e));
  free(e);
}

static void green_alloc(green_results *g, int ne, int ns, int orbitals) {
  *g = (green_results){.ne = ne, .ns = ns, .k = orbitals * ns, .all_converged = 1};
  const size_t nk = (size_t)ne * g->k;
  g->z = calloc((size_t)ne, sizeof(double complex));
  g->G = calloc(nk, sizeof(double complex));
  g->energy = calloc((size_t)ne, sizeof(double));
  g->rho = calloc((size_t)ne * ns, sizeof(double));
  g->iterations = calloc(nk, sizeof(double));
  g->converged = calloc(nk, sizeof(double));
  g->true_residual = calloc(nk, sizeof(double));
}

static void green_free(green_results *g) {
  free(g->z);
  free(g->G);
  free(g->energy);
  free(g->rho);
  free(g->iterations);
  free(g->converged);
  free(g->true_residual);
}

/* Energy e: the batch (z - H) X = B of the sites' unit vectors, G_(io,io) = <e_(i,o)|x>, the LDOS.
 * With Jacobi, diag receives z - diag(H) from h_diag (diag(H) on the host, local rows). Returns 1 if
 * the solve was stopped (signal or walltime; the energy's results are then not kept), else 0. */
static int green_energy(run_state *s, hm_matrix *H, hm_mvec *B, hm_mvec *X, hm_mvec *diag, const double complex *h_diag,
                         int64_t local, int e, green_results *g) {
  const hm_deck *d = &s->deck;
  const int k = g->k;
  g->energy[e] = d->green.energies[e];
  g->z[e] = CMPLX(g->energy[e], d->green.eta);
  hm_operator *A;
  APP_CALL(hm_operator_create_shifted(H, 1, &g->z[e], &A));
  hm_idr_options opt;
  run_idr_options(s, &opt);
  if (h_diag) {
    double complex *v = malloc(sizeof(double complex) * (size_t)(local + 1));
    for (int64_t i = 0; i < local; i++) v[i] = g->z[e] - h_diag[i];
    APP_CALL(hm_mvec_set(diag, v));
    free(v);
    run_idr_jacobi(diag, &opt);
  }
  hm_idr *idr;
  APP_CALL(hm_idr_create(A, &opt, &idr));
  double complex zero[k]; /* X = 0 in the backend's memory (beta = 0 does not read X: no NaN kept) */
  for (int j = 0; j < k; j++) zero[j] = 0;
  APP_CALL(hm_mvec_axpby(X, zero, B, zero));
  int st = hm_idr_solve(idr, B, X);
  if (st == HM_ERR_STOPPED) {
    hm_error_clear();
    hm_idr_destroy(&idr);
    hm_operator_destroy(&A);
    return 1;
  }
  if (st && st != HM_ERR_NOT_CONVERGED && st != HM_ERR_BREAKDOWN) APP_CALL(st);
  if (st && s->rank == 0) fprintf(stderr, "hamlet: E = %g: %s", g->energy[e], hm_error_message());
  hm_error_clear();
  APP_CALL(hm_mvec_dot(B, X, g->G + (size_t)e * k));
  int it[k], conv[k];
  double tru[k];
  APP_CALL(hm_idr_systems(idr, it, conv, NULL));
  APP_CALL(hm_idr_residuals(idr, NULL, tru));
  for (int j = 0; j < k; j++) {
    g->iterations[(size_t)e * k + j] = it[j];
    g->converged[(size_t)e * k + j] = conv[j];
    g->true_residual[(size_t)e * k + j] = tru[j];
    g->all_converged &= conv[j];
  }
  for (int i = 0; i < g->ns; i++)
    for (int o = 0; o < k / g->ns; o++) g->rho[(size_t)e * g->ns + i] -= cimag(g->G[(size_t)e * k + k / g->ns * i + o]) / M_PI;
  hm_idr_destroy(&idr);
  hm_operator_destroy(&A);
  return 0;
}

static void write_green(run_state *s, hm_output *out, const green_results *g) {
  const hm_deck *d = &s->deck;
  const int ne = g->ne, ns = g->ns;
  const int64_t dz[1] = {ne}, dg[3] = {ne, ns, g->k / ns}, dr[2] = {ne, ns}, dk[2] = {ne, g->k}, dsites[2] = {ns, 3};
  const char *eunit = "energy (units of t)";
  APP_CALL(hm_output_write_array(out, "/green/z", HM_COMPLEX, 1, dz, g->z, eunit, "z = E + i eta"));
  APP_CALL(hm_output_write_array(out, "/green/G", HM_COMPLEX, 3, dg, g->G, "1/energy",
                                 "diagonal Green's function G_(io,io)(z) per energy, site and orbital"));
  APP_CALL(hm_output_write_attribute_double(out, "/green", "eta", d->green.eta));
  double sites[3 * HM_DECK_MAX_SITES];
  for (int i = 0; i < 3 * ns; i++) sites[i] = (double)d->green.sites[i / 3][i % 3];
  APP_CALL(hm_output_write_array(out, "/ldos/sites", HM_REAL, 2, dsites, sites, "lattice site", "x y z of each site"));
  APP_CALL(hm_output_write_array(out, "/ldos/energy", HM_REAL, 1, dz, g->energy, eunit, "energies E"));
  APP_CALL(hm_output_write_array(out, "/ldos/rho", HM_REAL, 2, dr, g->rho, "states/energy (units of 1/t)",
                                 "LDOS -Im sum_o G_(io,io)(E + i eta) / pi per energy and site"));
  APP_CALL(hm_output_write_attribute(out, "/ldos", "method",
                                     g->multishift ? "green (multi-shift IDR(s))" : "green (IDR(s))"));
  APP_CALL(hm_output_write_array(out, "/solver/iterations", HM_REAL, 2, dk, g->iterations, "1",
                                 "operator applications per energy and system (site, orbital)"));
  APP_CALL(hm_output_write_array(out, "/solver/converged", HM_REAL, 2, dk, g->converged, "1", "1 = converged"));
  APP_CALL(hm_output_write_array(out, "/solver/true_residual", HM_REAL, 2, dk, g->true_residual, "1",
                                 "||b - (z - H) x|| / ||b|| recomputed at the end"));
  run_idr_write_solver(s, out, g->all_converged);
}

int run_green(run_state *s, hm_matrix *H) {
  const hm_deck *d = &s->deck;
  green_results g;
  green_alloc(&g, d->green.nenergies, d->green.nsites, s->site_orbitals);
  run_mark m = {0};
  run_mark_now(s, &m);
  const hm_dist *dist;
  int64_t local;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_dist_range(dist, NULL, &local, NULL));
  hm_mvec *B, *X, *diag;
  APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, g.k, &B));
  APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, g.k, &X));
  APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, 1, &diag));
  site_vectors(s, dist, B);
  double complex *h_diag = NULL;
  if (d->solver.precond) { /* diag(H) once; each energy's Jacobi takes z - diag(H) */
    APP_CALL(hm_matrix_diagonal(H, diag));
    h_diag = malloc(sizeof(double complex) * (size_t)(local + 1));
    APP_CALL(hm_mvec_get(diag, h_diag));
  }
  run_phase_add(s, &m, PHASE_SETUP);

  const int multishift = green_multishift_chosen(s);
  g.multishift = multishift;
  int first = 0; /* energies 0 .. first-1 come from the checkpoint of a restart */
  if (s->args->checkpoint_path && !multishift) green_checkpoint_restore(s, &g, &first);
  run_mark_now(s, &m);
  if (multishift && green_multishift(s, H, B, &g)) {
    free(m.joules);
    green_free(&g);
    free(h_diag);
    hm_mvec_destroy(&B);
    hm_mvec_destroy(&X);
    hm_mvec_destroy(&diag);
    return run_stopped(s, "after an outer iteration of the multi-shift solve");
  }
  double t_checkpoint = MPI_Wtime();
  for (int e = multishift ? g.ne : first; e < g.ne; e++) {
    RUN_TEST_DELAY(s);
    int done = e; /* energies finished */
    if (!green_energy(s, H, B, X, diag, h_diag, local, e, &g)) {
      done = e + 1;
      hm_progress_update(&s->progress, done, g.ne);
      if (done == g.ne) break;
      if (run_checkpoint_due(s, done, t_checkpoint)) {
        APP_CALL(green_checkpoint_write(s, &g, done));
        t_checkpoint = MPI_Wtime();
      }
    }
    if (done == e || run_stop_poll(&s->stop)) { /* signal or walltime: keep the finished energies */
      hm_progress_finish(&s->progress);
      APP_CALL(green_checkpoint_write(s, &g, done));
      char where[64];
      snprintf(where, sizeof where, "after energy %d of %d", done, g.ne);
      free(m.joules);
      green_free(&g);
      free(h_diag);
      hm_mvec_destroy(&B);
      hm_mvec_destroy(&X);
      hm_mvec_destroy(&diag);
      return run_stopped(s, where);
    }
  }
  hm_progress_finish(&s->progress);
  run_phase_add(s, &m, PHASE_SOLVE);
  run_phase_exclude(s, PHASE_SOLVE, PHASE_CHECKPOINT); /* checkpoints ran inside the solve */

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  write_green(s, out, &g);
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  if (s->rank == 0) {
    run_print_header(s, "Green's functions and LDOS (IDR(s))", H);
    double most = 0;
    for (int i = 0; i < g.ne * g.k; i++) most = fmax(most, g.iterations[i]);
    printf("  green        %d energies x %d sites (eta = %g): %s, at most %.0f iterations per system\n", g.ne, g.ns,
           d->green.eta, g.all_converged ? "all converged" : "NOT all converged", most);
    run_print_timing(s);
  }
  const int code = g.all_converged ? HM_EXIT_OK : HM_EXIT_NOT_CONVERGED;
  green_free(&g);
  free(h_diag);
  hm_mvec_destroy(&B);
  hm_mvec_destroy(&X);
  hm_mvec_destroy(&diag);
  return code;
}

