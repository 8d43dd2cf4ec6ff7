/* method = spectral: A(k, E) = sum_o <k,o|delta(E - H)|k,o> along a k path, in the bulk or on
 * layers of a slab. The KPM moments of plane-wave start vectors (include/hamlet/spectral.h)
 * are made in batches of at most HM_SPECTRAL_MAX_WIDTH columns (points x orbitals), all with the
 * first batch's interval, summed over orbitals, and reconstructed like the LDOS -> /spectral. */
#include <math.h>
#include <string.h>
#include "checkpoint_state.h"
#include "lattice.h"
#include "hamlet/spectral.h"
#include "run_spectral.h"
#include "run_state.h"

/* start: the bounds (with the first batch) and the plane-wave blocks; moments: the Chebyshev steps */
enum { PHASE_BUILD, PHASE_START, PHASE_MOMENTS, PHASE_RECONSTRUCTION, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "start", "moments", "reconstruction", "checkpoint", "io"};

typedef struct {
  int64_t cells[3];   /* the supercell */
  int orbitals;
  double lattice[9];  /* a1, a2, a3 (rows), cartesian */
  double *positions;  /* owned: [orbitals][3] cartesian, within the cell */
  int boundary[3];
  double twist[3];
  double recip[9];
} geometry;

typedef struct {
  run_state *s;
  int batch, batches;
  double scale, shift; /* of the moments (every batch has the first one's interval) */
} progress_user;

static void on_progress(int done, int total, void *user) {
  progress_user *p = user;
  RUN_TEST_DELAY(p->s);
  hm_progress_update(&p->s->progress, p->batch * total + done, p->batches * total);
}

/* The ti: a cubic lattice, its 4 orbitals at the cell origin; a lattice model: its file's cell; a structure:
 * its cell and atoms. */
static void geometry_of(run_state *s, geometry *geo) {
  const hm_deck *d = &s->deck;
  memset(geo, 0, sizeof *geo);
  geo->cells[0] = d->ti.nx, geo->cells[1] = d->ti.ny, geo->cells[2] = d->ti.nz;
  for (int a = 0; a < 3; a++) geo->boundary[a] = d->ti.boundary[a];
  if (d->model == HM_MODEL_TI) {
    geo->orbitals = 4;
    geo->positions = calloc(12, sizeof(double));
    for (int a = 0; a < 3; a++) geo->lattice[4 * a] = 1;
  } else if (d->model == HM_MODEL_STRUCTURE) { /* its cell, its orbitals at their atoms */
    run_structure_cell(s, &geo->orbitals, geo->lattice, &geo->positions, NULL);
  } else {
    hm_lattice L; /* the file run_build_lattice read (its path resolved with the deck: run.c) */
    const double(*cell)[3] = d->lattice.cell_given ? (const double(*)[3])d->lattice.cell : NULL;
    APP_CALL(hm_lattice_read(d->lattice.file, (hm_lattice_format)d->lattice.format, cell, d->lattice.centres, &L));
    geo->orbitals = L.orbitals;
    geo->positions = malloc(sizeof(double) * 3 * L.orbitals);
    memcpy(geo->positions, L.position, sizeof(double) * 3 * L.orbitals);
    for (int a = 0; a < 3; a++) {
      geo->twist[a] = d->lattice.twist[a];
      for (int c = 0; c < 3; c++) geo->lattice[3 * a + c] = L.cell[a][c];
    }
    hm_lattice_free(&L);
  }
  APP_CALL(hm_spectral_reciprocal(geo->lattice, geo->recip));
}

static double dot3(const double *u, const double *v) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; }

/* Names of high-symmetry points in reduced coordinates: cubic and square lattices (a1, a2, a3
 * orthogonal) G X M R; hexagonal (|a1| = |a2| at 60 or 120 degrees, a3 normal to both) G K M.
 * Returns 0 when the lattice has no such name (the deck must then give coordinates). */
