/* Input decks (INI, parsed with libinih) validated against one schema (io/deck_schema.c):
 * unknown key, wrong type, out-of-range value, missing required key or conflicting options is
 * an HM_ERR_DECK error naming file, line, section, key and what is allowed. */
#ifndef HAMLET_DECK_H
#define HAMLET_DECK_H
#include "hamlet.h"

enum { HM_PATH_MAX = 4096, HM_DECK_MAX_SITES = 64, HM_DECK_MAX_ENERGIES = 100000, HM_DECK_MAX_PATH = 32 };
/* [evolution] start: what the state at t = 0 is (io/deck.c parses the text) */
enum { HM_START_RANDOM, HM_START_SITE, HM_START_GAUSSIAN, HM_START_FILE, HM_DECK_MAX_SPINOR = 64 };
/* [evolution] transport: the Kubo-Greenwood forms along the msd directions (bits) */
enum { HM_TRANSPORT_MSD = 1, HM_TRANSPORT_VAC = 2 };
/* Room for the schema's keys (deck_schema.c); the parser refuses a schema that outgrows it. */
enum { HM_DECK_MAX_KEYS = 192 };

typedef enum { HM_MODEL_TI = 0, HM_MODEL_FEM = 1, HM_MODEL_MTX = 2, HM_MODEL_CONVDIFF = 3, HM_MODEL_LATTICE = 4,
               HM_MODEL_STRUCTURE = 5 } hm_deck_model;
typedef enum {
  HM_METHOD_KPM = 0, HM_METHOD_LOBPCG = 1, HM_METHOD_DENSE = 2, HM_METHOD_IDR = 3, HM_METHOD_CONDUCTIVITY = 4,
  HM_METHOD_MARKER = 5,
  HM_METHOD_SPECTRAL = 6,
  HM_METHOD_INTERIOR = 7,
  HM_METHOD_EVOLUTION = 8
} hm_deck_method;
/* [hamiltonian] zeeman_layers (model = lattice): the z layers the zeeman term acts on. */
enum { HM_ZEEMAN_ALL = 0, HM_ZEEMAN_TOP = 1, HM_ZEEMAN_BOTTOM = 2, HM_ZEEMAN_BOTH = 3 };
/* Words of [hamiltonian] potential (bits of a set). */
enum {
  HM_POTENTIAL_DOTS = 1, HM_POTENTIAL_DISORDER = 2,                          /* ti */
  HM_POTENTIAL_HARMONIC = 4, HM_POTENTIAL_WELL = 8, HM_POTENTIAL_GRID = 16   /* fem */
};

