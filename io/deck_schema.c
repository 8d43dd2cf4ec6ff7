/* The deck schema (the one description of every key) and the strict parsing of one value. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "deck_schema.h"

#define AT(member) .offset = offsetof(hm_deck, member), .size = sizeof(((hm_deck *)0)->member)
#define NO_FIELD .offset = HM_KEY_NO_FIELD, .size = 0
#define RANGE(lo, hi) .has_min = 1, .min = (lo), .has_max = 1, .max = (hi)
#define AT_LEAST(lo) .has_min = 1, .min = (lo)
#define ABOVE(lo) .has_min = 1, .min = (lo), .flags = HM_KEY_MIN_OPEN
#define INT_FIELD_MAX .has_max = 1, .max = INT_MAX
#define ABOVE_UPTO(lo, hi) .has_min = 1, .min = (lo), .flags = HM_KEY_MIN_OPEN, .has_max = 1, .max = (hi)
/* Finite ranges where no physics limit applies, so that no arithmetic overflows: energies and
 * couplings up to 1e100 (their squares, summed over 2^50 rows of unnormalised vectors, stay finite);
 * lengths and frequencies in [1e-50, 1e50] (1/h^2 and omega^2 x^2 stay finite). */
#define ENERGY RANGE(-1e100, 1e100)
#define LENGTH RANGE(1e-50, 1e50)
#define POSITION RANGE(-1e50, 1e50)

const char *const hm_deck_sections[] = {"run",  "hamiltonian",  "solver", "kpm",     "green",
                                        "rhs",  "conductivity", "marker", "spectral", "interior",
                                        "evolution", NULL};

