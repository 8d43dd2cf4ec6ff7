/* model = lattice with method = conductivity: the velocity operators v_a = i[H, X_a] of the deck's
 * supercell, made from its stencil while it is built (run_build_lattice): each hopping block times
 * i times its bond's displacement (hm_velocity_blocks: the nearest image across periodic and
 * twisted boundaries is the bond's own), with the same boundaries, twists, vacancies and Peierls
 * phases, no disorder (on-site terms commute with X), and H's storage (matrix-free on a GPU); in real
 * arithmetic (a real H, the single shot) the real A = -i v_a, which that method takes for v_a. The
 * geometry (lattice vectors, orbital positions) is kept for the conductivity's density N / Omega.
 * method = evolution with msd: the velocities v_a = i[H, X_a] that give the evolution its commutators
 * [X_a, U(t)] (hm_evolution_set_commutator). run_lattice_density: the orbitals per area or volume that
 * turn a density of states per orbital into sigma's e^2/h units (conductivity and evolution alike). */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "run_state.h"

void run_lattice_keep_geometry(run_state *s, const double cell[3][3], int orbitals, const double *positions) {
  if (s->deck.solver.method != HM_METHOD_CONDUCTIVITY &&
      !(s->deck.solver.method == HM_METHOD_EVOLUTION && s->deck.evolution.msd))
    return;
  memcpy(s->lattice_cell, cell, sizeof s->lattice_cell);
  s->lattice_positions = malloc(sizeof(double) * 3 * (size_t)orbitals);
  if (!s->lattice_positions) APP_CALL(HM_ERR_MEMORY);
  memcpy(s->lattice_positions, positions, sizeof(double) * 3 * (size_t)orbitals);
}

/* A spin current's S per cell from the model file's labels (complex [orbitals][orbitals]): spin_z =
 * diag(+1 up, -1 down, 0 unlabelled); spin_x and spin_y the Pauli matrices on the pairs of the k-th up
 * and the k-th down orbital (as the Zeeman term pairs them). A file without labels, or for spin_x and
 * spin_y without as many up as down orbitals, is refused (exit 2, naming it) before the supercell is
 * built. */
void run_lattice_keep_spin(run_state *s, int orbitals, const int *spin, const char *file) {
  const int which = s->deck.conductivity.current; /* 1 spin_z, 2 spin_x, 3 spin_y */
  if (s->deck.solver.method != HM_METHOD_CONDUCTIVITY || !which) return;
  const char *name = which == 1 ? "spin_z" : which == 2 ? "spin_x" : "spin_y";
  int up = 0, down = 0;
  for (int i = 0; i < orbitals; i++) up += spin[i] > 0, down += spin[i] < 0;
  if (!up && !down) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: [conductivity] current = %s: the lattice file %s labels no orbital up or "
              "down (write 'orbital x y z up' and 'orbital x y z down' for each spin pair)\n", s->deck.name, name, file);
    hm_app_exit(HM_EXIT_USAGE);
  }
  if (which > 1 && up != down) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: [conductivity] current = %s pairs the k-th up with the k-th down orbital: the "
              "lattice file %s has %d up and %d down\n", s->deck.name, name, file, up, down);
    hm_app_exit(HM_EXIT_USAGE);
  }
  double complex *S = calloc((size_t)orbitals * orbitals, sizeof *S);
  if (!S) APP_CALL(HM_ERR_MEMORY);
  for (int u = 0, d = 0; u < orbitals; u++, d++) {
    if (which == 1) {
      S[u * orbitals + u] = spin[u];
      continue;
    }
    while (u < orbitals && spin[u] <= 0) u++;
    while (d < orbitals && spin[d] >= 0) d++;
    if (u == orbitals || d == orbitals) break;
    S[u * orbitals + d] = which == 2 ? 1 : -I; /* sigma_x, sigma_y in the (up, down) basis */
    S[d * orbitals + u] = which == 2 ? 1 : I;
  }
  s->current_operator = (double *)S;
}

