/* model = lattice: the model file read on every rank (a small text file), its supercell's hm_stencil
 * from the deck, and the matrix linalg makes of it; /hamiltonian and the summary describe it. */
#include <string.h>
#include "lattice.h"
#include "run_state.h"

/* The line of `key = ...` in the deck's text (0 if absent): the supercell's own checks (a field
 * incommensurate with it, a twist, vacancies, Zeeman without spins) then name where the value is. */
static int key_line(const char *text, const char *key) {
  const size_t n = strlen(key);
  int line = 1;
  for (const char *p = text; p && *p; line++) {
    p += strspn(p, " \t");
    if (!strncmp(p, key, n) && strchr(" \t=:", p[n])) return line;
    p = strchr(p, '\n');
    if (p) p++;
  }
  return 0;
}

/* A refusal of the deck's terms by physics/lattice (HM_ERR_DECK): rank 0 names the deck's line. */
static void name_deck_line(const run_state *s, int status) {
  static const char *const keys[] = {"field", "twist", "vacancies", "zeeman"};
  const char *msg = strstr(hm_error_message(), "): ");
  if (status != HM_ERR_DECK || s->rank != 0 || !msg) return;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    int line = key_line(s->deck.text, keys[k]);
    if (line && !strncmp(msg + 3, keys[k], strlen(keys[k])))
      fprintf(stderr, "hamlet: %s:%d: [hamiltonian] %s = ...: refused (see below)\n", s->deck.name, line,
              keys[k]);
  }
}

/* [hamiltonian] wsvec: Wannier90's images of each hopping (auto: seedname_wsvec.dat beside a
 * seedname_hr.dat or _tb.dat where it exists; none; or a path). Without it the hoppings stay at R, as
 * Wannier90 with use_ws_distance = false: the summary and /hamiltonian say which. */
static void spread_images(run_state *s, hm_lattice *L) {
  hm_deck *d = &s->deck;
  const char *w = d->lattice.wsvec, *file = d->lattice.file;
  const int is_auto = !strcmp(w, "auto"), is_none = !strcmp(w, "none");
  const int wannier = hm_lattice_format_of(file, (hm_lattice_format)d->lattice.format) != HM_LATTICE_HAMLET;
  s->lattice_wsvec[0] = '\0';
  s->lattice_wsvec_note[0] = '\0';
  if (!wannier) {
    if (is_auto || is_none) return;
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s:%d: [hamiltonian] wsvec = %s: refused: a seedname_wsvec.dat applies to Wannier90 "
              "files (_hr.dat, _tb.dat); %s is in hamlet's format (use auto or none)\n", d->name,
              key_line(d->text, "wsvec"), w, file);
    hm_app_exit(HM_EXIT_USAGE);
  }
  char path[HM_PATH_MAX];
  const char *why = "wsvec = none";
  if (is_none) {
    path[0] = '\0';
  } else if (is_auto) {
    if (!hm_lattice_wsvec_beside(file, path, sizeof path)) {
      path[0] = '\0';
      why = "wsvec = auto: lattice_file is not named seedname_hr.dat or _tb.dat, so no seedname_wsvec.dat is looked "
            "for (wsvec = PATH names one)";
    } else if (access(path, F_OK) != 0) {
      snprintf(s->lattice_wsvec_note, sizeof s->lattice_wsvec_note, "no %s (wsvec = auto): hoppings at R as the file "
               "gives them (Wannier90's use_ws_distance = false)", path);
      return;
    }
  } else {
    snprintf(path, sizeof path, "%s", w); /* resolved from the deck's directory with the other inputs (run.c) */
  }
  if (!path[0]) {
    snprintf(s->lattice_wsvec_note, sizeof s->lattice_wsvec_note, "%s: hoppings at R as the file gives them "
             "(Wannier90's use_ws_distance = false)", why);
    return;
  }
  const int st = hm_lattice_spread_wsvec(path, file, L);
  if (st && s->rank == 0) {
    const int line = key_line(d->text, "wsvec");
    if (line)
      fprintf(stderr, "hamlet: %s:%d: [hamiltonian] wsvec = %s: refused (see below)\n", d->name, line, w);
    else
      fprintf(stderr, "hamlet: %s:%d: [hamiltonian] lattice_file = %s: its %s (wsvec = auto) is refused (see below); "
              "wsvec = none reads the hoppings without it\n", d->name, key_line(d->text, "lattice_file"), file, path);
  }
  APP_CALL(st);
  snprintf(s->lattice_wsvec, sizeof s->lattice_wsvec, "%s", path);
  snprintf(s->lattice_wsvec_note, sizeof s->lattice_wsvec_note, "hoppings spread over the images R + T of %s", path);
}