const hm_deck_key hm_deck_keys[] = {
    /* [run] */
    {.section = "run", .key = "backend", .type = HM_KEY_WORD, .words = {"auto", "cpu", "cuda", "mixed"},
     .values = {HM_BACKEND_AUTO, HM_BACKEND_CPU, HM_BACKEND_CUDA, HM_BACKEND_MIXED}, .def = "auto", AT(backend),
     .help = "where the work runs; auto picks cuda when every rank sees a GPU; mixed: GPU ranks and CPU ranks together"},
    {.section = "run", .key = "gpu_weight", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e6), .def = "1", .when_key = "backend",
     .when_word = "mixed", AT(gpu_weight),
     .help = "rows of a GPU rank relative to a CPU rank (e.g. the ratio of their measured speeds)"},
    {.section = "run", .key = "gpu_format", .type = HM_KEY_WORD, .words = {"auto", "csr", "sell"},
     .values = {HM_FORMAT_AUTO, HM_FORMAT_CSR, HM_FORMAT_SELL}, .def = "auto", AT(gpu_format),
     .help = "format of the GPU products: auto = SELL-C-sigma for narrow blocks, CSR above (measured); csr = no "
             "SELL copy (saves its device memory); sell = SELL-C-sigma at every block width; CPU ranks read CSR"},
    {.section = "run", .key = "sell_sigma", .type = HM_KEY_INT, AT_LEAST(0), INT_FIELD_MAX, .def = "0",
     .when_key = "gpu_format", .when_word = "sell", AT(sell_sigma),
     .help = "SELL sorting window in rows; 0 = chosen per matrix (smallest with padding within 3%), 1 = no sorting"},
    {.section = "run", .key = "progress_seconds", .type = HM_KEY_DOUBLE, RANGE(0, 1e9), .def = "60",
     AT(progress_seconds),
     .help = "seconds between timestamped progress lines when stderr is not a terminal (batch log); 0 = off"},
    {.section = "run", .key = "output", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_WRITTEN, .def = "hamlet.h5",
     AT(output), .help = "HDF5 result file"},
    {.section = "run", .key = "checkpoint", .type = HM_KEY_STRING, .flags = HM_KEY_WRITTEN, .def = "", AT(checkpoint),
     .help = "checkpoint file; empty = <output without .h5>_checkpoint.h5"},
    {.section = "run", .key = "checkpoint_every", .type = HM_KEY_INT, AT_LEAST(0), INT_FIELD_MAX, .def = "0",
     AT(checkpoint_every), .help = "between checkpoints: moment pairs (kpm), iterations (lobpcg), restarts "
                                   "(outer = krylov_schur), outer iterations (idr), batches of cells (marker), left "
                                   "chunks (conductivity; start vectors with expansion = single_shot), batches of k points (spectral), "
                                   "filter passes (interior), time steps (evolution); 0 = off"},
    {.section = "run", .key = "checkpoint_seconds", .type = HM_KEY_DOUBLE, AT_LEAST(0), .def = "0",
     AT(checkpoint_seconds), .help = "wall seconds between checkpoints; 0 = off"},
    {.section = "run", .key = "walltime", .type = HM_KEY_STRING, .flags = HM_KEY_TEXT, .def = "", AT(walltime_text),
     .help = "seconds or HH:MM:SS the run may take: it checkpoints and exits 4 early enough to stop in time; "
             "empty = none (SLURM_JOB_END_TIME is honoured too)"},
    /* [hamiltonian] */
    {.section = "hamiltonian", .key = "model", .type = HM_KEY_WORD, .words = {"ti", "fem", "mtx", "convdiff", "lattice", "structure"},
     .values = {HM_MODEL_TI, HM_MODEL_FEM, HM_MODEL_MTX, HM_MODEL_CONVDIFF, HM_MODEL_LATTICE, HM_MODEL_STRUCTURE},
     .need = HM_KEY_REQUIRED, AT(model),
     .help = "ti = 3D topological insulator lattice, fem = finite-element Schroedinger operator, mtx = Matrix Market "
             "files, convdiff = 3D convection-diffusion, lattice = a tight-binding model from a file, structure = "
             "p_z orbitals on the atoms of an extended XYZ file with a distance rule (twisted bilayers)"},
    /* model = ti */
    {.section = "hamiltonian", .key = "nx", .type = HM_KEY_INT, AT_LEAST(1), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "model", .when_word = "ti|lattice|structure", AT(ti.nx),
     .help = "lattice sites (ti) or unit cells (lattice, structure) along x"},
    {.section = "hamiltonian", .key = "ny", .type = HM_KEY_INT, AT_LEAST(1), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "model", .when_word = "ti|lattice|structure", AT(ti.ny),
     .help = "lattice sites (ti) or unit cells (lattice, structure) along y"},
    {.section = "hamiltonian", .key = "nz", .type = HM_KEY_INT, AT_LEAST(1), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "model", .when_word = "ti|lattice|structure", AT(ti.nz),
     .help = "lattice sites (ti) or unit cells (lattice, structure) along z"},
    {.section = "hamiltonian", .key = "boundary", .type = HM_KEY_WORD_LIST, .count = 3,
     .words = {"periodic", "open", "twisted"}, .values = {HM_BC_PERIODIC, HM_BC_OPEN, HM_BC_TWISTED},
     .def = "periodic periodic periodic", .when_key = "model", .when_word = "ti|lattice|structure", AT(ti.boundary),
     .help = "boundary conditions along x y z (twisted: model = lattice, with twist)"},
    /* model = structure */
    {.section = "hamiltonian", .key = "structure_file", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY,
     .need = HM_KEY_REQUIRED_WHEN, .when_key = "model", .when_word = "structure", AT(structure.file),
     .help = "extended XYZ: atom count, Lattice=\"a1 a2 a3\" (angstrom) [pbc=\"T T F\"], lines 'species x y z'; "
             "one p_z orbital per atom unless orbitals says otherwise (hamlet structure tbg writes twisted bilayers)"},
    {.section = "hamiltonian", .key = "hopping", .type = HM_KEY_WORD,
     .words = {"slater_koster", "slater_koster_pz", "table"}, .values = {0, 0, 1}, .def = "slater_koster",
     .when_key = "model", .when_word = "structure", AT(structure.hopping),
     .help = "the hopping of a bond d, n = d / |d|: slater_koster: two-centre integrals of the orbitals, p_z-p_z "
             "V_pi (1 - n_z^2) + V_sigma n_z^2, p_a-p_b n_a n_b V_sigma + (delta_ab - n_a n_b) V_pi, s-s V_ss, "
             "s-p_a n_a V_sp, with V_pi = vpp_pi exp(-(|d| - a0) / delta0), V_sigma = vpp_sigma exp(-(|d| - d0) / "
             "delta0), V_ss and V_sp = vss_sigma and vsp_sigma times exp(-(|d| - a0) / delta0) (slater_koster_pz: "
             "the same rule, its earlier name); table: hopping_table's t(|d|), one orbital per atom"},
    {.section = "hamiltonian", .key = "hopping_table", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY,
     .need = HM_KEY_REQUIRED_WHEN, .when_key = "hopping", .when_word = "table", AT(structure.table),
     .help = "lines 'distance hopping' (angstrom, eV), distances increasing; linear between them; a bond shorter "
             "than cutoff outside them is an error"},
    {.section = "hamiltonian", .key = "cutoff", .type = HM_KEY_DOUBLE, RANGE(1e-3, 1e3), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "model", .when_word = "structure", AT(structure.cutoff),
     .help = "bonds shorter than this (angstrom) get a hopping"},
    {.section = "hamiltonian", .key = "onsite", .type = HM_KEY_DOUBLE, ENERGY, .def = "0", .when_key = "model",
     .when_word = "structure", AT(structure.onsite), .help = "every orbital's on-site energy (eV)"},
    {.section = "hamiltonian", .key = "orbitals", .type = HM_KEY_STRING, .flags = HM_KEY_TEXT, .def = "",
     .when_key = "model", .when_word = "structure", AT(structure.orbitals),
     .help = "the orbitals of each species, 'SPECIES:ORB[,ORB...]' words with ORB one of s px py pz (rows in "
             "that order, atom by atom), every species of the file listed; empty: one p_z per atom"},
    {.section = "hamiltonian", .key = "species_onsite", .type = HM_KEY_STRING, .flags = HM_KEY_TEXT, .def = "",
     .when_key = "model", .when_word = "structure", AT(structure.species_onsite),
     .help = "on-site energies added by species: 'SPECIES:E' (all its orbitals) or 'SPECIES.ORB:E' (ORB one of "
             "s px py pz p) words, of species that orbitals lists (eV)"},
    {.section = "hamiltonian", .key = "vpp_pi", .type = HM_KEY_DOUBLE, ENERGY, .def = "-2.7", .when_key = "hopping",
     .when_word = "slater_koster", AT(structure.vpp_pi), .help = "V_pp_pi at |d| = a0 (eV)"},
    {.section = "hamiltonian", .key = "vpp_sigma", .type = HM_KEY_DOUBLE, ENERGY, .def = "0.48", .when_key = "hopping",
     .when_word = "slater_koster", AT(structure.vpp_sigma), .help = "V_pp_sigma at |d| = d0 (eV)"},
    {.section = "hamiltonian", .key = "vss_sigma", .type = HM_KEY_DOUBLE, ENERGY, .def = "0", .when_key = "hopping",
     .when_word = "slater_koster", AT(structure.vss_sigma), .help = "V_ss_sigma at |d| = a0 (eV)"},
    {.section = "hamiltonian", .key = "vsp_sigma", .type = HM_KEY_DOUBLE, ENERGY, .def = "0", .when_key = "hopping",
     .when_word = "slater_koster", AT(structure.vsp_sigma),
     .help = "V_sp_sigma at |d| = a0 (eV; s on the bond's first atom, p_a on its second: n_a V_sp)"},
    {.section = "hamiltonian", .key = "a0", .type = HM_KEY_DOUBLE, RANGE(1e-3, 1e3), .def = "1.4202816622064793",
     .when_key = "hopping", .when_word = "slater_koster", AT(structure.a0),
     .help = "the in-plane bond of V_pp_pi, V_ss_sigma and V_sp_sigma (angstrom; graphene's 2.46 / sqrt 3)"},
    {.section = "hamiltonian", .key = "d0", .type = HM_KEY_DOUBLE, RANGE(1e-3, 1e3), .def = "3.35", .when_key = "hopping",
     .when_word = "slater_koster", AT(structure.d0), .help = "the interlayer distance of V_pp_sigma (angstrom)"},
    {.section = "hamiltonian", .key = "delta0", .type = HM_KEY_DOUBLE, RANGE(1e-3, 1e3), .def = "0.45264",
     .when_key = "hopping", .when_word = "slater_koster", AT(structure.delta0),
     .help = "the decay length of every integral (angstrom; 0.184 x 2.46)"},
    /* model = lattice */
    {.section = "hamiltonian", .key = "lattice_file", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY,
     .need = HM_KEY_REQUIRED_WHEN, .when_key = "model", .when_word = "lattice", AT(lattice.file),
     .help = "the model: hamlet's lattice format, a Wannier90 seedname_hr.dat or seedname_tb.dat"},
    {.section = "hamiltonian", .key = "lattice_format", .type = HM_KEY_WORD,
     .words = {"auto", "hamlet", "wannier90_hr", "wannier90_tb"}, .values = {0, 1, 2, 3}, .def = "auto",
     .when_key = "model", .when_word = "lattice", AT(lattice.format),
     .help = "format of lattice_file; auto: *_hr.dat and *_tb.dat are Wannier90's, anything else hamlet's"},
    {.section = "hamiltonian", .key = "centres", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY, .when_key = "model",
     .when_word = "lattice", AT(lattice.centres),
     .help = "Wannier90 seedname_centres.xyz: the orbital positions (default the cell origin, or the _tb.dat's)"},
    {.section = "hamiltonian", .key = "wsvec", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY, .def = "auto",
     .words = {"auto", "none"}, /* not file names (deck_files.c) */
     .when_key = "model", .when_word = "lattice", AT(lattice.wsvec),
     .help = "Wannier90 seedname_wsvec.dat (hoppings spread over its images R + T); auto: the one beside the _hr.dat "
             "or _tb.dat if it exists; none: not used (a file named auto or none: ./auto)"},
    {.section = "hamiltonian", .key = "a1", .type = HM_KEY_STRING, POSITION, .when_key = "model", .when_word = "lattice",
     AT(lattice.a_text[0]), .help = "lattice vector a1 'x y z' of a _hr.dat (default 1 0 0)"},
    {.section = "hamiltonian", .key = "a2", .type = HM_KEY_STRING, POSITION, .when_key = "model", .when_word = "lattice",
     AT(lattice.a_text[1]), .help = "lattice vector a2 'x y z' of a _hr.dat (default 0 1 0)"},
    {.section = "hamiltonian", .key = "a3", .type = HM_KEY_STRING, POSITION, .when_key = "model", .when_word = "lattice",
     AT(lattice.a_text[2]), .help = "lattice vector a3 'x y z' of a _hr.dat (default 0 0 1)"},
    {.section = "hamiltonian", .key = "twist", .type = HM_KEY_STRING, RANGE(-1e6, 1e6), .when_key = "model",
     .when_word = "lattice", AT(lattice.twist_text),
     .help = "'tx ty tz': phases (radians) of hops across twisted boundaries; 0 on the other directions"},
    {.section = "hamiltonian", .key = "zeeman", .type = HM_KEY_STRING, ENERGY, .when_key = "model",
     .when_word = "lattice", AT(lattice.zeeman_text),
     .help = "'Bx By Bz': B . sigma on orbital pairs labelled spin up and down (energies)"},
    {.section = "hamiltonian", .key = "zeeman_layers", .type = HM_KEY_WORD, .words = {"all", "top", "bottom", "both"},
     .values = {HM_ZEEMAN_ALL, HM_ZEEMAN_TOP, HM_ZEEMAN_BOTTOM, HM_ZEEMAN_BOTH}, .def = "all", .when_key = "model",
     .when_word = "lattice", AT(lattice.zeeman_layers),
     .help = "z layers the zeeman term acts on: all, top (z = nz - 1), bottom (z = 0) or both surfaces of a slab "
             "(boundary open along z)"},
    {.section = "hamiltonian", .key = "zeeman_sign", .type = HM_KEY_WORD, .words = {"parallel", "antiparallel"},
     .values = {0, 1}, .def = "parallel", .when_key = "zeeman_layers", .when_word = "both", AT(lattice.zeeman_sign),
     .help = "zeeman_layers = both: the bottom layer's field parallel (+B) or antiparallel (-B) to the top's"},
    {.section = "hamiltonian", .key = "field", .type = HM_KEY_STRING, RANGE(-1e6, 1e6), .when_key = "model",
     .when_word = "lattice", AT(lattice.field_text),
     .help = "'Bx By Bz': uniform magnetic field in flux quanta per unit area (Peierls phases); the flux through "
             "every periodic face of the supercell must be an integer"},
    {.section = "hamiltonian", .key = "vacancies", .type = HM_KEY_DOUBLE, RANGE(0, 1), .def = "0", .when_key = "model",
     .when_word = "lattice", AT(lattice.vacancies),
     .help = "probability p in [0, 1) that a site is removed (seeded; its orbitals become decoupled zero modes)"},
    {.section = "hamiltonian", .key = "vacancy_seed", .type = HM_KEY_UINT64, .def = "1", .when_key = "model",
     .when_word = "lattice", AT(lattice.vacancy_seed), .help = "seed of the vacancies (same on any rank count)"},
    {.section = "hamiltonian", .key = "storage", .type = HM_KEY_WORD, .words = {"auto", "assembled", "matrix_free"},
     .values = {0, 1, 2}, .def = "auto", .when_key = "model", .when_word = "lattice", AT(lattice.storage),
     .help = "assembled = CSR (every method); matrix_free = products from the cell's blocks; auto = "
             "matrix_free for KPM on a GPU and for the single-shot conductivity, assembled otherwise"},
    {.section = "hamiltonian", .key = "gpu_kernel", .type = HM_KEY_WORD,
     .words = {"auto", "staged", "box", "mma", "small", "site"}, .values = {0, 1, 2, 3, 4, 5}, .def = "auto",
     .when_key = "model", .when_word = "lattice", AT(lattice.gpu_kernel),
     .help = "the GPU kernel of matrix-free products; auto chooses by the model and the vectors, the others are "
             "used wherever they can serve (benchmarks, tests; docs/architecture.md lists them)"},
    {.section = "hamiltonian", .key = "arithmetic", .type = HM_KEY_WORD, .words = {"auto", "real", "complex"},
     .values = {0, 1, 2}, .def = "auto", .when_key = "model", .when_word = "lattice", AT(lattice.arithmetic),
     .help = "real = the matrix-free operator in real arithmetic with real random vectors (half the vector memory; "
             "KPM and the single-shot charge conductivity only, a real lattice only); auto = real for those on a "
             "matrix-free real lattice, complex otherwise"},
    {.section = "hamiltonian", .key = "t", .type = HM_KEY_DOUBLE, ENERGY, .def = "1", .when_key = "model", .when_word = "ti",
     AT(ti.t), .help = "hopping"},
    {.section = "hamiltonian", .key = "m", .type = HM_KEY_DOUBLE, ENERGY, .def = "2", .when_key = "model", .when_word = "ti",
     AT(ti.m), .help = "Wilson mass; strong TI for t < |m| < 3t"},
    {.section = "hamiltonian", .key = "potential", .type = HM_KEY_WORD_SET,
     .words = {"none", "dots", "disorder", "harmonic", "well", "grid"},
     .values = {0, HM_POTENTIAL_DOTS, HM_POTENTIAL_DISORDER, HM_POTENTIAL_HARMONIC, HM_POTENTIAL_WELL, HM_POTENTIAL_GRID},
     .def = "none", AT(potential),
     .help = "potentials to add: ti takes dots and/or disorder; fem takes one of harmonic, well, grid"},
    {.section = "hamiltonian", .key = "dot_period_x", .type = HM_KEY_INT, AT_LEAST(1), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "potential", .when_word = "dots", AT(ti.dot_period_x), .help = "dot superlattice period in x (sites)"},
    {.section = "hamiltonian", .key = "dot_period_y", .type = HM_KEY_INT, AT_LEAST(1), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "potential", .when_word = "dots", AT(ti.dot_period_y), .help = "dot superlattice period in y (sites)"},
    {.section = "hamiltonian", .key = "dot_radius", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e50), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "potential", .when_word = "dots", AT(ti.dot_radius), .help = "dot radius (sites)"},
    {.section = "hamiltonian", .key = "dot_v0", .type = HM_KEY_DOUBLE, ENERGY, .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "potential", .when_word = "dots", AT(ti.dot_v0), .help = "potential inside a dot"},
    {.section = "hamiltonian", .key = "dot_depth", .type = HM_KEY_INT, AT_LEAST(0), .def = "0",
     .when_key = "potential", .when_word = "dots", AT(ti.dot_depth),
     .help = "dots reach through the top dot_depth z layers; 0 = all layers"},
    {.section = "hamiltonian", .key = "disorder_w", .type = HM_KEY_DOUBLE, RANGE(0, 1e100), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "potential", .when_word = "disorder", AT(ti.disorder_w),
     .help = "Anderson disorder: V uniform in [-W/2, W/2]"},
    {.section = "hamiltonian", .key = "disorder_seed", .type = HM_KEY_UINT64, .def = "1", .when_key = "potential",
     .when_word = "disorder", AT(ti.disorder_seed), .help = "seed of the disorder (same on any rank count)"},
    {.section = "hamiltonian", .key = "disorder_distribution", .type = HM_KEY_WORD, .words = {"uniform", "gaussian"},
     .values = {0, 1}, .def = "uniform", .when_key = "potential", .when_word = "disorder",
     AT(structure.disorder_gaussian),
     .help = "the on-site energies' distribution: uniform in [-W/2, W/2], or gaussian of standard deviation W "
             "(model = structure; ti and lattice: uniform)"},
    {.section = "hamiltonian", .key = "bond_disorder", .type = HM_KEY_DOUBLE, RANGE(0, 2), .def = "0",
     .when_key = "model", .when_word = "structure", AT(structure.bond_disorder),
     .help = "every hopping times (1 + e), e uniform in [-B/2, B/2] drawn per bond (the same both ways: H stays "
             "Hermitian); 0 = none"},
    {.section = "hamiltonian", .key = "bond_disorder_seed", .type = HM_KEY_UINT64, .def = "1", .when_key = "model",
     .when_word = "structure", AT(structure.bond_seed), .help = "seed of the bond disorder (same on any rank count)"},
    {.section = "hamiltonian", .key = "impurities", .type = HM_KEY_DOUBLE, RANGE(0, 1), .def = "0", .when_key = "model",
     .when_word = "structure", AT(structure.impurities),
     .help = "probability that an atom is an impurity (seeded, drawn per atom of the supercell): its on-site energy "
             "gets impurity_onsite and its hoppings the factor impurity_hopping; 0 = none"},
    {.section = "hamiltonian", .key = "impurity_onsite", .type = HM_KEY_DOUBLE, ENERGY, .def = "0",
     .when_key = "impurities", AT(structure.impurity_onsite), .help = "added to an impurity's on-site energy (eV)"},
    {.section = "hamiltonian", .key = "impurity_hopping", .type = HM_KEY_DOUBLE, RANGE(0, 1e6), .def = "1",
     .when_key = "impurities", AT(structure.impurity_hopping),
     .help = "factor on every hopping of an impurity (both directions; squared between two impurities)"},
    {.section = "hamiltonian", .key = "impurity_seed", .type = HM_KEY_UINT64, .def = "1", .when_key = "impurities",
     AT(structure.impurity_seed), .help = "seed of the impurities' places (same on any rank count)"},
    /* model = fem */
    {.section = "hamiltonian", .key = "ex", .type = HM_KEY_INT, RANGE(2, 1e6), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "model", .when_word = "fem", AT(fem.ex), .help = "finite elements along x"},
    {.section = "hamiltonian", .key = "ey", .type = HM_KEY_INT, RANGE(2, 1e6), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "model", .when_word = "fem", AT(fem.ey), .help = "finite elements along y"},
    {.section = "hamiltonian", .key = "ez", .type = HM_KEY_INT, RANGE(2, 1e6), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "model", .when_word = "fem", AT(fem.ez), .help = "finite elements along z"},
    {.section = "hamiltonian", .key = "lx", .type = HM_KEY_DOUBLE, LENGTH, .def = "1", .when_key = "model",
     .when_word = "fem", AT(fem.lx), .help = "box length along x"},
    {.section = "hamiltonian", .key = "ly", .type = HM_KEY_DOUBLE, LENGTH, .def = "1", .when_key = "model",
     .when_word = "fem", AT(fem.ly), .help = "box length along y"},
    {.section = "hamiltonian", .key = "lz", .type = HM_KEY_DOUBLE, LENGTH, .def = "1", .when_key = "model",
     .when_word = "fem", AT(fem.lz), .help = "box length along z"},
    {.section = "hamiltonian", .key = "centre_x", .type = HM_KEY_DOUBLE, POSITION, .when_key = "model", .when_word = "fem",
     AT(fem.centre[0]), .help = "centre of the harmonic potential or well along x (default: the box centre)"},
    {.section = "hamiltonian", .key = "centre_y", .type = HM_KEY_DOUBLE, POSITION, .when_key = "model", .when_word = "fem",
     AT(fem.centre[1]), .help = "centre along y (default: the box centre)"},
    {.section = "hamiltonian", .key = "centre_z", .type = HM_KEY_DOUBLE, POSITION, .when_key = "model", .when_word = "fem",
     AT(fem.centre[2]), .help = "centre along z (default: the box centre)"},
    {.section = "hamiltonian", .key = "omega_x", .type = HM_KEY_DOUBLE, RANGE(0, 1e50), .def = "1",
     .when_key = "potential", .when_word = "harmonic", AT(fem.omega[0]), .help = "harmonic frequency along x"},
    {.section = "hamiltonian", .key = "omega_y", .type = HM_KEY_DOUBLE, RANGE(0, 1e50), .def = "1",
     .when_key = "potential", .when_word = "harmonic", AT(fem.omega[1]), .help = "harmonic frequency along y"},
    {.section = "hamiltonian", .key = "omega_z", .type = HM_KEY_DOUBLE, RANGE(0, 1e50), .def = "1",
     .when_key = "potential", .when_word = "harmonic", AT(fem.omega[2]), .help = "harmonic frequency along z"},
    {.section = "hamiltonian", .key = "well_shape", .type = HM_KEY_WORD, .words = {"sphere", "box"},
     .values = {HM_FEM_POTENTIAL_SPHERE_WELL, HM_FEM_POTENTIAL_BOX_WELL}, .def = "sphere", .when_key = "potential",
     .when_word = "well", AT(well_shape), .help = "shape of the well"},
    {.section = "hamiltonian", .key = "well_depth", .type = HM_KEY_DOUBLE, ENERGY, .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "potential", .when_word = "well", AT(fem.well_depth), .help = "V = -well_depth inside the well"},
    {.section = "hamiltonian", .key = "well_radius", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e50), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "well_shape", .when_word = "sphere", AT(fem.well_radius), .help = "radius of a sphere well"},
    {.section = "hamiltonian", .key = "well_size_x", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e50), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "well_shape", .when_word = "box", AT(fem.well_size[0]), .help = "edge of a box well along x"},
    {.section = "hamiltonian", .key = "well_size_y", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e50), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "well_shape", .when_word = "box", AT(fem.well_size[1]), .help = "edge of a box well along y"},
    {.section = "hamiltonian", .key = "well_size_z", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e50), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "well_shape", .when_word = "box", AT(fem.well_size[2]), .help = "edge of a box well along z"},
    {.section = "hamiltonian", .key = "grid_file", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY,
     .need = HM_KEY_REQUIRED_WHEN, .when_key = "potential", .when_word = "grid", AT(grid_file),
     .help = "HDF5 file with the potential sampled on a uniform grid over the box"},
    {.section = "hamiltonian", .key = "grid_dataset", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .def = "potential", .when_key = "potential", .when_word = "grid", AT(grid_dataset),
     .help = "dataset [gz][gy][gx] in grid_file"},
    /* model = mtx */
    {.section = "hamiltonian", .key = "matrix", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY,
     .need = HM_KEY_REQUIRED_WHEN, .when_key = "model", .when_word = "mtx", AT(matrix_file),
     .help = "Matrix Market file of the matrix A (coordinate; real, complex or pattern)"},
    {.section = "hamiltonian", .key = "mass", .type = HM_KEY_STRING, .def = "", .when_key = "model",
     .when_word = "mtx", AT(mass_file), .help = "Matrix Market file of B for A x = lambda B x; empty = none"},
    /* model = convdiff */
    {.section = "hamiltonian", .key = "n", .type = HM_KEY_INT, RANGE(1, 100000), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "model", .when_word = "convdiff", AT(convdiff.n), .help = "interior grid points per direction"},
    {.section = "hamiltonian", .key = "eps", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e100), .def = "1", .when_key = "model",
     .when_word = "convdiff", AT(convdiff.eps), .help = "diffusion coefficient"},
    {.section = "hamiltonian", .key = "beta_x", .type = HM_KEY_DOUBLE, ENERGY, .def = "0", .when_key = "model",
     .when_word = "convdiff", AT(convdiff.beta[0]), .help = "convection velocity along x"},
    {.section = "hamiltonian", .key = "beta_y", .type = HM_KEY_DOUBLE, ENERGY, .def = "0", .when_key = "model",
     .when_word = "convdiff", AT(convdiff.beta[1]), .help = "convection velocity along y"},
    {.section = "hamiltonian", .key = "beta_z", .type = HM_KEY_DOUBLE, ENERGY, .def = "0", .when_key = "model",
     .when_word = "convdiff", AT(convdiff.beta[2]), .help = "convection velocity along z"},
    {.section = "hamiltonian", .key = "r", .type = HM_KEY_DOUBLE, ENERGY, .def = "0", .when_key = "model",
     .when_word = "convdiff", AT(convdiff.r), .help = "reaction coefficient"},
    /* [solver] */
    {.section = "solver", .key = "method", .type = HM_KEY_WORD,
     .words = {"kpm", "lobpcg", "dense", "idr", "conductivity", "marker", "spectral", "interior", "evolution"},
     .values = {HM_METHOD_KPM, HM_METHOD_LOBPCG, HM_METHOD_DENSE, HM_METHOD_IDR, HM_METHOD_CONDUCTIVITY,
                HM_METHOD_MARKER, HM_METHOD_SPECTRAL, HM_METHOD_INTERIOR, HM_METHOD_EVOLUTION},
     .def = "kpm",
     AT(solver.method),
     .help = "kpm = density of states, lobpcg = extreme eigenpairs, dense = all eigenvalues, idr = linear systems "
             "and Green's functions, conductivity = Kubo-Bastin sigma, marker = local Chern marker, spectral = A(k, E) "
             "along a k path, interior = every eigenpair in an energy window ([interior]), evolution = states propagated in time by exp(-i H dt)"},
    {.section = "solver", .key = "nev", .type = HM_KEY_INT, RANGE(1, 100000), .def = "4", .when_key = "method",
     .when_word = "lobpcg", AT(solver.nev), .help = "eigenpairs wanted"},
    {.section = "solver", .key = "block", .type = HM_KEY_INT, RANGE(0, 100000), .def = "0", .when_key = "method",
     .when_word = "lobpcg", AT(solver.block), .help = "block size >= nev; 0 = nev + max(2, nev/4)"},
    {.section = "solver", .key = "which", .type = HM_KEY_WORD, .words = {"smallest", "largest"}, .values = {0, 1},
     .def = "smallest", .when_key = "method", .when_word = "lobpcg", AT(solver.which),
     .help = "which end of the spectrum"},
    {.section = "solver", .key = "tol", .type = HM_KEY_DOUBLE, AT_LEAST(0), .def = "1e-8", .when_key = "method",
     .when_word = "lobpcg|idr", AT(solver.tol), .help = "relative residual to stop at"},
    {.section = "solver", .key = "maxit", .type = HM_KEY_INT, RANGE(1, 1e9), .def = "1000", .when_key = "method",
     .when_word = "lobpcg|idr", AT(solver.maxit), .help = "iteration limit"},
    {.section = "solver", .key = "convergence", .type = HM_KEY_WORD, .words = {"auto", "relative", "norm"},
     .values = {0, 1, 2}, .def = "auto", .when_key = "method", .when_word = "lobpcg", AT(solver.convergence),
     .help = "relative: ||r|| <= tol |lambda| ||Bx||; norm: ||r|| <= tol (||A|| + |lambda| ||B||) ||x||; "
             "auto: relative where rounding can reach it"},
    {.section = "solver", .key = "precond", .type = HM_KEY_WORD, .words = {"none", "jacobi"}, .values = {0, 1},
     .def = "none", .when_key = "method", .when_word = "lobpcg|idr", AT(solver.precond), .help = "preconditioner"},
    {.section = "solver", .key = "seed", .type = HM_KEY_UINT64, .def = "1", .when_key = "method",
     .when_word = "lobpcg|idr", AT(solver.seed), .help = "seed of the start block (lobpcg) or shadow space (idr)"},
    {.section = "solver", .key = "vectors", .type = HM_KEY_WORD, .words = {"no", "yes"}, .values = {0, 1},
     .def = "no", .when_key = "method", .when_word = "lobpcg|dense|idr", AT(solver.vectors),
     .help = "write the eigenvectors to /eigen/vectors (lobpcg, dense) or the solution to /solution/x (idr)"},
    {.section = "solver", .key = "transform", .type = HM_KEY_WORD, .words = {"none", "shift_invert"}, .values = {0, 1},
     .def = "none", .when_key = "method", .when_word = "lobpcg", AT(solver.transform),
     .help = "shift_invert: the nev eigenvalues nearest `shift` through inner solves of A - shift B (see inner) "
             "(ill-conditioned or clustered small eigenvalues; shift = 0 for the smallest of an SPD problem)"},
    {.section = "solver", .key = "shift", .type = HM_KEY_DOUBLE, ENERGY, .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "transform", .when_word = "shift_invert", AT(solver.shift),
     .help = "the shift sigma: the eigenvalues nearest it are computed"},
    {.section = "solver", .key = "inner", .type = HM_KEY_WORD, .words = {"auto", "direct", "iterative"},
     .values = {0, 1, 2}, .def = "auto", .when_key = "transform", .when_word = "shift_invert", AT(solver.inner),
     .help = "inner solves of A - shift B: direct = sparse factorization on rank 0, iterative = CG (definite) or "
             "MINRES (indefinite), distributed, auto = direct where it fits the gather limit"},
    {.section = "solver", .key = "inner_maxit", .type = HM_KEY_INT, RANGE(1, 1e9), .def = "10000",
     .when_key = "transform", .when_word = "shift_invert", AT(solver.inner_maxit),
     .help = "iterations per column of each iterative inner solve"},
    {.section = "solver", .key = "outer", .type = HM_KEY_WORD, .words = {"auto", "lobpcg", "krylov_schur"},
     .values = {2, 0, 1}, .def = "auto", .when_key = "transform", .when_word = "shift_invert", AT(solver.outer),
     .help = "the eigensolver on (A - shift B)^-1 B: krylov_schur (thick-restart Lanczos, 2 to 5 times fewer inner "
             "solves), lobpcg, or auto = krylov_schur"},
    {.section = "solver", .key = "verify_copies", .type = HM_KEY_WORD, .words = {"no", "yes"}, .values = {0, 1},
     .def = "yes", .when_key = "transform", .when_word = "shift_invert", AT(solver.verify_copies),
     .help = "krylov_schur: once converged, look for missed copies of degenerate eigenvalues from a fresh vector "
             "(yes), or trust the single-vector basis (no: fewer solves)"},
    {.section = "solver", .key = "dense_solver", .type = HM_KEY_WORD,
     .words = {"auto", "lapack", "cusolver", "scalapack", "distributed"}, .values = {0, 1, 2, 3, 4}, .def = "auto",
     .when_key = "method", .when_word = "dense", AT(solver.dense_solver),
     .help = "distributed = hamlet's two-stage solver over the ranks (the matrix never gathered); auto = ScaLAPACK on "
             "several ranks, cuSOLVER on a GPU, else LAPACK"},
    {.section = "solver", .key = "s", .type = HM_KEY_INT, RANGE(1, 64), .def = "4", .when_key = "method",
     .when_word = "idr", AT(solver.s), .help = "IDR shadow space dimension"},
    {.section = "solver", .key = "smoothing", .type = HM_KEY_WORD, .words = {"no", "yes"}, .values = {0, 1},
     .def = "yes", .when_key = "method", .when_word = "idr", AT(solver.smoothing),
     .help = "minimal-residual smoothing (non-increasing residual norms)"},
    {.section = "solver", .key = "omega_angle", .type = HM_KEY_DOUBLE, RANGE(0, 0.999999), .def = "0.7",
     .when_key = "method", .when_word = "idr", AT(solver.omega_angle),
     .help = "'maintaining the convergence' angle of omega; 0 = minimal residual"},
    {.section = "solver", .key = "residual_replacement", .type = HM_KEY_INT, RANGE(0, 1e9), .def = "0",
     .when_key = "method", .when_word = "idr", AT(solver.residual_replacement),
     .help = "outer iterations between recomputing r = b - A x; 0 = off"},
    {.section = "solver", .key = "multishift", .type = HM_KEY_WORD, .words = {"auto", "yes", "no"},
     .values = {0, 1, 2}, .def = "auto", .when_key = "method", .when_word = "idr", AT(solver.multishift),
     .help = "Green's functions: all energies from one multi-shift IDR(s) (yes; not with precond = jacobi, which "
             "is not shift-invariant: one energy at a time then); auto = yes from 32 energies on when precond = "
             "none, otherwise no; no = one energy at a time"},
    /* [kpm] */
    {.section = "kpm", .key = "moments", .type = HM_KEY_INT, RANGE(2, 1e8), .flags = HM_KEY_EVEN, .def = "256",
     AT(kpm.moments), .when_key = "solver.method", .when_word = "kpm|spectral", .help = "Chebyshev moments M (energy resolution ~ bandwidth/M)"},
    {.section = "kpm", .key = "vectors", .type = HM_KEY_INT, RANGE(1, 100000), .def = "16", AT(kpm.vectors),
     .when_key = "solver.method", .when_word = "kpm", .help = "random vectors R (stochastic error ~ 1/sqrt(R N))"},
    {.section = "kpm", .key = "block", .type = HM_KEY_INT, RANGE(1, 100000), AT(kpm.block), .when_key = "solver.method",
     .when_word = "kpm", .help = "random vectors per pass: R vectors in ceil(R / block) passes of at most block "
                                 "columns (less vector memory, the same moments); default all R in one pass"},
    {.section = "kpm", .key = "seed", .type = HM_KEY_UINT64, .def = "1", AT(kpm.seed),
     .when_key = "solver.method", .when_word = "kpm", .help = "seed of the random-phase vectors"},
    {.section = "kpm", .key = "kernel", .type = HM_KEY_WORD, .words = {"jackson", "lorentz"},
     .values = {HM_KERNEL_JACKSON, HM_KERNEL_LORENTZ}, .def = "jackson", AT(dos.kernel),
     .help = "damping kernel of the moments"},
    {.section = "kpm", .key = "lambda", .type = HM_KEY_DOUBLE, ABOVE(0), .def = "4", .when_key = "kernel",
     .when_word = "lorentz", AT(dos.lorentz_lambda), .help = "Lorentz kernel parameter"},
    {.section = "kpm", .key = "bounds", .type = HM_KEY_WORD, .words = {"lanczos", "gershgorin"},
     .values = {HM_BOUNDS_LANCZOS, HM_BOUNDS_GERSHGORIN}, .def = "lanczos", AT(kpm.bounds),
     .help = "how the spectral interval is found"},
    {.section = "kpm", .key = "lanczos_steps", .type = HM_KEY_INT, RANGE(5, 1000), .def = "40", .when_key = "bounds",
     .when_word = "lanczos", AT(kpm.lanczos_steps), .help = "Lanczos steps for the spectral interval"},
    {.section = "kpm", .key = "bounds_margin", .type = HM_KEY_DOUBLE, RANGE(0, 1), .def = "0.05",
     AT(kpm.bounds_margin), .when_key = "solver.method", .when_word = "kpm|spectral|evolution", .help = "relative widening of the spectral interval"},
    {.section = "kpm", .key = "energies", .type = HM_KEY_INT, RANGE(0, 1e7), .def = "0", AT(dos.points),
     .when_key = "solver.method", .when_word = "kpm|spectral", .help = "uniform energy grid points of the DOS; 0 = the Chebyshev nodes"},
    {.section = "kpm", .key = "emin", .type = HM_KEY_DOUBLE, ENERGY, .when_key = "energies", AT(dos.emin),
     .help = "lower end of the energy grid (with emax; default: the spectral interval)"},
    {.section = "kpm", .key = "emax", .type = HM_KEY_DOUBLE, ENERGY, .when_key = "energies", AT(dos.emax),
     .help = "upper end of the energy grid (with emin)"},
    {.section = "kpm", .key = "normalize", .type = HM_KEY_WORD, .words = {"states", "unit"},
     .values = {HM_NORM_STATES, HM_NORM_UNIT}, .def = "states", AT(dos.norm),
     .help = "DOS integrates to the number of states or to 1"},
    {.section = "kpm", .key = "ldos_sites", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .when_key = "solver.method",
     .when_word = "kpm", AT(ldos.sites_text),
     .help = "lattice sites (ti) or unit cells (lattice) 'x y z; x y z; ...' (0-based): the LDOS there, from the unit "
             "vectors of their orbitals as start vectors, instead of the DOS (then no vectors, no normalize)"},
    {.section = "solver", .key = "problem", .type = HM_KEY_WORD, .words = {"linear", "green"}, .values = {0, 1},
     .def = "linear", .when_key = "method", .when_word = "idr", AT(solver.problem),
     .help = "linear = A x = b with [rhs]; green = Green's functions and LDOS of the ti or lattice model with [green]"},
    /* [green] (problem = green) */
    {.section = "green", .key = "energies", .type = HM_KEY_STRING, .when_key = "solver.problem", .when_word = "green",
     ENERGY, AT(green.energies_text), .help = "'Emin Emax count': a uniform grid of energies E of G(E + i eta)"},
    {.section = "green", .key = "energy_list", .type = HM_KEY_STRING, .when_key = "solver.problem",
     .when_word = "green", ENERGY, AT(green.list_text),
     .help = "the energies E as a list 'E1 E2 ...' (instead of energies)"},
    {.section = "green", .key = "eta", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e100), .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "solver.problem", .when_word = "green", AT(green.eta), .help = "broadening eta > 0 of z = E + i eta"},
    {.section = "green", .key = "sites", .type = HM_KEY_STRING, .flags = HM_KEY_TEXT, .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "solver.problem", .when_word = "green", AT(green.sites_text),
     .help = "lattice sites (ti) or unit cells (lattice) 'x y z; x y z; ...' (0-based) whose G_ii and LDOS are computed"},
    {.section = "green", .key = "rhs_per_solve", .type = HM_KEY_INT, RANGE(0, 4096), .def = "0",
     .when_key = "solver.problem", .when_word = "green", AT(green.rhs_per_solve),
     .help = "multi-shift: site orbitals (right-hand sides) per solve, each stores (s + 1) x energies vectors; "
             "0 = all in one solve"},
    /* [conductivity] (method = conductivity) and [kpm] trace */
    {.section = "kpm", .key = "trace", .type = HM_KEY_WORD, .words = {"random", "exact"},
     .values = {HM_TRACE_RANDOM, HM_TRACE_EXACT}, .def = "random", .when_key = "solver.method",
     .when_word = "conductivity", AT(conductivity.trace),
     .help = "trace of the conductivity moments: random = [conductivity] vectors random phases, exact = every unit "
             "vector (N start vectors: small lattices and tests)"},
    {.section = "conductivity", .key = "components", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .def = "xy",
     .when_key = "solver.method", .when_word = "conductivity", AT(conductivity.components_text),
     .help = "tensor components 'xx xy ...' (1 to 9 of xx xy xz yx yy yz zx zy zz), all from the same Chebyshev vectors"},
    {.section = "conductivity", .key = "expansion", .type = HM_KEY_WORD, .words = {"moments", "single_shot"},
     .values = {0, 1}, .def = "moments", .when_key = "solver.method", .when_word = "conductivity",
     AT(conductivity.single_shot),
     .help = "moments: the M x M moments of each component (every sigma_ab, temperatures, sigma(omega), hamlet post); "
             "single_shot: sigma_aa at T = 0 at each energy from one Chebyshev recursion per vector and side, memory "
             "6 + 2 x energies vectors whatever M (lattices too large for the moments; components xx yy zz)"},
    {.section = "conductivity", .key = "energies", .type = HM_KEY_STRING, .def = "-1 1 201", ENERGY,
     .when_key = "solver.method", .when_word = "conductivity", AT(conductivity.energies_text),
     .help = "'Emin Emax count': the chemical potentials of sigma (a uniform grid)"},
    {.section = "conductivity", .key = "temperatures", .type = HM_KEY_STRING, .def = "0", RANGE(0, 1e100),
     .when_key = "solver.method", .when_word = "conductivity", AT(conductivity.temperatures_text),
     .help = "temperatures 'T1 T2 ...' in energy units (k_B = 1), 1 to 64 of them; 0 = a step Fermi function"},
    {.section = "conductivity", .key = "current", .type = HM_KEY_WORD, .words = {"charge", "spin_z", "spin_x", "spin_y"},
     .values = {0, 1, 2, 3}, .def = "charge", .when_key = "solver.method", .when_word = "conductivity",
     AT(conductivity.current),
     .help = "the current J_a of sigma_ab: charge (v_a) or a spin current {S, v_a} / 2 with S a Pauli matrix: spin_z "
             "(+1 on the lattice file's up, -1 on its down orbitals), spin_x or spin_y (on the pairs of the k-th up "
             "and the k-th down orbital); model = lattice"},
    {.section = "conductivity", .key = "frequencies", .type = HM_KEY_STRING, .has_min = 1, .min = 0,
     .has_max = 1, .max = 1e100, .flags = HM_KEY_NONEMPTY | HM_KEY_MIN_OPEN,
     .when_key = "solver.method", .when_word = "conductivity", AT(conductivity.frequencies_text),
     .help = "'wmin wmax count' (energy units, wmin > 0): also the optical sigma_ab(omega) on this grid; absent: DC only"},
    {.section = "conductivity", .key = "eta", .type = HM_KEY_DOUBLE, RANGE(0, 1e100), .def = "0",
     .when_key = "solver.method", .when_word = "conductivity", AT(conductivity.eta),
     .help = "broadening eta >= 0 of the optical sigma's Green's functions (energy units; 0: the kernel's only); "
             "needs frequencies"},
    {.section = "conductivity", .key = "kernel", .type = HM_KEY_WORD, .words = {"jackson", "lorentz"},
     .values = {HM_KERNEL_JACKSON, HM_KERNEL_LORENTZ}, .def = "jackson", .when_key = "solver.method",
     .when_word = "conductivity", AT(conductivity.kernel), .help = "damping kernel of the moments (g_n g_m)"},
    {.section = "conductivity", .key = "lambda", .type = HM_KEY_DOUBLE, ABOVE(0), .def = "4", .when_key = "kernel",
     .when_word = "lorentz", AT(conductivity.lambda), .help = "Lorentz kernel parameter"},
    {.section = "conductivity", .key = "moments", .type = HM_KEY_INT, RANGE(2, 65536), .flags = HM_KEY_EVEN,
     .def = "256", .when_key = "solver.method", .when_word = "conductivity", AT(conductivity.moments),
     .help = "Chebyshev moments M per index (M x M moments per component)"},
    {.section = "conductivity", .key = "vectors", .type = HM_KEY_INT, RANGE(1, 100000), .def = "8",
     .when_key = "kpm.trace", .when_word = "random", AT(conductivity.vectors),
     .help = "random-phase vectors R (error from their spread)"},
    {.section = "conductivity", .key = "seed", .type = HM_KEY_UINT64, .def = "1", .when_key = "kpm.trace",
     .when_word = "random", AT(conductivity.seed), .help = "seed of the random-phase vectors"},
    {.section = "conductivity", .key = "chunk", .type = HM_KEY_INT, RANGE(0, 65536), .def = "0",
     .when_key = "solver.method", .when_word = "conductivity", AT(conductivity.chunk),
     .help = "Chebyshev vectors per chunk of the dense products; 0 = from free memory"},
    /* [interior] (method = interior) */
    {.section = "interior", .key = "window", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .need = HM_KEY_REQUIRED_WHEN, .when_key = "solver.method", .when_word = "interior", AT(interior.window_text),
     .help = "'Emin Emax': every eigenpair with Emin <= E <= Emax, all copies of degenerate ones"},
    {.section = "interior", .key = "tol", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 0.1), .def = "1e-9",
     .when_key = "solver.method", .when_word = "interior", AT(interior.tol),
     .help = "residual ||H x - E x|| relative to the spectral scale max|E|"},
    {.section = "interior", .key = "vectors", .type = HM_KEY_WORD, .words = {"no", "yes"}, .values = {0, 1},
     .def = "no", .when_key = "solver.method", .when_word = "interior", AT(interior.vectors),
     .help = "write the eigenvectors to /eigen/vectors"},
    {.section = "interior", .key = "search", .type = HM_KEY_INT, RANGE(0, 1e6), .def = "0",
     .when_key = "solver.method", .when_word = "interior", AT(interior.search),
     .help = "search space vectors; 0 = twice the KPM estimate of the window's count (at least the count + 10)"},
    {.section = "interior", .key = "degree", .type = HM_KEY_INT, RANGE(0, 1e7), .def = "0",
     .when_key = "solver.method", .when_word = "interior", AT(interior.degree),
     .help = "Chebyshev degree of the window filter; 0 = from the window's width relative to the spectrum"},
    /* [marker] (method = marker) */
    {.section = "marker", .key = "sites", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .when_key = "solver.method",
     .when_word = "marker", AT(marker.sites_text),
     .help = "cells 'x y z; x y z; ...' (0-based), line (every cell along x through the centre) or all (small "
             "flakes); default line"},
    {.section = "marker", .key = "layers", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .when_key = "solver.method", .when_word = "marker", AT(marker.layers_text),
     .help = "instead of sites: 'z1 z2 ...' or all: the marker at the centre cell (nx/2, ny/2) of each layer (slabs)"},
    {.section = "marker", .key = "mu", .type = HM_KEY_DOUBLE, ENERGY, .def = "0", .when_key = "solver.method",
     .when_word = "marker", AT(marker.mu), .help = "chemical potential of the Fermi projector P = theta(mu - H)"},
    {.section = "marker", .key = "moments", .type = HM_KEY_INT, RANGE(2, 65536), .flags = HM_KEY_EVEN, .def = "512",
     .when_key = "solver.method", .when_word = "marker", AT(marker.moments),
     .help = "Chebyshev moments M of the projector (Jackson kernel; resolution about pi (Emax - Emin) / (2 M))"},
    {.section = "marker", .key = "temperature", .type = HM_KEY_DOUBLE, RANGE(0, 1e100), .def = "0",
     .when_key = "solver.method", .when_word = "marker", AT(marker.temperature),
     .help = "projector P = 1 / (1 + exp((H - mu) / T)) as an undamped series (exact to exp(-d / T) for mu at distance "
             "d inside a gap; needs M >= 25 / (pi T scale)); 0 = the Jackson-damped step theta(mu - H)"},
    /* [rhs] (problem = linear) */
    /* [evolution] (method = evolution) */
    {.section = "evolution", .key = "dt", .type = HM_KEY_DOUBLE, ABOVE_UPTO(0, 1e6), .def = "0.1",
     .when_key = "solver.method", .when_word = "evolution", AT(evolution.dt),
     .help = "time step (hbar = 1, the model's energy unit: t in 1/energy)"},
    {.section = "evolution", .key = "steps", .type = HM_KEY_INT, RANGE(1, 1e8), .def = "10",
     .when_key = "solver.method", .when_word = "evolution", AT(evolution.steps), .help = "time steps"},
    {.section = "evolution", .key = "accuracy", .type = HM_KEY_DOUBLE, RANGE(1e-15, 0.1), .def = "1e-12",
     .when_key = "solver.method", .when_word = "evolution", AT(evolution.accuracy),
     .help = "bound on the neglected Chebyshev tail per step (the expansion order follows from it)"},
    {.section = "evolution", .key = "start", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .def = "random", .when_key = "solver.method", .when_word = "evolution", AT(evolution.start_text),
     .help = "random (random-phase vectors, normalised), site X Y Z [ORBITAL] (one orbital of one cell, "
             "0-based; orbital 0 by default), gaussian X Y Z WIDTH [KX KY KZ] (a wave packet exp(-|r - r0|^2 / "
             "(2 WIDTH^2) + i k.(r - r0)) times the spinor, r the orbitals' cartesian positions, the nearest "
             "periodic image) or file PATH (a Matrix Market vector of the model's rows, normalised)"},
    {.section = "evolution", .key = "spinor", .type = HM_KEY_STRING, ENERGY, .def = "", .when_key = "solver.method",
     .when_word = "evolution", AT(evolution.spinor_text),
     .help = "start = gaussian: each orbital's amplitude, one real number per orbital or a re im pair per "
             "orbital (default: 1 on every orbital)"},
    {.section = "evolution", .key = "vectors", .type = HM_KEY_INT, RANGE(1, 100000), .def = "1",
     .when_key = "solver.method", .when_word = "evolution", AT(evolution.vectors),
     .help = "random-phase start vectors (start = random)"},
    {.section = "evolution", .key = "seed", .type = HM_KEY_UINT64, .def = "1", .when_key = "solver.method",
     .when_word = "evolution", AT(evolution.seed), .help = "seed of the random-phase start vectors (start = random)"},
    {.section = "evolution", .key = "msd", .type = HM_KEY_WORD_SET, .words = {"none", "x", "y", "z"},
     .values = {0, 1, 2, 4}, .def = "none", .when_key = "solver.method", .when_word = "evolution", AT(evolution.msd),
     .help = "directions of the Kubo-Greenwood mean-square displacement Delta X_a^2(E, t) = Tr[delta(E - H) |[X_a, "
             "U(t)]|^2] / Tr[delta(E - H)] over the start vectors (cartesian, the model file's length unit; model = "
             "lattice); `transport` picks the form (the same directions serve both)"},
    {.section = "evolution", .key = "transport", .type = HM_KEY_WORD, .words = {"msd", "vac", "both"},
     .values = {HM_TRANSPORT_MSD, HM_TRANSPORT_VAC, HM_TRANSPORT_MSD | HM_TRANSPORT_VAC}, .def = "msd",
     .when_key = "msd", AT(evolution.transport),
     .help = "the Kubo-Greenwood form along the msd directions: msd (Delta X^2(E, t), D = Delta X^2 / (2 t)), vac "
             "(the velocity auto-correlation C(E, t) = Re Tr[delta(E - H) V_a(t) V_a(0)] / Tr[delta(E - H)], the "
             "running D(E, t) = its integral over [0, t], equal to (1/2) d Delta X^2 / dt) or both"},
    {.section = "evolution", .key = "energies", .type = HM_KEY_STRING, .def = "-1 1 11", ENERGY, .when_key = "msd",
     AT(evolution.energies_text), .help = "'Emin Emax count': the energies E of Delta X^2(E, t) (a uniform grid)"},
    {.section = "evolution", .key = "moments", .type = HM_KEY_INT, RANGE(2, 65536), .def = "256", .when_key = "msd",
     AT(evolution.moments), .help = "Chebyshev moments of delta(E - H) (Jackson kernel; resolution about pi (Emax - "
             "Emin) / (2 M) of the spectral interval)"},
    {.section = "evolution", .key = "snapshots", .type = HM_KEY_INT, RANGE(0, 1e8), .def = "0",
     .when_key = "solver.method", .when_word = "evolution", AT(evolution.snapshots),
     .help = "every how many steps the density of one layer is kept (/evolution/density [snapshot][y][x], summed "
             "over each cell's orbitals, averaged over the start vectors; t = 0 included); 0 = none"},
    {.section = "evolution", .key = "snapshot_layer", .type = HM_KEY_INT, RANGE(0, 1e9), .def = "0",
     .when_key = "snapshots", AT(evolution.snapshot_layer), .help = "the layer (cell index z, 0-based) of the snapshots"},
    /* [spectral] (method = spectral) */
    {.section = "spectral", .key = "k_path", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .need = HM_KEY_REQUIRED_WHEN, .when_key = "solver.method", .when_word = "spectral", AT(spectral.path_text),
     .help = "the k path: names of high-symmetry points 'G X M G' (cubic and square lattices: G X M R; hexagonal: "
             "G K M) or reduced coordinates '0 0 0, 0.5 0 0, ...' (k = sum_i f_i b_i); 2 to 32 points"},
    {.section = "spectral", .key = "points", .type = HM_KEY_INT, RANGE(1, 100000), .def = "20",
     .when_key = "solver.method", .when_word = "spectral", AT(spectral.points),
     .help = "k points per segment of the path (each moved to the nearest point of the supercell's grid)"},
    {.section = "spectral", .key = "layers", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY | HM_KEY_TEXT,
     .def = "bulk",
     .when_key = "solver.method", .when_word = "spectral", AT(spectral.layers_text),
     .help = "bulk = plane waves over the whole supercell; all = each layer along a3 (z) apart; or layer numbers "
             "'1 20 40' (1 to nz): plane waves in the a1-a2 plane restricted to those layers (slabs)"},
    {.section = "rhs", .key = "kind", .type = HM_KEY_WORD, .words = {"ones", "random", "file"}, .values = {0, 1, 2},
     .def = "ones", .when_key = "solver.problem", .when_word = "linear", AT(rhs.kind),
     .help = "right-hand side b of A x = b"},
    {.section = "rhs", .key = "file", .type = HM_KEY_STRING, .flags = HM_KEY_NONEMPTY, .need = HM_KEY_REQUIRED_WHEN,
     .when_key = "kind", .when_word = "file", AT(rhs.file), .help = "Matrix Market array file of b"},
};
const int hm_deck_nkeys = (int)(sizeof hm_deck_keys / sizeof hm_deck_keys[0]);

