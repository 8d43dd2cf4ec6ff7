/* method = evolution: the lattice's geometry (cartesian positions of the rows) and the start block:
 * R random-phase columns, one orbital of one cell, a Gaussian wave packet, or a Matrix Market vector;
 * every column normalised to 1. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "run_evolution.h"

void evolution_geometry_of(run_state *s, evolution_geometry *g) {
  const hm_deck *d = &s->deck;
  if (d->model == HM_MODEL_LATTICE) {
    int layer_orbitals;
    run_lattice_geometry(s, g->cells, &g->orbitals, g->lattice, &g->positions, &layer_orbitals, &g->spin);
    int labelled = 0;
    for (int o = 0; o < g->orbitals; o++) labelled |= g->spin[o] != 0;
    if (!labelled) free(g->spin), g->spin = NULL;
    return;
  }
  g->cells[0] = d->ti.nx, g->cells[1] = d->ti.ny, g->cells[2] = d->ti.nz;
  g->orbitals = s->site_orbitals;
  g->spin = NULL;
  g->positions = calloc(3 * (size_t)g->orbitals, sizeof(double));
  if (!g->positions) APP_CALL(HM_ERR_MEMORY);
  if (d->model == HM_MODEL_STRUCTURE) { /* its cell and atoms (model_structure.c kept them) */
    memcpy(g->lattice, s->lattice_cell, sizeof g->lattice);
    memcpy(g->positions, s->lattice_positions, sizeof(double) * 3 * (size_t)g->orbitals);
    return;
  }
  for (int k = 0; k < 9; k++) g->lattice[k] = k % 4 == 0; /* the TI: cubic, 4 orbitals at 0 */
}

void evolution_position(const evolution_geometry *g, int64_t row, double r[3]) {
  const int64_t cell = row / g->orbitals;
  const int o = (int)(row % g->orbitals);
  const double c[3] = {(double)(cell % g->cells[0]), (double)(cell / g->cells[0] % g->cells[1]),
                       (double)(cell / g->cells[0] / g->cells[1])};
  for (int a = 0; a < 3; a++)
    r[a] = c[0] * g->lattice[a] + c[1] * g->lattice[3 + a] + c[2] * g->lattice[6 + a] + g->positions[3 * o + a];
}

/* Fractional coordinates f of a cartesian displacement r = f A (rows of A the lattice vectors). */
static void fractional(const double A[9], const double r[3], double f[3]) {
  const double *a = A, *b = A + 3, *c = A + 6;
  const double bc[3] = {b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]};
  const double ca[3] = {c[1] * a[2] - c[2] * a[1], c[2] * a[0] - c[0] * a[2], c[0] * a[1] - c[1] * a[0]};
  const double ab[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  const double volume = a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
  f[0] = (r[0] * bc[0] + r[1] * bc[1] + r[2] * bc[2]) / volume;
  f[1] = (r[0] * ca[0] + r[1] * ca[1] + r[2] * ca[2]) / volume;
  f[2] = (r[0] * ab[0] + r[1] * ab[1] + r[2] * ab[2]) / volume;
}

/* The spinor's amplitude of orbital o: the deck's real numbers or re im pairs, 1 where none given.
 * A count that fits neither is refused (exit 2). */
static double complex spinor_of(const run_state *s, int orbitals, int o) {
  const hm_deck *d = &s->deck;
  const int n = d->evolution.nspinor;
  if (!n) return 1;
  if (n != orbitals && n != 2 * orbitals) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: [evolution] spinor = %s: %d numbers, but the model has %d orbital%s per cell: "
              "give %d real amplitudes or %d (re im pairs)\n", d->name, d->evolution.spinor_text, n, orbitals,
              orbitals == 1 ? "" : "s", orbitals, 2 * orbitals);
    hm_app_exit(HM_EXIT_USAGE);
  }
  return n == orbitals ? d->evolution.spinor[o] : d->evolution.spinor[2 * o] + I * d->evolution.spinor[2 * o + 1];
}

/* psi_i = spinor_o exp(-|r_i - r0|^2 / (2 w^2) + i k.(r_i - r0)), r_i - r0 to the nearest image along
 * periodic and twisted axes. */
static void gaussian(run_state *s, const evolution_geometry *g, int64_t first, int64_t local, double complex *e) {
  const hm_deck *d = &s->deck;
  const double *r0 = d->evolution.centre, *k = d->evolution.momentum, w = d->evolution.width;
  for (int64_t i = 0; i < local; i++) {
    double r[3], dr[3], f[3];
    evolution_position(g, first + i, r);
    for (int a = 0; a < 3; a++) dr[a] = r[a] - r0[a];
    fractional(g->lattice, dr, f);
    for (int a = 0; a < 3; a++)
      if (d->ti.boundary[a] != HM_BC_OPEN) f[a] -= g->cells[a] * nearbyint(f[a] / g->cells[a]);
    double r2 = 0, phase = 0;
    for (int a = 0; a < 3; a++) {
      dr[a] = f[0] * g->lattice[a] + f[1] * g->lattice[3 + a] + f[2] * g->lattice[6 + a];
      r2 += dr[a] * dr[a];
      phase += k[a] * dr[a];
    }
    e[i] = spinor_of(s, g->orbitals, (int)((first + i) % g->orbitals)) * exp(-r2 / (2 * w * w)) * cexp(I * phase);
  }
}