static const char *const storage_words[] = {"auto", "assembled", "matrix_free"};
static const char *const format_words[] = {"auto", "hamlet", "wannier90_hr", "wannier90_tb"};
static const char *const boundary_words[] = {"periodic", "open", "twisted"};

/* The deck's model file; with zeeman_layers other than all, its slab folded into one cell with the
 * Zeeman field on the chosen layers (lattice_layers.c) and *folded = 1 (nz cells become 1). */
static void read_model(run_state *s, int with_zeeman, hm_lattice *L, int *folded) {
  hm_deck *d = &s->deck;
  const int st_read = hm_lattice_read(d->lattice.file, (hm_lattice_format)d->lattice.format,
                                      d->lattice.cell_given ? (const double(*)[3])d->lattice.cell : NULL,
                                      d->lattice.centres, L);
  if (st_read && s->rank == 0) { /* the file's own line is in the message below; the deck's is here */
    const int centres = d->lattice.centres[0] && strstr(hm_error_message(), d->lattice.centres);
    fprintf(stderr, "hamlet: %s:%d: [hamiltonian] %s = %s: refused (see below)\n", d->name,
            key_line(d->text, centres ? "centres" : "lattice_file"), centres ? "centres" : "lattice_file",
            centres ? d->lattice.centres : d->lattice.file);
  }
  APP_CALL(st_read);
  spread_images(s, L);
  *folded = d->lattice.zeeman_layers != HM_ZEEMAN_ALL;
  if (!*folded) return;
  const int64_t nz = d->ti.nz;
  double *B = calloc(3 * (size_t)nz, sizeof(double));
  const int top = d->lattice.zeeman_layers != HM_ZEEMAN_BOTTOM, bottom = d->lattice.zeeman_layers != HM_ZEEMAN_TOP;
  const double sign = d->lattice.zeeman_sign ? -1.0 : 1.0; /* bottom against top: parallel or antiparallel */
  for (int a = 0; a < 3 && B; a++) {
    if (bottom) B[a] += (top ? sign : 1.0) * d->lattice.zeeman[a];
    if (top) B[3 * (nz - 1) + a] += d->lattice.zeeman[a];
  }
  hm_lattice F;
  const int st = B ? hm_lattice_fold_layers(L, nz, with_zeeman ? B : NULL, &F) : HM_ERR_MEMORY;
  free(B);
  name_deck_line(s, st);
  APP_CALL(st);
  hm_lattice_free(L);
  *L = F;
}

void run_lattice_geometry(run_state *s, int64_t cells[3], int *orbitals, double lattice[9], double **positions,
                          int *layer_orbitals, int **spin) {
  hm_lattice L;
  int folded;
  read_model(s, 0, &L, &folded);
  const hm_deck *d = &s->deck;
  cells[0] = d->ti.nx, cells[1] = d->ti.ny, cells[2] = folded ? 1 : d->ti.nz;
  *orbitals = L.orbitals;
  *layer_orbitals = folded ? L.orbitals / (int)d->ti.nz : 0;
  for (int k = 0; k < 3; k++)
    for (int a = 0; a < 3; a++) lattice[3 * k + a] = L.cell[k][a];
  *positions = L.position;
  L.position = NULL;
  if (spin) *spin = L.spin, L.spin = NULL;
  hm_lattice_free(&L);
}

static int single_shot_charge(const hm_deck *d) {
  return d->solver.method == HM_METHOD_CONDUCTIVITY && d->conductivity.single_shot && !d->conductivity.current;
}

/* Whether the method has a real-arithmetic path: KPM (DOS and LDOS: real start vectors) and the
 * single-shot charge conductivity (real +-1 start vectors, the velocity as the real A = -i v). */
static int method_runs_real(const hm_deck *d) {
  return d->solver.method == HM_METHOD_KPM || single_shot_charge(d);
}

/* [hamiltonian] arithmetic: real only for the methods above on the matrix-free operator of a real
 * lattice; every other method works on complex vectors (IDR's shifts, spectral and the conductivity
 * moments' phases, the marker), so auto picks real exactly there and `real` elsewhere, or on a
 * lattice with a complex term, exits 2 naming why. Every rank decides the same. */
