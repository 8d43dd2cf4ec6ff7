/* method = evolution: what the run keeps per time row (run_evolution.c), its geometry and start
 * (run_evolution_start.c) and the transport it writes (run_evolution_transport.c). */
#ifndef HAMLET_RUN_EVOLUTION_H
#define HAMLET_RUN_EVOLUTION_H
#include "evolution_transport.h"
#include "run_state.h"

/* Per time row t = 0 .. T: its time, every column's norm, the mean position, the spread and <S_z>;
 * every `every` steps the density of one layer (S snapshots of `cells` cells); with msd, per direction
 * the Chebyshev moments <chi_r|T_n(H~)|chi_r> of the commutator states (transport = msd) or the cross
 * moments of the velocity auto-correlation (transport = vac; both: both). */
typedef struct {
  int R, T, nd, M;                         /* R start vectors, nd msd directions, M moments */
  double *time, *norm, *position, *spread; /* [T + 1], [T + 1][R], [T + 1][3], [T + 1][3] */
  double *spin;                            /* [T + 1] */
  int every, S;                            /* snapshots: every `every` steps (0: none), S of them */
  int64_t cells;                           /* cells of the snapshot layer (nx ny) */
  double *density;                         /* [S][cells] */
  double *chi;                             /* [nd][T + 1][R][M] (msd) */
  double *vac;                             /* [nd][T + 1][R][M] (vac): the cross moments, evolution_transport.h */
  int forms;                               /* HM_TRANSPORT_MSD and/or HM_TRANSPORT_VAC bits; 0 without msd */
} evolution_rows;

/* Where the rows are: cells[3] of `orbitals` rows each (row = orbitals x cell + orbital, cell = x + nx
 * (y + ny z)), the lattice vectors (lattice[3k + a]) and the orbitals' cartesian positions. */
typedef struct {
  int64_t cells[3];
  int orbitals;
  double lattice[9];
  double *positions; /* [orbitals][3], malloc'd */
  int *spin;         /* [orbitals]: +1 up, -1 down, 0 none (malloc'd); NULL where no orbital is labelled */
} evolution_geometry;

/* The geometry of model = lattice (its file's) or of the TI (cubic, 4 orbitals at the cell origin). */
void evolution_geometry_of(run_state *s, evolution_geometry *g);
/* The cartesian position of a row (its cell's origin plus its orbital's position). */
void evolution_position(const evolution_geometry *g, int64_t row, double r[3]);
/* Collective: the deck's start block (run_evolution_start.c), every column of norm 1. */
void evolution_make_start(run_state *s, hm_matrix *H, const evolution_geometry *g, hm_mvec **psi);

/* Collective: row t of the velocity auto-correlation's cross moments into r->vac: per direction a,
 * Re <psi_r|T_n(H~) v_a phi_L,r> with psi = U(t) phi (the current state) and phi_L = U(t) v_a phi (left[a]'s
 * state, read into phi_left[a]); work: a complex block of the state's shape. */
void evolution_vac_row(const run_state *s, hm_matrix *H, hm_evolution *const *left, hm_mvec *const *phi_left,
                       hm_mvec *work, hm_mvec *psi, const int *dirs, double emin, double emax, evolution_rows *r,
                       int t);

/* Collective: /evolution's transport x (hm_evolution_transport_compute of m) with the moments m and
 * the expansion's attributes, for hamlet post; dirs names the msd directions (0 = x). */
void evolution_write_transport(const run_state *s, hm_output *out, const hm_evolution_moments *m,
                               const hm_evolution_transport *x, const char *unit, const int *dirs);
/* The summary's lines of the transport (rank 0). */
void evolution_print_transport(const hm_evolution_moments *m, const hm_evolution_transport *x, const char *unit,
                               const int *dirs);
#endif