int hm_deck_key_is_file(const hm_deck_key *k) {
  return k->type == HM_KEY_STRING && !(k->flags & HM_KEY_TEXT) && !k->has_min && !k->has_max;
}

int hm_deck_key_find(const char *section, const char *key) {
  for (int i = 0; i < hm_deck_nkeys; i++)
    if (!strcmp(hm_deck_keys[i].section, section) && !strcmp(hm_deck_keys[i].key, key)) return i;
  return -1;
}

int hm_deck_key_when(const hm_deck_key *k) {
  if (!k->when_key) return -1;
  const char *dot = strchr(k->when_key, '.');
  if (!dot) return hm_deck_key_find(k->section, k->when_key);
  char section[32];
  snprintf(section, sizeof section, "%.*s", (int)(dot - k->when_key), k->when_key);
  return hm_deck_key_find(section, dot + 1);
}

int hm_deck_key_word_value(const hm_deck_key *k, const char *word) {
  for (int i = 0; k->words[i]; i++)
    if (!strcmp(k->words[i], word)) return k->values[i];
  return -1;
}

static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= len) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, len - used, fmt, ap);
  va_end(ap);
}

static void add_words(const hm_deck_key *k, int skip_zero, char *buf, size_t len) {
  const char *sep = "";
  for (int i = 0; k->words[i]; i++) {
    if (skip_zero && k->values[i] == 0) continue;
    add(buf, len, "%s%s", sep, k->words[i]);
    sep = ", ";
  }
}

