/* Models from atomic structures: atom positions in a periodic cell (extended XYZ), one or more
 * orbitals per atom (s, p_x, p_y, p_z by species; one p_z by default), hoppings from a distance rule
 * found by a cell-list neighbour search over the periodic images, and the matrix of a supercell of
 * nx x ny x nz such cells. Also the commensurate twisted
 * bilayer graphene cells that `hamlet structure tbg` writes. Lengths in angstrom, energies in eV. */
#ifndef HAMLET_STRUCTURE_H
#define HAMLET_STRUCTURE_H
#include <stdint.h>
#include "hamlet.h"

enum { HM_SPECIES_LEN = 8 };

typedef struct {
  int64_t natoms;
  double cell[3][3];              /* rows: the lattice vectors a1, a2, a3 */
  int pbc[3];                     /* periodic along a_k (extended XYZ's pbc, default T T T) */
  double *pos;                    /* [natoms][3] cartesian */
  char (*species)[HM_SPECIES_LEN];
} hm_structure;

/* Not collective. Extended XYZ: a count line, a comment line with Lattice="9 numbers" (required),
 * pbc="T T F" (optional) and Properties (if given: species:S:1:pos:R:3), then one line per atom:
 * species x y z. Errors are HM_ERR_INPUT "file:line: what is wrong, what is allowed". */
int hm_structure_read(const char *path, hm_structure *s);
/* Not collective: the file written as path.tmp and renamed (a reader never sees half a file). */
int hm_structure_write(const char *path, const hm_structure *s, const char *comment);
void hm_structure_free(hm_structure *s);

/* Commensurate twisted bilayer graphene (m, r >= 1): cos theta = (3m^2 + 3mr + r^2/2) / (3m^2 + 3mr
 * + r^2), cell t1 = m a1 + (m + r) a2 of the bottom layer, t2 = t1 turned by 60 degrees, 4 (3m^2 +
 * 3mr + r^2) atoms (for r a multiple of 3 the cell is three times the primitive one), AA stacking at
 * the origin. Interlayer distance d(r) = d_ab + (d_aa - d_ab) (1/3 + 2/9 sum_j cos(G_j . r)), G_j
 * the moire cell's three shortest reciprocal vectors: d_aa in AA regions, d_ab in AB/BA regions. */
typedef struct {
  double a;          /* graphene's lattice constant (2.46) */
  double d_aa, d_ab; /* interlayer distances (3.35 both: flat layers) */
  double vacuum;     /* the cell's height along z (20) */
} hm_tbg_params;
void hm_tbg_params_default(hm_tbg_params *p);
int hm_structure_tbg(int m, int r, const hm_tbg_params *p, hm_structure *s, double *theta_degrees);

/* The orbitals of one species: up to four of s, p_x, p_y, p_z (in the rows' order) and their on-site
 * energies (added to the rule's onsite). */
typedef enum { HM_ORBITAL_S = 0, HM_ORBITAL_PX = 1, HM_ORBITAL_PY = 2, HM_ORBITAL_PZ = 3 } hm_orbital_kind;
enum { HM_SPECIES_ORBITALS = 4 };
typedef struct {
  char species[HM_SPECIES_LEN];
  int count;
  int kind[HM_SPECIES_ORBITALS];
  double onsite[HM_SPECIES_ORBITALS];
} hm_species_orbitals;
/* Not collective. orbitals: "SPECIES:ORB,ORB,..." words (ORB one of s px py pz; "" = none listed);
 * onsite: "SPECIES:E" (all its orbitals) or "SPECIES.ORB:E" words (ORB one of s px py pz p; p = the
 * three p's), each of a species that orbitals lists (energies of one species add up).
 * *list (malloc'd, *n entries). Errors HM_ERR_INPUT naming the word and what is allowed. */
int hm_species_orbitals_parse(const char *orbitals, const char *onsite, hm_species_orbitals **list, int *n);
/* The name of an orbital kind ("s", "px", "py", "pz"). */
const char *hm_orbital_name(int kind);

