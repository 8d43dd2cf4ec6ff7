/* model = structure: the extended XYZ file and the hopping table read on every rank (one structure
 * cell: small), the bonds found by every rank, each rank's rows of the supercell assembled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deck_schema.h"
#include "run_state.h"
#include "structure.h"

static const char *const boundary_words[] = {"periodic", "open", "twisted"};

/* A refusal of physics/lattice: rank 0 names the deck's line of the key the message is about. */
static void fail_at(run_state *s, int status, const char *key) {
  if (!status) return;
  if (s->rank == 0) {
    const int line = s->deck.key_line[hm_deck_key_find("hamiltonian", key)];
    fprintf(stderr, "hamlet: %s:%d: [hamiltonian] %s: refused (see below)\n", s->deck.name, line, key);
  }
  APP_CALL(status);
}

/* The deck's hopping rule and the orbitals of its species (*species and, from read_table, the table's
 * points malloc'd, freed by rule_free); a refusal names the deck's key. */
typedef struct {
  hm_hopping_rule rule;
  hm_species_orbitals *species;
  double *table_d, *table_t;
} deck_rule;

static void rule_free(deck_rule *r) {
  free(r->species);
  free(r->table_d);
  free(r->table_t);
}

static void rule_of(run_state *s, deck_rule *r) {
  const hm_deck *d = &s->deck;
  memset(r, 0, sizeof *r);
  hm_hopping_rule *rule = &r->rule;
  hm_hopping_rule_default(rule);
  rule->kind = d->structure.hopping;
  rule->cutoff = d->structure.cutoff;
  rule->onsite = d->structure.onsite;
  rule->vpp_pi = d->structure.vpp_pi;
  rule->vpp_sigma = d->structure.vpp_sigma;
  rule->vss_sigma = d->structure.vss_sigma;
  rule->vsp_sigma = d->structure.vsp_sigma;
  rule->a0 = d->structure.a0;
  rule->d0 = d->structure.d0;
  rule->delta0 = d->structure.delta0;
  int n = 0; /* the orbitals alone first, so that a refusal names the key it is about */
  fail_at(s, hm_species_orbitals_parse(d->structure.orbitals, "", &r->species, &n), "orbitals");
  free(r->species);
  fail_at(s, hm_species_orbitals_parse(d->structure.orbitals, d->structure.species_onsite, &r->species, &n),
          "species_onsite");
  rule->nspecies = n;
  rule->species = r->species;
}

/* The hopping table's points where the rule takes one (only the bonds need them). */
static void read_table(run_state *s, deck_rule *r) {
  const hm_deck *d = &s->deck;
  hm_hopping_rule *rule = &r->rule;
  if (rule->kind != HM_HOPPING_TABLE) return;
  fail_at(s, hm_hopping_table_read(d->structure.table, &r->table_d, &r->table_t, &rule->npoints), "hopping_table");
  rule->table_d = r->table_d;
  rule->table_t = r->table_t;
  rule->table_file = d->structure.table;
}

void run_structure_cell(run_state *s, int *rows, double cell[9], double **positions, char **labels) {
  hm_structure st;
  fail_at(s, hm_structure_read(s->deck.structure.file, &st), "structure_file");
  deck_rule r;
  rule_of(s, &r);
  int64_t n, *atom;
  int *kind;
  double *onsite;
  fail_at(s, hm_structure_rows(&st, &r.rule, &n, &atom, &kind, &onsite), "orbitals");
  *rows = (int)n;
  for (int k = 0; k < 9; k++) cell[k] = st.cell[k / 3][k % 3];
  *positions = malloc(sizeof(double) * 3 * (size_t)n);
  if (labels) *labels = calloc((size_t)n, 2 * HM_SPECIES_LEN + 2);
  if (!*positions || (labels && !*labels)) APP_CALL(HM_ERR_MEMORY);
  char *end = labels ? *labels : NULL;
  for (int64_t i = 0; i < n; i++) {
    memcpy(*positions + 3 * i, st.pos + 3 * atom[i], sizeof(double) * 3);
    if (end)
      end += sprintf(end, "%s%s%s%s", i ? " " : "", st.species[atom[i]], r.rule.nspecies ? ":" : "",
                     r.rule.nspecies ? hm_orbital_name(kind[i]) : "");
  }
  free(atom), free(kind), free(onsite);
  rule_free(&r);
  hm_structure_free(&st);
}