static void add_bounds(const hm_deck_key *k, char *buf, size_t len) {
  int min_open = (k->flags & HM_KEY_MIN_OPEN) != 0;
  if (k->has_min && k->has_max)
    add(buf, len, " in %c%.15g, %.15g]", min_open ? '(' : '[', k->min, k->max);
  else if (k->has_min)
    add(buf, len, " %s %.15g", min_open ? ">" : ">=", k->min);
  else if (k->has_max)
    add(buf, len, " <= %.15g", k->max);
}

void hm_deck_key_allowed(const hm_deck_key *k, char *buf, size_t len) {
  if (!len) return;
  buf[0] = '\0';
  switch (k->type) {
    case HM_KEY_WORD:
      add(buf, len, "one of: ");
      add_words(k, 0, buf, len);
      break;
    case HM_KEY_WORD_LIST:
      add(buf, len, "%d words (x y z), each one of: ", k->count);
      add_words(k, 0, buf, len);
      break;
    case HM_KEY_WORD_SET:
      add(buf, len, "%s, or one or more of: ", k->words[0]);
      add_words(k, 1, buf, len);
      break;
    case HM_KEY_STRING: /* a range makes it a list of numbers (checked where the list is read) */
      if (k->has_min || k->has_max) {
        add(buf, len, "numbers");
        add_bounds(k, buf, len);
      } else if (k->flags & HM_KEY_TEXT) {
        add(buf, len, "text as described");
      } else {
        add(buf, len, (k->flags & HM_KEY_NONEMPTY) ? "a file name" : "a file name, or empty");
      }
      break;
    case HM_KEY_INT:
      add(buf, len, (k->flags & HM_KEY_EVEN) ? "an even integer" : "an integer");
      add_bounds(k, buf, len);
      break;
    case HM_KEY_UINT64:
      add(buf, len, "an integer in [0, %llu]", (unsigned long long)UINT64_MAX);
      break;
    case HM_KEY_DOUBLE:
      add(buf, len, (k->has_min || k->has_max) ? "a number" : "a finite number");
      add_bounds(k, buf, len);
      break;
  }
}

