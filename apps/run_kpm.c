/* method = kpm: KPM moments (with checkpoints and restart) -> DOS -> /kpm and /dos; or, with
 * [kpm] ldos_sites, the moments of the unit vectors of the sites' orbitals -> LDOS -> /kpm and /ldos
 * (the layout of the Green's-function LDOS of run_idr.c). */
#include <complex.h>
#include <omp.h>
#include "kpm_sums.h"
#include "kpm_vacancies.h"
#include "output_kpm_moments.h"
#include "run_state.h"

enum { PHASE_BUILD, PHASE_BOUNDS, PHASE_MOMENTS, PHASE_RECONSTRUCTION, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "bounds", "moments", "reconstruction", "checkpoint", "io"};

static void on_progress(int done, int total, void *user) {
  run_state *s = user;
  RUN_TEST_DELAY(s);
  hm_progress_update(&s->progress, done, total);
}

static int on_checkpoint(hm_kpm *kpm, void *user) {
  run_state *s = user;
  run_mark m = {0};
  run_mark_now(s, &m);
  int st = hm_kpm_checkpoint_write_identified(kpm, s->checkpoint_path, s->deck.text, run_identity(s));
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

static void print_summary(const run_state *s, hm_kpm *kpm, const hm_matrix *H, int dos_points) {
  if (s->rank != 0) return;
  double emin, emax;
  hm_kpm_interval(kpm, &emin, &emax);
  const int M = s->deck.kpm.moments, R = s->deck.kpm.vectors, ldos = s->deck.ldos.nsites > 0;
  hm_scalar type = HM_COMPLEX;
  hm_matrix_info(H, NULL, NULL, &type);
  run_print_header(s, ldos ? "KPM local density of states" : "KPM density of states", H);
  printf("  interval     [%.6g, %.6g]\n", emin, emax);
  int widened = 0;
  double narrow_lo = 0, narrow_hi = 0, growth = 0;
  hm_kpm_bounds_widened(kpm, &widened, &narrow_lo, &narrow_hi, &growth);
  if (widened)
    printf("  widened      the Lanczos interval [%.6g, %.6g] missed part of the spectrum (a moment of magnitude %.3g > 1):"
           " the moments were made again on the Gershgorin interval\n", narrow_lo, narrow_hi, growth);
  printf("  moments      %d x %d %s %s vectors: %.3f s (%.3g us per vector per step)\n", M, R,
         type == HM_REAL ? "real" : "complex", ldos ? "site" : "random", s->seconds[PHASE_MOMENTS],
         1e6 * s->seconds[PHASE_MOMENTS] / (R * (M / 2.0)));
  const int B = s->deck.kpm.block;
  if (B > 0 && B < R) printf("  passes       %d of at most %d vectors (block = %d)\n", (R + B - 1) / B, B, B);
  int blocks = 0;
  double reads = 0, distinct = 1;
  if (hm_matrix_block_info(H, &blocks, &reads, &distinct) == HM_SUCCESS && blocks)
    printf("  product      4 x 4 block copy on the FP64 tensor cores (rank 0: %.2f vector rows read per row,"
           " %.2g of the value blocks distinct)\n", reads, distinct);
  if (s->vacant_orbitals && !ldos)
    printf("  vacancies    %lld orbitals of vacant sites (decoupled zero modes) removed from the moments: the DOS of "
           "the remaining orbitals\n", (long long)s->vacant_orbitals);
  const char *kernel = s->deck.dos.kernel == HM_KERNEL_JACKSON ? "Jackson" : "Lorentz";
  if (ldos)
    printf("  ldos         %d energies x %d sites, %s kernel\n", dos_points, s->deck.ldos.nsites, kernel);
  else
    printf("  dos          %d energies, %s kernel\n", dos_points, kernel);
  run_print_timing(s);
}

/* The start block of the LDOS: column no i + o = the unit vector of orbital o of site i (no orbitals
 * per site; rows are numbered no x site + o for the ti and for lattice models alike), of H's type
 * (a real lattice operator takes real unit vectors). */
static void site_start(run_state *s, hm_matrix *H, hm_kpm *kpm) {
  const hm_deck *d = &s->deck;
  const hm_dist *dist;
  int64_t first, local;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_dist_range(dist, &first, &local, NULL));
  const int no = s->site_orbitals, k = no * d->ldos.nsites;
  hm_scalar type;
  APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
  double *e = calloc((size_t)(local * k * (int)type) + 1, sizeof(double));
  for (int i = 0; i < d->ldos.nsites; i++) {
    const int64_t *xyz = d->ldos.sites[i];
    for (int o = 0; o < no; o++) {
      int64_t row = no * (xyz[0] + d->ti.nx * (xyz[1] + d->ti.ny * xyz[2])) + o;
      if (row >= first && row < first + local) e[(int)type * ((row - first) * k + no * i + o)] = 1;
    }
  }
  hm_mvec *B;
  APP_CALL(hm_mvec_create(s->ctx, dist, type, k, &B));
  APP_CALL(hm_mvec_set(B, e));
  APP_CALL(hm_kpm_set_start(kpm, B));
  hm_mvec_destroy(&B);
  free(e);
}