static int point_of(const geometry *geo, char name, double f[3], const char **kind) {
  const double *a1 = geo->lattice, *a2 = a1 + 3, *a3 = a1 + 6;
  const double l1 = sqrt(dot3(a1, a1)), l2 = sqrt(dot3(a2, a2)), l3 = sqrt(dot3(a3, a3)), tol = 1e-8;
  const double c12 = dot3(a1, a2) / (l1 * l2), c13 = dot3(a1, a3) / (l1 * l3), c23 = dot3(a2, a3) / (l2 * l3);
  const int orthogonal = fabs(c12) < tol && fabs(c13) < tol && fabs(c23) < tol;
  const int hexagonal = fabs(l1 - l2) < tol * l1 && fabs(c13) < tol && fabs(c23) < tol && fabs(fabs(c12) - 0.5) < tol;
  *kind = orthogonal ? "cubic or square (G X M R)" : hexagonal ? "hexagonal (G K M)" : "oblique (no named points)";
  f[0] = f[1] = f[2] = 0;
  if (name == 'G') return 1;
  if (orthogonal && name == 'X') return f[0] = 0.5, 1;
  if (orthogonal && name == 'M') return f[0] = f[1] = 0.5, 1;
  if (orthogonal && name == 'R') return f[0] = f[1] = f[2] = 0.5, 1;
  if (hexagonal && name == 'M') return f[0] = 0.5, 1;
  if (hexagonal && name == 'K') { /* the zone corner: b1, b2 at 60 degrees (a's at 120) or 120 (a's at 60) */
    f[0] = c12 < 0 ? 1.0 / 3 : 2.0 / 3;
    f[1] = 1.0 / 3;
    return 1;
  }
  return 0;
}

/* The path's corners in reduced coordinates; a name the lattice lacks is bad input (exit 2). */
static void path_corners(run_state *s, const geometry *geo, double (*corner)[3]) {
  const hm_deck *d = &s->deck;
  for (int i = 0; i < d->spectral.npath; i++) {
    const char *kind;
    if (!d->spectral.names[i][0]) {
      memcpy(corner[i], d->spectral.path[i], sizeof corner[i]);
    } else if (!point_of(geo, d->spectral.names[i][0], corner[i], &kind)) {
      if (s->rank == 0)
        fprintf(stderr, "hamlet: %s: [spectral] k_path = %s: point '%s' is not a high-symmetry point of this %s "
                "lattice; use its names or reduced coordinates 'f1 f2 f3, ...'\n", d->name, d->spectral.path_text,
                d->spectral.names[i], kind);
      hm_app_exit(HM_EXIT_USAGE);
    }
  }
}

static void to_cartesian(const geometry *geo, const double f[3], double k[3]) {
  for (int c = 0; c < 3; c++) k[c] = f[0] * geo->recip[c] + f[1] * geo->recip[3 + c] + f[2] * geo->recip[6 + c];
}

typedef struct {
  int nk, nl, items;   /* k points, layers (1 for bulk), items = nk x nl */
  double *requested;   /* [nk][3] reduced */
  double *allowed;     /* [nk][3] reduced: the grid points used */
  double *k;           /* [nk][3] cartesian */
  double *distance;    /* [nk]: along the requested path (cartesian) */
  int moved;           /* points that were not on the grid */
  double worst;        /* largest cartesian move */
} path;

