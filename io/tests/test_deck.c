/* Input decks: every key reaches its field, defaults are the documented ones, values are parsed
 * strictly, and every deck of the corpus tests/decks/bad fails with the message (file, line,
 * words) its .expect file gives, while tests/decks/good and inputs/ parse. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "deck.h"
#include "deck_schema.h"

enum { MAX_FILES = 256, NAME_LEN = 256 };
static char source_dir[2048];

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

/* Sorted names in dir ending in suffix; returns the count (-1 if dir cannot be opened). */
static int list_dir(const char *dir, const char *suffix, char names[][NAME_LEN]) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  size_t ls = strlen(suffix);
  for (struct dirent *e; (e = readdir(d)) && n < MAX_FILES;) {
    size_t l = strlen(e->d_name);
    if (l > ls && l < NAME_LEN && !strcmp(e->d_name + l - ls, suffix)) snprintf(names[n++], NAME_LEN, "%s", e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, NAME_LEN, by_name);
  return n;
}

static int parse_file(const char *path, const char *name, hm_deck *deck) {
  char *text = NULL;
  int st = hm_deck_read_file(path, &text);
  if (!st) st = hm_deck_parse_string(text, name, deck);
  free(text);
  return st;
}

static void test_all_keys(void) {
  char path[4096], *text = NULL;
  hm_deck d;
  snprintf(path, sizeof path, "%s/tests/decks/good/all_keys.ini", source_dir);
  HM_TEST_OK(hm_deck_read_file(path, &text));
  if (!text) return;
  HM_TEST_OK(hm_deck_parse_string(text, "all_keys.ini", &d));
  HM_TEST_ASSERT(d.text && d.text != text && !strcmp(d.text, text), "deck text is not a copy of the input");
  HM_TEST_ASSERT(!strcmp(d.name, "all_keys.ini"), "name %s", d.name);
  HM_TEST_ASSERT(d.backend == HM_BACKEND_CPU, "backend %d", (int)d.backend);
  HM_TEST_ASSERT(!strcmp(d.output, "all_keys_out.h5"), "output %s", d.output);
  HM_TEST_ASSERT(d.gpu_format == HM_FORMAT_SELL && d.sell_sigma == 128, "gpu_format %d, sell_sigma %d", d.gpu_format,
                 d.sell_sigma);
  HM_TEST_ASSERT(d.progress_seconds == 7.5, "progress_seconds %g", d.progress_seconds);
  HM_TEST_ASSERT(!strcmp(d.checkpoint, "all_keys_ckpt.h5"), "checkpoint %s", d.checkpoint);
  HM_TEST_ASSERT(d.checkpoint_every == 32 && d.kpm.checkpoint_every == 32, "checkpoint_every %d %d",
                 d.checkpoint_every, d.kpm.checkpoint_every);
  HM_TEST_ASSERT(d.checkpoint_seconds == 90.5 && d.kpm.checkpoint_seconds == 90.5, "checkpoint_seconds %g %g",
                 d.checkpoint_seconds, d.kpm.checkpoint_seconds);
  const hm_ti_params *p = &d.ti;
  HM_TEST_ASSERT(p->nx == 20 && p->ny == 18 && p->nz == 6, "lattice %lld %lld %lld", (long long)p->nx,
                 (long long)p->ny, (long long)p->nz);
  HM_TEST_ASSERT(p->boundary[0] == HM_BC_OPEN && p->boundary[1] == HM_BC_PERIODIC && p->boundary[2] == HM_BC_OPEN,
                 "boundary %d %d %d", p->boundary[0], p->boundary[1], p->boundary[2]);
  HM_TEST_ASSERT(p->t == 1.25 && p->m == -2.5, "t %g m %g", p->t, p->m);
  HM_TEST_ASSERT(p->dot_period_x == 10 && p->dot_period_y == 9 && p->dot_depth == 3, "dot periods/depth %lld %lld %lld",
                 (long long)p->dot_period_x, (long long)p->dot_period_y, (long long)p->dot_depth);
  HM_TEST_ASSERT(p->dot_radius == 2.75 && p->dot_v0 == -0.125, "dot radius %g v0 %g", p->dot_radius, p->dot_v0);
  HM_TEST_ASSERT(p->disorder_w == 0.75 && p->disorder_seed == UINT64_MAX, "disorder %g %llu", p->disorder_w,
                 (unsigned long long)p->disorder_seed);
  const hm_kpm_options *k = &d.kpm;
  HM_TEST_ASSERT(k->moments == 1024 && k->vectors == 12 && k->seed == 12345678901234ull, "kpm M %d R %d seed %llu",
                 k->moments, k->vectors, (unsigned long long)k->seed);
  HM_TEST_ASSERT(k->bounds == HM_BOUNDS_LANCZOS && k->lanczos_steps == 60 && k->bounds_margin == 0.1,
                 "bounds %d steps %d margin %g", (int)k->bounds, k->lanczos_steps, k->bounds_margin);
  HM_TEST_ASSERT(!k->checkpoint && !k->progress, "callbacks must stay NULL");
  const hm_dos_options *o = &d.dos;
  HM_TEST_ASSERT(o->kernel == HM_KERNEL_LORENTZ && o->lorentz_lambda == 3.5, "kernel %d lambda %g", (int)o->kernel,
                 o->lorentz_lambda);
  HM_TEST_ASSERT(o->points == 300 && o->emin == -1.5 && o->emax == 2.5 && o->norm == HM_NORM_UNIT,
                 "dos points %d [%g, %g] norm %d", o->points, o->emin, o->emax, (int)o->norm);
  char ckpt[HM_PATH_MAX];
  hm_deck_checkpoint_path(&d, ckpt, sizeof ckpt);
  HM_TEST_ASSERT(!strcmp(ckpt, "all_keys_ckpt.h5"), "checkpoint path %s", ckpt);
  hm_deck_free(&d);
  HM_TEST_ASSERT(!d.text, "hm_deck_free must null the text");
  hm_deck_free(&d); /* twice is harmless */
  free(text);
}