/* /ldos: sites, energy, rho[energies][sites], as run_idr.c writes the Green's-function LDOS. */
static void write_ldos(run_state *s, hm_output *out, int points, const double *energy, const double *rho) {
  const hm_deck *d = &s->deck;
  const int ns = d->ldos.nsites;
  const int64_t de[1] = {points}, dr[2] = {points, ns}, dsites[2] = {ns, 3};
  double *sites = malloc(sizeof(double) * 3 * ns);
  for (int i = 0; i < 3 * ns; i++) sites[i] = (double)d->ldos.sites[i / 3][i % 3];
  APP_CALL(hm_output_write_array(out, "/ldos/sites", HM_REAL, 2, dsites, sites, "lattice site", "x y z of each site"));
  APP_CALL(hm_output_write_array(out, "/ldos/energy", HM_REAL, 1, de, energy, "energy (units of t)", "energies E"));
  APP_CALL(hm_output_write_array(out, "/ldos/rho", HM_REAL, 2, dr, rho, "states/energy (units of 1/t)",
                                 "KPM LDOS sum_o <i,o|delta(E - H)|i,o> per energy and site (kernel-broadened)"));
  APP_CALL(hm_output_write_attribute(out, "/ldos", "method", "kpm"));
  APP_CALL(hm_output_write_attribute(out, "/ldos", "kernel", d->dos.kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson"));
  APP_CALL(hm_output_write_attribute(out, "/kpm", "start_vectors",
                                     "unit vectors e_(site, orbital) of /ldos/sites, vector orbitals i + o; moments / <v|v>"));
  free(sites);
}

int run_kpm(run_state *s, hm_matrix *H, hm_matrix *mass) {
  (void)mass; /* none: a standard problem */
  hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  hm_kpm_options opt = d->kpm;
  if (s->args->checkpoint_path) { /* the saved interval, bit for bit */
    opt.bounds = HM_BOUNDS_GIVEN;
    opt.emin = s->restart_emin;
    opt.emax = s->restart_emax;
  }
  opt.progress = on_progress;
  opt.progress_user = s;
  opt.checkpoint = on_checkpoint;
  opt.checkpoint_user = s;
  opt.stop = run_stop_poll;
  opt.stop_user = &s->stop;
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_kpm *kpm;
  APP_CALL(hm_kpm_create(H, &opt, &kpm));
  if (d->ldos.nsites) site_start(s, H, kpm); /* before a restore: it sets the moments' norms */
  if (s->args->checkpoint_path) APP_CALL_INPUT(hm_checkpoint_restore(kpm, s->args->checkpoint_path));
  run_phase_add(s, &m, PHASE_BOUNDS);

  run_mark_now(s, &m);
  const int st = hm_kpm_run(kpm);
  if (st == HM_ERR_STOPPED) { /* signal or walltime: the state at this step is complete */
    hm_error_clear();
    hm_progress_finish(&s->progress);
    APP_CALL(on_checkpoint(kpm, s));
    int done = 0;
    APP_CALL(hm_kpm_info(kpm, NULL, NULL, &done, NULL, NULL, NULL));
    char where[64];
    snprintf(where, sizeof where, "at moment %d of %d", done, opt.moments);
    free(m.joules);
    hm_kpm_destroy(&kpm);
    return run_stopped(s, where);
  }
  APP_CALL(st);
  run_phase_add(s, &m, PHASE_MOMENTS);
  run_phase_exclude(s, PHASE_MOMENTS, PHASE_CHECKPOINT); /* checkpoints ran inside the moments */
  hm_progress_finish(&s->progress);

  run_mark_now(s, &m);
  const int M = opt.moments, R = opt.vectors;
  double *mu = malloc(sizeof(double) * M), *mu_vec = malloc(sizeof(double) * (size_t)M * R);
  APP_CALL(hm_kpm_moments(kpm, mu, mu_vec));
  double scale, shift;
  int64_t n;
  APP_CALL(hm_kpm_info(kpm, NULL, NULL, NULL, &scale, &shift, &n));
  const int64_t vacant = d->ldos.nsites ? 0 : s->vacant_orbitals; /* the LDOS keeps every orbital */
  if (vacant) {
    kpm_remove_vacant(M, R, mu, mu_vec, scale, shift, n, vacant);
    n -= vacant;
  }
  hm_dos *dos = NULL;
  int points = 0;
  double *energy = NULL, *rho = NULL;
  if (d->ldos.nsites) {
    APP_CALL(hm_ldos_points(M, &d->dos, &points));
    energy = malloc(sizeof(double) * points);
    rho = malloc(sizeof(double) * points * d->ldos.nsites);
    APP_CALL(hm_ldos_compute(M, d->ldos.nsites, s->site_orbitals, mu_vec, scale, shift, &d->dos, energy, rho));
  } else {
    APP_CALL(hm_dos_create(M, R, mu_vec, scale, shift, n, &d->dos, &dos));
    hm_dos_size(dos, &points);
  }
  run_phase_add(s, &m, PHASE_RECONSTRUCTION);

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  if (vacant) {
    APP_CALL(hm_output_write_kpm_moments(out, kpm, &d->dos, mu, mu_vec, n));
    APP_CALL(hm_output_write_attribute_double(out, "/kpm", "vacant_orbitals", (double)vacant));
    APP_CALL(hm_output_write_attribute(out, "/kpm", "vacancies",
                                       "the decoupled zero modes of the vacant sites' orbitals are subtracted exactly "
                                       "(T_n at the scaled zero energy per orbital and random-phase vector); moments "
                                       "and N are those of the remaining orbitals"));
  } else {
    APP_CALL(hm_output_write_kpm(out, kpm, &d->dos));
  }
  free(mu);
  free(mu_vec);
  if (s->args->checkpoint_path) { /* the interval was restored (bounds "given"); the deck's method found it first */
    APP_CALL(hm_output_write_attribute_double(out, "/kpm", "bounds_margin", d->kpm.bounds_margin));
    if (d->kpm.bounds == HM_BOUNDS_LANCZOS)
      APP_CALL(hm_output_write_attribute_double(out, "/kpm", "lanczos_steps", d->kpm.lanczos_steps));
  }
  if (dos) APP_CALL(hm_output_write_dos(out, dos));
  else write_ldos(s, out, points, energy, rho);
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  print_summary(s, kpm, H, points);
  free(energy);
  free(rho);
  hm_dos_destroy(&dos);
  hm_kpm_destroy(&kpm);
  return HM_EXIT_OK;
}