/* Plain decimal integer: optional sign, digits, nothing else. */
static int parse_integer_text(const char *s, int allow_minus, char *why, size_t len) {
  const char *p = s;
  if (*p == '+' || (allow_minus && *p == '-')) p++;
  int digits = 0;
  for (; isdigit((unsigned char)*p); p++) digits++;
  if (digits && !*p) return 0;
  if (!*s)
    snprintf(why, len, "empty value");
  else if (strpbrk(s, ".eE") && strspn(s, "+-0123456789.eE") == strlen(s))
    snprintf(why, len, "not a plain integer (write digits only: no decimal point or exponent)");
  else if (*s == '-' && !allow_minus)
    snprintf(why, len, "negative");
  else
    snprintf(why, len, "not an integer");
  return 1;
}

int hm_deck_key_in_range(const hm_deck_key *k, double x) {
  if (k->has_min && ((k->flags & HM_KEY_MIN_OPEN) ? !(x > k->min) : !(x >= k->min))) return 0;
  if (k->has_max && !(x <= k->max)) return 0;
  return 1;
}

static int parse_int(const hm_deck_key *k, const char *s, hm_key_value *v, char *why, size_t len) {
  if (parse_integer_text(s, 1, why, len)) return 1;
  errno = 0;
  long long x = strtoll(s, NULL, 10);
  if (errno == ERANGE) return snprintf(why, len, "too large for a 64-bit integer"), 1;
  if (!hm_deck_key_in_range(k, (double)x) || ((k->flags & HM_KEY_EVEN) && x % 2 != 0)) return 1; /* why stays "" */
  v->i = x;
  return 0;
}

