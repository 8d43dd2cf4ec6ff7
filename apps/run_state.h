/* The state of one `hamlet run`, shared by the harness (run.c: deck, context, phases, energy,
 * common output groups) and the methods (run_kpm.c, ...). A method names its own phases. */
#ifndef HAMLET_RUN_STATE_H
#define HAMLET_RUN_STATE_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "app.h"
#include "checkpoint_identity.h"
#include "deck.h"
#include "energy.h"
#include "memory.h"
#include "progress.h"
#include "stop.h"

enum { RUN_MAX_PHASES = 8 };

typedef struct {
  hm_deck deck;
  const hm_run_args *args;
  hm_context *ctx;
  int rank, size;
  char backend_text[64];    /* "cpu", "cuda" or "mixed (g on GPUs, c on CPUs)" */
  const char *output;       /* result file (-o or the deck's) */
  char export_mass[HM_PATH_MAX]; /* hamlet export: where the mass matrix goes (-o's name with _mass) */
  char export_velocity[3][HM_PATH_MAX]; /* and the velocities v_x, v_y, v_z (-o's name with _vx, _vy, _vz) */
  int export_h5;                 /* hamlet export -o *.h5: one HDF5 file holds them all (and the rows' geometry) */
  char checkpoint_path[HM_PATH_MAX];
  int nphases;
  const char *const *phase_name;
  double seconds[RUN_MAX_PHASES];
  hm_energy_meter *energy;  /* GPU (NVML) and CPU package (RAPL) meters of this node, if any */
  int nmeters;
  double *joules;           /* [RUN_MAX_PHASES][nmeters] */
  int checkpoints_written;
  hm_progress progress;
  run_stop stop;            /* signals and walltime: the solvers' stop callback */
#ifdef HAMLET_TEST_HOOKS
  useconds_t test_delay_us;   /* HAMLET_TEST_STEP_DELAY_US: slows steps so tests can stop a run mid-way */
  const char *test_step_file; /* HAMLET_TEST_STEP_FILE: made by rank 0 once a slowed step is done, the event a
                               * test waits for before it signals the run */
#endif
  hm_output **open_output;  /* the result file being written: removed (its .tmp) when the run fails */
  /* restart: what the checkpoint header gave */
  double restart_emin, restart_emax;
  /* batch jobs (threads.c, run_batch.c): rank 0's gathered binding lines; peak memory in bytes */
  char *binding;
  hm_memory_peaks memory;
  /* The identity of this run's H (computed once H is built): every checkpoint of the run carries it */
  hm_ham_identity identity;
  int identity_known;
  /* lattice sites (ti) or unit cells (lattice): orbitals of each, rows = orbitals x site index;
   * and the orbitals of vacant sites (decoupled zero modes that the KPM DOS leaves out) */
  int site_orbitals;
  int64_t vacant_orbitals;
  /* model = lattice, method = conductivity (model_lattice_velocity.c): lattice vectors (rows),
   * orbital positions [orbitals][3] and the velocity operators v_x, v_y, v_z the components need */
  double lattice_cell[9];
  double *lattice_positions;
  /* model = lattice: the Wannier90 seedname_wsvec.dat applied ("" if none) and a sentence saying why */
  char lattice_wsvec[HM_PATH_MAX], lattice_wsvec_note[HM_PATH_MAX + 256];
  hm_matrix *velocity[3];
  /* model = structure (model_structure.c): atoms per cell, bonds in the cell, the shortest and longest */
  int64_t structure_atoms, structure_bonds;
  double structure_bond_range[2];
  /* [conductivity] current = spin_z: S_z per orbital (+1 up, -1 down, 0 unlabelled) and the currents
   * {S_z, v_a} / 2 the components' left sides need */
  double *current_operator; /* S per cell, complex [orbitals][orbitals] (hm_current_blocks_operator) */
  hm_matrix *current[3];
  /* [evolution] msd (model_lattice_velocity.c): the velocities v_a = i[H, X_a] of the directions it names */
  hm_matrix *msd_velocity[3];
  int64_t rows; /* N, the rows of H: the summary's host bytes per orbital */
} run_state;

/* What this run's checkpoints carry: its H's identity, or NULL before H is built. */
static inline const hm_ham_identity *run_identity(const run_state *s) {
  return s->identity_known ? &s->identity : NULL;
}

