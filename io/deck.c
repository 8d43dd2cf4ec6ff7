/* Input decks: INI text -> hm_deck, validated against the schema in deck_schema.c.
 * libinih does the INI syntax; it reads through our line reader, which (a) counts lines so every
 * message names the exact line (Debian's inih passes no line to the handler), (b) strips leading
 * blanks so an indented line is never taken as an INI continuation line, (c) drops ';' and '#'
 * comments, and (d) sees the [section] headers, so an unknown section is reported at its header.
 * The first problem in line order is reported; problems with no line (missing keys) come after. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>
#include "error_macros.h"
#include "deck_schema.h"

enum { MAX_KEYS = HM_DECK_MAX_KEYS, MAX_MSG = 2048, MAX_DECK_BYTES = 1 << 20, MAX_TI_ROWS_LOG2 = 50 };

typedef struct {
  hm_deck *deck;
  const char *pos; /* reader: the rest of the text */
  int line;        /* reader: the line inih is working on */
  int stop;        /* reader: stop reading (a line too long for inih) */
  int given[MAX_KEYS]; /* line where each schema key was given, 0 = not given */
  hm_key_value val[MAX_KEYS];
  char text[MAX_KEYS][64]; /* each value as written (shortened), for messages */
  int err_line;            /* line of err, INT_MAX for none yet */
  char err[MAX_MSG];
  int status;              /* an internal failure (already raised) */
} deck_state;

/* Keep the first error in line order; line 0 = no line, ranked after every line. */
static void fail(deck_state *st, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(deck_state *st, int line, const char *fmt, ...) {
  int rank = line > 0 ? line : INT_MAX - 1;
  if (rank >= st->err_line) return;
  st->err_line = rank;
  int n = line > 0 ? snprintf(st->err, sizeof st->err, "%s:%d: ", st->deck->name, line)
                   : snprintf(st->err, sizeof st->err, "%s: ", st->deck->name);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->err + n, sizeof st->err - (size_t)n, fmt, ap);
  va_end(ap);
}