/* Every key of the schema is set in some deck of tests/decks/good (keys of different models and
 * methods cannot share one deck), so each has been through its parser and reached its field. */
static void test_schema_covered(void) {
  static char names[MAX_FILES][NAME_LEN];
  char dir[3072], path[4096];
  snprintf(dir, sizeof dir, "%s/tests/decks/good", source_dir);
  int n = list_dir(dir, ".ini", names);
  size_t total = 1;
  char *all = calloc(1, 1);
  for (int i = 0; i < n; i++) {
    char *text = NULL;
    snprintf(path, sizeof path, "%s/%.255s", dir, names[i]);
    HM_TEST_OK(hm_deck_read_file(path, &text));
    if (!text) continue;
    total += strlen(text) + 2;
    all = realloc(all, total);
    strcat(all, "\n");
    strcat(all, text);
    free(text);
  }
  for (int i = 0; i < hm_deck_nkeys; i++) {
    char line[128];
    snprintf(line, sizeof line, "\n%s = ", hm_deck_keys[i].key);
    HM_TEST_ASSERT(strstr(all, line), "no deck in tests/decks/good sets key [%s] %s", hm_deck_keys[i].section,
                   hm_deck_keys[i].key);
  }
  free(all);
}

static int parse_good(const char *name, hm_deck *d) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/decks/good/%s", source_dir, name);
  int st = parse_file(path, name, d);
  HM_TEST_ASSERT(st == 0, "%s must parse:\n%s", name, hm_error_message());
  hm_error_clear();
  return st;
}