static int parse_uint64(const char *s, hm_key_value *v, char *why, size_t len) {
  if (parse_integer_text(s, 0, why, len)) return 1;
  errno = 0;
  unsigned long long x = strtoull(s, NULL, 10);
  if (errno == ERANGE) return snprintf(why, len, "too large for a 64-bit unsigned integer"), 1;
  v->u = x;
  return 0;
}

static int parse_double(const hm_deck_key *k, const char *s, hm_key_value *v, char *why, size_t len) {
  /* Decimal notation only: strtod alone would also take "inf", "nan" and hex floats. */
  if (!*s) return snprintf(why, len, "empty value"), 1;
  if (strspn(s, "+-0123456789.eE") != strlen(s) || !strpbrk(s, "0123456789"))
    return snprintf(why, len, "not a number"), 1;
  char *end = NULL;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || *end) return snprintf(why, len, "not a number"), 1;
  if (!isfinite(x)) return snprintf(why, len, "beyond the range of a double"), 1;
  if (!hm_deck_key_in_range(k, x)) return 1;
  v->d = x;
  return 0;
}

/* Next word of a whitespace- or comma-separated list into w; returns the rest, NULL at the end. */
static const char *next_word(const char *s, char *w, size_t len) {
  s += strspn(s, " \t,");
  if (!*s) return NULL;
  size_t n = strcspn(s, " \t,");
  snprintf(w, len, "%.*s", (int)n, s);
  return s + n;
}