static void make_path(run_state *s, const geometry *geo, path *p) {
  const hm_deck *d = &s->deck;
  const int P = d->spectral.npath, per = d->spectral.points;
  double(*corner)[3] = malloc(sizeof(double[3]) * P);
  path_corners(s, geo, corner);
  p->nk = (P - 1) * per + 1;
  p->nl = d->spectral.nlayers ? d->spectral.nlayers : 1;
  p->items = p->nk * p->nl;
  p->requested = malloc(sizeof(double) * 3 * p->nk);
  p->allowed = malloc(sizeof(double) * 3 * p->nk);
  p->k = malloc(sizeof(double) * 3 * p->nk);
  p->distance = malloc(sizeof(double) * p->nk);
  p->moved = 0;
  p->worst = 0;
  for (int i = 0; i < p->nk; i++) {
    const int seg = i / per < P - 1 ? i / per : P - 2;
    const double t = (double)(i - seg * per) / per;
    double *f = p->requested + 3 * i, *g = p->allowed + 3 * i, kr[3], diff[3];
    for (int a = 0; a < 3; a++) f[a] = (1 - t) * corner[seg][a] + t * corner[seg + 1][a];
    APP_CALL(hm_spectral_nearest_allowed(geo->cells, geo->boundary, geo->twist, f, g));
    to_cartesian(geo, f, kr);
    to_cartesian(geo, g, p->k + 3 * i);
    for (int a = 0; a < 3; a++) diff[a] = p->k[3 * i + a] - kr[a];
    const double move = sqrt(dot3(diff, diff));
    if (move > 1e-12) p->moved++;
    p->worst = fmax(p->worst, move);
    if (i == 0) {
      p->distance[0] = 0;
    } else {
      double prev[3], step[3];
      to_cartesian(geo, p->requested + 3 * (i - 1), prev);
      for (int a = 0; a < 3; a++) step[a] = kr[a] - prev[a];
      p->distance[i] = p->distance[i - 1] + sqrt(dot3(step, step));
    }
  }
  free(corner);
}

static void free_path(path *p) {
  free(p->requested);
  free(p->allowed);
  free(p->k);
  free(p->distance);
}

/* Moments of items [first, first + count) (item = k x nl + layer) summed over orbitals into mu. */
static int batch_moments(run_state *s, hm_matrix *H, const geometry *geo, const path *p, int first, int count,
                         hm_kpm_options *opt, progress_user *pu, double *mu) {
  const hm_deck *d = &s->deck;
  const int no = geo->orbitals, M = opt->moments;
  opt->vectors = count * no;
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_kpm *kpm;
  APP_CALL(hm_kpm_create(H, opt, &kpm));
  if (opt->bounds != HM_BOUNDS_GIVEN) { /* every batch after the first keeps this interval */
    APP_CALL(hm_kpm_interval(kpm, &opt->emin, &opt->emax));
    opt->bounds = HM_BOUNDS_GIVEN;
    opt->bounds_margin = 0;
  }
  double *k = malloc(sizeof(double) * 3 * count);
  int *layer = malloc(sizeof(int) * count);
  for (int j = 0; j < count; j++) {
    const int item = first + j, ik = item / p->nl, il = item % p->nl;
    memcpy(k + 3 * j, p->k + 3 * ik, sizeof(double) * 3);
    layer[j] = d->spectral.nlayers ? d->spectral.layers[il] : -1;
  }
  const hm_dist *dist;
  hm_mvec *V;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, count * no, &V));
  APP_CALL(hm_spectral_start_fill(V, geo->cells, geo->orbitals, geo->lattice, geo->positions, count, k, layer));
  APP_CALL(hm_kpm_set_start(kpm, V));
  hm_mvec_destroy(&V);
  free(k);
  free(layer);
  run_phase_add(s, &m, PHASE_START);
  run_mark_now(s, &m);
  const int st = hm_kpm_run(kpm);
  run_phase_add(s, &m, PHASE_MOMENTS);
  free(m.joules);
  if (st == HM_ERR_STOPPED) {
    hm_error_clear();
    hm_kpm_destroy(&kpm);
    return st;
  }
  APP_CALL(st);
  APP_CALL(hm_kpm_info(kpm, NULL, NULL, NULL, &pu->scale, &pu->shift, NULL));
  double *mean = malloc(sizeof(double) * M), *mu_vec = malloc(sizeof(double) * (size_t)M * count * no);
  APP_CALL(hm_kpm_moments(kpm, mean, mu_vec));
  free(mean);
  for (int j = 0; j < count; j++)
    for (int n = 0; n < M; n++) {
      double sum = 0;
      for (int o = 0; o < no; o++) sum += mu_vec[((size_t)j * no + o) * M + n];
      mu[(size_t)j * M + n] = sum;
    }
  free(mu_vec);
  hm_kpm_destroy(&kpm);
  return HM_SUCCESS;
}

