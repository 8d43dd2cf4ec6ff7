/* hamlet export DECK -o H.mtx [--velocity x,y,z]: the Hamiltonian the deck builds, disorder and vacancies
 * included, as a coordinate Matrix Market file of every entry (hm_mtx_write), the mass matrix of a
 * generalized problem beside it (H_mass.mtx) and the velocities asked for (H_vx.mtx, ...), so that it can
 * be checked with SciPy, kwant or any other code. A
 * lattice is built with assembled storage and complex arithmetic: the same entries as the matrix-free
 * operator (tested), which stores none. */
#include <string.h>
#include "run_state.h"

int run_export_has_mass(const hm_deck *d) {
  return d->model == HM_MODEL_FEM || (d->model == HM_MODEL_MTX && d->mass_file[0]);
}

/* --velocity: v_a = i[H, X_a] of the assembled H (hm_matrix_create_velocity, the conductivity's), over the
 * model's cells, orbitals and positions (a lattice file's, or the TI's cubic cell with its orbitals at the
 * origin). */
static int write_velocities(run_state *s, hm_matrix *H) {
  const hm_deck *d = &s->deck;
  int64_t cells[3] = {d->ti.nx, d->ti.ny, d->ti.nz};
  int orbitals = 4, layer_orbitals;
  double lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, *positions = NULL;
  if (d->model == HM_MODEL_LATTICE)
    run_lattice_geometry(s, cells, &orbitals, lattice, &positions, &layer_orbitals, NULL);
  else if (!(positions = calloc(12, sizeof *positions)))
    APP_CALL(HM_ERR_MEMORY);
  int st = HM_SUCCESS;
  for (int a = 0; a < 3 && !st; a++) {
    if (!(s->args->export_velocity & (1 << a))) continue;
    hm_matrix *V = NULL;
    st = hm_matrix_create_velocity(H, cells, orbitals, lattice, positions, a, &V);
    if (!st) st = hm_mtx_write(V, s->export_velocity[a]);
    hm_matrix_destroy(&V);
  }
  free(positions);
  return st;
}

int run_export(run_state *s, hm_matrix *H, hm_matrix *M) {
  if (s->args->export_velocity && s->deck.model != HM_MODEL_LATTICE && s->deck.model != HM_MODEL_TI) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet export: --velocity needs lattice cells and positions: model = ti or lattice\n");
    return HM_EXIT_USAGE;
  }
  int64_t n, nnz;
  APP_CALL(hm_matrix_info(H, &n, &nnz, NULL));
  int st = hm_mtx_write(H, s->output);
  if (!st && M) st = hm_mtx_write(M, s->export_mass);
  if (!st && s->args->export_velocity) st = write_velocities(s, H);
  if (st) {
    if (s->rank == 0) fprintf(stderr, "hamlet export: %s", hm_error_message());
    return hm_app_exit_code(st);
  }
  if (s->rank == 0) {
    printf("hamlet export: H of %s (N = %lld, %lld entries) -> %s\n", s->deck.name, (long long)n, (long long)nnz,
           s->output);
    if (M) printf("hamlet export: its mass matrix -> %s\n", s->export_mass);
    for (int a = 0; a < 3; a++)
      if (s->args->export_velocity & (1 << a)) printf("hamlet export: v_%c -> %s\n", 'x' + a, s->export_velocity[a]);
  }
  return HM_EXIT_OK;
}