/* The keys of the other models and methods reach their fields. */
static void test_model_method_keys(void) {
  hm_deck d;
  if (!parse_good("all_keys_fem_lobpcg.ini", &d)) {
    const hm_fem_params *f = &d.fem;
    HM_TEST_ASSERT(d.model == HM_MODEL_FEM && f->ex == 6 && f->ey == 5 && f->ez == 4, "fem elements");
    HM_TEST_ASSERT(f->lx == 2.5 && f->ly == 2 && f->lz == 1.5, "fem box %g %g %g", f->lx, f->ly, f->lz);
    HM_TEST_ASSERT(f->centre[0] == 1.25 && f->centre[1] == 0.75 && f->centre[2] == 0.5, "fem centre");
    HM_TEST_ASSERT(f->potential == HM_FEM_POTENTIAL_BOX_WELL && f->well_depth == 3.5 && f->well_size[0] == 0.5 &&
                       f->well_size[1] == 0.25 && f->well_size[2] == 0.75, "fem box well (kind %d)", f->potential);
    HM_TEST_ASSERT(d.solver.method == HM_METHOD_LOBPCG && d.solver.nev == 6 && d.solver.block == 9 &&
                       d.solver.which == 1 && d.solver.tol == 1e-6 && d.solver.maxit == 77 && d.solver.precond == 1 &&
                       d.solver.seed == 99 && d.solver.vectors == 1 && d.solver.convergence == 2, "lobpcg keys");
    hm_deck_free(&d);
  }
  if (!parse_good("fem_harmonic_dense.ini", &d)) {
    HM_TEST_ASSERT(d.fem.potential == HM_FEM_POTENTIAL_HARMONIC && d.fem.omega[0] == 0.5 && d.fem.omega[1] == 1.5 &&
                       d.fem.omega[2] == 2.5, "harmonic");
    HM_TEST_ASSERT(isnan(d.fem.centre[0]), "the centre defaults to the box centre (NaN)");
    HM_TEST_ASSERT(d.solver.method == HM_METHOD_DENSE && d.solver.dense_solver == 3, "dense_solver");
    hm_deck_free(&d);
  }
  if (!parse_good("fem_sphere_grid.ini", &d)) {
    HM_TEST_ASSERT(d.fem.potential == HM_FEM_POTENTIAL_SPHERE_WELL && d.fem.well_radius == 0.3, "sphere well");
    HM_TEST_ASSERT(d.backend == HM_BACKEND_MIXED && d.gpu_weight == 3.5, "mixed backend, gpu_weight %g", d.gpu_weight);
    hm_deck_free(&d);
  }
  if (!parse_good("fem_grid.ini", &d)) {
    HM_TEST_ASSERT(d.fem.potential == HM_FEM_POTENTIAL_GRID && !strcmp(d.grid_file, "potential.h5") &&
                       !strcmp(d.grid_dataset, "V"), "grid potential");
    hm_deck_free(&d);
  }
  if (!parse_good("interior.ini", &d)) {
    HM_TEST_ASSERT(d.solver.method == HM_METHOD_INTERIOR && d.interior.emin == -0.4 && d.interior.emax == 0.4 &&
                       d.interior.tol == 1e-10 && d.interior.vectors == 1 && d.interior.search == 24 &&
                       d.interior.degree == 120, "interior: window [%g, %g]", d.interior.emin, d.interior.emax);
    hm_deck_free(&d);
  }
  if (!parse_good("mtx_generalized.ini", &d)) {
    HM_TEST_ASSERT(d.model == HM_MODEL_MTX && !strcmp(d.matrix_file, "A.mtx") && !strcmp(d.mass_file, "B.mtx"), "mtx");
    hm_deck_free(&d);
  }
  if (!parse_good("convdiff_idr_file.ini", &d)) {
    const hm_convdiff_params *c = &d.convdiff;
    HM_TEST_ASSERT(d.model == HM_MODEL_CONVDIFF && c->n == 12 && c->eps == 0.5 && c->beta[0] == 1 && c->beta[1] == 2 &&
                       c->beta[2] == 3 && c->r == -0.25, "convdiff");
    HM_TEST_ASSERT(d.solver.method == HM_METHOD_IDR && d.solver.s == 8 && d.solver.smoothing == 0 &&
                       d.solver.tol == 1e-10 && d.solver.maxit == 500 && d.solver.precond == 1 && d.solver.seed == 7 &&
                       d.solver.omega_angle == 0.5 && d.solver.residual_replacement == 10 && d.solver.problem == 0,
                   "idr keys");
    HM_TEST_ASSERT(d.rhs.kind == 2 && !strcmp(d.rhs.file, "b.mtx"), "rhs");
    hm_deck_free(&d);
  }
  if (!parse_good("ti_green_grid.ini", &d)) {
    HM_TEST_ASSERT(d.solver.problem == 1 && d.green.eta == 0.05 && d.green.nenergies == 11, "green grid");
    HM_TEST_ASSERT(d.green.energies && d.green.energies[0] == -0.5 && fabs(d.green.energies[5]) < 1e-15 &&
                       d.green.energies[10] == 0.5, "green grid energies");
    HM_TEST_ASSERT(d.green.nsites == 2 && d.green.sites[1][0] == 3 && d.green.sites[1][1] == 3 &&
                       d.green.sites[1][2] == 4, "green sites");
    HM_TEST_ASSERT(d.green.rhs_per_solve == 3, "green rhs_per_solve %d", d.green.rhs_per_solve);
    hm_deck_free(&d);
    HM_TEST_ASSERT(!d.green.energies, "hm_deck_free frees the energies");
  }
  if (!parse_good("ti_green_list.ini", &d)) {
    HM_TEST_ASSERT(d.green.nenergies == 3 && d.green.energies[0] == -0.25 && d.green.energies[2] == 0.125 &&
                       d.green.nsites == 1 && d.green.sites[0][2] == 3 && d.solver.s == 2 && d.green.rhs_per_solve == 0,
                   "green list (rhs_per_solve defaults to 0)");
    hm_deck_free(&d);
  }
}

static void test_defaults(void) {
  const char *text = "[hamiltonian]\nmodel = ti\nnx = 4\nny = 5\nnz = 6\n";
  hm_deck d;
  HM_TEST_OK(hm_deck_parse_string(text, "min.ini", &d));
  HM_TEST_ASSERT(d.backend == HM_BACKEND_AUTO && !strcmp(d.output, "hamlet.h5") && d.checkpoint[0] == '\0',
                 "run defaults: backend %d output %s checkpoint %s", (int)d.backend, d.output, d.checkpoint);
  HM_TEST_ASSERT(d.checkpoint_every == 0 && d.checkpoint_seconds == 0 && d.kpm.checkpoint_every == 0 &&
                     d.kpm.checkpoint_seconds == 0, "checkpoints must default to off");
  HM_TEST_ASSERT(d.gpu_format == HM_FORMAT_AUTO && d.sell_sigma == 0, "gpu_format %d, sell_sigma %d (want auto, 0)",
                 d.gpu_format, d.sell_sigma);
  const hm_ti_params *p = &d.ti;
  HM_TEST_ASSERT(p->nx == 4 && p->ny == 5 && p->nz == 6, "lattice");
  for (int j = 0; j < 3; j++) HM_TEST_ASSERT(p->boundary[j] == HM_BC_PERIODIC, "boundary %d not periodic", j);
  HM_TEST_ASSERT(p->t == 1 && p->m == 2, "t %g m %g", p->t, p->m);
  HM_TEST_ASSERT(p->dot_v0 == 0 && p->disorder_w == 0 && p->dot_depth == 0 && p->disorder_seed == 1,
                 "potential must default to none (dot_v0 %g, W %g)", p->dot_v0, p->disorder_w);
  const hm_kpm_options *k = &d.kpm;
  HM_TEST_ASSERT(k->moments == 256 && k->vectors == 16 && k->seed == 1, "kpm M %d R %d seed %llu", k->moments,
                 k->vectors, (unsigned long long)k->seed);
  HM_TEST_ASSERT(k->bounds == HM_BOUNDS_LANCZOS && k->lanczos_steps == 40 && k->bounds_margin == 0.05,
                 "bounds %d steps %d margin %g", (int)k->bounds, k->lanczos_steps, k->bounds_margin);
  const hm_dos_options *o = &d.dos;
  HM_TEST_ASSERT(o->kernel == HM_KERNEL_JACKSON && o->lorentz_lambda == 4 && o->points == 0 && o->emin == 0 &&
                     o->emax == 0 && o->norm == HM_NORM_STATES,
                 "dos defaults: kernel %d lambda %g points %d [%g, %g] norm %d", (int)o->kernel, o->lorentz_lambda,
                 o->points, o->emin, o->emax, (int)o->norm);
  char ckpt[HM_PATH_MAX];
  hm_deck_checkpoint_path(&d, ckpt, sizeof ckpt);
  HM_TEST_ASSERT(!strcmp(ckpt, "hamlet_checkpoint.h5"), "derived checkpoint %s", ckpt);
  HM_TEST_ASSERT(d.text && !strcmp(d.text, text), "text copy");
  hm_deck_free(&d);
}

