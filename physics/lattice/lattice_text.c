/* Line reader of the lattice parsers: whole file in memory, fields split on blanks, numbers parsed
 * strictly with messages that name file, line and what is allowed. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "error_macros.h"
#include "lattice_internal.h"

int hm_text_open(const char *file, hm_text *t) {
  memset(t, 0, sizeof *t);
  t->file = file;
  struct stat info;
  HM_CHECK(stat(file, &info) == 0, HM_ERR_INPUT, "%s: cannot open the file: %s", file, strerror(errno));
  HM_CHECK(!S_ISDIR(info.st_mode), HM_ERR_INPUT, "%s: is a directory, not a model file", file);
  FILE *f = fopen(file, "rb");
  HM_CHECK(f, HM_ERR_INPUT, "%s: cannot open the file: %s", file, strerror(errno));
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - 1 - n, f)) > 0) {
    n += got;
    if (n + 1 == cap) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) free(buf);
      buf = bigger;
      cap *= 2;
    }
  }
  const int read_error = ferror(f);
  fclose(f);
  HM_CHECK(buf, HM_ERR_MEMORY, "%s: cannot hold the file in memory", file);
  buf[n] = '\0';
  const char *why = read_error ? "cannot be read" : strlen(buf) != n ? "holds a NUL byte: a model file is text" : NULL;
  if (!why && buf[strspn(buf, " \t\r\n")] == '\0') why = n ? "holds only blanks: the file is empty" : "is empty (0 bytes)";
  if (why) {
    free(buf);
    return hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "%s: %s", file, why);
  }
  t->text = t->next = buf;
  return HM_SUCCESS;
}

void hm_text_close(hm_text *t) {
  free(t->text);
  t->text = t->next = NULL;
}

int hm_text_skip_line(hm_text *t) {
  if (!t->next || !*t->next) return 0;
  char *end = strchr(t->next, '\n');
  t->line++;
  t->next = end ? end + 1 : t->next + strlen(t->next);
  return 1;
}

int hm_text_next(hm_text *t, int comments) {
  while (t->next && *t->next) {
    char *s = t->next, *end = strchr(s, '\n');
    if (end) *end = '\0';
    t->next = end ? end + 1 : s + strlen(s);
    t->line++;
    if (comments) {
      char *hash = strchr(s, '#');
      if (hash) *hash = '\0';
    }
    t->nfields = 0;
    t->too_many = 0;
    for (char *p = strtok(s, " \t\r"); p; p = strtok(NULL, " \t\r")) {
      if (t->nfields == HM_TEXT_MAX_FIELDS) t->too_many = 1;
      else t->field[t->nfields++] = p;
    }
    if (t->nfields) return 1;
  }
  return 0;
}

int hm_text_is_integer(const char *s) {
  if (*s == '+' || *s == '-') s++;
  if (!*s) return 0;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

int hm_text_int(const hm_text *t, int k, const char *what, long lo, long hi, long *x) {
  const char *s = t->field[k];
  errno = 0;
  long v = hm_text_is_integer(s) ? strtol(s, NULL, 10) : 0;
  HM_CHECK(hm_text_is_integer(s) && errno == 0 && v >= lo && v <= hi, HM_ERR_INPUT,
           "%s:%d: %s '%s' is not an integer in %ld..%ld", t->file, t->line, what, s, lo, hi);
  *x = v;
  return HM_SUCCESS;
}

int hm_text_double(const hm_text *t, int k, const char *what, double *x) {
  const char *s = t->field[k];
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  /* decimal notation only (strtod alone takes inf, nan and hex floats); Fortran's D exponent too */
  int ok = end != s && !*end && strspn(s, "+-0123456789.eE") == strlen(s);
  HM_CHECK(ok, HM_ERR_INPUT, "%s:%d: %s '%s' is not a number", t->file, t->line, what, s);
  HM_CHECK(isfinite(v), HM_ERR_INPUT, "%s:%d: %s '%s' is not a finite double", t->file, t->line,
           what, s);
  *x = v;
  return HM_SUCCESS;
}
