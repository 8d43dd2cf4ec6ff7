/* Matrix Market line reader: banner, size line, data lines with comments and blank lines
 * skipped, number parsing with messages that name the file, the line and what was expected. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "mtx_internal.h"

/* Largest row or column count: far below INT64_MAX so index arithmetic never overflows. */
#define MTX_MAX_ROWS ((int64_t)1 << 50)

int hm_mtx_fail(const mtx_file *f, const char *file, int line, const char *func, const char *fmt, ...) {
  char what[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(what, sizeof what, fmt, args);
  va_end(args);
  return hm_error_raise(HM_ERR_INPUT, file, line, func, "%s:%lld: %s", f->path, (long long)f->line, what);
}

/* Split the current line in place into whitespace-separated tokens; counts all, keeps the first
 * MTX_MAX_TOKENS. */
static void split(mtx_file *f) {
  f->ntokens = 0;
  char *s = f->text;
  while (*s) {
    while (*s && isspace((unsigned char)*s)) s++;
    if (!*s) break;
    if (f->ntokens < MTX_MAX_TOKENS) f->token[f->ntokens] = s;
    f->ntokens++;
    while (*s && !isspace((unsigned char)*s)) s++;
    if (*s) *s++ = '\0';
  }
}

/* Reads the next raw line into f->text without its line end; *found = 0 at end of file. */
static int read_line(mtx_file *f, int *found) {
  errno = 0;
  ssize_t len = getline(&f->text, &f->capacity, f->file);
  if (len < 0) {
    if (ferror(f->file)) MTX_FAIL(f, "read error after this line: %s", strerror(errno));
    *found = 0;
    return HM_SUCCESS;
  }
  f->line++;
  /* A NUL would end the line early for every parser after this one: refuse it. */
  const char *nul = memchr(f->text, '\0', (size_t)len);
  if (nul) MTX_FAIL(f, "the line holds a NUL byte at column %lld: a Matrix Market file is text",
                    (long long)(nul - f->text) + 1);
  while (len > 0 && (f->text[len - 1] == '\n' || f->text[len - 1] == '\r')) f->text[--len] = '\0';
  *found = 1;
  return HM_SUCCESS;
}

int hm_mtx_next_line(mtx_file *f, int *found) {
  for (;;) {
    HM_CALL(read_line(f, found));
    if (!*found) return HM_SUCCESS;
    const char *s = f->text;
    while (*s && isspace((unsigned char)*s)) s++;
    if (*s == '\0' || *s == '%') continue; /* blank or comment */
    split(f);
    return HM_SUCCESS;
  }
}

static int same_word(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

#define BANNER_FORM "'%%%%MatrixMarket matrix <coordinate|array> <real|integer|complex|pattern> <general|symmetric|skew-symmetric|hermitian>'"

static int parse_banner(mtx_file *f) {
  int found;
  HM_CALL(read_line(f, &found));
  if (!found) {
    f->line = 1;
    MTX_FAIL(f, "the file is empty; expected the banner " BANNER_FORM);
  }
  char shown[128];
  snprintf(shown, sizeof shown, "%s", f->text);
  split(f);
  if (f->ntokens == 0 || strcmp(f->token[0], "%%MatrixMarket") != 0)
    MTX_FAIL(f, "bad banner: expected " BANNER_FORM ", found '%s'", shown);
  if (f->ntokens != 5)
    MTX_FAIL(f, "bad banner: expected 4 words after %%%%MatrixMarket (" BANNER_FORM "), found %d in '%s'",
             f->ntokens - 1, shown);
  const char *object = f->token[1], *format = f->token[2], *field = f->token[3], *symmetry = f->token[4];
  if (!same_word(object, "matrix"))
    MTX_FAIL(f, "bad banner: unknown object '%s': expected 'matrix'", object);
  if (same_word(format, "coordinate")) f->format = MTX_COORDINATE;
  else if (same_word(format, "array")) f->format = MTX_ARRAY;
  else MTX_FAIL(f, "bad banner: unknown format '%s': expected coordinate or array", format);
  if (same_word(field, "real")) f->field = MTX_REAL;
  else if (same_word(field, "integer")) f->field = MTX_INTEGER;
  else if (same_word(field, "complex")) f->field = MTX_COMPLEX;
  else if (same_word(field, "pattern")) f->field = MTX_PATTERN;
  else MTX_FAIL(f, "bad banner: unknown field '%s': expected real, integer, complex or pattern", field);
  if (same_word(symmetry, "general")) f->symmetry = HM_MTX_GENERAL;
  else if (same_word(symmetry, "symmetric")) f->symmetry = HM_MTX_SYMMETRIC;
  else if (same_word(symmetry, "skew-symmetric")) f->symmetry = HM_MTX_SKEW_SYMMETRIC;
  else if (same_word(symmetry, "hermitian")) f->symmetry = HM_MTX_HERMITIAN;
  else MTX_FAIL(f, "bad banner: unknown symmetry '%s': expected general, symmetric, skew-symmetric or hermitian",
                symmetry);
  if (f->symmetry == HM_MTX_HERMITIAN && f->field != MTX_COMPLEX)
    MTX_FAIL(f, "bad banner: hermitian symmetry needs the complex field, found '%s'", field);
  if (f->field == MTX_PATTERN && f->format == MTX_ARRAY)
    MTX_FAIL(f, "bad banner: the pattern field needs coordinate format, found '%s'", format);
  if (f->field == MTX_PATTERN && f->symmetry != HM_MTX_GENERAL && f->symmetry != HM_MTX_SYMMETRIC)
    MTX_FAIL(f, "bad banner: the pattern field allows general or symmetric, found '%s'", symmetry);
  return HM_SUCCESS;
}

/* Token t of the size line as a count >= min. */
static int parse_count(const mtx_file *f, int t, const char *what, int64_t min, int64_t *value) {
  const char *s = f->token[t];
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE || v < min || v >= MTX_MAX_ROWS)
    MTX_FAIL(f, "size line: %s '%s' is not an integer in %lld..2^50", what, s, (long long)min);
  *value = v;
  return HM_SUCCESS;
}

static int parse_size_line(mtx_file *f) {
  int found;
  const int coordinate = f->format == MTX_COORDINATE;
  const char *expected = coordinate ? "'rows columns entries'" : "'rows columns'";
  HM_CALL(hm_mtx_next_line(f, &found));
  if (!found) MTX_FAIL(f, "the file ends before the size line; expected %s", expected);
  f->size_line = f->line;
  if (f->ntokens != (coordinate ? 3 : 2))
    MTX_FAIL(f, "size line: expected %d integers %s, found %d fields", coordinate ? 3 : 2, expected, f->ntokens);
  HM_CALL(parse_count(f, 0, "rows", 1, &f->rows));
  HM_CALL(parse_count(f, 1, "columns", 1, &f->cols));
  if (coordinate) {
    HM_CALL(parse_count(f, 2, "entries", 0, &f->entries));
  } else {
    if (f->cols > MTX_MAX_ROWS / f->rows)
      MTX_FAIL(f, "size line: %lld x %lld dense entries are too many", (long long)f->rows, (long long)f->cols);
    f->entries = f->rows * f->cols;
  }
  static const char *names[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
  if (f->symmetry != HM_MTX_GENERAL && f->rows != f->cols)
    MTX_FAIL(f, "size line: a %s matrix must be square, found %lld x %lld", names[f->symmetry],
             (long long)f->rows, (long long)f->cols);
  return HM_SUCCESS;
}

int hm_mtx_open(const char *path, mtx_file *f) {
  memset(f, 0, sizeof *f);
  f->path = path;
  f->file = fopen(path, "r");
  HM_CHECK(f->file, HM_ERR_INPUT, "cannot open Matrix Market file %s: %s", path, strerror(errno));
  int st = parse_banner(f);
  if (!st) st = parse_size_line(f);
  if (st) {
    hm_mtx_close(f);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  return HM_SUCCESS;
}

void hm_mtx_close(mtx_file *f) {
  if (f->file) fclose(f->file);
  free(f->text);
  f->file = NULL;
  f->text = NULL;
}

int hm_mtx_parse_index(const mtx_file *f, int t, int64_t max, const char *what, int64_t *index) {
  const char *s = f->token[t];
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE) MTX_FAIL(f, "%s index '%s' is not an integer", what, s);
  if (v < 1 || v > max)
    MTX_FAIL(f, "%s index %lld is out of range: expected 1..%lld", what, v, (long long)max);
  *index = v - 1;
  return HM_SUCCESS;
}

int hm_mtx_parse_value(const mtx_file *f, int t, const char *what, double *value) {
  const char *s = f->token[t];
  char *end;
  errno = 0;
  if (f->field == MTX_INTEGER) {
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
      MTX_FAIL(f, "%s '%s' is not an integer (the field is integer)", what, s);
    *value = (double)v;
    return HM_SUCCESS;
  }
  double v = strtod(s, &end);
  if (end == s || *end != '\0') MTX_FAIL(f, "%s '%s' is not a number", what, s);
  if (isinf(v) && errno == ERANGE) MTX_FAIL(f, "%s '%s' overflows a double (largest: 1.8e308)", what, s);
  if (!isfinite(v)) MTX_FAIL(f, "%s '%s' is not a finite number", what, s);
  *value = v;
  return HM_SUCCESS;
}

const char *hm_mtx_line_layout(const mtx_file *f, int *nfields) {
  const int complex = f->field == MTX_COMPLEX;
  if (f->format == MTX_ARRAY) {
    *nfields = complex ? 2 : 1;
    return complex ? "'real imaginary'" : "'value'";
  }
  if (f->field == MTX_PATTERN) {
    *nfields = 2;
    return "'row column'";
  }
  *nfields = complex ? 4 : 3;
  return complex ? "'row column real imaginary'" : "'row column value'";
}

int hm_mtx_agree(hm_context *ctx, int status, const char *path) {
  MPI_Comm comm;
  int rank;
  HM_CALL(hm_context_comm(ctx, &comm));
  HM_CALL(hm_context_rank(ctx, &rank, NULL));
  int mine[2] = {status ? rank + 1 : 0, status}, any[2];
  HM_CALL_MPI(MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, comm));
  if (status) return status;
  if (any[0]) HM_RAISE(any[1], "rank %d failed to read %s (its message says why)", any[0] - 1, path);
  return HM_SUCCESS;
}

int hm_mtx_info(hm_context *ctx, const char *path, int64_t *rows, int64_t *cols, int64_t *entries,
                hm_scalar *type, int *symmetry) {
  (void)ctx;
  HM_CHECK(path, HM_ERR_ARGUMENT, "path is NULL");
  mtx_file f;
  HM_CALL(hm_mtx_open(path, &f));
  hm_mtx_close(&f);
  if (rows) *rows = f.rows;
  if (cols) *cols = f.cols;
  if (entries) *entries = f.entries;
  if (type) *type = f.field == MTX_COMPLEX ? HM_COMPLEX : HM_REAL;
  if (symmetry) *symmetry = (int)f.symmetry;
  return HM_SUCCESS;
}