/* Every bad deck fails with HM_ERR_DECK and a message holding each line of its .expect file. */
static void test_bad_corpus(void) {
  static char decks[MAX_FILES][NAME_LEN], expects[MAX_FILES][NAME_LEN];
  char dir[3072], path[4096];
  snprintf(dir, sizeof dir, "%s/tests/decks/bad", source_dir);
  int n = list_dir(dir, ".ini", decks), ne = list_dir(dir, ".expect", expects);
  HM_TEST_ASSERT(n >= 15, "%s: %d bad decks, want at least 15", dir, n);
  HM_TEST_ASSERT(ne == n, "%s: %d decks but %d .expect files (each deck needs one, and only one)", dir, n, ne);
  for (int e = 0; e < ne; e++) {
    snprintf(path, sizeof path, "%s/%.*s.ini", dir, (int)(strlen(expects[e]) - 7), expects[e]);
    FILE *f = fopen(path, "r");
    HM_TEST_ASSERT(f, "%s/%s has no deck %s", dir, expects[e], path);
    if (f) fclose(f);
  }
  for (int i = 0; i < n; i++) {
    char *expect = NULL;
    snprintf(path, sizeof path, "%s/%.*s.expect", dir, (int)(strlen(decks[i]) - 4), decks[i]);
    if (hm_deck_read_file(path, &expect)) {
      fprintf(stderr, "FAIL bad deck %s has no expectation file %s\n", decks[i], path);
      hm_test_failures++;
      hm_error_clear();
      continue;
    }
    snprintf(path, sizeof path, "%s/%.255s", dir, decks[i]);
    hm_deck d;
    int st = parse_file(path, decks[i], &d);
    const char *msg = hm_error_message();
    HM_TEST_ASSERT(st == HM_ERR_DECK, "%s: status %d, want HM_ERR_DECK (%d)\n%s", decks[i], st, HM_ERR_DECK, msg);
    HM_TEST_ASSERT(st == 0 || !d.text, "%s: a failed parse must leave no text", decks[i]);
    int lines = 0;
    for (char *line = strtok(expect, "\n"); line; line = strtok(NULL, "\n")) {
      if (!*line) continue;
      lines++;
      HM_TEST_ASSERT(strstr(msg, line), "%s: message lacks \"%s\":\n%s", decks[i], line, msg);
    }
    HM_TEST_ASSERT(lines > 0, "%s: empty expectation file", decks[i]);
    if (!st) hm_deck_free(&d);
    hm_error_clear();
    free(expect);
  }
}

static void test_good_corpus(void) {
  static char names[MAX_FILES][NAME_LEN];
  const char *dirs[] = {"tests/decks/good", "inputs"};
  const int want[] = {12, 2};
  for (int k = 0; k < 2; k++) {
    char dir[3072], path[4096];
    snprintf(dir, sizeof dir, "%s/%s", source_dir, dirs[k]);
    int n = list_dir(dir, ".ini", names);
    HM_TEST_ASSERT(n >= want[k], "%s: %d decks, want at least %d", dir, n, want[k]);
    for (int i = 0; i < n; i++) {
      hm_deck d;
      snprintf(path, sizeof path, "%s/%.255s", dir, names[i]);
      int st = parse_file(path, names[i], &d);
      HM_TEST_ASSERT(st == 0, "%s must parse:\n%s", path, hm_error_message());
      hm_error_clear();
      if (!st) hm_deck_free(&d);
    }
  }
}