void run_lattice_velocities(run_state *s, const hm_stencil *st, hm_stencil_storage storage) {
  const hm_deck *d = &s->deck;
  if (d->solver.method != HM_METHOD_CONDUCTIVITY) return;
  const size_t entries = 2 * (size_t)st->nblocks * (size_t)st->orbitals * (size_t)st->orbitals;
  double *vblock = malloc(sizeof(double) * entries), *jblock = malloc(sizeof(double) * entries);
  if (!vblock || !jblock) APP_CALL(HM_ERR_MEMORY);
  for (int c = 0; c < d->conductivity.ncomp; c++)
    for (int side = 0; side < 2; side++) {
      const int a = d->conductivity.comp[c][side], spin = side == 0 && s->current_operator; /* J_a on the left */
      if (spin ? s->current[a] != NULL : s->velocity[a] != NULL) continue;
      APP_CALL(hm_velocity_blocks(st->orbitals, st->nblocks, st->shift, st->block, s->lattice_cell,
                                  s->lattice_positions, a, vblock));
      if (spin) APP_CALL(hm_current_blocks_operator(st->orbitals, st->nblocks, vblock, s->current_operator, jblock));
      if (storage == HM_STENCIL_MATRIX_FREE_REAL) /* A = -i v: (re, im) <- (im, -re) */
        for (size_t e = 0; e < entries; e += 2) {
          const double re = vblock[e];
          vblock[e] = vblock[e + 1];
          vblock[e + 1] = -re;
        }
      hm_stencil v = *st;
      v.block = spin ? jblock : vblock;
      v.disorder_w = 0;
      v.antihermitian = storage == HM_STENCIL_MATRIX_FREE_REAL;
      APP_CALL(hm_matrix_create_stencil(s->ctx, &v, storage, spin ? &s->current[a] : &s->velocity[a]));
    }
  free(vblock);
  free(jblock);
}

void run_lattice_msd_velocities(run_state *s, const hm_stencil *st, hm_stencil_storage storage) {
  const hm_deck *d = &s->deck;
  if (d->solver.method != HM_METHOD_EVOLUTION || !d->evolution.msd) return;
  const size_t entries = (size_t)st->nblocks * (size_t)st->orbitals * (size_t)st->orbitals;
  double *vblock = malloc(sizeof(double) * 2 * entries);
  if (!vblock) APP_CALL(HM_ERR_MEMORY);
  for (int a = 0; a < 3; a++) {
    if (!(d->evolution.msd & (1 << a))) continue;
    APP_CALL(hm_velocity_blocks(st->orbitals, st->nblocks, st->shift, st->block, s->lattice_cell,
                                s->lattice_positions, a, vblock));
    hm_stencil c = *st;
    c.block = vblock;
    c.disorder_w = 0; /* on-site terms commute with X */
    APP_CALL(hm_matrix_create_stencil(s->ctx, &c, storage, &s->msd_velocity[a]));
  }
  free(vblock);
}

double run_lattice_density(const run_state *s, const int64_t cells[3], int orbitals, const double lattice[9],
                           int64_t rows, const char **unit) {
  /* N / Omega: orbitals per cell volume in 3D; per area of the a1-a2 plane for one layer (nz = 1) and
   * for a slab (open along z), whose sigma is then the sheet conductance of all its layers together
   * (sigma_3D times the thickness: what a surface's e^2/2h adds to). N / (nx ny |a1 x a2|) counts
   * the slab's orbitals whether its layers are cells along z or folded into one cell. */
  const int slab = s->deck.ti.boundary[2] == HM_BC_OPEN && cells[2] > 1, layer = cells[2] == 1 || slab;
  const double *a0 = lattice, *a1 = lattice + 3, *a2 = lattice + 6;
  const double cross[3] = {a0[1] * a1[2] - a0[2] * a1[1], a0[2] * a1[0] - a0[0] * a1[2], a0[0] * a1[1] - a0[1] * a1[0]};
  const double area = sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);
  const int sheet = s->deck.model == HM_MODEL_STRUCTURE; /* a structure's cell is the whole sheet (a bilayer) */
  *unit = slab ? "e^2/h (whole slab)" : layer ? (sheet ? "e^2/h (the structure's sheet)" : "e^2/h (per layer)")
                                              : "e^2/(h a)";
  return slab    ? (double)rows / ((double)cells[0] * (double)cells[1] * area)
         : layer ? orbitals / area
                 : orbitals / fabs(cross[0] * a2[0] + cross[1] * a2[1] + cross[2] * a2[2]);
}
