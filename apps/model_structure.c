/* model = structure: the extended XYZ file and the hopping table read on every rank (one structure
 * cell: small), the bonds found by every rank, each rank's rows of the supercell assembled. */
#include <stdlib.h>
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

void run_build_structure(run_state *s, hm_matrix **H) {
  const hm_deck *d = &s->deck;
  hm_structure st;
  fail_at(s, hm_structure_read(d->structure.file, &st), "structure_file");
  hm_hopping_rule rule;
  hm_hopping_rule_default(&rule);
  rule.kind = d->structure.hopping;
  rule.cutoff = d->structure.cutoff;
  rule.onsite = d->structure.onsite;
  rule.vpp_pi = d->structure.vpp_pi;
  rule.vpp_sigma = d->structure.vpp_sigma;
  rule.a0 = d->structure.a0;
  rule.d0 = d->structure.d0;
  rule.delta0 = d->structure.delta0;
  double *table_d = NULL, *table_t = NULL;
  if (rule.kind == HM_HOPPING_TABLE) {
    fail_at(s, hm_hopping_table_read(d->structure.table, &table_d, &table_t, &rule.npoints), "hopping_table");
    rule.table_d = table_d;
    rule.table_t = table_t;
    rule.table_file = d->structure.table;
  }
  const int64_t cells[3] = {d->ti.nx, d->ti.ny, d->ti.nz};
  hm_bonds b;
  fail_at(s, hm_structure_bonds(&st, &rule, &b), "cutoff");
  run_check_lattice_size(s, cells, (int)st.natoms, d->structure.file,
                         (double)b.nbonds / (double)st.natoms + (rule.onsite != 0));
  s->site_orbitals = (int)st.natoms;
  s->structure_atoms = st.natoms;
  s->structure_bonds = b.nbonds / 2;
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
  int status = hm_structure_matrix(s->ctx, &st, &b, &rule, cells, d->ti.boundary, &disorder,
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
    s->lattice_positions = st.pos; /* kept for run_conductivity and run_evolution (freed there) */
    st.pos = NULL;
  }
  hm_bonds_free(&b);
  hm_structure_free(&st);
  free(table_d);
  free(table_t);
  fail_at(s, status, status == HM_ERR_DECK ? "nx" : "structure_file");
}

void run_write_structure(run_state *s, hm_output *out, const hm_matrix *H) {
  const hm_deck *d = &s->deck;
  int64_t n, nnz;
  APP_CALL(hm_matrix_info(H, &n, &nnz, NULL));
  const char *g = "/hamiltonian";
  APP_CALL(hm_output_write_attribute(out, g, "model", "structure"));
  APP_CALL(hm_output_write_attribute(out, g, "description",
                                     "one p_z orbital per atom of a structure file, hoppings by bond length, on a "
                                     "supercell of its cells (angstrom, eV)"));
  APP_CALL(hm_output_write_attribute(out, g, "energy_unit", "eV")); /* every energy of the result; lengths in A */
  APP_CALL(hm_output_write_attribute(out, g, "structure_file", d->structure.file));
  APP_CALL(hm_output_write_attribute(out, g, "hopping", d->structure.hopping ? "table" : "slater_koster_pz"));
  if (d->structure.hopping) APP_CALL(hm_output_write_attribute(out, g, "hopping_table", d->structure.table));
  static const char *const bnames[3] = {"boundary_x", "boundary_y", "boundary_z"};
  for (int a = 0; a < 3; a++) APP_CALL(hm_output_write_attribute(out, g, bnames[a], boundary_words[d->ti.boundary[a]]));
  const char *const names[] = {"nx", "ny", "nz", "atoms_per_cell", "bonds_per_cell", "shortest_bond", "longest_bond",
                               "cutoff", "onsite", "vpp_pi", "vpp_sigma", "a0", "d0", "delta0", "N", "nnz"};
  const double values[] = {(double)d->ti.nx, (double)d->ti.ny, (double)d->ti.nz, (double)s->structure_atoms,
                           (double)s->structure_bonds, s->structure_bond_range[0], s->structure_bond_range[1],
                           d->structure.cutoff, d->structure.onsite, d->structure.vpp_pi, d->structure.vpp_sigma,
                           d->structure.a0, d->structure.d0, d->structure.delta0, (double)n, (double)nnz};
  const size_t count = sizeof values / sizeof values[0];
  for (size_t i = 0; i < count; i++) {
    const int sk_only = i >= 9 && i <= 13;
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
         s->structure_bond_range[1], d->structure.cutoff, d->structure.hopping ? "table" : "Slater-Koster p_z");
  if (d->potential & HM_POTENTIAL_DISORDER)
    printf(", on-site disorder %s W = %g", d->structure.disorder_gaussian ? "gaussian" : "uniform", d->ti.disorder_w);
  if (d->structure.bond_disorder > 0) printf(", bond disorder B = %g", d->structure.bond_disorder);
  if (d->structure.impurities > 0)
    printf(", impurities %g (%+g eV, hoppings x %g)", d->structure.impurities, d->structure.impurity_onsite,
           d->structure.impurity_hopping);
}