/* The two decks users start from hold what their comments promise. */
static void test_inputs(void) {
  char path[4096];
  hm_deck d;
  snprintf(path, sizeof path, "%s/inputs/ti_dos.ini", source_dir);
  if (!parse_file(path, "ti_dos.ini", &d)) {
    HM_TEST_ASSERT(d.ti.nx == 24 && d.ti.ny == 24 && d.ti.nz == 12, "ti_dos lattice");
    HM_TEST_ASSERT(d.ti.boundary[0] == HM_BC_PERIODIC && d.ti.boundary[1] == HM_BC_PERIODIC &&
                       d.ti.boundary[2] == HM_BC_OPEN, "ti_dos must be a slab open in z");
    HM_TEST_ASSERT(d.ti.t == 1 && d.ti.m == 2 && d.ti.dot_v0 == 0 && d.ti.disorder_w == 0, "ti_dos model");
    HM_TEST_ASSERT(d.kpm.moments == 512 && d.kpm.vectors == 8 && d.dos.points == 0, "ti_dos kpm");
    HM_TEST_ASSERT(!strcmp(d.output, "ti_dos.h5"), "ti_dos output %s", d.output);
    hm_deck_free(&d);
  } else {
    HM_TEST_ASSERT(0, "%s must parse:\n%s", path, hm_error_message());
  }
  snprintf(path, sizeof path, "%s/inputs/ti_dos_dots_disorder.ini", source_dir);
  if (!parse_file(path, "ti_dos_dots_disorder.ini", &d)) {
    HM_TEST_ASSERT(d.ti.nx == 16 && d.ti.ny == 16 && d.ti.nz == 8, "dots_disorder lattice");
    HM_TEST_ASSERT(d.ti.dot_v0 != 0 && d.ti.disorder_w > 0, "dots_disorder must switch both potentials on");
    HM_TEST_ASSERT(d.dos.kernel == HM_KERNEL_LORENTZ && d.dos.points == 400, "dots_disorder dos");
    hm_deck_free(&d);
  } else {
    HM_TEST_ASSERT(0, "%s must parse:\n%s", path, hm_error_message());
  }
  hm_error_clear();
}

/* Comments, quotes, indentation, ':' separators, CRLF and a byte order mark. */
static void test_syntax(void) {
  char path[4096];
  hm_deck d;
  snprintf(path, sizeof path, "%s/tests/decks/good/style.ini", source_dir);
  if (!parse_file(path, "style.ini", &d)) {
    HM_TEST_ASSERT(!strcmp(d.output, "quoted name.h5"), "quotes: output '%s'", d.output);
    HM_TEST_ASSERT(d.backend == HM_BACKEND_CPU, "':' separator: backend %d", (int)d.backend);
    HM_TEST_ASSERT(d.ti.nx == 8 && d.ti.ny == 8 && d.ti.nz == 2, "indented keys, '#' comment");
    HM_TEST_ASSERT(d.ti.dot_radius == 1 && d.ti.dot_v0 == 5 && d.kpm.moments == 2, "radius %g v0 %g M %d",
                   d.ti.dot_radius, d.ti.dot_v0, d.kpm.moments);
    hm_deck_free(&d);
  } else {
    HM_TEST_ASSERT(0, "style.ini must parse:\n%s", hm_error_message());
  }
  const char *crlf = "\xEF\xBB\xBF[hamiltonian]\r\nmodel = ti\r\nnx = 3\r\nny = 3\r\nnz = 3\r\n[kpm]\r\n"
                     "moments = 64 ; comment\r\n   vectors = 3\r\n";
  if (!hm_deck_parse_string(crlf, "crlf.ini", &d)) {
    HM_TEST_ASSERT(d.ti.nx == 3 && d.kpm.moments == 64 && d.kpm.vectors == 3, "CRLF deck: nx %lld M %d R %d",
                   (long long)d.ti.nx, d.kpm.moments, d.kpm.vectors);
    hm_deck_free(&d);
  } else {
    HM_TEST_ASSERT(0, "CRLF deck must parse:\n%s", hm_error_message());
  }
  hm_error_clear();
  HM_TEST_FAILS(hm_deck_parse_string("\r\n[hamiltonian]\r\nmodel = ti\r\nnx = 3\r\nny = 3\r\nnz = 3\r\nmomnets = 4\r\n",
                                     "crlf.ini", &d),
                HM_ERR_DECK, "crlf.ini:7: [hamiltonian] unknown key 'momnets'");
  HM_TEST_FAILS(hm_deck_parse_string("", NULL, &d), HM_ERR_DECK, "deck: [hamiltonian] missing required key 'model'");
  HM_TEST_FAILS(hm_deck_parse_string(NULL, "x", &d), HM_ERR_ARGUMENT, "NULL");
}

/* One key line appended to a valid deck: does it parse, and what does the message say? */
typedef struct {
  const char *section, *line;
  int ok;
  const char *needle;
} number_case;

/* [green] energies and energy_list: every energy within [-1e100, 1e100] like single energies (their
 * arithmetic overflows beyond), refused naming the file, line, key, which number and the range. */