/* Hopping rules t(d) for bonds of length 0 < |d| < cutoff (d the bond vector). */
typedef enum { HM_HOPPING_SLATER_KOSTER = 0, HM_HOPPING_TABLE = 1 } hm_hopping_kind;
typedef struct {
  int kind;                       /* hm_hopping_kind */
  double cutoff;
  double onsite;                  /* every orbital's energy */
  /* the orbitals of each species (nspecies = 0: every atom one p_z) */
  int nspecies;
  const hm_species_orbitals *species;
  /* Slater-Koster two-centre integrals of the direction cosines n = d / |d|: s-s V_ss_sigma, s-p_a n_a V_sp_sigma
   * (p_a-s: -n_a V_sp_sigma), p_a-p_b n_a n_b V_pp_sigma + (delta_ab - n_a n_b) V_pp_pi; p_z-p_z is
   * V_pi (1 - n_z^2) + V_sigma n_z^2. V_pi = vpp_pi exp(-(|d| - a0) / delta0), V_sigma = vpp_sigma
   * exp(-(|d| - d0) / delta0), V_ss_sigma and V_sp_sigma = vss_sigma, vsp_sigma times exp(-(|d| - a0) / delta0) */
  double vpp_pi, vpp_sigma, vss_sigma, vsp_sigma, a0, d0, delta0;
  /* table: t(|d|) linear between its points (distances increasing); a bond outside them is an error */
  int npoints;
  const double *table_d, *table_t;
  const char *table_file;         /* named in errors */
} hm_hopping_rule;
void hm_hopping_rule_default(hm_hopping_rule *rule);
/* Not collective: distances and hoppings of a table file (lines "distance hopping", '#' comments). */
int hm_hopping_table_read(const char *path, double **d, double **t, int *npoints);

/* The rows of one cell: its orbitals, atom by atom in the file's order, each atom's in its species'
 * order. Not collective; HM_ERR_INPUT for an atom whose species the rule does not list. *atom, *kind and
 * *onsite (malloc'd, *rows each): the row's atom, hm_orbital_kind and on-site energy (the rule's onsite
 * plus its species'). */
int hm_structure_rows(const hm_structure *s, const hm_hopping_rule *rule, int64_t *rows, int64_t **atom, int **kind,
                      double **onsite);

/* The hoppings of every row i of one cell (hm_structure_rows): row j, the image R (cells) and t, for
 * start[i] <= b < start[i + 1]; bond vector pos[atom[j]] + R . cell - pos[atom[i]]. Both directions of
 * each bond are listed; orbital pairs whose integral vanishes by symmetry are not. */
typedef struct {
  int64_t rows, nbonds;           /* rows: orbitals of one cell */
  int64_t *start;
  int64_t *j;
  int32_t (*image)[3];
  double *t;
  int64_t *atom;                  /* the row's atom */
  double *onsite;                 /* the row's on-site energy */
  int64_t atom_bonds;             /* bonds between atoms (both directions), orbitals aside */
  double shortest, longest;       /* over the bonds kept */
} hm_bonds;
/* Not collective (every rank finds the same bonds): cell lists of width >= cutoff in the
 * fractional coordinates, so the search is O(natoms * neighbours). Two atoms closer than 1e-3
 * are an error naming both; hopping = table takes one orbital per atom (its t is radial). */
int hm_structure_bonds(const hm_structure *s, const hm_hopping_rule *rule, hm_bonds *b);
void hm_bonds_free(hm_bonds *b);

/* The disorder of a supercell, drawn from counter-based random numbers of the global row (on-site), of
 * the bond between two atoms (both directions and all their orbitals alike) and of the atom (impurities),
 * so the same on any rank count: on-site energies uniform in [-W/2, W/2] or gaussian of standard deviation
 * W; every hopping times (1 + e), e uniform in [-B/2, B/2]; impurities at a concentration (an on-site
 * energy on each of their orbitals and a factor on their hoppings). */
typedef struct {
  double onsite_w;
  int gaussian;
  uint64_t onsite_seed;
  double bond;
  uint64_t bond_seed;
  double impurities;        /* probability that an atom (all its orbitals) is an impurity */
  double impurity_onsite;   /* added to an impurity's on-site energy */
  double impurity_hopping;  /* factor on each hopping of an impurity (squared between two) */
  uint64_t impurity_seed;
} hm_structure_disorder;

/* Collective: the supercell of cells[0] x cells[1] x cells[2] structure cells (row = cell row + rows *
 * (cx + nx (cy + ny cz)), rows of hm_structure_rows), periodic or open per direction (HM_BC_PERIODIC /
 * HM_BC_OPEN; a direction that the structure does not repeat (pbc F) must be one cell), assembled, of
 * the given type (the entries are real; HM_COMPLEX for solvers that need complex arithmetic); disorder
 * may be NULL. */
int hm_structure_matrix(hm_context *ctx, const hm_structure *s, const hm_bonds *b,
                        const int64_t cells[3], const int boundary[3], const hm_structure_disorder *disorder,
                        hm_scalar type, hm_matrix **H);
/* Collective: the velocity v_axis = i[H, X_axis] of the same supercell (hbar = 1; complex): i d_axis t
 * on every bond (t with its bond disorder), d its vector x_j + R . cell - x_i, exact whatever the
 * supercell's size (no nearest image is guessed). */
int hm_structure_velocity(hm_context *ctx, const hm_structure *s, const hm_bonds *b, const int64_t cells[3],
                          const int boundary[3], const hm_structure_disorder *disorder, int axis, hm_matrix **V);
#endif