/* Library failures end the whole run: every failing rank prints its message, then the ranks agree
 * on the exit (app_fail.c). APP_CALL_INPUT: a failure there is bad input (exit 2) whatever its
 * status, e.g. reading the checkpoint given to restart. */
#define APP_CALL(expr)                                                                        \
  do {                                                                                        \
    int app_status_ = (expr);                                                                 \
    if (app_status_) hm_app_fail(s->rank, app_status_);                                       \
  } while (0)
#define APP_CALL_INPUT(expr)                                                                  \
  do {                                                                                        \
    if (expr) hm_app_fail(s->rank, HM_ERR_INPUT);                                             \
  } while (0)

/* Only the hamlet_testhooks build (tests) can slow its steps; hamlet has no hook. */
#ifdef HAMLET_TEST_HOOKS
void run_test_delay(run_state *s);
#define RUN_TEST_DELAY(s) run_test_delay(s)
#else
#define RUN_TEST_DELAY(s) ((void)(s))
#endif

/* A method that stopped (signal, walltime) has written its checkpoint: say how to continue. */
int run_stopped(run_state *s, const char *where);

/* A phase's start: wall time and meter readings; run_phase_add charges what passed since. */
typedef struct {
  double t;
  double *joules;
} run_mark;

void run_mark_now(run_state *s, run_mark *m);
void run_phase_add(run_state *s, const run_mark *m, int phase);
/* A checkpoint begun at m is written: its time and energy to `phase`, its duration to the walltime
 * margin (stop.h), the count; frees m's readings. */
void run_checkpoint_done(run_state *s, run_mark *m, int phase);
/* Move what phase `inner` got out of phase `outer` (e.g. checkpoints written during the solve). */
void run_phase_exclude(run_state *s, int outer, int inner);
/* Collective: is a checkpoint due after `done` units of work (every checkpoint_every of them, or
 * checkpoint_seconds since t_last by rank 0's clock)? */
int run_checkpoint_due(const run_state *s, int done, double t_last);
/* The method's phases (names live as long as the run). */
void run_set_phases(run_state *s, int n, const char *const *names);
/* Open the result file with /input, /provenance and /hamiltonian written. */
void run_output_open(run_state *s, const hm_matrix *H, hm_output **out);
/* Write /timing and /energy, charge the output's own time to phase io_phase, and commit. */
void run_output_commit(run_state *s, hm_output **out, const run_mark *io_start, int io_phase);
/* "hamlet <version>: <title>", the Hamiltonian and the parallel set-up (rank 0 prints). */
void run_print_header(const run_state *s, const char *title, const hm_matrix *H);
/* "  timing       build 0.1 s, ..." and the checkpoint line. */
void run_print_timing(const run_state *s);
/* The deck's Hamiltonian (and mass matrix M for a generalized problem, else NULL), built distributed. */
void run_build_model(run_state *s, hm_matrix **H, hm_matrix **M);
/* One summary line describing the Hamiltonian; /hamiltonian in the result file. */
void run_print_model(const run_state *s, const hm_matrix *H);
void run_write_model(run_state *s, hm_output *out, const hm_matrix *H);
/* model = lattice (model_lattice.c). */
void run_build_lattice(run_state *s, hm_matrix **H);
/* Before a model is built (run_sizes.c): its size from the deck (a lattice's cells and orbitals, the
 * ti's sites, a Matrix Market size line) against the rows one rank may own and the host memory they
 * need at the least (entries_per_row: entries stored on the host per row, 0 where none are), and nev
 * against it; a refusal names the deck's line and ends every rank with exit 2. Collective. */
void run_check_size(run_state *s, int line, const char *what, double n, double block, double entries_per_row);
void run_check_lattice_size(run_state *s, const int64_t cells[3], int orbitals, const char *model,
                            double entries_per_row);
void run_check_ti_size(run_state *s, double entries_per_row);
void run_check_mtx_size(run_state *s);
void run_write_lattice(run_state *s, hm_output *out, const hm_matrix *H);
void run_print_lattice(const run_state *s);
/* model = structure (model_structure.c). */
void run_build_structure(run_state *s, hm_matrix **H);
/* A structure's cell: its rows (orbitals, atom by atom), lattice vectors (rows of cell), the rows' positions
 * (malloc'd) and, unless labels is NULL, their labels (malloc'd, "C" or "C:pz" words). Not collective. */