static void test_green_energy_range(void) {
  const struct {
    const char *line;
    const char *needle; /* NULL: must parse */
    double first, last; /* the energies when it parses */
  } cases[] = {
      {"energy_list = -1e100 0 1e100", NULL, -1e100, 1e100},
      {"energies = -1e100 1e100 3", NULL, -1e100, 1e100},
      {"energy_list = 0 1e300", "[green] energy_list = 0 1e300: number 2 (1e+300) is out of range; must be numbers in "
                                "[-1e+100, 1e+100]", 0, 0},
      {"energy_list = -1.0000001e100, 0", "number 1 (-1.0000001e+100) is out of range; must be numbers in [-1e+100, "
                                         "1e+100]", 0, 0},
      {"energies = -1e308 1 5", "[green] energies = -1e308 1 5: number 1 (-1e+308) is out of range; must be numbers in "
                                "[-1e+100, 1e+100]", 0, 0},
      {"energies = 0 1.5e100 3", "number 2 (1.5e+100) is out of range", 0, 0},
      {"energy_list = 1e400", "energy_list = 1e400: must be 1 to", 0, 0}, /* not a finite double at all */
  };
  const char *head = "[hamiltonian]\nmodel = ti\nnx = 2\nny = 2\nnz = 2\n[solver]\nmethod = idr\nproblem = green\n"
                     "[green]\neta = 0.1\nsites = 0 0 0\n";
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char text[512];
    snprintf(text, sizeof text, "%s%s\n", head, cases[c].line);
    hm_deck d;
    int st = hm_deck_parse_string(text, "g.ini", &d);
    if (!cases[c].needle) {
      HM_TEST_ASSERT(st == 0, "'%s' must parse:\n%s", cases[c].line, hm_error_message());
      if (st) continue;
      HM_TEST_ASSERT(d.green.nenergies == 3 && d.green.energies[0] == cases[c].first &&
                         d.green.energies[2] == cases[c].last, "'%s': energies %d, first %g, last %g", cases[c].line,
                     d.green.nenergies, d.green.energies[0], d.green.energies[d.green.nenergies - 1]);
      hm_deck_free(&d);
    } else {
      HM_TEST_ASSERT(st == HM_ERR_DECK, "'%s' must fail with HM_ERR_DECK, got %d", cases[c].line, st);
      HM_TEST_ASSERT(strstr(hm_error_message(), "g.ini:12: "), "'%s': line 12 not named:\n%s", cases[c].line,
                     hm_error_message());
      HM_TEST_ASSERT(strstr(hm_error_message(), cases[c].needle), "'%s': message lacks \"%s\":\n%s", cases[c].line,
                     cases[c].needle, hm_error_message());
      HM_TEST_ASSERT(!d.green.energies && !d.text, "'%s': a failed parse must free the energies", cases[c].line);
    }
    hm_error_clear();
  }
}

