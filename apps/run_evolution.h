/* method = evolution: what the run keeps per time row (run_evolution.c) and the transport quantities
 * derived from its mean-square displacement (run_evolution_transport.c). */
#ifndef HAMLET_RUN_EVOLUTION_H
#define HAMLET_RUN_EVOLUTION_H
#include "run_state.h"

/* Per time row t = 0 .. T: its time, every column's norm, the mean position and the spread; with msd,
 * per direction and energy Delta X^2, its error and sigma's error (from the start vectors' spread). */
typedef struct {
  int R, T, nd, ne;                        /* R start vectors, nd msd directions, ne energies */
  double *time, *norm, *position, *spread; /* [T + 1], [T + 1][R], [T + 1][3], [T + 1][3] */
  double *msd, *msd_error, *sigma_error;   /* [nd][T + 1][ne] each */
} evolution_rows;

/* What the transport quantities need beside the rows, all known before the first step. */
typedef struct {
  int dirs[3];       /* the msd directions (0 = x, 1 = y, 2 = z) */
  int random;        /* start = random: Tr[delta(E - H)] / N is the density of states, sigma is defined */
  double density;    /* N / Omega: orbitals per area or volume (run_lattice_density) */
  const char *unit;  /* sigma's unit */
  int dimension;     /* lattice axes of more than one cell: the localization length's geometry */
  double *to_dos;    /* [ne]: Jackson sum -> density per energy, scale / (pi sqrt(1 - x^2)); 0 outside */
  double *dos;       /* [ne]: <phi|delta(E - H)|phi> averaged over the start vectors (per orbital) */
  double *velocity2; /* [nd][ne]: <v_a^2>(E) = Tr[delta(E - H) v_a^2] / Tr[delta(E - H)] */
} evolution_transport;

/* Where the rows are: cells[3] of `orbitals` rows each (row = orbitals x cell + orbital, cell = x + nx
 * (y + ny z)), the lattice vectors (lattice[3k + a]) and the orbitals' cartesian positions. */
typedef struct {
  int64_t cells[3];
  int orbitals;
  double lattice[9];
  double *positions; /* [orbitals][3], malloc'd */
} evolution_geometry;

/* The geometry of model = lattice (its file's) or of the TI (cubic, 4 orbitals at the cell origin). */
void evolution_geometry_of(run_state *s, evolution_geometry *g);
/* The cartesian position of a row (its cell's origin plus its orbital's position). */
void evolution_position(const evolution_geometry *g, int64_t row, double r[3]);
/* Collective: the deck's start block (run_evolution_start.c), every column of norm 1. */
void evolution_make_start(run_state *s, hm_matrix *H, const evolution_geometry *g, hm_mvec **psi);

/* sigma's error at row t (> 0) of direction a from the start vectors' numerators num[R][ne]. */
void evolution_sigma_error(const evolution_transport *x, const evolution_rows *r, int a, int t, const double *num);
/* Collective: /evolution's msd, diffusivity, and with them the density of states, <v_a^2>, sigma,
 * its semiclassical maximum, the mean free path and, where D has fallen, the localization length. */
void evolution_write_transport(const run_state *s, hm_output *out, const evolution_rows *r,
                               const evolution_transport *x);
/* Rank 0: the transport's lines of the run summary. */
void evolution_print_transport(const run_state *s, const evolution_rows *r, const evolution_transport *x);
#endif