void run_structure_cell(run_state *s, int *rows, double cell[9], double **positions, char **labels);
void run_write_structure(run_state *s, hm_output *out, const hm_matrix *H);
void run_print_structure(const run_state *s);
/* The geometry of model = lattice's rows: cells, orbitals per cell, lattice vectors (lattice[3k + d])
 * and orbital positions (malloc'd [orbitals][3]); with zeeman_layers folded (cells[2] = 1, orbitals
 * = nz x the model's), *layer_orbitals = the model's orbitals, else 0; spin (or NULL): the orbitals'
 * labels (malloc'd [orbitals]: +1 up, -1 down, 0 none). */
void run_lattice_geometry(run_state *s, int64_t cells[3], int *orbitals, double lattice[9], double **positions,
                          int *layer_orbitals, int **spin);
int run_marker(run_state *s, hm_matrix *H, hm_matrix *M);
/* model = lattice with method = conductivity (else no-ops): keep the cell's geometry, then make the
 * velocity operators of the components from the supercell's stencil (model_lattice_velocity.c). */
void run_lattice_keep_geometry(run_state *s, const double cell[3][3], int orbitals, const double *positions);
void run_lattice_velocities(run_state *s, const hm_stencil *st, hm_stencil_storage storage);
void run_lattice_msd_velocities(run_state *s, const hm_stencil *st, hm_stencil_storage storage);
void run_lattice_keep_spin(run_state *s, int orbitals, const int *spin, const char *file);
/* N / Omega of a lattice of cells[3] with `rows` rows: orbitals per area (one layer, or a slab open
 * along z: its sheet) or per volume, and sigma's unit then (e^2/h per layer, whole slab, or e^2/(h a)). */
double run_lattice_density(const run_state *s, const int64_t cells[3], int orbitals, const double lattice[9],
                           int64_t rows, const char **unit);

/* hamlet export (run_export.c): the deck's H, and its mass matrix where the model has one, as Matrix
 * Market files (every entry, as every method of the deck uses them; lattices built assembled). */
int run_export(run_state *s, hm_matrix *H, hm_matrix *M);
/* Whether the deck's model may have a mass matrix (FEM, a Matrix Market pencil). */
int run_export_has_mass(const hm_deck *d);

/* Output, checkpoint and input files are distinct, their directories writable, stale .tmp files
 * removed (paths.c); collective; returns an exit code (2 when refused). */
int run_check_paths(run_state *s);
/* Batch jobs: OpenMP threads from the rank's CPU set (collective; rank 0 keeps the binding lines
 * for the header), the progress unit of the method, peak memory in /memory and the summary. */
void run_choose_threads(run_state *s);
void run_print_binding(const run_state *s);
const char *run_progress_unit(const hm_deck *d);
void run_memory_write(run_state *s, hm_output *out);
void run_print_memory(const run_state *s);

/* The methods; each writes its result file and returns an exit code. */
int run_kpm(run_state *s, hm_matrix *H, hm_matrix *M);
int run_lobpcg(run_state *s, hm_matrix *H, hm_matrix *M);
int run_dense(run_state *s, hm_matrix *H, hm_matrix *M);
int run_idr(run_state *s, hm_matrix *H, hm_matrix *M);
int run_conductivity(run_state *s, hm_matrix *H, hm_matrix *M);
int run_interior(run_state *s, hm_matrix *H, hm_matrix *M); /* window eigenpairs by ChebFD (run_interior.c) */
int run_spectral(run_state *s, hm_matrix *H, hm_matrix *M); /* A(k, E) of model = ti or lattice (run_spectral.c) */
int run_evolution(run_state *s, hm_matrix *H, hm_matrix *M); /* states propagated in time (run_evolution.c) */
/* The conductivity of any lattice matrix whose rows are (cell, orbital) of cells[3], with its
 * lattice vectors (lattice[3k + d]) and orbital positions (positions[3i + d]); the TI calls it. */
int run_conductivity_geometry(run_state *s, hm_matrix *H, const int64_t cells[3], int orbitals,
                              const double lattice[9], const double *positions);
#endif