static void write_spectral(run_state *s, hm_output *out, const geometry *geo, const path *p, int M, const double *mu,
                           int points, const double *energy, const double *A, double scale, double shift) {
  const hm_deck *d = &s->deck;
  const char *g = "/spectral";
  const int64_t dk[2] = {p->nk, 3}, dn[1] = {p->nk}, de[1] = {points}, dm[3] = {p->nk, p->nl, M},
                da[3] = {p->nk, p->nl, points}, dl[1] = {p->nl}, dc[1] = {d->spectral.npath};
  double *layers = malloc(sizeof(double) * p->nl), *corners = malloc(sizeof(double) * d->spectral.npath);
  for (int l = 0; l < p->nl; l++) layers[l] = d->spectral.nlayers ? d->spectral.layers[l] + 1 : 0;
  for (int i = 0; i < d->spectral.npath; i++) corners[i] = (double)i * d->spectral.points;
  APP_CALL(hm_output_write_array(out, "/spectral/k", HM_REAL, 2, dk, p->allowed, "reduced (k = sum_i f_i b_i)",
                                 "the allowed k points used (the supercell's grid point nearest to each asked one)"));
  APP_CALL(hm_output_write_array(out, "/spectral/k_requested", HM_REAL, 2, dk, p->requested,
                                 "reduced (k = sum_i f_i b_i)", "the k points of the path as asked"));
  APP_CALL(hm_output_write_array(out, "/spectral/k_cartesian", HM_REAL, 2, dk, p->k,
                                 "1/length (lattice vectors' unit, 2 pi included)", "the allowed k points, cartesian"));
  APP_CALL(hm_output_write_array(out, "/spectral/distance", HM_REAL, 1, dn, p->distance, "1/length",
                                 "distance along the requested path (the plot's horizontal axis)"));
  APP_CALL(hm_output_write_array(out, "/spectral/corner_index", HM_REAL, 1, dc, corners, "1",
                                 "index of each corner of the path among the k points"));
  APP_CALL(hm_output_write_array(out, "/spectral/layers", HM_REAL, 1, dl, layers, "1",
                                 "layer numbers (1 to nz along a3); 0 = bulk (the whole supercell)"));
  APP_CALL(hm_output_write_array(out, "/spectral/energy", HM_REAL, 1, de, energy, "energy (units of t)", "energies E"));
  APP_CALL(hm_output_write_array(out, "/spectral/moments", HM_REAL, 3, dm, mu, "1",
                                 "sum_o <k,o|T_n(scale (H - shift))|k,o> [k][layer][n] (mu_0 = orbitals), undamped"));
  APP_CALL(hm_output_write_array(out, "/spectral/A", HM_REAL, 3, da, A, "states/energy (units of 1/t)",
                                 "A(k, E) = sum_o <k,o|delta(E - H)|k,o> [k][layer][E] (kernel-broadened; integrates "
                                 "to the orbitals per cell)"));
  APP_CALL(hm_output_write_attribute(out, g, "k_path", d->spectral.path_text));
  APP_CALL(hm_output_write_attribute(out, g, "kernel", d->dos.kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson"));
  APP_CALL(hm_output_write_attribute(out, g, "start_vectors",
                                     "|k,o> = N_c^-1/2 sum_R e^{i k.(R + tau_o)} |R,o> over every cell (bulk) or the "
                                     "cells of one layer; moments / <v|v>"));
  /* everything hamlet post needs to rebuild A: the rescaling, the kernel and the grid (0 points: the nodes) */
  const char *const names[] = {"scale", "shift", "lambda", "orbitals", "grid_points", "grid_emin", "grid_emax",
                               "moved_points", "largest_move"};
  const double values[] = {scale, shift, d->dos.lorentz_lambda, geo->orbitals, d->dos.points, d->dos.emin,
                           d->dos.emax, p->moved, p->worst};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    APP_CALL(hm_output_write_attribute_double(out, g, names[i], values[i]));
  free(layers);
  free(corners);
}

static void print_summary(const run_state *s, const hm_matrix *H, const geometry *geo, const path *p,
                          const hm_kpm_options *opt, int batches, int points) {
  const hm_deck *d = &s->deck;
  if (s->rank != 0) return;
  run_print_header(s, "KPM spectral function A(k, E)", H);
  printf("  interval     [%.6g, %.6g]\n", opt->emin, opt->emax);
  printf("  path         %s: %d k points", d->spectral.path_text, p->nk);
  if (d->spectral.nlayers) printf(" x %d layers", d->spectral.nlayers);
  else printf(" (bulk)");
  printf(", %d orbitals each, in %d batch%s\n", geo->orbitals, batches, batches > 1 ? "es" : "");
  if (p->moved)
    printf("  k grid       %d of %d points moved to the nearest allowed point of the %lld x %lld x %lld supercell "
           "(at most %.3g in 1/length): /spectral/k holds the points used\n", p->moved, p->nk,
           (long long)geo->cells[0], (long long)geo->cells[1], (long long)geo->cells[2], p->worst);
  const double columns = (double)p->items * geo->orbitals;
  printf("  moments      %d x %.0f plane-wave vectors: %.3f s (%.3g us per vector per step)\n", opt->moments, columns,
         s->seconds[PHASE_MOMENTS], 1e6 * s->seconds[PHASE_MOMENTS] / (columns * (opt->moments / 2.0)));
  printf("  spectral     %d energies, %s kernel\n", points, d->dos.kernel == HM_KERNEL_JACKSON ? "Jackson" : "Lorentz");
  run_print_timing(s);
}

/* Checkpoints at batch granularity (the solver checkpoint's scalars, no blocks): the batches done,
 * the sizes, the interval and the orbital-summed moments so far; a restart continues at the next
 * batch with the same interval and ends with the /spectral of an uninterrupted run. */
enum { HEAD = 9 }; /* done, batches, items, M, orbitals, emin, emax, scale, shift */

static int checkpoint_write(run_state *s, int done, int batches, int items, int per_batch, int M, int orbitals,
                            const hm_kpm_options *opt, const progress_user *pu, const double *mu) {
  run_mark m = {0};
  run_mark_now(s, &m);
  const int have = done * per_batch < items ? done * per_batch : items;
  const size_t n = HEAD + (size_t)have * M;
  double *v = malloc(sizeof(double) * n);
  if (!v) return HM_ERR_MEMORY;
  const double head[HEAD] = {done, batches, items, M, orbitals, opt->emin, opt->emax, pu->scale, pu->shift};
  memcpy(v, head, sizeof head);
  memcpy(v + HEAD, mu, sizeof(double) * (size_t)have * M);
  const int st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "spectral", 0, NULL, (int)n, v,
                                           run_identity(s));
  free(v);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

/* Returns the batches done; sets the interval (bounds given) and the moments so far. */
static int checkpoint_restore(run_state *s, int batches, int items, int per_batch, int M, int orbitals,
                              hm_kpm_options *opt, progress_user *pu, double *mu) {
  const char *path = s->args->checkpoint_path;
  int n;
  double *v;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "spectral", &n, &v));
  const int done = n >= HEAD ? (int)v[0] : -1, have = done * per_batch < items ? done * per_batch : items;
  if (n < HEAD || v[0] != done || done < 0 || done > batches || v[1] != batches || v[2] != items || v[3] != M ||
      v[4] != orbitals || n != HEAD + have * M) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s holds %d values, not a spectral run of %d batches of %d points x %d orbitals and "
              "%d moments (its deck's)\n", path, n, batches, items, orbitals, M);
    hm_app_exit(HM_EXIT_USAGE);
  }
  opt->bounds = HM_BOUNDS_GIVEN;
  opt->bounds_margin = 0;
  opt->emin = v[5], opt->emax = v[6];
  pu->scale = v[7], pu->shift = v[8];
  memcpy(mu, v + HEAD, sizeof(double) * (size_t)have * M);
  free(v);
  return done;
}