static int parse_words(const hm_deck_key *k, const char *s, hm_key_value *v, char *why, size_t len) {
  char w[64];
  int n = 0, mask = 0, alone = 0;
  v->i = 0;
  for (const char *p = next_word(s, w, sizeof w); p; p = next_word(p, w, sizeof w), n++) {
    int x = hm_deck_key_word_value(k, w);
    if (x < 0) return snprintf(why, len, "'%s' is not allowed", w), 1;
    if (k->type == HM_KEY_WORD_LIST) {
      if (n < k->count) v->w[n] = x;
    } else if (k->type == HM_KEY_WORD_SET) {
      if (x == 0) alone = 1;
      if (x && (mask & x)) return snprintf(why, len, "'%s' is given twice", w), 1;
      mask |= x;
    } else {
      v->i = x;
    }
  }
  if (n == 0) return snprintf(why, len, "empty value"), 1;
  if (k->type == HM_KEY_WORD && n != 1) return snprintf(why, len, "expected one word, got %d", n), 1;
  if (k->type == HM_KEY_WORD_LIST && n != k->count)
    return snprintf(why, len, "expected %d words, got %d", k->count, n), 1;
  if (k->type == HM_KEY_WORD_SET) {
    if (alone && n > 1) return snprintf(why, len, "'%s' cannot be combined with other words", k->words[0]), 1;
    v->i = mask;
  }
  return 0;
}

