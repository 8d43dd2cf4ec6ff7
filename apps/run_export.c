/* hamlet export DECK -o H.mtx: the Hamiltonian the deck builds, disorder and vacancies included, as a
 * coordinate Matrix Market file of every entry (hm_mtx_write), and the mass matrix of a generalized
 * problem beside it (H_mass.mtx), so that it can be checked with SciPy, kwant or any other code. A
 * lattice is built with assembled storage and complex arithmetic: the same entries as the matrix-free
 * operator (tested), which stores none. */
#include <string.h>
#include "run_state.h"

int run_export_has_mass(const hm_deck *d) {
  return d->model == HM_MODEL_FEM || (d->model == HM_MODEL_MTX && d->mass_file[0]);
}

int run_export(run_state *s, hm_matrix *H, hm_matrix *M) {
  int64_t n, nnz;
  APP_CALL(hm_matrix_info(H, &n, &nnz, NULL));
  int st = hm_mtx_write(H, s->output);
  if (!st && M) st = hm_mtx_write(M, s->export_mass);
  if (st) {
    if (s->rank == 0) fprintf(stderr, "hamlet export: %s", hm_error_message());
    return hm_app_exit_code(st);
  }
  if (s->rank == 0) {
    printf("hamlet export: H of %s (N = %lld, %lld entries) -> %s\n", s->deck.name, (long long)n, (long long)nnz,
           s->output);
    if (M) printf("hamlet export: its mass matrix -> %s\n", s->export_mass);
  }
  return HM_EXIT_OK;
}
