/* Line-by-line Matrix Market parsing shared by the matrix and vector readers. */
#ifndef HAMLET_MTX_INTERNAL_H
#define HAMLET_MTX_INTERNAL_H
#include <stdint.h>
#include <stdio.h>
#include "hamlet/context.h"
#include "hamlet/mtx.h"

typedef enum { MTX_COORDINATE, MTX_ARRAY } mtx_format;
typedef enum { MTX_REAL, MTX_INTEGER, MTX_COMPLEX, MTX_PATTERN } mtx_field;

/* Most fields on a data line: row, column, real, imaginary; one more to see extra text. */
enum { MTX_MAX_TOKENS = 5 };

typedef struct {
  FILE *file;
  const char *path;
  int64_t line;              /* number of the line last read, 1-based */
  char *text;                /* that line (getline buffer) */
  size_t capacity;
  char *token[MTX_MAX_TOKENS];
  int ntokens;               /* tokens on the line, counted up to MTX_MAX_TOKENS */
  /* From the banner and size line. */
  mtx_format format;
  mtx_field field;
  hm_mtx_symmetry symmetry;
  int64_t rows, cols, entries;
  int64_t size_line;
} mtx_file;

/* Opens path and reads the banner and the size line (validated). On failure the file is
 * closed again. */
int hm_mtx_open(const char *path, mtx_file *f);
void hm_mtx_close(mtx_file *f);
/* Next line that is not blank and not a comment, split into tokens; *found = 0 at end of file. */
int hm_mtx_next_line(mtx_file *f, int *found);
/* Raise HM_ERR_INPUT (a bad input file) with "path:line: " before the message. */
int hm_mtx_fail(const mtx_file *f, const char *file, int line, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define MTX_FAIL(f, ...) return hm_mtx_fail((f), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* Token t of the current line as an index in 1..max (what: "row", "column"); 0-based result. */
int hm_mtx_parse_index(const mtx_file *f, int t, int64_t max, const char *what, int64_t *index);
/* Token t of the current line as a finite number (integer field: an integer). */
int hm_mtx_parse_value(const mtx_file *f, int t, const char *what, double *value);
/* Which fields a data line of this file holds, for messages: "row column value" ... */
const char *hm_mtx_line_layout(const mtx_file *f, int *nfields);
/* Collective: every rank learns whether any failed. A failing rank keeps its status and
 * message; the others raise one that names the failing rank. */
int hm_mtx_agree(hm_context *ctx, int status, const char *path);
#endif