/* The file's vector, of the model's rows (exit 2 naming the file where it is not). */
static void from_file(run_state *s, hm_matrix *H, hm_mvec *psi) {
  const hm_deck *d = &s->deck;
  int64_t rows, cols, n;
  hm_scalar type;
  APP_CALL(hm_matrix_info(H, &n, NULL, NULL));
  int st = hm_mtx_info(NULL, d->evolution.start_file, &rows, &cols, NULL, &type, NULL);
  if (st || rows != n || cols != 1) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: [evolution] start = %s: %s\n", d->name, d->evolution.start_text,
              st ? "not a readable Matrix Market file" : "want one column of the model's rows");
    if (s->rank == 0 && !st)
      fprintf(stderr, "hamlet: the file has %lld x %lld entries; the model has %lld rows\n", (long long)rows,
              (long long)cols, (long long)n);
    hm_app_exit(HM_EXIT_USAGE);
  }
  const hm_dist *dist;
  hm_mvec *b;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL_INPUT(hm_mtx_read_vector(s->ctx, d->evolution.start_file, dist, &b));
  int64_t local;
  APP_CALL(hm_mvec_size(b, &local, NULL));
  double *v = malloc(sizeof(double) * 2 * (size_t)local + 1);
  double complex *e = malloc(sizeof *e * (size_t)local + 1);
  if (!v || !e) APP_CALL(HM_ERR_MEMORY);
  APP_CALL(hm_mvec_get(b, v));
  for (int64_t i = 0; i < local; i++) e[i] = type == HM_COMPLEX ? v[2 * i] + I * v[2 * i + 1] : v[i];
  APP_CALL(hm_mvec_set(psi, e));
  hm_mvec_destroy(&b);
  free(v), free(e);
}

/* Every column scaled to norm 1; a zero column is refused (exit 2): it has no evolution to follow. */
static void normalise(run_state *s, hm_mvec *psi, int R) {
  double norms[R];
  double complex scale[R], zero[R];
  APP_CALL(hm_mvec_norms(psi, norms));
  for (int j = 0; j < R; j++) {
    if (!(norms[j] > 0)) {
      if (s->rank == 0)
        fprintf(stderr, "hamlet: %s: [evolution] start = %s: the start state is zero (a packet away from every "
                "orbital, or a zero file)\n", s->deck.name, s->deck.evolution.start_text);
      hm_app_exit(HM_EXIT_USAGE);
    }
    scale[j] = 1 / norms[j], zero[j] = 0;
  }
  APP_CALL(hm_mvec_axpby(psi, scale, psi, zero));
}

void evolution_make_start(run_state *s, hm_matrix *H, const evolution_geometry *g, hm_mvec **psi) {
  const hm_deck *d = &s->deck;
  const hm_dist *dist;
  int64_t first, local;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_dist_range(dist, &first, &local, NULL));
  const int R = d->evolution.vectors, kind = d->evolution.start_kind;
  APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, R, psi));
  if (kind == HM_START_RANDOM) {
    APP_CALL(hm_mvec_random_phase(*psi, d->evolution.seed));
  } else if (kind == HM_START_FILE) {
    from_file(s, H, *psi);
  } else {
    double complex *e = calloc((size_t)local + 1, sizeof *e);
    if (!e) APP_CALL(HM_ERR_MEMORY);
    if (kind == HM_START_GAUSSIAN) gaussian(s, g, first, local, e);
    if (kind == HM_START_SITE) {
      const int no = s->site_orbitals;
      if (d->evolution.orbital >= no) {
        if (s->rank == 0)
          fprintf(stderr, "hamlet: %s: [evolution] start = %s: orbital %d, but the model has %d orbital%s per cell "
                  "(0 to %d)\n", d->name, d->evolution.start_text, d->evolution.orbital, no, no == 1 ? "" : "s",
                  no - 1);
        hm_app_exit(HM_EXIT_USAGE);
      }
      const int64_t *c = d->evolution.site;
      const int64_t row = no * (c[0] + d->ti.nx * (c[1] + d->ti.ny * c[2])) + d->evolution.orbital;
      if (row >= first && row < first + local) e[row - first] = 1;
    }
    APP_CALL(hm_mvec_set(*psi, e));
    free(e);
  }
  normalise(s, *psi, R);
}