typedef struct {
  char name[HM_PATH_MAX]; /* file the text came from (for messages) */
  char *text;             /* the whole deck text (malloc'd), stored in every output */
  /* Per schema key (index into hm_deck_keys): the line it was given on (0 = defaulted or absent)
   * and whether it applies to this deck; later checks name the line of the key they refuse. */
  int key_line[HM_DECK_MAX_KEYS];
  unsigned char key_applies[HM_DECK_MAX_KEYS];
  /* [run] */
  hm_backend backend;
  double gpu_weight;             /* backend = mixed: a GPU rank's share relative to a CPU rank's */
  int gpu_format;                /* hm_format of the GPU products (auto) */
  int sell_sigma;                /* gpu_format = sell: sorting window in rows, 0 = per matrix */
  double progress_seconds;       /* between progress lines in a batch log; 0 = off */
  char output[HM_PATH_MAX];      /* default "hamlet.h5" */
  char checkpoint[HM_PATH_MAX];  /* "" = <output without .h5>_checkpoint.h5 */
  int checkpoint_every;          /* moment pairs / iterations / outer iterations; 0 = off */
  double checkpoint_seconds;     /* 0 = off */
  char walltime_text[64];        /* as given: seconds or HH:MM:SS; "" = none */
  double walltime;               /* seconds from the start of the run; 0 = none */
  /* [hamiltonian] */
  int model;                     /* hm_deck_model */
  int potential;                 /* HM_POTENTIAL_* bits */
  hm_ti_params ti;               /* model = ti */
  hm_fem_params fem;             /* model = fem (potential kind set from potential and well_shape) */
  int well_shape;
  char grid_file[HM_PATH_MAX], grid_dataset[256];
  char matrix_file[HM_PATH_MAX], mass_file[HM_PATH_MAX]; /* model = mtx */
  hm_convdiff_params convdiff;   /* model = convdiff */
  struct {                       /* model = lattice (nx ny nz, boundary, disorder in ti's fields) */
    char file[HM_PATH_MAX], centres[HM_PATH_MAX];
    char wsvec[HM_PATH_MAX];     /* auto, none or Wannier90's seedname_wsvec.dat (model_lattice.c) */
    int format, storage;         /* hm_lattice_format; 0 auto, 1 assembled, 2 matrix_free */
    int gpu_kernel;              /* hm_stencil_kernel of a matrix-free operator (0 auto) */
    int arithmetic;              /* 0 auto, 1 real, 2 complex (model_lattice.c decides auto) */
    char a_text[3][256], twist_text[256], zeeman_text[256], field_text[256];
    int cell_given;
    double cell[3][3], twist[3], zeeman[3], field[3];
    double vacancies;
    uint64_t vacancy_seed;
    int zeeman_layers;           /* HM_ZEEMAN_* : which z layers get the zeeman term */
    int zeeman_sign;             /* zeeman_layers = both: 0 parallel, 1 antiparallel (bottom gets -B) */
  } lattice;
  struct {                       /* model = structure (nx ny nz, boundary in ti's fields) */
    char file[HM_PATH_MAX];      /* extended XYZ */
    char table[HM_PATH_MAX];     /* hopping = table: lines "distance hopping" */
    int hopping;                 /* hm_hopping_kind of physics/lattice/structure.h */
    double cutoff, onsite, vpp_pi, vpp_sigma, vss_sigma, vsp_sigma, a0, d0, delta0;
    char orbitals[512], species_onsite[512]; /* as given: "C:pz B:s,pz", "B:3.3 N.s:-1" ("" = none) */
    int disorder_gaussian;       /* potential = disorder: gaussian of standard deviation W, else uniform */
    double bond_disorder;        /* B: hoppings times (1 + e), e uniform in [-B/2, B/2] per bond */
    uint64_t bond_seed;
    double impurities, impurity_onsite, impurity_hopping; /* probability per atom, its energy, its hoppings' factor */
    uint64_t impurity_seed;
  } structure;
  /* [solver] */
  struct {
    int method;                  /* hm_deck_method */
    int nev, block, which, maxit, precond, vectors, dense_solver, s, smoothing, residual_replacement, problem;
    double tol, omega_angle;
    uint64_t seed;
    int transform;               /* 0 = none, 1 = shift_invert (lobpcg on (A - shift B)^-1 B) */
    double shift;
    int multishift;              /* [green] energies: 0 auto, 1 yes, 2 no */
    int convergence;             /* lobpcg: hm_lobpcg_convergence (auto, relative, norm) */
    int inner, inner_maxit;      /* shift_invert: hm_shift_invert_inner (auto, direct, iterative), its limit */
    int outer;                   /* shift_invert: 0 = lobpcg, 1 = krylov_schur (thick-restart Lanczos), 2 = auto */
    int verify_copies;           /* krylov_schur: look for missed copies of degenerate eigenvalues (1) or not */
  } solver;
  /* [kpm] */
  hm_kpm_options kpm;
  hm_dos_options dos;
  /* [kpm] ldos_sites (model = ti): the LDOS at these sites instead of the DOS; nsites = 0: the DOS.
   * kpm.vectors is then 4 * nsites (the unit vectors of the sites' orbitals). */
  struct {
    char sites_text[1024];
    int nsites;
    int64_t sites[HM_DECK_MAX_SITES][3];
  } ldos;
  /* [green] (problem = green): energies and sites parsed from their text */
  struct {
    char energies_text[1024], list_text[4096], sites_text[1024];
    double eta;
    int nenergies;
    double *energies;            /* malloc'd, nenergies */
    int nsites;
    int64_t sites[HM_DECK_MAX_SITES][3];
    int rhs_per_solve;           /* multi-shift: site orbitals per solve; 0 = all at once */
  } green;
  /* [conductivity] (method = conductivity): components as direction pairs (0 x, 1 y, 2 z), the
   * chemical potentials (a grid) and temperatures parsed from their text; [kpm] trace */
  struct {
    char components_text[256], energies_text[256], temperatures_text[1024], frequencies_text[256];
    int ncomp, comp[9][2];
    int current;                 /* 0: charge; 1: spin_z = {S_z, v_a} / 2 on the lattice file's up/down orbitals */
    int nfreqs;                  /* 0: DC only; else the optical sigma at freqs (malloc'd) with broadening eta */
    double *freqs, eta;
    int nenergies, ntemps;
    double *energies;            /* malloc'd, nenergies */
    double temps[64];
    int kernel, moments, vectors, chunk, trace;
    int single_shot;             /* [conductivity] expansion = single_shot: sigma_aa(E) at T = 0, no moments */
    double lambda;
    uint64_t seed;
  } conductivity;
  /* [marker] (method = marker): the cells whose local Chern marker is computed, parsed from sites
   * (a list, `line` along x through the centre, `all`) or layers (the centre cell of each layer) */
  struct {
    char sites_text[4096], layers_text[1024];
    double mu, temperature;      /* temperature 0: the Jackson-damped step */
    int moments;
    int nsites;
    int64_t (*sites)[3];         /* malloc'd, nsites */
  } marker;
  /* [spectral] (method = spectral): the k path's points (a name of a high-symmetry point, resolved
   * by the app from the lattice, or reduced coordinates), samples per segment, and the layers */
  struct {
    char path_text[1024], layers_text[1024];
    int points;
    int npath;
    char names[HM_DECK_MAX_PATH][2]; /* "G", "X", "M", "R", "K"; "" where coordinates were given */
    double path[HM_DECK_MAX_PATH][3];
    int nlayers;                     /* 0 = bulk: the whole supercell */
    int *layers;                     /* malloc'd, nlayers z indices (0-based; the deck gives 1-based) */
  } spectral;
  /* [interior] (method = interior): the window parsed from its text 'Emin Emax' */
  struct {
    char window_text[256];
    double emin, emax, tol;
    int vectors, search, degree;
  } interior;
  /* [evolution] (method = evolution): time step, steps, accuracy, and the start state parsed from its
   * text: random-phase vectors, or one orbital of one lattice site */
  struct {
    double dt, accuracy;
    int steps, vectors;
    uint64_t seed;
    char start_text[HM_PATH_MAX];
    int start_kind;              /* HM_START_RANDOM, _SITE, _GAUSSIAN or _FILE */
    int64_t site[3];             /* site: the cell and orbital */
    int orbital;
    double centre[3], width, momentum[3]; /* gaussian: cartesian centre, width and wave vector */
    char start_file[HM_PATH_MAX];         /* file: a Matrix Market vector, resolved from the deck's folder */
    char spinor_text[256];       /* gaussian: the orbitals' amplitudes, real or (re, im) pairs */
    int nspinor;
    double spinor[2 * HM_DECK_MAX_SPINOR];
    int msd;                     /* directions of the mean-square displacement: bits 1 x, 2 y, 4 z */
    int transport;               /* along the msd directions: HM_TRANSPORT_MSD and/or HM_TRANSPORT_VAC bits */
    int snapshots, snapshot_layer; /* the density of layer z = snapshot_layer every `snapshots` steps */
    char energies_text[256];
    int moments, nenergies;
    double *energies;            /* [nenergies], from energies_text */
  } evolution;
  /* [rhs] (problem = linear) */
  struct {
    int kind;                    /* 0 ones, 1 random, 2 file */
    char file[HM_PATH_MAX];
  } rhs;
} hm_deck;

/* Parse and validate deck text; `name` is used in messages. Not collective. */
int hm_deck_parse_string(const char *text, const char *name, hm_deck *deck);
/* Read a file and parse it (reads on every caller; apps read on rank 0 and broadcast the text). */
int hm_deck_read_file(const char *path, char **text);
void hm_deck_free(hm_deck *deck);
/* The checkpoint file name the run uses (deck's, or derived from output). */
/* "3600" or "01:00:00" -> seconds (> 0); returns 1 if the text is neither. */
int hm_deck_parse_walltime(const char *text, double *seconds);
void hm_deck_checkpoint_path(const hm_deck *deck, char *path, size_t len);
/* The line key `section` `key` was given on (0 = not given or no such key). */
int hm_deck_line(const hm_deck *deck, const char *section, const char *key);
#endif
