/* [conductivity] expansion = single_shot: sigma_aa(E) at T = 0 of each diagonal component by
 * hm_conductivity_single_shot_part (one Chebyshev recursion per start vector and side, no M x M
 * moments), written as /conductivity/sigma [component][1][energy] with its error, as the moments' sigma
 * is. Checkpoints between start vectors hold the interval, the progress and the sums; a restart goes on
 * from the next start vector to the uninterrupted run's sigma bit for bit on the same rank count. */
#include <mpi.h>
#include <string.h>
#include "checkpoint_due.h"
#include "checkpoint_state.h"
#include "run_conductivity.h"

/* scalars: emin, emax, moments, components, energies, start vectors, component, start vectors done in it,
 * then the sums [component][2 energies] */
enum { HEAD = 8 };
static const char *const method_name = "conductivity_single_shot";

static int write_checkpoint(run_state *s, const double head[HEAD], const double *sums, size_t nsums) {
  double *v = malloc(sizeof(double) * (HEAD + nsums));
  if (!v) return HM_ERR_MEMORY;
  memcpy(v, head, sizeof(double) * HEAD);
  memcpy(v + HEAD, sums, sizeof(double) * nsums);
  run_mark m = {0};
  run_mark_now(s, &m);
  const int st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, method_name, 0, NULL,
                                           (int)(HEAD + nsums), v, run_identity(s));
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  free(v);
  return st;
}

/* The restart's checkpoint into the interval, the progress and sums; another size ends the run (exit 2). */
static void read_checkpoint(run_state *s, int M, int C, int E, int starts, double bounds[2], int *component, int *done,
                            double *sums) {
  int n;
  double *v;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, s->args->checkpoint_path, method_name, &n, &v));
  const int ok = n == HEAD + 2 * C * E && v[2] == M && v[3] == C && v[4] == E && v[5] == starts && v[6] >= 0 &&
                 v[6] < C && v[6] == (int)v[6] && v[7] >= 0 && v[7] <= starts && v[7] == (int)v[7];
  if (!ok) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s holds %d values, not the single shot of M = %d, %d component(s), %d energies and %d "
              "start vectors of its deck\n", s->args->checkpoint_path, n, M, C, E, starts);
    free(v);
    hm_app_exit(HM_EXIT_USAGE);
  }
  bounds[0] = v[0], bounds[1] = v[1];
  *component = (int)v[6];
  *done = (int)v[7];
  memcpy(sums, v + HEAD, sizeof(double) * 2 * C * E);
  free(v);
}