void run_build_structure(run_state *s, hm_matrix **H) {
  const hm_deck *d = &s->deck;
  hm_structure st;
  fail_at(s, hm_structure_read(d->structure.file, &st), "structure_file");
  deck_rule r;
  rule_of(s, &r);
  read_table(s, &r);
  const int64_t cells[3] = {d->ti.nx, d->ti.ny, d->ti.nz};
  hm_bonds b;
  const int status_bonds = hm_structure_bonds(&st, &r.rule, &b);
  fail_at(s, status_bonds, status_bonds == HM_ERR_INPUT && r.rule.nspecies ? "orbitals" : "cutoff");
  int onsite = 0;
  for (int64_t i = 0; i < b.rows; i++) onsite |= b.onsite[i] != 0;
  run_check_lattice_size(s, cells, (int)b.rows, d->structure.file, (double)b.nbonds / (double)b.rows + onsite);
  s->site_orbitals = (int)b.rows;
  s->structure_atoms = st.natoms;
  s->structure_bonds = b.atom_bonds / 2;
  s->structure_bond_range[0] = b.nbonds ? b.shortest : 0;
  s->structure_bond_range[1] = b.nbonds ? b.longest : 0;
  /* the conductivity and the evolution: complex arithmetic, the velocities from the bond vectors, the cell and
   * positions (N / Omega, packets); hamlet export --velocity: those it names */
  const int export_only = s->args->export_only;
  const int conductivity = !export_only && d->solver.method == HM_METHOD_CONDUCTIVITY;
  const int evolution = !export_only && d->solver.method == HM_METHOD_EVOLUTION;
  const int spectral = !export_only && d->solver.method == HM_METHOD_SPECTRAL; /* plane waves: complex vectors */
  const hm_structure_disorder disorder = {d->potential & HM_POTENTIAL_DISORDER ? d->ti.disorder_w : 0,
                                           d->structure.disorder_gaussian, d->ti.disorder_seed,
                                           d->structure.bond_disorder, d->structure.bond_seed, d->structure.impurities,
                                           d->structure.impurity_onsite, d->structure.impurity_hopping,
                                           d->structure.impurity_seed};
  int status = hm_structure_matrix(s->ctx, &st, &b, cells, d->ti.boundary, &disorder,
                                   conductivity || evolution || spectral ? HM_COMPLEX : HM_REAL, H);
  int wanted = export_only ? s->args->export_velocity : 0;
  for (int c = 0; conductivity && c < d->conductivity.ncomp; c++)
    wanted |= 1 << d->conductivity.comp[c][0] | 1 << d->conductivity.comp[c][1];
  for (int a = 0; a < 3 && !status; a++) {
    if (wanted & (1 << a))
      status = hm_structure_velocity(s->ctx, &st, &b, cells, d->ti.boundary, &disorder, a, &s->velocity[a]);
    if (!status && evolution && (d->evolution.msd & (1 << a))) /* the commutators of the mean-square displacement */
      status = hm_structure_velocity(s->ctx, &st, &b, cells, d->ti.boundary, &disorder, a, &s->msd_velocity[a]);
  }
  if ((conductivity || evolution) && !status) {
    for (int k = 0; k < 9; k++) s->lattice_cell[k] = st.cell[k / 3][k % 3];
    /* the rows' positions, kept for run_conductivity and run_evolution (freed there) */
    s->lattice_positions = malloc(sizeof(double) * 3 * (size_t)b.rows);
    if (!s->lattice_positions) status = HM_ERR_MEMORY;
    for (int64_t i = 0; !status && i < b.rows; i++)
      memcpy(s->lattice_positions + 3 * i, st.pos + 3 * b.atom[i], sizeof(double) * 3);
  }
  hm_bonds_free(&b);
  hm_structure_free(&st);
  rule_free(&r);
  fail_at(s, status, status == HM_ERR_DECK ? "nx" : "structure_file");
}