/* Copy the start of src (values are shown shortened in messages that quote another key). */
static void keep_text(char *dst, size_t size, const char *src) {
  size_t n = strlen(src);
  if (n >= size) n = size - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static int section_index(const char *name) {
  for (int s = 0; hm_deck_sections[s]; s++)
    if (!strcmp(hm_deck_sections[s], name)) return s;
  return -1;
}

/* Levenshtein distance of short names (for "did you mean"). */
static int distance(const char *a, const char *b) {
  int la = (int)strlen(a), lb = (int)strlen(b), row[65];
  if (la > 64 || lb > 64) return 99;
  for (int j = 0; j <= lb; j++) row[j] = j;
  for (int i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = i;
    for (int j = 1; j <= lb; j++) {
      int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

static int close_enough(const char *typed, const char *known) {
  int d = distance(typed, known);
  return d <= 2 && d < (int)strlen(known);
}

/* "run, hamiltonian, kpm" (with brackets: "[run], [hamiltonian] or [kpm]"). */
static void section_list(int brackets, char *buf, size_t len) {
  buf[0] = '\0';
  for (int s = 0; hm_deck_sections[s]; s++) {
    size_t used = strlen(buf);
    const char *sep = s == 0 ? "" : !brackets ? ", " : hm_deck_sections[s + 1] ? ", " : " or ";
    snprintf(buf + used, len - used, brackets ? "%s[%s]" : "%s%s", sep, hm_deck_sections[s]);
  }
}

static void unknown_section(deck_state *st, int line, const char *name) {
  char hint[96] = "", list[128];
  section_list(0, list, sizeof list);
  for (int s = 0; hm_deck_sections[s]; s++)
    if (close_enough(name, hm_deck_sections[s]))
      snprintf(hint, sizeof hint, "; did you mean [%s]?", hm_deck_sections[s]);
  fail(st, line, "unknown section [%s] (allowed: %s)%s", name, list, hint);
}

/* Section header seen by the reader: "[name]" with nothing after it. An unterminated header is
 * left to inih, which reports it as a syntax error at this line. */
static void header(deck_state *st, const char *p, size_t n) {
  const char *close = memchr(p, ']', n);
  if (!close) return;
  char name[64];
  const char *a = p + 1, *b = close;
  while (a < b && isspace((unsigned char)*a)) a++;
  while (b > a && isspace((unsigned char)b[-1])) b--;
  snprintf(name, sizeof name, "%.*s", (int)(b - a), a);
  for (const char *q = close + 1; q < p + n; q++)
    if (!isspace((unsigned char)*q)) {
      fail(st, st->line, "unexpected text '%.*s' after [%s] (a header line holds only [section])",
           (int)(p + n - q), q, name);
      return;
    }
  if (section_index(name) < 0) unknown_section(st, st->line, name);
}

/* inih's reader: one line per call, leading blanks and comments removed. */
static char *read_line(char *str, int num, void *stream) {
  deck_state *st = stream;
  if (st->stop || !*st->pos) return NULL;
  const char *p = st->pos;
  size_t n = strcspn(p, "\n");
  st->pos = p[n] ? p + n + 1 : p + n;
  st->line++;
  if (st->line == 1 && n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) p += 3, n -= 3; /* UTF-8 byte order mark */
  while (n && (*p == ' ' || *p == '\t')) p++, n--;
  if (n && (*p == ';' || *p == '#')) n = 0;
  for (size_t i = 1; i < n; i++)
    if ((p[i] == ';' || p[i] == '#') && isspace((unsigned char)p[i - 1])) n = i;
  while (n && isspace((unsigned char)p[n - 1])) n--;
  if (n + 2 > (size_t)num) {
    fail(st, st->line, "line is %zu characters long; at most %d fit (comments do not count)", n, num - 2);
    st->stop = 1;
    return NULL;
  }
  memcpy(str, p, n);
  str[n] = '\n';
  str[n + 1] = '\0';
  if (n && *p == '[') header(st, p, n);
  return str;
}

static void unknown_key(deck_state *st, const char *section, const char *key) {
  char list[512] = "", hint[128] = "";
  for (int i = 0; i < hm_deck_nkeys; i++) {
    const hm_deck_key *k = &hm_deck_keys[i];
    if (!strcmp(k->section, section)) {
      size_t used = strlen(list);
      snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", k->key);
      if (close_enough(key, k->key)) snprintf(hint, sizeof hint, "; did you mean '%s'?", k->key);
    } else if (!strcmp(k->key, key)) { /* every section that has the key: [kpm] or [conductivity] moments */
      size_t used = strlen(hint);
      if (strstr(hint, "belongs in"))
        snprintf(hint + used, sizeof hint - used, " or [%s]", k->section);
      else
        snprintf(hint, sizeof hint, "; '%s' belongs in [%s]", key, k->section);
    }
  }
  fail(st, st->line, "[%s] unknown key '%s' (allowed keys in [%s]: %s)%s", section, key, section, list, hint);
}

static void bad_value(deck_state *st, int line, const hm_deck_key *k, const char *value, const char *why) {
  char allowed[256];
  hm_deck_key_allowed(k, allowed, sizeof allowed);
  fail(st, line, "[%s] %s = %s: %s%smust be %s", k->section, k->key, value, why, *why ? "; " : "", allowed);
}

/* inih's handler: every key = value, checked against the schema and stored. Always returns 1
 * (go on): problems are collected in st, so inih's own return is only about syntax. */
static int on_key(void *user, const char *section_raw, const char *key, const char *value_raw) {
  deck_state *st = user;
  char section[64], value[HM_PATH_MAX + 2];
  if (!value_raw) value_raw = ""; /* an inih built to allow keys without '=' */
  const char *a = section_raw;
  while (isspace((unsigned char)*a)) a++;
  size_t n = strlen(a);
  while (n && isspace((unsigned char)a[n - 1])) n--;
  snprintf(section, sizeof section, "%.*s", (int)n, a);
  if (!*section) {
    char list[128];
    section_list(1, list, sizeof list);
    fail(st, st->line, "key '%s' is outside any section (put it under %s)", key, list);
    return 1;
  }
  if (section_index(section) < 0) return 1; /* reported at its header */
  int i = hm_deck_key_find(section, key);
  if (i < 0) {
    unknown_key(st, section, key);
    return 1;
  }
  if (st->given[i]) {
    fail(st, st->line, "[%s] duplicate key '%s' (first given on line %d)", section, key, st->given[i]);
    return 1;
  }
  st->given[i] = st->line;
  /* One pair of matching quotes around a value is dropped: potential = "dots disorder". */
  n = strlen(value_raw);
  if (n >= 2 && (value_raw[0] == '"' || value_raw[0] == '\'') && value_raw[n - 1] == value_raw[0])
    snprintf(value, sizeof value, "%.*s", (int)(n - 2), value_raw + 1);
  else
    snprintf(value, sizeof value, "%s", value_raw);
  keep_text(st->text[i], sizeof st->text[i], value);
  const hm_deck_key *k = &hm_deck_keys[i];
  char why[256];
  if (hm_deck_key_parse(k, value, &st->val[i], why, sizeof why))
    bad_value(st, st->line, k, value, why);
  else if (!st->status)
    st->status = hm_deck_key_store(k, &st->val[i], value, st->deck);
  return 1;
}

/* inih reported a syntax error at `line`: say what the line looks like and what was expected. */
static void syntax_error(deck_state *st, const char *text, int line) {
  const char *p = text;
  for (int l = 1; l < line && *p; l++) p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0);
  size_t n = strcspn(p, "\n");
  while (n && isspace((unsigned char)*p)) p++, n--;
  while (n && isspace((unsigned char)p[n - 1])) n--;
  if (n && *p == '[')
    fail(st, line, "unterminated section header '%.*s' (expected [section])", (int)n, p);
  else
    fail(st, line, "cannot read '%.*s' (expected key = value, [section], or a comment starting with ; or #)",
         (int)n, p);
}

static int defaults(deck_state *st) {
  for (int i = 0; i < hm_deck_nkeys; i++) {
    const hm_deck_key *k = &hm_deck_keys[i];
    if (st->given[i] || !k->def) continue;
    char why[256];
    HM_CHECK(!hm_deck_key_parse(k, k->def, &st->val[i], why, sizeof why), HM_ERR_INTERNAL,
             "deck schema: default \"%s\" of [%s] %s is invalid: %s", k->def, k->section, k->key, why);
    keep_text(st->text[i], sizeof st->text[i], k->def);
    HM_CALL(hm_deck_key_store(k, &st->val[i], k->def, st->deck));
  }
  return HM_SUCCESS;
}

/* Does key k's "only when" condition hold (with the values given or defaulted), and the
 * condition of the key it reads, up the chain? */
static int applies(const deck_state *st, const hm_deck_key *k, int *when) {
  *when = hm_deck_key_when(k);
  if (*when < 0) return 1;
  const hm_deck_key *w = &hm_deck_keys[*when];
  int ignored;
  if (w != k && !applies(st, w, &ignored)) return 0;
  if (!k->when_word) return w->type == HM_KEY_DOUBLE ? st->val[*when].d > 0 : st->val[*when].i > 0;
  /* when_word may list alternatives: "lobpcg|idr" */
  for (const char *p = k->when_word; *p;) {
    size_t n = strcspn(p, "|");
    char word[32];
    snprintf(word, sizeof word, "%.*s", (int)n, p);
    int x = hm_deck_key_word_value(w, word);
    if (w->type == HM_KEY_WORD_SET ? (st->val[*when].i & x) != 0 : st->val[*when].i == x) return 1;
    p += n + (p[n] == '|');
  }
  return 0;
}

/* "potential = none", or "[solver] method = kpm" when the key is in another section than k. */
static void current(const deck_state *st, const hm_deck_key *k, int when, char *buf, size_t len) {
  const hm_deck_key *w = &hm_deck_keys[when];
  if (strcmp(w->section, k->section)) snprintf(buf, len, "[%s] %s = %s", w->section, w->key, st->text[when]);
  else snprintf(buf, len, "%s = %s", w->key, st->text[when]);
}

/* Keys given where they do nothing, and keys a choice needs but that are missing. */
static void check_conditions(deck_state *st) {
  for (int i = 0; i < hm_deck_nkeys; i++) {
    const hm_deck_key *k = &hm_deck_keys[i];
    int when;
    char cond[96];
    if (applies(st, k, &when)) continue;
    hm_deck_key_condition(k, cond, sizeof cond);
    if (st->given[i]) {
      char now[160];
      current(st, k, when, now, sizeof now);
      fail(st, st->given[i], "[%s] %s is given but %s; %s applies only when %s (remove it or change %s)",
           k->section, k->key, now, k->key, cond, hm_deck_keys[when].key);
    }
  }
  for (int i = 0; i < hm_deck_nkeys; i++) {
    const hm_deck_key *k = &hm_deck_keys[i];
    int when;
    char allowed[256];
    if (st->given[i] || k->need == HM_KEY_OPTIONAL) continue;
    hm_deck_key_allowed(k, allowed, sizeof allowed);
    if (k->need == HM_KEY_REQUIRED)
      fail(st, 0, "[%s] missing required key '%s' (%s: %s)", k->section, k->key, allowed, k->help);
    else if (applies(st, k, &when))
      fail(st, st->given[when], "[%s] %s = %s needs key '%s' (%s: %s)", hm_deck_keys[when].section,
           hm_deck_keys[when].key, st->text[when], k->key, allowed, k->help);
  }
}

static int key_index(const char *section, const char *key) { return hm_deck_key_find(section, key); }

/* Index of whichever of nx, ny, nz is largest (a lattice too large is reported at its line). */
static int largest_dimension(const deck_state *st) {
  const hm_ti_params *p = &st->deck->ti;
  const char *name = p->nx >= p->ny && p->nx >= p->nz ? "nx" : p->ny >= p->nz ? "ny" : "nz";
  return key_index("hamiltonian", name);
}

/* Rules that tie two keys together. */
static void check_pairs(deck_state *st) {
  const hm_deck *d = st->deck;
  int emin = key_index("kpm", "emin"), emax = key_index("kpm", "emax");
  if (st->given[emin] && !st->given[emax])
    fail(st, st->given[emin], "[kpm] emin is given without emax: give both, or neither for the spectral interval");
  if (st->given[emax] && !st->given[emin])
    fail(st, st->given[emax], "[kpm] emax is given without emin: give both, or neither for the spectral interval");
  if (st->given[emin] && st->given[emax] && !(d->dos.emin < d->dos.emax))
    fail(st, st->given[emax] > st->given[emin] ? st->given[emax] : st->given[emin],
         "[kpm] emin = %s and emax = %s: need emin < emax", st->text[emin], st->text[emax]);
  const int block = key_index("kpm", "block");
  if (st->given[block] && st->given[key_index("kpm", "ldos_sites")])
    fail(st, st->given[block], "[kpm] block = %s is given with ldos_sites: the site vectors run in one pass; remove "
         "block", st->text[block]);
  else if (st->given[block] && d->kpm.block > d->kpm.vectors)
    fail(st, st->given[block], "[kpm] block = %s exceeds vectors = %d: must be in [1, vectors]", st->text[block],
         d->kpm.vectors);
  int depth = key_index("hamiltonian", "dot_depth"), nz = key_index("hamiltonian", "nz");
  if (st->given[depth] && d->ti.dot_depth > d->ti.nz)
    fail(st, st->given[depth], "[hamiltonian] dot_depth = %s exceeds nz = %s: must be in [0, nz] (0 = all layers)",
         st->text[depth], st->text[nz]);
  /* 4*nx*ny*nz < 2^50 (the TI builder's limit), tested by division so it cannot overflow. */
  int64_t limit = ((int64_t)1 << MAX_TI_ROWS_LOG2) / 4;
  if (!(d->ti.nx < limit && d->ti.ny < limit / d->ti.nx && d->ti.nz < limit / (d->ti.nx * d->ti.ny)))
    fail(st, st->given[largest_dimension(st)],
         "[hamiltonian] lattice %lld x %lld x %lld is too large: 4*nx*ny*nz must be below 2^%d", (long long)d->ti.nx, (long long)d->ti.ny, (long long)d->ti.nz, MAX_TI_ROWS_LOG2);
  char ckpt[HM_PATH_MAX];
  hm_deck_checkpoint_path(d, ckpt, sizeof ckpt);
  if (!strcmp(ckpt, d->output))
    fail(st, st->given[key_index("run", "checkpoint")],
         "[run] checkpoint = %s is the output file too: a checkpoint would overwrite the results", ckpt);
}

/* storage = matrix_free keeps no entries: the dense solvers and the direct inner solves of
 * shift-and-invert, which factor the matrix from its entries, cannot run on it. */
static void check_storage(deck_state *st) {
  const hm_deck *d = st->deck;
  const int kernel = key_index("hamiltonian", "gpu_kernel");
  if (d->model == HM_MODEL_LATTICE && d->lattice.storage == 1 && d->lattice.gpu_kernel) {
    fail(st, st->given[kernel], "[hamiltonian] gpu_kernel = %s with storage = assembled (line %d): the kernel is the "
         "matrix-free operator's; use storage = matrix_free (or auto), or gpu_kernel = auto", st->text[kernel],
         st->given[key_index("hamiltonian", "storage")]);
    return;
  }
  if (d->model != HM_MODEL_LATTICE || d->lattice.storage != 2) return;
  const int storage = key_index("hamiltonian", "storage"), method = key_index("solver", "method");
  const int transform = key_index("solver", "transform"), inner = key_index("solver", "inner");
  if (d->solver.method == HM_METHOD_DENSE)
    fail(st, st->given[storage], "[hamiltonian] storage = matrix_free with [solver] method = dense (line %d): the "
         "dense solvers need the matrix's entries, which matrix-free storage does not keep; use storage = assembled or auto",
         st->given[method]);
  else if (d->solver.method == HM_METHOD_LOBPCG && d->solver.transform == 1 && d->solver.inner != 2)
    fail(st, st->given[storage], "[hamiltonian] storage = matrix_free with [solver] transform = shift_invert (line %d) "
         "and inner = %s: the direct inner solves factor A - shift B from its entries, which matrix-free storage does "
         "not keep; use storage = assembled or auto, or inner = iterative (CG or MINRES on products)",
         st->given[transform], st->given[inner] ? st->text[inner] : "auto");
}

/* Which potential words each model takes. */
static void check_model(deck_state *st) {
  hm_deck *d = st->deck;
  int pot = key_index("hamiltonian", "potential"), model = key_index("hamiltonian", "model");
  int method = key_index("solver", "method");
  static const int allowed[] = {[HM_MODEL_TI] = HM_POTENTIAL_DOTS | HM_POTENTIAL_DISORDER,
                                [HM_MODEL_FEM] = HM_POTENTIAL_HARMONIC | HM_POTENTIAL_WELL | HM_POTENTIAL_GRID,
                                [HM_MODEL_MTX] = 0, [HM_MODEL_CONVDIFF] = 0,
                                [HM_MODEL_LATTICE] = HM_POTENTIAL_DISORDER, [HM_MODEL_STRUCTURE] = HM_POTENTIAL_DISORDER};
  static const char *const words[] = {"dots or disorder (or both)", "one of harmonic, well, grid", "only none",
                                      "only none", "only disorder (Anderson, per orbital)",
                                      "only disorder (per atom, uniform or gaussian)"};
  int extra = d->potential & ~allowed[d->model], fem = d->potential & allowed[HM_MODEL_FEM];
  if (extra || (fem & (fem - 1)))
    fail(st, st->given[pot], "[hamiltonian] potential = %s does not fit model = %s, which takes %s", st->text[pot],
         st->text[model], words[d->model]);
  const int distribution = key_index("hamiltonian", "disorder_distribution");
  if (d->structure.disorder_gaussian && d->model != HM_MODEL_STRUCTURE)
    fail(st, st->given[distribution], "[hamiltonian] disorder_distribution = gaussian with model = %s: gaussian "
         "on-site energies are model = structure's; ti and lattice draw uniform ones", st->text[model]);
  if (d->model == HM_MODEL_FEM) {
    d->fem.potential = d->potential & HM_POTENTIAL_HARMONIC ? HM_FEM_POTENTIAL_HARMONIC
                       : d->potential & HM_POTENTIAL_WELL   ? d->well_shape
                       : d->potential & HM_POTENTIAL_GRID   ? HM_FEM_POTENTIAL_GRID
                                                            : HM_FEM_POTENTIAL_NONE;
  }
  /* Which models each method solves. */
  const char *why = NULL;
  int m = d->solver.method;
  if (m == HM_METHOD_KPM && d->model == HM_MODEL_FEM)
    why = "fem gives a generalized problem K x = E M x; use method = lobpcg or dense";
  else if (m == HM_METHOD_KPM && d->model == HM_MODEL_CONVDIFF)
    why = "convdiff is not symmetric; KPM needs a Hermitian matrix (use method = idr)";
  else if ((m == HM_METHOD_LOBPCG || m == HM_METHOD_DENSE) && d->model == HM_MODEL_CONVDIFF)
    why = "convdiff is not symmetric; eigensolvers here need a Hermitian matrix (use method = idr)";
  else if (m == HM_METHOD_IDR && d->solver.problem == 1 && d->model != HM_MODEL_TI && d->model != HM_MODEL_LATTICE)
    why = "problem = green needs lattice sites: model = ti or lattice";
  else if (m == HM_METHOD_MARKER && d->model != HM_MODEL_TI && d->model != HM_MODEL_LATTICE)
    why = "the Chern marker needs a lattice's positions: model = ti or lattice";
  else if (m == HM_METHOD_CONDUCTIVITY && d->model != HM_MODEL_TI && d->model != HM_MODEL_LATTICE &&
           d->model != HM_MODEL_STRUCTURE)
    why = "the velocity operators need a lattice's geometry: model = ti, lattice or structure";
  else if (m == HM_METHOD_SPECTRAL && d->model != HM_MODEL_TI && d->model != HM_MODEL_LATTICE &&
           d->model != HM_MODEL_STRUCTURE)
    why = "plane waves need a lattice: model = ti, lattice or structure";
  else if (m == HM_METHOD_EVOLUTION && d->model != HM_MODEL_TI && d->model != HM_MODEL_LATTICE &&
           d->model != HM_MODEL_STRUCTURE)
    why = "positions and spreads need a lattice: model = ti, lattice or structure";
  else if (m != HM_METHOD_LOBPCG && m != HM_METHOD_DENSE && d->model == HM_MODEL_MTX && d->mass_file[0])
    why = "a mass matrix (mass = ...) is used by method = lobpcg or dense only";
  if (why) fail(st, st->given[method] ? st->given[method] : st->given[model], "[solver] method = %s with model = %s: %s",
                st->text[method], st->text[model], why);
  check_storage(st);
  int block = key_index("solver", "block"), nev = key_index("solver", "nev");
  if (m == HM_METHOD_LOBPCG && d->solver.block && d->solver.block < d->solver.nev)
    fail(st, st->given[block], "[solver] block = %s is smaller than nev = %s: need block >= nev (or 0 = automatic)",
         st->text[block], st->text[nev]);
}

/* Numbers in text: at most max of them into v; count them all; the first bad word is reported. */
static int read_numbers(const char *text, double *v, int max, int *count, char *bad, size_t len) {
  *count = 0;
  for (const char *p = text; *p;) {
    p += strspn(p, " \t,;");
    if (!*p) break;
    size_t n = strcspn(p, " \t,;");
    char word[64], *end;
    snprintf(word, sizeof word, "%.*s", (int)n, p);
    errno = 0;
    double x = strtod(word, &end);
    if (errno || *end || !isfinite(x)) {
      snprintf(bad, len, "%s", word);
      return 1;
    }
    if (*count < max) v[*count] = x;
    (*count)++;
    p += n;
  }
  return 0;
}

/* Sites 'x y z; x y z; ...' of key `key` (its text) inside the ti lattice into sites[*nsites];
 * non-zero (after reporting at the key's line) when malformed or outside. */
static int read_sites(deck_state *st, int key, const char *text, int64_t (*sites)[3], int *nsites) {
  const hm_deck *d = st->deck;
  const hm_deck_key *k = &hm_deck_keys[key];
  double xyz[3 * HM_DECK_MAX_SITES];
  char bad[64];
  int n = 0;
  if (read_numbers(text, xyz, 3 * HM_DECK_MAX_SITES, &n, bad, sizeof bad) || n == 0 || n % 3 ||
      n > 3 * HM_DECK_MAX_SITES) {
    fail(st, st->given[key], "[%s] %s = %s: must be 1 to %d sites 'x y z; x y z; ...' of integers", k->section,
         k->key, st->text[key], HM_DECK_MAX_SITES);
    return 1;
  }
  *nsites = n / 3;
  const int64_t dims[3] = {d->ti.nx, d->ti.ny, d->ti.nz};
  for (int i = 0; i < *nsites; i++)
    for (int a = 0; a < 3; a++) {
      double x = xyz[3 * i + a];
      if (x != floor(x) || x < 0 || x >= (double)dims[a]) {
        fail(st, st->given[key], "[%s] %s: site %d (%g %g %g) is outside the %lld x %lld x %lld lattice "
             "(coordinates are integers from 0 to n - 1)", k->section, k->key, i + 1, xyz[3 * i], xyz[3 * i + 1],
             xyz[3 * i + 2], (long long)dims[0], (long long)dims[1], (long long)dims[2]);
        return 1;
      }
      sites[i][a] = (int64_t)x;
    }
  return 0;
}

/* Non-zero (after reporting at the key's line) when one of the n numbers of list key `key` lies
 * outside the key's range: energies whose arithmetic would overflow, as for single energies. */
static int numbers_outside_range(deck_state *st, int key, const double *v, int n) {
  const hm_deck_key *k = &hm_deck_keys[key];
  for (int i = 0; i < n; i++) {
    if (hm_deck_key_in_range(k, v[i])) continue;
    char allowed[256];
    hm_deck_key_allowed(k, allowed, sizeof allowed);
    fail(st, st->given[key], "[%s] %s = %s: number %d (%.15g) is out of range; must be %s", k->section, k->key,
         st->text[key], i + 1, v[i], allowed);
    return 1;
  }
  return 0;
}

/* model = lattice: the 'x y z' triples, twists only on twisted directions, vacancies below 1;
 * model = ti: no twisted boundary. */
/* The format the lattice reader will take (lattice_format, or auto by the file's name). */
static int lattice_file_format(const hm_deck *d) {
  const char *f = d->lattice.file;
  const size_t n = strlen(f);
  if (d->lattice.format) return d->lattice.format;
  if (n >= 7 && !strcmp(f + n - 7, "_hr.dat")) return 2;
  if (n >= 7 && !strcmp(f + n - 7, "_tb.dat")) return 3;
  return 1;
}

/* Keys that only some model files take: a1 a2 a3 complete a _hr.dat (a _tb.dat and hamlet's format
 * give their own vectors), centres a Wannier90 file (hamlet's orbital lines give the positions).
 * Refused here, at the deck's line, before the file is read; nonzero where refused. */
static int check_model_file_keys(deck_state *st) {
  const hm_deck *d = st->deck;
  const int format = lattice_file_format(d), file = key_index("hamiltonian", "lattice_file");
  const char *what = format == 3 ? "a Wannier90 seedname_tb.dat, whose lines 2-4 give the lattice vectors"
                                 : "in hamlet's format, whose a1 a2 a3 lines give the lattice vectors";
  static const char *const cell[] = {"a1", "a2", "a3"};
  for (int k = 0; k < 3 && format != 2; k++) {
    const int key = key_index("hamiltonian", cell[k]);
    if (!st->given[key]) continue;
    fail(st, st->given[key], "[hamiltonian] %s = %s: lattice vectors in the deck complete a Wannier90 seedname_hr.dat "
         "only; lattice_file = %s (line %d) is %s: remove a1 a2 a3 from the deck", cell[k], st->text[key],
         d->lattice.file, st->given[file], what);
    return 1;
  }
  const int centres = key_index("hamiltonian", "centres");
  if (format == 1 && st->given[centres]) {
    fail(st, st->given[centres], "[hamiltonian] centres = %s: Wannier centres apply to Wannier90 files (_hr.dat, "
         "_tb.dat); lattice_file = %s (line %d) is in hamlet's format, whose orbital lines give each position: remove "
         "centres from the deck", st->text[centres], d->lattice.file, st->given[file]);
    return 1;
  }
  return 0;
}

static void check_lattice(deck_state *st) {
  hm_deck *d = st->deck;
  int boundary = key_index("hamiltonian", "boundary");
  if (d->model != HM_MODEL_LATTICE) {
    for (int a = 0; a < 3; a++)
      if (d->model == HM_MODEL_TI && d->ti.boundary[a] == HM_BC_TWISTED) {
        fail(st, st->given[boundary], "[hamiltonian] boundary = %s: twisted applies to model = lattice; model = ti "
             "takes periodic or open", st->text[boundary]);
        return;
      }
    return;
  }
  static const char *const names[] = {"a1", "a2", "a3", "twist", "zeeman", "field"};
  double *const dest[] = {d->lattice.cell[0], d->lattice.cell[1], d->lattice.cell[2], d->lattice.twist,
                          d->lattice.zeeman, d->lattice.field};
  const char *const texts[] = {d->lattice.a_text[0], d->lattice.a_text[1], d->lattice.a_text[2],
                               d->lattice.twist_text, d->lattice.zeeman_text, d->lattice.field_text};
  for (int k = 0; k < 6; k++) {
    int key = key_index("hamiltonian", names[k]);
    const hm_deck_key *dk = &hm_deck_keys[key];
    char bad[64] = "";
    int n = 0;
    if (k < 3) dest[k][k] = 1.0; /* the unit cube */
    if (!st->given[key]) continue;
    if (read_numbers(texts[k], dest[k], 3, &n, bad, sizeof bad) || n != 3 || !hm_deck_key_in_range(dk, dest[k][0]) ||
        !hm_deck_key_in_range(dk, dest[k][1]) || !hm_deck_key_in_range(dk, dest[k][2])) {
      fail(st, st->given[key], "[hamiltonian] %s = %s: must be 3 numbers 'x y z' in [%g, %g]", names[k], st->text[key],
           dk->min, dk->max);
      return;
    }
    if (k < 3) d->lattice.cell_given = 1;
  }
  if (check_model_file_keys(st)) return;
  static const char axis[3] = {'x', 'y', 'z'};
  int twist = key_index("hamiltonian", "twist");
  for (int a = 0; a < 3; a++) {
    if (d->lattice.twist[a] != 0 && d->ti.boundary[a] != HM_BC_TWISTED) {
      fail(st, st->given[twist], "[hamiltonian] twist = %s: a twist in %c needs boundary twisted in %c (boundary = %s)",
           st->text[twist], axis[a], axis[a], st->given[boundary] ? st->text[boundary] : "periodic periodic periodic");
      return;
    }
  }
  int vac = key_index("hamiltonian", "vacancies");
  if (d->lattice.vacancies >= 1)
    fail(st, st->given[vac], "[hamiltonian] vacancies = %s: a probability p in [0, 1) (1 would remove every site)",
         st->text[vac]);
}

/* The count = g[2] points from g[0] to g[1] (g[0] alone where count is 1). */
static double *uniform_grid(const double g[3]) {
  const int count = (int)g[2];
  double *v = malloc(sizeof(double) * (size_t)count);
  for (int i = 0; i < count && v; i++) v[i] = count == 1 ? g[0] : g[0] + (g[1] - g[0]) * i / (count - 1);
  return v;
}

/* A key's 'Emin Emax count' grid (Emin < Emax, or Emin = Emax with count 1): *values, *count; 1 if
 * refused (the message given). */
static int energy_grid(deck_state *st, int key, const char *text, int *count, double **values) {
  double g[3];
  char bad[64];
  int n = 0;
  if (read_numbers(text, g, 3, &n, bad, sizeof bad) || n != 3 || g[2] != floor(g[2]) || g[2] < 1 ||
      g[2] > HM_DECK_MAX_ENERGIES || !(g[0] <= g[1]) || (g[2] > 1 && g[0] == g[1])) {
    fail(st, st->given[key], "[%s] %s = %s: must be 'Emin Emax count' with Emin < Emax and count an integer in "
         "[1, %d]", hm_deck_keys[key].section, hm_deck_keys[key].key, text, HM_DECK_MAX_ENERGIES);
    return 1;
  }
  if (numbers_outside_range(st, key, g, 2)) return 1;
  *count = (int)g[2];
  *values = uniform_grid(g);
  return 0;
}

/* [green]: the energies (a grid or a list) and the sites inside the lattice. */
static void check_green(deck_state *st) {
  hm_deck *d = st->deck;
  if (!(d->solver.method == HM_METHOD_IDR && d->solver.problem == 1)) return;
  int grid = key_index("green", "energies"), list = key_index("green", "energy_list");
  int sites = key_index("green", "sites");
  char bad[64];
  int n = 0;
  if (!st->given[grid] == !st->given[list]) {
    fail(st, st->given[grid] ? st->given[grid] : st->given[list] ? st->given[list] : st->given[key_index("solver", "problem")],
         "[green] give exactly one of energies = 'Emin Emax count' and energy_list = 'E1 E2 ...'");
    return;
  }
  if (st->given[grid]) {
    if (energy_grid(st, grid, d->green.energies_text, &d->green.nenergies, &d->green.energies)) return;
  } else {
    if (read_numbers(d->green.list_text, NULL, 0, &n, bad, sizeof bad) || n < 1 || n > HM_DECK_MAX_ENERGIES) {
      fail(st, st->given[list], "[green] energy_list = %s: must be 1 to %d numbers", st->text[list],
           HM_DECK_MAX_ENERGIES);
      return;
    }
    d->green.nenergies = n;
    d->green.energies = malloc(sizeof(double) * (size_t)n);
    read_numbers(d->green.list_text, d->green.energies, n, &n, bad, sizeof bad);
    if (numbers_outside_range(st, list, d->green.energies, n)) return;
  }
  read_sites(st, sites, d->green.sites_text, d->green.sites, &d->green.nsites);
}

/* [conductivity] frequencies 'wmin wmax count' (0 < wmin <= wmax) of the optical sigma; eta only with them. */
static void check_frequencies(deck_state *st) {
  hm_deck *d = st->deck;
  int key = key_index("conductivity", "frequencies"), eta = key_index("conductivity", "eta");
  d->conductivity.nfreqs = 0;
  if (!st->given[key]) {
    if (st->given[eta])
      fail(st, st->given[eta], "[conductivity] eta is the optical sigma's broadening: it needs [conductivity] "
           "frequencies = 'wmin wmax count'");
    return;
  }
  double g[3];
  char bad[64];
  int n = 0;
  if (read_numbers(d->conductivity.frequencies_text, g, 3, &n, bad, sizeof bad) || n != 3 || g[2] != floor(g[2]) ||
      g[2] < 1 || g[2] > HM_DECK_MAX_ENERGIES || !(g[0] > 0 && g[0] <= g[1]) || (g[2] > 1 && g[0] == g[1])) {
    fail(st, st->given[key], "[conductivity] frequencies = %s: must be 'wmin wmax count' with 0 < wmin < wmax (energy "
         "units) and count an integer in [1, %d]", d->conductivity.frequencies_text, HM_DECK_MAX_ENERGIES);
    return;
  }
  d->conductivity.nfreqs = (int)g[2];
  d->conductivity.freqs = uniform_grid(g);
}

/* [conductivity]: components, the chemical-potential grid and the temperatures. */
/* expansion = single_shot: diagonal charge components at T = 0, no frequencies. */
static void check_single_shot(deck_state *st) {
  hm_deck *d = st->deck;
  if (!d->conductivity.single_shot) return;
  const int exp = key_index("conductivity", "expansion");
  const char *why = NULL;
  for (int c = 0; c < d->conductivity.ncomp; c++)
    if (d->conductivity.comp[c][0] != d->conductivity.comp[c][1]) why = "components must be xx, yy or zz";
  for (int t = 0; t < d->conductivity.ntemps; t++)
    if (d->conductivity.temps[t] != 0) why = "temperatures must be 0 (sigma_aa(E) at T = 0)";
  if (d->conductivity.nfreqs) why = "no frequencies: sigma(omega) needs the moments";
  if (d->conductivity.current) why = "current must be charge";
  if (why)
    fail(st, st->given[exp], "[conductivity] expansion = single_shot: %s (expansion = moments computes the rest)",
         why);
}

static void check_conductivity(deck_state *st) {
  hm_deck *d = st->deck;
  if (d->solver.method != HM_METHOD_CONDUCTIVITY) return;
  int comp = key_index("conductivity", "components"), grid = key_index("conductivity", "energies");
  int temps = key_index("conductivity", "temperatures");
  const char *p = d->conductivity.components_text;
  d->conductivity.ncomp = 0;
  while (*p) {
    p += strspn(p, " \t,;");
    if (!*p) break;
    size_t n = strcspn(p, " \t,;");
    if (n != 2 || !strchr("xyz", p[0]) || !strchr("xyz", p[1]) || d->conductivity.ncomp == 9) {
      fail(st, st->given[comp], "[conductivity] components = %s: must be 1 to 9 of xx xy xz yx yy yz zx zy zz",
           d->conductivity.components_text);
      return;
    }
    d->conductivity.comp[d->conductivity.ncomp][0] = p[0] - 'x';
    d->conductivity.comp[d->conductivity.ncomp][1] = p[1] - 'x';
    d->conductivity.ncomp++;
    p += n;
  }
  if (d->conductivity.ncomp == 0) {
    fail(st, st->given[comp], "[conductivity] components is empty: give 1 to 9 of xx xy xz yx yy yz zx zy zz");
    return;
  }
  if (energy_grid(st, grid, d->conductivity.energies_text, &d->conductivity.nenergies, &d->conductivity.energies))
    return;
  char bad[64];
  int n = 0;
  if (read_numbers(d->conductivity.temperatures_text, d->conductivity.temps, 64, &n, bad, sizeof bad) || n < 1 ||
      n > 64) {
    fail(st, st->given[temps], "[conductivity] temperatures = %s: must be 1 to 64 numbers >= 0",
         d->conductivity.temperatures_text);
    return;
  }
  d->conductivity.ntemps = n;
  if (numbers_outside_range(st, temps, d->conductivity.temps, n)) return;
  const int current = key_index("conductivity", "current");
  if (d->conductivity.current && d->model != HM_MODEL_LATTICE) {
    fail(st, st->given[current], "[conductivity] current = %s needs the spin labels (up, down) of a lattice file's "
         "orbitals: model = lattice", st->text[current]);
    return;
  }
  check_frequencies(st);
  check_single_shot(st);
}

/* [kpm] ldos_sites: the KPM LDOS at these sites (ti) or unit cells (lattice), one start vector per
 * orbital: 4 per site for ti; a lattice's orbitals per cell are known once its file is read (the app
 * sets the vectors then). */
static void check_ldos(deck_state *st) {
  hm_deck *d = st->deck;
  int sites = key_index("kpm", "ldos_sites"), vectors = key_index("kpm", "vectors");
  int norm = key_index("kpm", "normalize"), model = key_index("hamiltonian", "model");
  if (!st->given[sites]) return;
  if (d->model != HM_MODEL_TI && d->model != HM_MODEL_LATTICE) {
    fail(st, st->given[sites], "[kpm] ldos_sites needs lattice sites (model = ti or lattice), not model = %s",
         st->text[model]);
    return;
  }
  if (st->given[vectors]) {
    fail(st, st->given[vectors], "[kpm] vectors = %s is given with ldos_sites: the LDOS uses one start vector per "
         "orbital of each site (the unit vectors of its orbitals), not random ones; remove vectors", st->text[vectors]);
    return;
  }
  if (st->given[norm]) {
    fail(st, st->given[norm], "[kpm] normalize = %s is given with ldos_sites: it applies to the DOS; a site's LDOS "
         "integrates to its number of orbitals; remove normalize", st->text[norm]);
    return;
  }
  if (read_sites(st, sites, d->ldos.sites_text, d->ldos.sites, &d->ldos.nsites)) return;
  d->kpm.vectors = 4 * d->ldos.nsites; /* model = lattice: orbitals per cell x sites, set by the app */
}

/* [interior] window = 'Emin Emax': two energies, Emin < Emax. */
static void check_interior(deck_state *st) {
  hm_deck *d = st->deck;
  if (d->solver.method != HM_METHOD_INTERIOR) return;
  const int key = key_index("interior", "window");
  double v[2];
  char bad[64] = "";
  int n = 0;
  if (read_numbers(d->interior.window_text, v, 2, &n, bad, sizeof bad) || n != 2) {
    fail(st, st->given[key], "[interior] window = %s: must be two energies 'Emin Emax'%s%s", st->text[key],
         bad[0] ? ", not a number: " : "", bad);
    return;
  }
  if (!(v[0] < v[1]) || fabs(v[0]) > 1e100 || fabs(v[1]) > 1e100) {
    fail(st, st->given[key], "[interior] window = %s: needs Emin < Emax, both in [-1e100, 1e100]", st->text[key]);
    return;
  }
  d->interior.emin = v[0];
  d->interior.emax = v[1];
}

/* [marker]: sites (a list of cells, line, all) or layers (the centre cell of each layer); open x, y. */
static void check_marker(deck_state *st) {
  hm_deck *d = st->deck;
  if (d->solver.method != HM_METHOD_MARKER) return;
  const int sites = key_index("marker", "sites"), layers = key_index("marker", "layers");
  const int boundary = key_index("hamiltonian", "boundary");
  if (d->ti.boundary[0] != HM_BC_OPEN || d->ti.boundary[1] != HM_BC_OPEN) {
    fail(st, st->given[boundary] ? st->given[boundary] : st->given[key_index("solver", "method")],
         "[hamiltonian] boundary = %s: the Chern marker needs open boundaries along x and y (the position operators X, "
         "Y are not defined on a periodic direction); use boundary = open open <z>, and read the marker deep in the "
         "bulk of a large flake", st->text[boundary][0] ? st->text[boundary] : "periodic periodic periodic");
    return;
  }
  if (st->given[sites] && st->given[layers]) {
    fail(st, st->given[layers], "[marker] layers = %s is given with sites = %s: give one of them", st->text[layers],
         st->text[sites]);
    return;
  }
  const int64_t n[3] = {d->ti.nx, d->ti.ny, d->ti.nz}, cells = n[0] * n[1] * n[2];
  const int key = st->given[layers] ? layers : sites;
  const char *text = st->given[layers] ? d->marker.layers_text : st->given[sites] ? d->marker.sites_text : "line";
  int count = 0;
  double *v = NULL;
  char bad[64] = "";
  if (!strcmp(text, "all") && key == sites && cells > 100000) {
    fail(st, st->given[sites], "[marker] sites = all: %lld cells is too many (at most 100000; each costs two "
         "projector expansions per orbital): give a list or line", (long long)cells);
    return;
  }
  const int64_t total = !strcmp(text, "all") ? (key == sites ? cells : n[2]) : !strcmp(text, "line") ? n[0] : 0;
  if (!strcmp(text, "line") && key == layers) {
    fail(st, st->given[layers], "[marker] layers = line: allowed are 'z1 z2 ...' (0-based) or all");
    return;
  }
  if (!total) { /* a list of numbers: 3 per site or 1 per layer */
    int per = key == sites ? 3 : 1;
    if (read_numbers(text, NULL, 0, &count, bad, sizeof bad) == 0 && count > 0 && count % per == 0)
      v = malloc(sizeof(double) * (size_t)count);
    if (!v || read_numbers(text, v, count, &count, bad, sizeof bad)) {
      fail(st, st->given[key], "[marker] %s = %s: must be %s", hm_deck_keys[key].key, text,
           key == sites ? "cells 'x y z; x y z; ...' (0-based integers), line or all" : "'z1 z2 ...' (0-based) or all");
      free(v);
      return;
    }
    count /= per;
  } else {
    count = (int)total;
  }
  d->marker.sites = malloc(sizeof *d->marker.sites * (size_t)count);
  for (int i = 0; i < count && d->marker.sites; i++) {
    int64_t *c = d->marker.sites[i];
    if (key == layers) {
      c[0] = n[0] / 2, c[1] = n[1] / 2, c[2] = v ? (int64_t)v[i] : i;
      if (v && (v[i] != floor(v[i]) || v[i] < 0 || v[i] >= (double)n[2])) {
        fail(st, st->given[layers], "[marker] layers: layer %g is outside 0 to %lld (nz - 1), or not an integer", v[i],
             (long long)(n[2] - 1));
        break;
      }
    } else if (!strcmp(text, "line")) {
      c[0] = i, c[1] = n[1] / 2, c[2] = n[2] / 2;
    } else if (!strcmp(text, "all")) {
      c[0] = i % n[0], c[1] = (i / n[0]) % n[1], c[2] = i / (n[0] * n[1]);
    } else {
      for (int a = 0; a < 3; a++) {
        const double x = v[3 * i + a];
        c[a] = (int64_t)x;
        if (x != floor(x) || x < 0 || x >= (double)n[a]) {
          fail(st, st->given[sites], "[marker] sites: cell %d (%g %g %g) is outside the %lld x %lld x %lld cells "
               "(coordinates are integers from 0 to n - 1)", i + 1, v[3 * i], v[3 * i + 1], v[3 * i + 2],
               (long long)n[0], (long long)n[1], (long long)n[2]);
          i = count;
          break;
        }
      }
    }
  }
  d->marker.nsites = count;
  free(v);
}

/* zeeman_layers other than all folds the slab's layers into one cell (model_lattice.c): rows are no
 * longer numbered as sites, so the keys that name sites by their row refuse it (the conductivity
 * works: its velocities come from the folded cell's orbital positions, which keep each layer's z). */
static void check_zeeman_layers(deck_state *st) {
  const hm_deck *d = st->deck;
  const int key = key_index("hamiltonian", "zeeman_layers"), ldos = key_index("kpm", "ldos_sites");
  if (d->model != HM_MODEL_LATTICE || d->lattice.zeeman_layers == HM_ZEEMAN_ALL) return;
  if (d->ti.boundary[2] != HM_BC_OPEN)
    fail(st, st->given[key], "[hamiltonian] zeeman_layers = %s needs a slab: boundary open along z", st->text[key]);
  else if (st->given[ldos] || d->solver.problem == 1 || d->solver.method == HM_METHOD_SPECTRAL ||
           d->solver.method == HM_METHOD_EVOLUTION || d->lattice.vacancies > 0)
    fail(st, st->given[key], "[hamiltonian] zeeman_layers = %s works with the DOS, eigensolvers, method = marker and "
         "conductivity, not with ldos_sites, problem = green, spectral, evolution or vacancies", st->text[key]);
}

/* [spectral] k_path: 2 to HM_DECK_MAX_PATH names (checked against the lattice by the app) or
 * comma-separated reduced coordinates; layers: bulk, all, or layer numbers 1..nz. */
static void check_spectral(deck_state *st) {
  hm_deck *d = st->deck;
  if (d->solver.method != HM_METHOD_SPECTRAL) return;
  const int path = key_index("spectral", "k_path"), layers = key_index("spectral", "layers");
  const char *text = d->spectral.path_text;
  d->spectral.npath = 0;
  if (strpbrk(text, "0123456789")) { /* coordinates 'f1 f2 f3, f1 f2 f3, ...' */
    char copy[sizeof d->spectral.path_text], *save = NULL, bad[64] = "";
    snprintf(copy, sizeof copy, "%s", text);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      double f[4];
      int n = 0;
      if (read_numbers(t, f, 4, &n, bad, sizeof bad) || n != 3 || d->spectral.npath == HM_DECK_MAX_PATH ||
          fabs(f[0]) > 1e6 || fabs(f[1]) > 1e6 || fabs(f[2]) > 1e6) {
        fail(st, st->given[path], "[spectral] k_path = %s: point %d '%s' is not 3 reduced coordinates (numbers of "
             "magnitude <= 1e6); give 2 to %d points 'f1 f2 f3, f1 f2 f3, ...' or names such as 'G X M G'", text,
             d->spectral.npath + 1, t, HM_DECK_MAX_PATH);
        return;
      }
      d->spectral.names[d->spectral.npath][0] = '\0';
      for (int a = 0; a < 3; a++) d->spectral.path[d->spectral.npath][a] = f[a];
      d->spectral.npath++;
    }
  } else { /* names */
    char copy[sizeof d->spectral.path_text], *save = NULL;
    snprintf(copy, sizeof copy, "%s", text);
    for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
      if (strlen(w) != 1 || !strchr("GXMRK", w[0]) || d->spectral.npath == HM_DECK_MAX_PATH) {
        fail(st, st->given[path], "[spectral] k_path = %s: '%s' is not a point name (allowed: G X M R for cubic and "
             "square lattices, G K M for hexagonal ones; at most %d points) nor reduced coordinates", text, w,
             HM_DECK_MAX_PATH);
        return;
      }
      d->spectral.names[d->spectral.npath][0] = w[0];
      d->spectral.names[d->spectral.npath][1] = '\0';
      d->spectral.npath++;
    }
  }
  if (d->spectral.npath < 2) {
    fail(st, st->given[path], "[spectral] k_path = %s has %d point%s: a path needs 2 to %d points", text,
         d->spectral.npath, d->spectral.npath == 1 ? "" : "s", HM_DECK_MAX_PATH);
    return;
  }
  const char *l = d->spectral.layers_text;
  const int64_t nz = d->ti.nz;
  d->spectral.nlayers = 0;
  if (!strcmp(l, "bulk")) return;
  if (nz > 100000) {
    fail(st, st->given[layers], "[spectral] layers = %s: at most 100000 layers (nz = %lld)", l, (long long)nz);
    return;
  }
  d->spectral.layers = malloc(sizeof(int) * (size_t)(strcmp(l, "all") ? 1024 : nz));
  if (!strcmp(l, "all")) {
    for (int64_t z = 0; z < nz; z++) d->spectral.layers[d->spectral.nlayers++] = (int)z;
    return;
  }
  double v[1024];
  int n = 0;
  char bad[64];
  if (read_numbers(l, v, 1024, &n, bad, sizeof bad) || n < 1 || n > 1024) {
    fail(st, st->given[layers], "[spectral] layers = %s: must be bulk, all, or 1 to 1024 layer numbers from 1 to nz = "
         "%lld", l, (long long)nz);
    return;
  }
  for (int i = 0; i < n; i++) {
    if (v[i] != floor(v[i]) || v[i] < 1 || v[i] > (double)nz) {
      fail(st, st->given[layers], "[spectral] layers = %s: layer %.15g is outside the slab: layers are numbered 1 "
           "to nz = %lld along a3 (z)", l, v[i], (long long)nz);
      return;
    }
    d->spectral.layers[d->spectral.nlayers++] = (int)v[i] - 1;
  }
}

/* [run] walltime (seconds or HH:MM:SS), and the checkpoint keys only where a method honours them. */
static void check_run(deck_state *st) {
  hm_deck *d = st->deck;
  const int wall = key_index("run", "walltime"), every = key_index("run", "checkpoint_every");
  const int seconds = key_index("run", "checkpoint_seconds");
  if (st->given[wall] && hm_deck_parse_walltime(d->walltime_text, &d->walltime)) {
    fail(st, st->given[wall], "[run] walltime = %s: must be seconds > 0 (e.g. 3600) or HH:MM:SS (e.g. 01:00:00)",
         st->text[wall]);
    return;
  }
  if (d->solver.method == HM_METHOD_DENSE && (st->given[every] || st->given[seconds])) {
    const int at = st->given[every] ? every : seconds;
    fail(st, st->given[at], "[run] %s = %s: method = dense has no steps to checkpoint; remove the key (checkpoints "
         "serve the iterative methods)", hm_deck_keys[at].key, st->text[at]);
  }
}

/* [evolution] start = site X Y Z [ORBITAL]: a cell inside the lattice (the orbital is checked against
 * the model's orbitals by the app). */
static void start_site(deck_state *st, int start, const char *text) {
  hm_deck *d = st->deck;
  double v[5];
  int n = 0;
  char bad[64] = "";
  if (read_numbers(text + 5, v, 5, &n, bad, sizeof bad) || n < 3 || n > 4) {
    fail(st, st->given[start], "[evolution] start = %s: site takes X Y Z [ORBITAL] (0-based cell indices and "
         "orbital)", text);
    return;
  }
  const int64_t size[3] = {d->ti.nx, d->ti.ny, d->ti.nz};
  for (int a = 0; a < n; a++) {
    if (v[a] != floor(v[a]) || v[a] < 0 || (a < 3 && v[a] >= (double)size[a]) || (a == 3 && v[a] > 1e6)) {
      fail(st, st->given[start], "[evolution] start = %s: %s %.15g is outside 0 .. %lld", text,
           a < 3 ? (const char *[]){"x", "y", "z"}[a] : "orbital", v[a], a < 3 ? (long long)size[a] - 1 : 1000000LL);
      return;
    }
  }
  d->evolution.start_kind = HM_START_SITE;
  for (int a = 0; a < 3; a++) d->evolution.site[a] = (int64_t)v[a];
  d->evolution.orbital = n == 4 ? (int)v[3] : 0;
}

/* [evolution] start = gaussian X Y Z WIDTH [KX KY KZ]: cartesian centre, width > 0, wave vector. */
static void start_gaussian(deck_state *st, int start, const char *text) {
  hm_deck *d = st->deck;
  double v[8] = {0};
  int n = 0;
  char bad[64] = "";
  if (read_numbers(text + 9, v, 8, &n, bad, sizeof bad) || (n != 4 && n != 7)) {
    fail(st, st->given[start], "[evolution] start = %s: gaussian takes X Y Z WIDTH [KX KY KZ] (cartesian centre "
         "and width in the model file's length unit, wave vector in 1/length)", text);
    return;
  }
  if (!(v[3] > 0)) {
    fail(st, st->given[start], "[evolution] start = %s: the width %.15g must be > 0", text, v[3]);
    return;
  }
  d->evolution.start_kind = HM_START_GAUSSIAN;
  for (int a = 0; a < 3; a++) d->evolution.centre[a] = v[a], d->evolution.momentum[a] = v[4 + a];
  d->evolution.width = v[3];
}

/* [evolution] start = file PATH: a Matrix Market vector (read by the app, its size checked there). */
static void start_file(deck_state *st, int start, const char *text) {
  hm_deck *d = st->deck;
  const char *path = text + 5;
  path += strspn(path, " \t");
  if (!*path || strlen(path) >= sizeof d->evolution.start_file) {
    fail(st, st->given[start], "[evolution] start = %s: file takes the path of a Matrix Market vector", text);
    return;
  }
  d->evolution.start_kind = HM_START_FILE;
  snprintf(d->evolution.start_file, sizeof d->evolution.start_file, "%s", path);
}

/* [evolution] start: random, site, gaussian (model = ti or lattice: cells and positions) or file; vectors
 * and seed only with random, spinor only with gaussian. */
static void check_evolution(deck_state *st) {
  hm_deck *d = st->deck;
  if (d->solver.method != HM_METHOD_EVOLUTION) return;
  const int start = key_index("evolution", "start"), vectors = key_index("evolution", "vectors");
  const int seed = key_index("evolution", "seed"), spinor = key_index("evolution", "spinor");
  const char *text = d->evolution.start_text;
  d->evolution.start_kind = HM_START_RANDOM;
  if (!strncmp(text, "site ", 5)) start_site(st, start, text);
  else if (!strncmp(text, "gaussian ", 9)) start_gaussian(st, start, text);
  else if (!strncmp(text, "file ", 5)) start_file(st, start, text);
  else if (strcmp(text, "random"))
    fail(st, st->given[start], "[evolution] start = %s: must be random, site X Y Z [ORBITAL], gaussian X Y Z WIDTH "
         "[KX KY KZ] or file PATH", text);
  if (st->err_line != INT_MAX) return;
  const int kind = d->evolution.start_kind;
  if ((kind == HM_START_SITE || kind == HM_START_GAUSSIAN) && d->model != HM_MODEL_TI && d->model != HM_MODEL_LATTICE &&
      d->model != HM_MODEL_STRUCTURE) {
    fail(st, st->given[start], "[evolution] start = %s needs lattice sites: model = ti, lattice or structure", text);
    return;
  }
  if (st->given[spinor] && kind != HM_START_GAUSSIAN) {
    fail(st, st->given[spinor], "[evolution] spinor is given with start = %s: it applies to start = gaussian only; "
         "remove it", text);
    return;
  }
  char bad[64] = "";
  if (read_numbers(d->evolution.spinor_text, d->evolution.spinor, 2 * HM_DECK_MAX_SPINOR, &d->evolution.nspinor, bad,
                   sizeof bad) || d->evolution.nspinor > 2 * HM_DECK_MAX_SPINOR) {
    fail(st, st->given[spinor], "[evolution] spinor = %s: at most %d numbers (the orbitals' amplitudes, real or "
         "re im pairs)", d->evolution.spinor_text, 2 * HM_DECK_MAX_SPINOR);
    return;
  }
  const int layer = key_index("evolution", "snapshot_layer");
  if (d->evolution.snapshots && d->evolution.snapshot_layer >= d->ti.nz) {
    fail(st, st->given[layer], "[evolution] snapshot_layer = %d is outside the lattice's layers 0 .. %lld",
         d->evolution.snapshot_layer, (long long)d->ti.nz - 1);
    return;
  }
  if (d->evolution.snapshots && d->model != HM_MODEL_TI && d->model != HM_MODEL_LATTICE &&
      d->model != HM_MODEL_STRUCTURE) {
    fail(st, st->given[key_index("evolution", "snapshots")], "[evolution] snapshots = %d needs lattice cells: model = "
         "ti, lattice or structure", d->evolution.snapshots);
    return;
  }
  if (kind == HM_START_RANDOM) return;
  if (st->given[vectors] || st->given[seed]) {
    const int at = st->given[vectors] ? vectors : seed;
    fail(st, st->given[at], "[evolution] %s is given with start = %s: it applies to start = random only; remove it",
         hm_deck_keys[at].key, text);
    return;
  }
  d->evolution.vectors = 1;
}

/* [evolution] msd: model = lattice or structure (the commutators [X_a, H] come from their bonds), the energy
 * grid. */
static void check_evolution_msd(deck_state *st) {
  hm_deck *d = st->deck;
  if (d->solver.method != HM_METHOD_EVOLUTION || !d->evolution.msd) return;
  const int msd = key_index("evolution", "msd"), grid = key_index("evolution", "energies");
  if (d->model != HM_MODEL_LATTICE && d->model != HM_MODEL_STRUCTURE) {
    fail(st, st->given[msd], "[evolution] msd = %s needs the bond displacements of a lattice model: model = lattice "
         "or structure (the TI as a lattice file: inputs/lattices/ti.lattice)", st->text[msd]);
    return;
  }
  energy_grid(st, grid, d->evolution.energies_text, &d->evolution.nenergies, &d->evolution.energies);
}

int hm_deck_parse_walltime(const char *text, double *seconds) {
  unsigned h = 0, m = 0, s = 0;
  int used = 0;
  char *end = NULL;
  *seconds = 0;
  if (sscanf(text, "%u:%u:%u%n", &h, &m, &s, &used) == 3 && text[used] == '\0' && m < 60 && s < 60) {
    *seconds = 3600.0 * h + 60.0 * m + s;
  } else if (!strchr(text, ':')) {
    errno = 0;
    *seconds = strtod(text, &end);
    if (errno || end == text || *end) *seconds = 0;
  }
  return *seconds > 0 && isfinite(*seconds) ? 0 : 1;
}

static int parse(deck_state *st, const char *text) {
  int r = ini_parse_stream(read_line, st, on_key, st);
  HM_CHECK(r != -2, HM_ERR_MEMORY, "%s: out of memory while reading the deck", st->deck->name);
  if (r > 0) syntax_error(st, text, r);
  if (st->status) return hm_error_trace(st->status, __FILE__, __LINE__, __func__);
  if (st->err_line != INT_MAX) return HM_ERR_DECK;
  HM_CALL(defaults(st));
  check_conditions(st);
  if (st->err_line == INT_MAX) check_pairs(st);
  if (st->err_line == INT_MAX) check_model(st);
  if (st->err_line == INT_MAX) check_lattice(st);
  if (st->err_line == INT_MAX) check_green(st);
  if (st->err_line == INT_MAX) check_ldos(st);
  if (st->err_line == INT_MAX) check_conductivity(st);
  if (st->err_line == INT_MAX) check_marker(st);
  if (st->err_line == INT_MAX) check_interior(st);
  if (st->err_line == INT_MAX) check_zeeman_layers(st);
  if (st->err_line == INT_MAX) check_spectral(st);
  if (st->err_line == INT_MAX) check_evolution(st);
  if (st->err_line == INT_MAX) check_evolution_msd(st);
  if (st->err_line == INT_MAX) check_run(st);
  for (int i = 0; i < hm_deck_nkeys; i++) {
    int when;
    st->deck->key_line[i] = st->given[i];
    st->deck->key_applies[i] = (unsigned char)applies(st, &hm_deck_keys[i], &when);
  }
  return st->err_line == INT_MAX ? HM_SUCCESS : HM_ERR_DECK;
}

int hm_deck_parse_string(const char *text, const char *name, hm_deck *deck) {
  HM_CHECK(text && deck, HM_ERR_ARGUMENT, "text and deck must not be NULL");
  HM_CHECK(hm_deck_nkeys <= MAX_KEYS, HM_ERR_INTERNAL, "deck schema has %d keys, at most %d", hm_deck_nkeys, MAX_KEYS);
  memset(deck, 0, sizeof *deck);
  snprintf(deck->name, sizeof deck->name, "%s", name && *name ? name : "deck");
  HM_CALL(hm_ti_params_default(&deck->ti));
  HM_CALL(hm_fem_params_default(&deck->fem));
  HM_CALL(hm_convdiff_params_default(&deck->convdiff));
  HM_CALL(hm_kpm_options_default(&deck->kpm));
  HM_CALL(hm_dos_options_default(&deck->dos));
  deck_state *st;
  HM_MALLOC(st, 1);
  *st = (deck_state){.deck = deck, .pos = text, .err_line = INT_MAX};
  int status = parse(st, text);
  if (status == HM_ERR_DECK) hm_error_raise(HM_ERR_DECK, __FILE__, __LINE__, __func__, "%s", st->err);
  free(st);
  if (status) hm_deck_free(deck); /* a check that failed after the energies were made: no leak */
  if (status) return status == HM_ERR_DECK ? status : hm_error_trace(status, __FILE__, __LINE__, __func__);
  deck->kpm.checkpoint_every = deck->checkpoint_every;
  deck->kpm.checkpoint_seconds = deck->checkpoint_seconds;
  deck->text = strdup(text);
  HM_CHECK(deck->text, HM_ERR_MEMORY, "could not copy the deck text (%zu bytes)", strlen(text) + 1);
  return HM_SUCCESS;
}

int hm_deck_read_file(const char *path, char **text) {
  HM_CHECK(path && text, HM_ERR_ARGUMENT, "path and text must not be NULL");
  *text = NULL;
  FILE *f = fopen(path, "rb");
  HM_CHECK(f, HM_ERR_IO, "cannot open deck '%s': %s", path, strerror(errno));
  char *buf = malloc(MAX_DECK_BYTES + 1);
  if (!buf) fclose(f);
  HM_CHECK(buf, HM_ERR_MEMORY, "could not allocate %d bytes to read '%s'", MAX_DECK_BYTES + 1, path);
  size_t n = fread(buf, 1, MAX_DECK_BYTES + 1, f);
  int read_errno = ferror(f) ? errno : 0, more = n > MAX_DECK_BYTES;
  fclose(f);
  if (read_errno || more) free(buf);
  HM_CHECK(!read_errno, HM_ERR_IO, "cannot read deck '%s': %s", path, strerror(read_errno));
  HM_CHECK(!more, HM_ERR_DECK, "deck '%s' is larger than %d bytes: not an input deck?", path, MAX_DECK_BYTES);
  const char *nul = memchr(buf, '\0', n);
  ptrdiff_t at = nul ? nul - buf : -1;
  if (nul) free(buf);
  HM_CHECK(!nul, HM_ERR_DECK, "deck '%s' has a NUL byte at offset %td: not a text file", path, at);
  buf[n] = '\0';
  char *shrunk = realloc(buf, n + 1);
  *text = shrunk ? shrunk : buf;
  return HM_SUCCESS;
}

void hm_deck_free(hm_deck *deck) {
  if (!deck) return;
  free(deck->text);
  deck->text = NULL;
  free(deck->green.energies);
  free(deck->conductivity.energies);
  free(deck->evolution.energies);
  deck->evolution.energies = NULL;
  free(deck->conductivity.freqs);
  free(deck->marker.sites);
  free(deck->spectral.layers);
  deck->spectral.layers = NULL;
  deck->green.energies = NULL;
  deck->marker.sites = NULL;
}

int hm_deck_line(const hm_deck *deck, const char *section, const char *key) {
  const int i = hm_deck_key_find(section, key);
  return deck && i >= 0 ? deck->key_line[i] : 0;
}

void hm_deck_checkpoint_path(const hm_deck *deck, char *path, size_t len) {
  if (!path || !len) return;
  if (!deck) {
    path[0] = '\0';
  } else if (deck->checkpoint[0]) {
    snprintf(path, len, "%s", deck->checkpoint);
  } else {
    size_t n = strlen(deck->output);
    if (n >= 3 && !strcmp(deck->output + n - 3, ".h5")) n -= 3;
    snprintf(path, len, "%.*s_checkpoint.h5", (int)n, deck->output);
  }
}
