/* hamlet export DECK -o H.mtx|H.h5 [--velocity x,y,z]: the Hamiltonian the deck builds, disorder and
 * vacancies included, so that it can be checked with SciPy, kwant or any other code. H.mtx: a
 * coordinate Matrix Market file of every entry (hm_mtx_write), the mass matrix of a generalized
 * problem beside it (H_mass.mtx) and the velocities asked for (H_vx.mtx, ...). H.h5: all of them in
 * one HDF5 file in CSR, with every row's cell, orbital and position (io/export_h5.c). A lattice is
 * built with assembled storage and complex arithmetic: the same entries as the matrix-free operator
 * (tested), which stores none. */
#include <string.h>
#include "export_h5.h"
#include "run_state.h"

int run_export_has_mass(const hm_deck *d) {
  return d->model == HM_MODEL_FEM || (d->model == HM_MODEL_MTX && d->mass_file[0]);
}

/* The model's cells, orbitals, lattice vectors and orbital positions (malloc'd) and labels: a lattice
 * file's (spin labels), the TI's cubic cell with its orbitals at the site, a structure's atoms. */
typedef struct {
  hm_export_geometry g;
  double *positions;
  char *labels;
} geometry;

static void model_geometry(run_state *s, geometry *out) {
  const hm_deck *d = &s->deck;
  memset(out, 0, sizeof *out);
  hm_export_geometry *g = &out->g;
  const double unit_cell[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(g->lattice, unit_cell, sizeof unit_cell);
  g->cells[0] = d->ti.nx, g->cells[1] = d->ti.ny, g->cells[2] = d->ti.nz;
  g->length_unit = "lattice constant";
  if (d->model == HM_MODEL_LATTICE) {
    int layer_orbitals, *spin = NULL;
    run_lattice_geometry(s, g->cells, &g->orbitals, g->lattice, &out->positions, &layer_orbitals, &spin);
    g->length_unit = "the lattice file's length unit";
    out->labels = spin ? calloc((size_t)g->orbitals, 6) : NULL;
    for (int o = 0; out->labels && o < g->orbitals; o++)
      strcat(out->labels, spin[o] > 0 ? (o ? " up" : "up") : spin[o] < 0 ? (o ? " down" : "down") : (o ? " -" : "-"));
    free(spin);
  } else if (d->model == HM_MODEL_TI) {
    g->orbitals = 4;
    if (!(out->positions = calloc(12, sizeof(double)))) APP_CALL(HM_ERR_MEMORY);
  } else if (d->model == HM_MODEL_STRUCTURE) {
    run_structure_cell(s, &g->orbitals, g->lattice, &out->positions, &out->labels);
    g->length_unit = "angstrom";
  }
  g->positions = out->positions;
  g->labels = out->labels;
}

/* --velocity: v_a = i[H, X_a]: a structure's from its bonds (made with H), else of the assembled H
 * (hm_matrix_create_velocity, the conductivity's) over the model's cells, orbitals and positions. */
static int make_velocities(run_state *s, hm_matrix *H, const hm_export_geometry *g, hm_matrix *V[3]) {
  int st = HM_SUCCESS;
  for (int a = 0; a < 3 && !st; a++) {
    if (!(s->args->export_velocity & (1 << a))) continue;
    V[a] = s->velocity[a];
    s->velocity[a] = NULL;
    if (!V[a]) st = hm_matrix_create_velocity(H, g->cells, g->orbitals, g->lattice, g->positions, a, &V[a]);
  }
  return st;
}

int run_export(run_state *s, hm_matrix *H, hm_matrix *M) {
  const int model = s->deck.model;
  if (s->args->export_velocity && model != HM_MODEL_LATTICE && model != HM_MODEL_TI && model != HM_MODEL_STRUCTURE) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet export: --velocity needs lattice cells and positions: model = ti, lattice or structure\n");
    return HM_EXIT_USAGE;
  }
  int64_t n, nnz;
  APP_CALL(hm_matrix_info(H, &n, &nnz, NULL));
  geometry geo;
  model_geometry(s, &geo);
  hm_matrix *V[3] = {NULL, NULL, NULL};
  int st = s->args->export_velocity ? make_velocities(s, H, &geo.g, V) : HM_SUCCESS;
  if (!st && s->export_h5) {
    st = hm_export_h5(s->ctx, s->output, s->deck.text, H, M, V, &geo.g);
  } else if (!st) {
    st = hm_mtx_write(H, s->output);
    if (!st && M) st = hm_mtx_write(M, s->export_mass);
    for (int a = 0; a < 3 && !st; a++)
      if (V[a]) st = hm_mtx_write(V[a], s->export_velocity[a]);
  }
  for (int a = 0; a < 3; a++) hm_matrix_destroy(&V[a]);
  free(geo.positions);
  free(geo.labels);
  if (st) {
    if (s->rank == 0) fprintf(stderr, "hamlet export: %s", hm_error_message());
    return hm_app_exit_code(st);
  }
  if (s->rank == 0) {
    printf("hamlet export: H of %s (N = %lld, %lld entries) -> %s\n", s->deck.name, (long long)n, (long long)nnz,
           s->output);
    if (M) printf("hamlet export: its mass matrix -> %s\n", s->export_h5 ? "/mass" : s->export_mass);
    for (int a = 0; a < 3; a++)
      if (s->args->export_velocity & (1 << a))
        printf("hamlet export: v_%c -> %s\n", 'x' + a, s->export_h5 ? (const char *[]){"/velocity_x", "/velocity_y",
                                                                         "/velocity_z"}[a] : s->export_velocity[a]);
  }
  return HM_EXIT_OK;
}