int run_spectral(run_state *s, hm_matrix *H, hm_matrix *mass) {
  (void)mass; /* none: a standard problem */
  hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  geometry geo;
  geometry_of(s, &geo);
  path p;
  make_path(s, &geo, &p);
  const int M = d->kpm.moments, no = geo.orbitals;
  const int per_batch = HM_SPECTRAL_MAX_WIDTH / no > 0 ? HM_SPECTRAL_MAX_WIDTH / no : 1;
  const int batches = (p.items + per_batch - 1) / per_batch;
  hm_kpm_options opt = d->kpm;
  progress_user pu = {s, 0, batches, 0, 0};
  opt.progress = on_progress;
  opt.progress_user = &pu;
  opt.stop = run_stop_poll;
  opt.stop_user = &s->stop;
  opt.checkpoint = NULL;
  opt.checkpoint_every = 0;
  opt.checkpoint_seconds = 0;
  double *mu = malloc(sizeof(double) * (size_t)M * p.items);
  run_mark m = {0};
  int b0 = 0;
  if (s->args->checkpoint_path) b0 = checkpoint_restore(s, batches, p.items, per_batch, M, no, &opt, &pu, mu);
  double t_checkpoint = MPI_Wtime();
  for (int b = b0; b < batches; b++) {
    pu.batch = b;
    const int first = b * per_batch, count = first + per_batch <= p.items ? per_batch : p.items - first;
    const int st = batch_moments(s, H, &geo, &p, first, count, &opt, &pu, mu + (size_t)first * M);
    if (st == HM_ERR_STOPPED) { /* signal or walltime: the batches done so far go to the checkpoint */
      hm_progress_finish(&s->progress);
      APP_CALL(checkpoint_write(s, b, batches, p.items, per_batch, M, no, &opt, &pu, mu));
      char where[64];
      snprintf(where, sizeof where, "in batch %d of %d", b + 1, batches);
      free(mu);
      free_path(&p);
      free(geo.positions);
      return run_stopped(s, where);
    }
    if (b + 1 < batches && run_checkpoint_due(s, b + 1, t_checkpoint)) {
      APP_CALL(checkpoint_write(s, b + 1, batches, p.items, per_batch, M, no, &opt, &pu, mu));
      t_checkpoint = MPI_Wtime();
    }
  }
  hm_progress_finish(&s->progress);

  run_mark_now(s, &m);
  const double scale = pu.scale, shift = pu.shift;
  int points;
  APP_CALL(hm_ldos_points(M, &d->dos, &points));
  double *energy = malloc(sizeof(double) * points), *A = malloc(sizeof(double) * (size_t)points * p.items);
  APP_CALL(hm_spectral_reconstruct(M, p.items, no, mu, scale, shift, &d->dos, energy, A));
  run_phase_add(s, &m, PHASE_RECONSTRUCTION);

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  write_spectral(s, out, &geo, &p, M, mu, points, energy, A, scale, shift);
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  print_summary(s, H, &geo, &p, &opt, batches, points);
  free(energy);
  free(A);
  free(mu);
  free_path(&p);
  free(geo.positions);
  return HM_EXIT_OK;
}