void run_write_structure(run_state *s, hm_output *out, const hm_matrix *H) {
  const hm_deck *d = &s->deck;
  int64_t n, nnz;
  APP_CALL(hm_matrix_info(H, &n, &nnz, NULL));
  const char *g = "/hamiltonian";
  APP_CALL(hm_output_write_attribute(out, g, "model", "structure"));
  APP_CALL(hm_output_write_attribute(out, g, "description",
                                     "orbitals on the atoms of a structure file, hoppings by bond vector, on a "
                                     "supercell of its cells (angstrom, eV)"));
  APP_CALL(hm_output_write_attribute(out, g, "energy_unit", "eV")); /* every energy of the result; lengths in A */
  APP_CALL(hm_output_write_attribute(out, g, "structure_file", d->structure.file));
  APP_CALL(hm_output_write_attribute(out, g, "hopping", d->structure.hopping ? "table" : "slater_koster"));
  APP_CALL(hm_output_write_attribute(out, g, "orbitals", d->structure.orbitals[0] ? d->structure.orbitals : "pz"));
  APP_CALL(hm_output_write_attribute(out, g, "species_onsite", d->structure.species_onsite));
  if (d->structure.hopping) APP_CALL(hm_output_write_attribute(out, g, "hopping_table", d->structure.table));
  static const char *const bnames[3] = {"boundary_x", "boundary_y", "boundary_z"};
  for (int a = 0; a < 3; a++) APP_CALL(hm_output_write_attribute(out, g, bnames[a], boundary_words[d->ti.boundary[a]]));
  const char *const names[] = {"nx", "ny", "nz", "atoms_per_cell", "bonds_per_cell", "shortest_bond", "longest_bond",
                               "cutoff", "onsite", "vpp_pi", "vpp_sigma", "vss_sigma", "vsp_sigma", "a0", "d0",
                               "delta0", "orbitals_per_cell", "N", "nnz"};
  const double values[] = {(double)d->ti.nx, (double)d->ti.ny, (double)d->ti.nz, (double)s->structure_atoms,
                           (double)s->structure_bonds, s->structure_bond_range[0], s->structure_bond_range[1],
                           d->structure.cutoff, d->structure.onsite, d->structure.vpp_pi, d->structure.vpp_sigma,
                           d->structure.vss_sigma, d->structure.vsp_sigma, d->structure.a0, d->structure.d0,
                           d->structure.delta0, (double)s->site_orbitals, (double)n, (double)nnz};
  const size_t count = sizeof values / sizeof values[0];
  for (size_t i = 0; i < count; i++) {
    const int sk_only = i >= 9 && i <= 15;
    if (sk_only && d->structure.hopping) continue;
    APP_CALL(hm_output_write_attribute_double(out, g, names[i], values[i]));
  }
  /* the disorder drawn (0: none) */
  const int onsite = d->potential & HM_POTENTIAL_DISORDER;
  APP_CALL(hm_output_write_attribute(out, g, "disorder_distribution",
                                     d->structure.disorder_gaussian ? "gaussian" : "uniform"));
  const char *const dnames[] = {"disorder_w", "disorder_seed", "bond_disorder", "bond_disorder_seed", "impurities",
                                "impurity_onsite", "impurity_hopping", "impurity_seed"};
  const double dvalues[] = {onsite ? d->ti.disorder_w : 0, (double)d->ti.disorder_seed, d->structure.bond_disorder,
                            (double)d->structure.bond_seed, d->structure.impurities, d->structure.impurity_onsite,
                            d->structure.impurity_hopping, (double)d->structure.impurity_seed};
  for (size_t i = 0; i < sizeof dvalues / sizeof dvalues[0]; i++)
    APP_CALL(hm_output_write_attribute_double(out, g, dnames[i], dvalues[i]));
}

void run_print_structure(const run_state *s) {
  const hm_deck *d = &s->deck;
  printf("structure %s, %lld atoms per cell, %lld x %lld x %lld cells (%s %s %s), %lld bonds per cell of %.3f to "
         "%.3f A (cutoff %g, %s)", d->structure.file, (long long)s->structure_atoms, (long long)d->ti.nx,
         (long long)d->ti.ny, (long long)d->ti.nz, boundary_words[d->ti.boundary[0]], boundary_words[d->ti.boundary[1]],
         boundary_words[d->ti.boundary[2]], (long long)s->structure_bonds, s->structure_bond_range[0],
         s->structure_bond_range[1], d->structure.cutoff, d->structure.hopping ? "table" : "Slater-Koster");
  if (d->structure.orbitals[0]) printf(", orbitals %s (%d per cell)", d->structure.orbitals, s->site_orbitals);
  if (d->potential & HM_POTENTIAL_DISORDER)
    printf(", on-site disorder %s W = %g", d->structure.disorder_gaussian ? "gaussian" : "uniform", d->ti.disorder_w);
  if (d->structure.bond_disorder > 0) printf(", bond disorder B = %g", d->structure.bond_disorder);
  if (d->structure.impurities > 0)
    printf(", impurities %g (%+g eV, hoppings x %g)", d->structure.impurities, d->structure.impurity_onsite,
           d->structure.impurity_hopping);
}