static int real_arithmetic(const run_state *s, const hm_stencil *st, int matrix_free) {
  const hm_deck *d = &s->deck;
  if (d->lattice.arithmetic == 2) return 0;
  char term[256];
  int is_complex = 1;
  APP_CALL(hm_stencil_complex_term(st, &is_complex, term, sizeof term));
  const int real_method = method_runs_real(d);
  if (d->lattice.arithmetic == 0) return real_method && matrix_free && !is_complex;
  const char *why = is_complex ? term
                    : !real_method ? "only method = kpm and method = conductivity with expansion = single_shot (charge "
                                     "current) run in real arithmetic; the other methods need complex vectors"
                    : !matrix_free ? "real arithmetic is the matrix-free operator's; use storage = matrix_free or auto"
                                   : NULL;
  if (!why) return 1;
  if (s->rank == 0)
    fprintf(stderr, "hamlet: %s:%d: [hamiltonian] arithmetic = real: refused: %s%s\n", d->name,
            key_line(d->text, "arithmetic"), is_complex ? "the lattice is complex: " : "", why);
  hm_app_exit(HM_EXIT_USAGE);
}

void run_build_lattice(run_state *s, hm_matrix **H) {
  hm_deck *d = &s->deck;
  hm_lattice L;
  int folded;
  read_model(s, 1, &L, &folded);
  hm_lattice_params p;
  APP_CALL(hm_lattice_params_default(&p));
  p.cells[0] = d->ti.nx, p.cells[1] = d->ti.ny, p.cells[2] = folded ? 1 : d->ti.nz;
  for (int a = 0; a < 3; a++) {
    p.boundary[a] = d->ti.boundary[a];
    p.twist[a] = d->lattice.twist[a];
    p.zeeman[a] = folded ? 0.0 : d->lattice.zeeman[a]; /* folded: on its layers already */
    p.field[a] = d->lattice.field[a];
  }
  p.disorder_w = d->potential & HM_POTENTIAL_DISORDER ? d->ti.disorder_w : 0.0;
  p.disorder_seed = d->ti.disorder_seed;
  p.vacancy_p = d->lattice.vacancies;
  p.vacancy_seed = d->lattice.vacancy_seed;
  /* auto: matrix-free for KPM on a GPU (measured faster there, and it holds 10^9 orbitals in 80 GB:
   * bench/README.md) and for the single shot everywhere (its vectors dominate: in real arithmetic
   * 2.2x faster than the complex CSR on CPU cores, and as fast in complex), assembled otherwise (the
   * CPU's CSR step was faster than its matrix-free one; dense, shift-and-invert and Jacobi need entries). */
  hm_backend backend = HM_BACKEND_CPU;
  APP_CALL(hm_context_backend(s->ctx, &backend));
  const int matrix_free = d->lattice.storage == 2 || (d->lattice.storage == 0 && (d->lattice.arithmetic == 1 ||
      single_shot_charge(d) || (backend == HM_BACKEND_CUDA && d->solver.method == HM_METHOD_KPM)));
  double host_entries = 0; /* per row, where the entries are assembled on the host */
  for (int64_t k = 0; !matrix_free && backend == HM_BACKEND_CPU && k < (int64_t)L.nblocks * L.orbitals * L.orbitals; k++)
    host_entries += L.block[k] != 0;
  run_check_lattice_size(s, p.cells, L.orbitals, d->lattice.file, host_entries / L.orbitals);
  hm_lattice_stencil st;
  int made = hm_lattice_make_stencil(&L, &p, &st);
  name_deck_line(s, made);
  APP_CALL(made);
  s->site_orbitals = L.orbitals;
  if (d->ldos.nsites) d->kpm.vectors = L.orbitals * d->ldos.nsites; /* one start vector per orbital */
  int64_t vacant = 0; /* every rank counts the same sites (counter-based): no communication */
  if (p.vacancy_p > 0) APP_CALL(hm_stencil_vacancies(&st.stencil, &vacant));
  s->vacant_orbitals = vacant * L.orbitals;
  if (vacant == p.cells[0] * p.cells[1] * p.cells[2]) { /* every rank sees it: they exit together */
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: [hamiltonian] vacancies = %g with vacancy_seed = %llu removes all %lld sites of "
              "the supercell: nothing is left; use a lower p, another seed or more cells\n", d->name,
              d->lattice.vacancies, (unsigned long long)d->lattice.vacancy_seed, (long long)vacant);
    hm_app_exit(HM_EXIT_USAGE);
  }
  run_lattice_keep_geometry(s, L.cell, L.orbitals, L.position);
  run_lattice_keep_spin(s, L.orbitals, L.spin, d->lattice.file);
  hm_lattice_free(&L);
  hm_stencil_storage storage = matrix_free ? HM_STENCIL_MATRIX_FREE : HM_STENCIL_ASSEMBLED;
  const int real = real_arithmetic(s, &st.stencil, matrix_free);
  run_lattice_velocities(s, &st.stencil, real ? HM_STENCIL_MATRIX_FREE_REAL : storage);
  run_lattice_msd_velocities(s, &st.stencil, storage);
  int status = hm_matrix_create_stencil(s->ctx, &st.stencil, real ? HM_STENCIL_MATRIX_FREE_REAL : storage, H);
  hm_lattice_stencil_free(&st);
  APP_CALL(status);
  if (matrix_free && d->lattice.gpu_kernel) APP_CALL(hm_matrix_set_stencil_kernel(*H, (hm_stencil_kernel)d->lattice.gpu_kernel));
}