static void test_numbers(void) {
  static const number_case cases[] = {
      {"kpm", "moments = 2", 1, NULL},
      {"kpm", "moments = 100000000", 1, NULL},
      {"kpm", "moments = +64", 1, NULL},
      {"kpm", "moments = 0x10", 0, "moments = 0x10: not an integer"},
      {"kpm", "moments = 64.0", 0, "moments = 64.0: not a plain integer"},
      {"kpm", "moments = 6 4", 0, "moments = 6 4: not an integer"},
      {"kpm", "moments = 99999999999999999999", 0, "too large for a 64-bit integer"},
      {"kpm", "moments = 1e2", 0, "no decimal point or exponent"},
      {"kpm", "bounds_margin = 0", 1, NULL},
      {"kpm", "bounds_margin = 1", 1, NULL},
      {"kpm", "bounds_margin = .5", 1, NULL},
      {"kpm", "bounds_margin = 5e-1", 1, NULL},
      {"kpm", "bounds_margin = -0.0001", 0, "bounds_margin = -0.0001: must be a number in [0, 1]"},
      {"kpm", "bounds_margin = 1.0000001", 0, "must be a number in [0, 1]"},
      {"kpm", "bounds_margin = inf", 0, "bounds_margin = inf: not a number"},
      {"kpm", "bounds_margin = 0x1p-2", 0, "not a number"},
      {"kpm", "bounds_margin = 1e", 0, "not a number"},
      {"kpm", "bounds_margin = .", 0, "not a number"},
      {"kpm", "bounds_margin = 1.2.3", 0, "not a number"},
      {"kpm", "bounds_margin = 0.5 0.5", 0, "not a number"},
      {"hamiltonian", "t = 1e400", 0, "t = 1e400: beyond the range of a double"},
      {"hamiltonian", "t = -1e-300", 1, NULL},
      {"run", "checkpoint_every = 2147483647", 1, NULL},
      {"run", "checkpoint_every = 2147483648", 0, "must be an integer in [0, 2147483647]"},
      {"kpm", "seed = +5", 1, NULL},
      {"kpm", "seed = 1.5", 0, "seed = 1.5: not a plain integer"},
      {"kpm", "vectors = 100000", 1, NULL},
      {"kpm", "vectors = 100001", 0, "vectors = 100001: must be an integer in [1, 100000]"},
      {"kpm", "lanczos_steps = 4", 0, "must be an integer in [5, 1000]"},
      {"kpm", "energies = -1", 0, "energies = -1: must be an integer in [0, 10000000]"},
      {"kpm", "kernel = Jackson", 0, "'Jackson' is not allowed; must be one of: jackson, lorentz"},
      {"kpm", "kernel = jackson lorentz", 0, "expected one word, got 2"},
      {"hamiltonian", "potential = dots dots", 0, "'dots' is given twice"},
      {"run", "checkpoint = ", 1, NULL},
      /* Values whose arithmetic overflows are refused with the finite range allowed. */
      {"hamiltonian", "t = 1e308", 0, "t = 1e308: must be a number in [-1e+100, 1e+100]"},
      {"hamiltonian", "m = -1e100", 1, NULL},
      {"hamiltonian", "m = -1.0000001e100", 0, "m = -1.0000001e100: must be a number in [-1e+100, 1e+100]"},
      {"hamiltonian", "disorder_w = 1e308\npotential = disorder", 0, "disorder_w = 1e308: must be a number in [0, 1e+100]"},
      {"hamiltonian", "disorder_w = 1e100\npotential = disorder", 1, NULL},
      {"hamiltonian", "dot_v0 = -1e308\ndot_radius = 1\npotential = dots", 0, "dot_v0 = -1e308: must be a number in [-1e+100"},
      {"hamiltonian", "dot_radius = 1e51\ndot_v0 = 1\npotential = dots", 0, "dot_radius = 1e51: must be a number in (0, 1e+50]"},
      {"kpm", "emin = -1e308\nemax = 1\nenergies = 10", 0, "emin = -1e308: must be a number in [-1e+100, 1e+100]"},
      {"kpm", "emax = 1e308\nemin = 1\nenergies = 10", 0, "emax = 1e308: must be a number in [-1e+100, 1e+100]"},
      {"kpm", "emin = -1e100\nemax = 1e100\nenergies = 10", 1, NULL},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char text[512];
    const char *head = "[hamiltonian]\nmodel = ti\nnx = 2\nny = 2\nnz = 2\n";
    snprintf(text, sizeof text, "%s[%s]\n%s\n", head, cases[c].section, cases[c].line);
    hm_deck d;
    int st = hm_deck_parse_string(text, "n.ini", &d);
    if (cases[c].ok) {
      HM_TEST_ASSERT(st == 0, "'%s' must parse:\n%s", cases[c].line, hm_error_message());
      if (!st) hm_deck_free(&d);
    } else {
      HM_TEST_ASSERT(st == HM_ERR_DECK, "'%s' must fail", cases[c].line);
      HM_TEST_ASSERT(strstr(hm_error_message(), "n.ini:7: "), "'%s': line 7 not named:\n%s", cases[c].line,
                     hm_error_message());
      HM_TEST_ASSERT(strstr(hm_error_message(), cases[c].needle), "'%s': message lacks \"%s\":\n%s", cases[c].line,
                     cases[c].needle, hm_error_message());
    }
    hm_error_clear();
  }
  /* FEM and convection-diffusion keys: lengths, positions, frequencies, depths (their own decks). */
  static const struct { const char *deck, *needle; } fem_cases[] = {
      {"model = fem\nnx = 2\nny = 2\nnz = 2\nlx = 1e-300\n", "lx = 1e-300: must be a number in [1e-50, 1e+50]"},
      {"model = fem\nnx = 2\nny = 2\nnz = 2\nly = 1e60\n", "ly = 1e60: must be a number in [1e-50, 1e+50]"},
      {"model = fem\nnx = 2\nny = 2\nnz = 2\ncentre_z = -1e200\n", "centre_z = -1e200: must be a number in [-1e+50, 1e+50]"},
      {"model = fem\nnx = 2\nny = 2\nnz = 2\nomega_x = 1e300\n", "omega_x = 1e300: must be a number in [0, 1e+50]"},
      {"model = convdiff\nn = 4\neps = 1e308\n", "eps = 1e308: must be a number in (0, 1e+100]"},
      {"model = convdiff\nn = 4\nbeta_x = -1e300\n", "beta_x = -1e300: must be a number in [-1e+100, 1e+100]"},
  };
  for (size_t c = 0; c < sizeof fem_cases / sizeof fem_cases[0]; c++) {
    char text[512];
    snprintf(text, sizeof text, "[hamiltonian]\n%s", fem_cases[c].deck);
    hm_deck d;
    int st = hm_deck_parse_string(text, "f.ini", &d);
    HM_TEST_ASSERT(st == HM_ERR_DECK && strstr(hm_error_message(), fem_cases[c].needle),
                   "deck %zu must fail with \"%s\":\n%s", c, fem_cases[c].needle, hm_error_message());
    if (!st) hm_deck_free(&d);
    hm_error_clear();
  }
  /* Stored values of the edge cases. */
  hm_deck d;
  if (!hm_deck_parse_string("[hamiltonian]\nmodel = ti\nnx = 2\nny = 2\nnz = 2\nt = -1e-300\n[kpm]\n"
                            "moments = 100000000\nseed = +5\nbounds_margin = .5\n", "v.ini", &d)) {
    HM_TEST_ASSERT(d.ti.t == -1e-300 && d.kpm.moments == 100000000 && d.kpm.seed == 5 && d.kpm.bounds_margin == 0.5,
                   "edge values: t %g M %d seed %llu margin %g", d.ti.t, d.kpm.moments,
                   (unsigned long long)d.kpm.seed, d.kpm.bounds_margin);
    hm_deck_free(&d);
  } else {
    HM_TEST_ASSERT(0, "edge-value deck must parse:\n%s", hm_error_message());
  }
  hm_error_clear();
}