int run_conductivity_single_shot(run_state *s, hm_matrix *H, hm_matrix *const v[3], const int64_t cells[3],
                                 int orbitals, const double lattice[9], run_mark *m) {
  const hm_deck *d = &s->deck;
  const int C = d->conductivity.ncomp, E = d->conductivity.nenergies, M = d->conductivity.moments;
  hm_conductivity_options opt;
  conductivity_options_of(s, &opt);
  int64_t n;
  APP_CALL(hm_matrix_info(H, &n, NULL, NULL));
  const char *unit;
  const double density = run_lattice_density(s, cells, orbitals, lattice, n, &unit);
  const int starts = opt.trace == HM_TRACE_RANDOM ? opt.vectors : (int)n;
  double *sigma = malloc(sizeof(double) * (size_t)C * E), *error = malloc(sizeof(double) * (size_t)C * E), bounds[2];
  double *sums = calloc(2 * (size_t)C * E, sizeof(double));
  if (!sigma || !error || !sums) APP_CALL(HM_ERR_MEMORY);
  int c0 = 0, done = 0;
  if (s->args->checkpoint_path) { /* the saved interval, bit for bit */
    read_checkpoint(s, M, C, E, starts, bounds, &c0, &done, sums);
    opt.bounds = HM_BOUNDS_GIVEN;
    opt.emin = bounds[0];
    opt.emax = bounds[1];
  }
  run_phase_add(s, m, PHASE_BOUNDS);
  run_mark_now(s, m);
  /* one start vector per part where checkpoints are asked for (they fall between parts), else all */
  const int checkpoints = d->checkpoint_every > 0 || d->checkpoint_seconds > 0;
  MPI_Comm comm;
  APP_CALL(hm_context_comm(s->ctx, &comm));
  double t_last = MPI_Wtime();
  for (int c = c0, count = 0; c < C; c++, done = 0)
    while (done < starts) {
      const int last = checkpoints ? done + 1 : starts, a = d->conductivity.comp[c][0];
      const int st = hm_conductivity_single_shot_part(H, v[a], &opt, d->conductivity.kernel, d->conductivity.lambda, E,
                                                      d->conductivity.energies, done, last, sums + 2 * (size_t)c * E,
                                                      &done, bounds);
      opt.bounds = HM_BOUNDS_GIVEN; /* the first part's interval for every later one */
      opt.emin = bounds[0];
      opt.emax = bounds[1];
      const double head[HEAD] = {bounds[0], bounds[1], M, C, E, starts, done < starts ? c : c + 1, done < starts ? done : 0};
      if (st == HM_ERR_STOPPED || (!st && done < starts && opt.stop(opt.stop_user))) { /* signal or walltime */
        hm_error_clear();
        APP_CALL(c + 1 == C && done == starts ? HM_SUCCESS : write_checkpoint(s, head, sums, 2 * (size_t)C * E));
        char where[96];
        snprintf(where, sizeof where, "after %d of %d start vectors of component %d", done, starts, c + 1);
        free(sigma), free(error), free(sums), free(m->joules);
        return run_stopped(s, where);
      }
      APP_CALL(st);
      int due = 0;
      if (checkpoints && !(c + 1 == C && done == starts))
        APP_CALL(hm_checkpoint_due(comm, ++count, d->checkpoint_every, d->checkpoint_seconds, t_last, &due));
      if (due) {
        APP_CALL(write_checkpoint(s, head, sums, 2 * (size_t)C * E));
        t_last = MPI_Wtime();
      }
    }
  for (int c = 0; c < C; c++)
    APP_CALL(hm_conductivity_single_shot_sigma(&opt, n, density, E, sums + 2 * (size_t)c * E, sigma + c * E,
                                               error + c * E));
  free(sums);
  run_phase_add(s, m, PHASE_MOMENTS);
  run_phase_exclude(s, PHASE_MOMENTS, PHASE_CHECKPOINT); /* checkpoints ran inside */
  run_mark_now(s, m);
  hm_output *out;
  run_output_open(s, H, &out);
  const int64_t de[1] = {E}, dt[1] = {1}, ds[3] = {C, 1, E};
  const double zero = 0;
  APP_CALL(hm_output_write_array(out, "/conductivity/energy", HM_REAL, 1, de, d->conductivity.energies,
                                 "energy (units of t)", "Fermi energies E"));
  APP_CALL(hm_output_write_array(out, "/conductivity/temperature", HM_REAL, 1, dt, &zero, "energy (units of t, k_B = 1)",
                                 "temperatures T (single shot: 0)"));
  APP_CALL(hm_output_write_array(out, "/conductivity/sigma", HM_REAL, 3, ds, sigma, unit,
                                 "Kubo-Greenwood sigma_aa(E) at T = 0 by the single-shot expansion "
                                 "[component][temperature][energy]"));
  APP_CALL(hm_output_write_array(out, "/conductivity/error", HM_REAL, 3, ds, error, unit,
                                 "standard error of sigma over the random vectors (0: exact trace or one vector)"));
  const char *g = "/conductivity";
  APP_CALL(hm_output_write_attribute(out, g, "expansion", "single_shot"));
  APP_CALL(hm_output_write_attribute(out, g, "components", d->conductivity.components_text));
  APP_CALL(hm_output_write_attribute(out, g, "current", "charge"));
  APP_CALL(hm_output_write_attribute(out, g, "unit", unit));
  APP_CALL(hm_output_write_attribute(out, g, "kernel", d->conductivity.kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson"));
  APP_CALL(hm_output_write_attribute(out, g, "trace", opt.trace == HM_TRACE_EXACT ? "exact" : "random"));
  APP_CALL(hm_output_write_attribute_double(out, g, "moments", M));
  APP_CALL(hm_output_write_attribute_double(out, g, "scale", 2.0 / (bounds[1] - bounds[0])));
  APP_CALL(hm_output_write_attribute_double(out, g, "shift", 0.5 * (bounds[0] + bounds[1])));
  APP_CALL(hm_output_write_attribute_double(out, g, "density", density));
  APP_CALL(hm_output_write_attribute_double(out, g, "vectors", opt.trace == HM_TRACE_RANDOM ? opt.vectors : 0));
  run_output_commit(s, &out, m, PHASE_IO);
  free(m->joules);
  if (s->rank == 0) {
    run_print_header(s, "Kubo-Greenwood conductivity, single shot (KPM)", H);
    hm_scalar type;
    APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
    printf("  single shot  M = %d, %d component(s), %s trace, %d energies, %s arithmetic: %.3f s\n", M, C,
           opt.trace == HM_TRACE_EXACT ? "exact" : "random", E, type == HM_REAL ? "real" : "complex",
           s->seconds[PHASE_MOMENTS]);
    printf("  sigma        in %s\n", unit);
    run_print_timing(s);
  }
  free(sigma);
  free(error);
  return HM_EXIT_OK;
}
