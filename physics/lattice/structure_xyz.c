/* Extended XYZ files of a periodic structure: read with errors naming file and line, written
 * atomically. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "lattice_internal.h"
#include "structure.h"

void hm_structure_free(hm_structure *s) {
  free(s->pos);
  free(s->species);
  memset(s, 0, sizeof *s);
}

/* The value of key="..." (or key=word) in the comment line into out; 0 where the key is absent. */
static int comment_value(const char *line, const char *key, char *out, size_t len) {
  const size_t n = strlen(key);
  for (const char *p = line; (p = strstr(p, key)); p += n) {
    const int starts = p == line || isspace((unsigned char)p[-1]);
    if (!starts || p[n] != '=') continue;
    const char *v = p + n + 1, *end;
    if (*v == '"') end = strchr(++v, '"');
    else end = v + strcspn(v, " \t\r");
    if (!end) end = v + strlen(v);
    snprintf(out, len, "%.*s", (int)(end - v), v);
    return 1;
  }
  return 0;
}

static int parse_comment(const hm_text *t, const char *line, hm_structure *s) {
  char value[1024];
  HM_CHECK(comment_value(line, "Lattice", value, sizeof value), HM_ERR_INPUT,
           "%s:%d: no Lattice=\"a1x a1y a1z a2x a2y a2z a3x a3y a3z\" on the comment line: an extended XYZ structure "
           "needs its periodic cell", t->file, t->line);
  char *p = value, *end;
  for (int k = 0; k < 9; k++) {
    errno = 0;
    const double v = strtod(p, &end);
    HM_CHECK(end != p && isfinite(v) && errno == 0, HM_ERR_INPUT,
             "%s:%d: Lattice=\"%s\": want 9 numbers (a1, a2, a3 in angstrom), number %d is missing or bad", t->file,
             t->line, value, k + 1);
    s->cell[k / 3][k % 3] = v;
    p = end;
  }
  HM_CHECK(p[strspn(p, " \t")] == '\0', HM_ERR_INPUT, "%s:%d: Lattice=\"%s\": more than 9 numbers", t->file, t->line,
           value);
  const double(*a)[3] = (const double(*)[3])s->cell;
  const double volume = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                        a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                        a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  HM_CHECK(fabs(volume) > 1e-6, HM_ERR_INPUT, "%s:%d: Lattice=\"%s\": the three vectors span no volume (%g A^3)",
           t->file, t->line, value, volume);
  s->pbc[0] = s->pbc[1] = s->pbc[2] = 1;
  if (comment_value(line, "pbc", value, sizeof value)) {
    char *w = strtok(value, " \t");
    for (int k = 0; k < 3; k++, w = strtok(NULL, " \t")) {
      const int yes = w && (!strcmp(w, "T") || !strcmp(w, "True") || !strcmp(w, "1"));
      const int no = w && (!strcmp(w, "F") || !strcmp(w, "False") || !strcmp(w, "0"));
      HM_CHECK(yes || no, HM_ERR_INPUT, "%s:%d: pbc: want three of T and F (periodic along a1 a2 a3)", t->file,
               t->line);
      s->pbc[k] = yes;
    }
  }
  if (comment_value(line, "Properties", value, sizeof value))
    HM_CHECK(!strncmp(value, "species:S:1:pos:R:3", 19), HM_ERR_INPUT,
             "%s:%d: Properties=%s: hamlet reads species:S:1:pos:R:3 first (species and cartesian positions)",
             t->file, t->line, value);
  return HM_SUCCESS;
}

int hm_structure_read(const char *path, hm_structure *s) {
  memset(s, 0, sizeof *s);
  hm_text t;
  HM_CALL(hm_text_open(path, &t));
  int st = HM_SUCCESS;
  long natoms = 0;
  if (!hm_text_next(&t, 0) || t.nfields != 1) {
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "%s:%d: the first line of an XYZ file is the number of atoms alone", path, t.line);
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_text_int(&t, 0, "the number of atoms", 1, 1000000000L, &natoms));
  /* the comment line, raw (its quoted values hold blanks) */
  char *line = t.next, *nl = strchr(line, '\n');
  if (nl) *nl = '\0';
  t.next = nl ? nl + 1 : line + strlen(line);
  t.line++;
  HM_CALL_GOTO(st, done, parse_comment(&t, line, s));
  s->natoms = natoms;
  s->pos = malloc(sizeof(double) * 3 * (size_t)natoms);
  s->species = calloc((size_t)natoms, sizeof *s->species);
  if (!s->pos || !s->species) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "%s: %ld atoms do not fit in memory", path,
                        natoms);
    goto done;
  }
  for (long a = 0; a < natoms; a++) {
    if (!hm_text_next(&t, 0)) {
      st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                          "%s: ends after %ld atom lines; its first line announces %ld", path, a, natoms);
      goto done;
    }
    if (t.nfields < 4) {
      st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                          "%s:%d: an atom line is 'species x y z'; this one has %d fields", path, t.line, t.nfields);
      goto done;
    }
    if (strlen(t.field[0]) >= HM_SPECIES_LEN || !isalpha((unsigned char)t.field[0][0])) {
      st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                          "%s:%d: species '%s': want a name of at most %d characters starting with a letter", path,
                          t.line, t.field[0], HM_SPECIES_LEN - 1);
      goto done;
    }
    snprintf(s->species[a], HM_SPECIES_LEN, "%s", t.field[0]);
    static const char *const what[3] = {"x", "y", "z"};
    for (int k = 0; k < 3; k++) HM_CALL_GOTO(st, done, hm_text_double(&t, 1 + k, what[k], &s->pos[3 * a + k]));
  }
  if (hm_text_next(&t, 0))
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "%s:%d: a line after the %ld atoms the first line announces (one structure per file)", path,
                        t.line, natoms);
done:
  hm_text_close(&t);
  if (st) hm_structure_free(s);
  return st;
}

int hm_structure_write(const char *path, const hm_structure *s, const char *comment) {
  char tmp[4200];
  HM_CHECK(snprintf(tmp, sizeof tmp, "%s.tmp", path) < (int)sizeof tmp, HM_ERR_ARGUMENT, "%s: path too long", path);
  FILE *f = fopen(tmp, "w");
  HM_CHECK(f, HM_ERR_IO, "%s: cannot write: %s", tmp, strerror(errno));
  fprintf(f, "%lld\nLattice=\"", (long long)s->natoms);
  for (int k = 0; k < 9; k++) fprintf(f, "%s%.17g", k ? " " : "", s->cell[k / 3][k % 3]);
  fprintf(f, "\" Properties=species:S:1:pos:R:3 pbc=\"%c %c %c\"%s%s\n", s->pbc[0] ? 'T' : 'F',
          s->pbc[1] ? 'T' : 'F', s->pbc[2] ? 'T' : 'F', comment ? " " : "", comment ? comment : "");
  for (int64_t a = 0; a < s->natoms; a++)
    fprintf(f, "%s %.17g %.17g %.17g\n", s->species[a], s->pos[3 * a], s->pos[3 * a + 1], s->pos[3 * a + 2]);
  const int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    remove(tmp);
    return hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__, "%s: write failed", tmp);
  }
  if (rename(tmp, path) != 0) {
    const int e = errno;
    remove(tmp);
    return hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__, "%s: cannot rename to %s: %s", tmp, path,
                          strerror(e));
  }
  return HM_SUCCESS;
}