int hm_deck_key_parse(const hm_deck_key *k, const char *text, hm_key_value *v, char *why, size_t len) {
  memset(v, 0, sizeof *v);
  if (len) why[0] = '\0';
  switch (k->type) {
    case HM_KEY_WORD:
    case HM_KEY_WORD_LIST:
    case HM_KEY_WORD_SET: return parse_words(k, text, v, why, len);
    case HM_KEY_STRING:
      if ((k->flags & HM_KEY_NONEMPTY) && !*text) return snprintf(why, len, "empty value"), 1;
      if (strlen(text) >= k->size) return snprintf(why, len, "longer than %zu characters", k->size - 1), 1;
      return 0;
    case HM_KEY_INT: return parse_int(k, text, v, why, len);
    case HM_KEY_UINT64: return parse_uint64(text, v, why, len);
    case HM_KEY_DOUBLE: return parse_double(k, text, v, why, len);
  }
  return 1;
}

int hm_deck_key_store(const hm_deck_key *k, const hm_key_value *v, const char *text, hm_deck *deck) {
  if (k->offset == HM_KEY_NO_FIELD) return HM_SUCCESS;
  char *field = (char *)deck + k->offset;
  int ok = 1;
  switch (k->type) {
    case HM_KEY_WORD:
    case HM_KEY_INT:
      if (k->size == sizeof(int)) {
        int x = (int)v->i;
        memcpy(field, &x, sizeof x);
      } else if (k->size == sizeof(int64_t)) {
        memcpy(field, &v->i, sizeof v->i);
      } else {
        ok = 0;
      }
      break;
    case HM_KEY_WORD_LIST:
      ok = k->size == (size_t)k->count * sizeof(int);
      if (ok) memcpy(field, v->w, k->size);
      break;
    case HM_KEY_UINT64:
      ok = k->size == sizeof(uint64_t);
      if (ok) memcpy(field, &v->u, sizeof v->u);
      break;
    case HM_KEY_DOUBLE:
      ok = k->size == sizeof(double);
      if (ok) memcpy(field, &v->d, sizeof v->d);
      break;
    case HM_KEY_STRING:
      ok = strlen(text) < k->size;
      if (ok) memcpy(field, text, strlen(text) + 1);
      break;
    case HM_KEY_WORD_SET: /* the OR of the words' values */
      ok = k->size == sizeof(int);
      if (ok) {
        int x = (int)v->i;
        memcpy(field, &x, sizeof x);
      }
      break;
  }
  HM_CHECK(ok, HM_ERR_INTERNAL, "deck schema: key [%s] %s does not fit its hm_deck field (%zu bytes)", k->section,
           k->key, k->size);
  return HM_SUCCESS;
}

void hm_deck_key_condition(const hm_deck_key *k, char *buf, size_t len) {
  int w = hm_deck_key_when(k);
  char name[64];
  if (w >= 0 && strcmp(hm_deck_keys[w].section, k->section))
    snprintf(name, sizeof name, "[%s] %s", hm_deck_keys[w].section, hm_deck_keys[w].key);
  else
    snprintf(name, sizeof name, "%s", k->when_key ? k->when_key : "");
  if (w < 0)
    snprintf(buf, len, "always");
  else if (!k->when_word)
    snprintf(buf, len, "%s > 0", name);
  else if (hm_deck_keys[w].type == HM_KEY_WORD_SET)
    snprintf(buf, len, "%s includes %s", name, k->when_word);
  else {
    snprintf(buf, len, "%s = ", name);
    const char *p = k->when_word; /* "lobpcg|idr" -> "lobpcg or idr" */
    for (size_t n; *p; p += n + (p[n] == '|')) {
      n = strcspn(p, "|");
      add(buf, len, "%s%.*s", p == k->when_word ? "" : " or ", (int)n, p);
    }
  }
}