void run_write_lattice(run_state *s, hm_output *out, const hm_matrix *H) {
  const hm_deck *d = &s->deck;
  int64_t n, nnz;
  APP_CALL(hm_matrix_info(H, &n, &nnz, NULL));
  const char *g = "/hamiltonian";
  APP_CALL(hm_output_write_attribute(out, g, "model", "lattice"));
  APP_CALL(hm_output_write_attribute(out, g, "description", "tight-binding model from a file, on a supercell of unit cells"));
  APP_CALL(hm_output_write_attribute(out, g, "lattice_file", d->lattice.file));
  APP_CALL(hm_output_write_attribute(out, g, "lattice_format", format_words[d->lattice.format]));
  if (d->lattice.centres[0]) APP_CALL(hm_output_write_attribute(out, g, "centres", d->lattice.centres));
  APP_CALL(hm_output_write_attribute(out, g, "wsvec", s->lattice_wsvec[0] ? s->lattice_wsvec : "none"));
  if (s->lattice_wsvec_note[0]) APP_CALL(hm_output_write_attribute(out, g, "wsvec_note", s->lattice_wsvec_note));
  APP_CALL(hm_output_write_attribute(out, g, "storage", storage_words[d->lattice.storage]));
  static const char *const kernel_words[] = {"auto", "staged", "box", "mma", "small", "site"};
  APP_CALL(hm_output_write_attribute(out, g, "gpu_kernel", kernel_words[d->lattice.gpu_kernel]));
  hm_scalar type;
  APP_CALL(hm_matrix_info(H, NULL, NULL, &type));
  APP_CALL(hm_output_write_attribute(out, g, "arithmetic", type == HM_REAL ? "real" : "complex"));
  static const char *const bnames[3] = {"boundary_x", "boundary_y", "boundary_z"};
  for (int a = 0; a < 3; a++) APP_CALL(hm_output_write_attribute(out, g, bnames[a], boundary_words[d->ti.boundary[a]]));
  const char *const names[] = {"nx", "ny", "nz", "twist_x", "twist_y", "twist_z", "zeeman_x", "zeeman_y", "zeeman_z",
                               "field_x", "field_y", "field_z", "disorder_w", "disorder_seed", "vacancies",
                               "vacancy_seed", "N", "nnz"};
  const double values[] = {(double)d->ti.nx, (double)d->ti.ny, (double)d->ti.nz, d->lattice.twist[0], d->lattice.twist[1],
                           d->lattice.twist[2], d->lattice.zeeman[0], d->lattice.zeeman[1], d->lattice.zeeman[2],
                           d->lattice.field[0], d->lattice.field[1], d->lattice.field[2],
                           d->potential & HM_POTENTIAL_DISORDER ? d->ti.disorder_w : 0.0, (double)d->ti.disorder_seed,
                           d->lattice.vacancies, (double)d->lattice.vacancy_seed, (double)n, (double)nnz};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
    APP_CALL(hm_output_write_attribute_double(out, g, names[i], values[i]));
}

void run_print_lattice(const run_state *s) {
  const hm_deck *d = &s->deck;
  printf("lattice %s, %lld x %lld x %lld cells (%s %s %s)", d->lattice.file, (long long)d->ti.nx, (long long)d->ti.ny,
         (long long)d->ti.nz, boundary_words[d->ti.boundary[0]], boundary_words[d->ti.boundary[1]],
         boundary_words[d->ti.boundary[2]]);
  if (d->lattice.field[0] != 0 || d->lattice.field[1] != 0 || d->lattice.field[2] != 0)
    printf(", field %g %g %g", d->lattice.field[0], d->lattice.field[1], d->lattice.field[2]);
  if (d->lattice.vacancies > 0) printf(", vacancies p = %g", d->lattice.vacancies);
  if (s->lattice_wsvec_note[0]) printf(", %s", s->lattice_wsvec_note);
}