static void test_read_file(void) {
  char *text = (char *)1, msg[512];
  HM_TEST_FAILS(hm_deck_read_file("/nonexistent-dir/deck.ini", &text), HM_ERR_IO, "/nonexistent-dir/deck.ini");
  HM_TEST_ASSERT(text == NULL, "text must be NULL after a failed read");
  snprintf(msg, sizeof msg, "cannot open deck '/nonexistent-dir/deck.ini': %s", strerror(ENOENT));
  HM_TEST_FAILS(hm_deck_read_file("/nonexistent-dir/deck.ini", &text), HM_ERR_IO, msg);
  char dir[3072];
  snprintf(dir, sizeof dir, "%s/tests/decks", source_dir);
  HM_TEST_FAILS(hm_deck_read_file(dir, &text), HM_ERR_IO, strerror(EISDIR));
  /* A file with a NUL byte is not a deck; a plain file comes back byte for byte. */
  const char bin[] = "[run]\n\0junk";
  FILE *f = fopen("test_deck_nul.ini", "wb");
  if (f) {
    fwrite(bin, 1, sizeof bin, f);
    fclose(f);
    HM_TEST_FAILS(hm_deck_read_file("test_deck_nul.ini", &text), HM_ERR_DECK, "NUL byte at offset 6");
    remove("test_deck_nul.ini");
  }
  const char *plain = "[kpm]\nmoments = 8\n";
  f = fopen("test_deck_plain.ini", "wb");
  if (f) {
    fputs(plain, f);
    fclose(f);
    HM_TEST_OK(hm_deck_read_file("test_deck_plain.ini", &text));
    HM_TEST_ASSERT(text && !strcmp(text, plain), "read-back text differs");
    free(text);
    remove("test_deck_plain.ini");
  }
}

static void test_checkpoint_path(void) {
  static hm_deck d;
  char out[64];
  const char *cases[][2] = {{"run.h5", "run_checkpoint.h5"}, {"out", "out_checkpoint.h5"},
                            {"a.h5.h5", "a.h5_checkpoint.h5"}, {"dir/r.H5", "dir/r.H5_checkpoint.h5"}};
  for (int i = 0; i < 4; i++) {
    memset(&d, 0, sizeof d);
    snprintf(d.output, sizeof d.output, "%s", cases[i][0]);
    hm_deck_checkpoint_path(&d, out, sizeof out);
    HM_TEST_ASSERT(!strcmp(out, cases[i][1]), "output %s: checkpoint %s, want %s", cases[i][0], out, cases[i][1]);
  }
  snprintf(d.checkpoint, sizeof d.checkpoint, "mine.h5");
  hm_deck_checkpoint_path(&d, out, sizeof out);
  HM_TEST_ASSERT(!strcmp(out, "mine.h5"), "given checkpoint %s", out);
  snprintf(d.checkpoint, sizeof d.checkpoint, "%s", "");
  snprintf(d.output, sizeof d.output, "run.h5");
  hm_deck_checkpoint_path(&d, out, 5);
  HM_TEST_ASSERT(!strcmp(out, "run_"), "truncated path %s", out);
}

/* The table is consistent: conditions name keys of their section, word keys have words,
 * and the printed reference names every key. */
static void test_schema(void) {
  for (int i = 0; i < hm_deck_nkeys; i++) {
    const hm_deck_key *k = &hm_deck_keys[i];
    HM_TEST_ASSERT(hm_deck_key_find(k->section, k->key) == i, "[%s] %s listed twice", k->section, k->key);
    int s = 0;
    while (hm_deck_sections[s] && strcmp(hm_deck_sections[s], k->section)) s++;
    HM_TEST_ASSERT(hm_deck_sections[s], "[%s] %s: section not listed", k->section, k->key);
    int w = hm_deck_key_when(k);
    if (k->when_key) HM_TEST_ASSERT(w >= 0, "%s: bad when_key", k->key);
    for (const char *p = k->when_word; p && *p && w >= 0;) { /* each alternative of "a|b" is a word */
      size_t n = strcspn(p, "|");
      char word[32];
      snprintf(word, sizeof word, "%.*s", (int)n, p);
      HM_TEST_ASSERT(hm_deck_key_word_value(&hm_deck_keys[w], word) >= 0, "%s: bad when_word %s", k->key, word);
      p += n + (p[n] == '|');
    }
    if (k->type == HM_KEY_WORD || k->type == HM_KEY_WORD_LIST || k->type == HM_KEY_WORD_SET)
      HM_TEST_ASSERT(k->words[0], "%s: no words", k->key);
    HM_TEST_ASSERT(k->help && *k->help, "%s: no help", k->key);
    HM_TEST_ASSERT(k->need != HM_KEY_REQUIRED || !k->def, "%s: required with a default", k->key);
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return;
  hm_deck_schema_print(f);
  fclose(f);
  for (int i = 0; i < hm_deck_nkeys; i++)
    HM_TEST_ASSERT(strstr(buf, hm_deck_keys[i].key), "reference lacks %s", hm_deck_keys[i].key);
  HM_TEST_ASSERT(strstr(buf, "even integer in [2, 100000000]; default \"256\""), "reference of moments:\n%s", buf);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const char *src = getenv("HAMLET_SOURCE_DIR");
  if (!src) {
    fprintf(stderr, "HAMLET_SOURCE_DIR is not set (ctest sets it)\n");
    MPI_Finalize();
    return 1;
  }
  snprintf(source_dir, sizeof source_dir, "%s", src);
  test_all_keys();
  test_schema_covered();
  test_model_method_keys();
  test_defaults();
  test_bad_corpus();
  test_good_corpus();
  test_inputs();
  test_syntax();
  test_numbers();
  test_green_energy_range();
  test_read_file();
  test_checkpoint_path();
  test_schema();
  return hm_test_finish();
}
