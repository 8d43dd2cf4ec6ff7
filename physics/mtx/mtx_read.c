/* hm_mtx_read: a coordinate Matrix Market file into a distributed hm_matrix. Every rank streams
 * the whole file and keeps the entries of its own rows, with the mirrored entries of symmetric,
 * skew-symmetric and Hermitian files that land in them; no entries travel over MPI. */
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "matrix_hermitian.h"
#include "mtx_internal.h"

/* The entries this rank keeps: local row, global column, 1 or 2 doubles each. */
typedef struct {
  int64_t n, capacity;
  int width;
  int64_t *row, *col;
  double *val;
} triplets;

static void triplets_free(triplets *t) {
  free(t->row);
  free(t->col);
  free(t->val);
}

static int push(triplets *t, int64_t row, int64_t col, double re, double im) {
  if (t->n == t->capacity) {
    int64_t capacity = t->capacity ? 2 * t->capacity : 1024;
    int64_t *r = realloc(t->row, sizeof *r * (size_t)capacity);
    if (r) t->row = r;
    int64_t *c = realloc(t->col, sizeof *c * (size_t)capacity);
    if (c) t->col = c;
    double *v = realloc(t->val, sizeof *v * (size_t)(capacity * t->width));
    if (v) t->val = v;
    HM_CHECK(r && c && v, HM_ERR_MEMORY, "could not grow this rank's Matrix Market entries to %lld",
             (long long)capacity);
    t->capacity = capacity;
  }
  t->row[t->n] = row;
  t->col[t->n] = col;
  t->val[t->n * t->width] = re;
  if (t->width == 2) t->val[t->n * t->width + 1] = im;
  t->n++;
  return HM_SUCCESS;
}

/* What hm_mtx_read needs beyond a valid header: coordinate format and a square matrix. */
static int check_header(const mtx_file *f) {
  mtx_file at = *f;
  if (f->format != MTX_COORDINATE) {
    at.line = 1;
    MTX_FAIL(&at, "a matrix must be in coordinate format, found array (array files are right-hand sides: "
                  "hm_mtx_read_vector)");
  }
  at.line = f->size_line;
  if (f->rows != f->cols)
    MTX_FAIL(&at, "the matrix is %lld x %lld: hamlet reads square matrices only", (long long)f->rows,
             (long long)f->cols);
  return HM_SUCCESS;
}

/* Entry (i, j) = re + i im as stored in the file (0-based): checked against the symmetry; kept
 * if row i is ours, its mirror (j, i) if row j is ours. */
static int keep_entry(const mtx_file *f, int64_t i, int64_t j, double re, double im, int64_t first,
                      int64_t local, triplets *t) {
  static const char *names[] = {"general", "symmetric", "skew-symmetric", "Hermitian"};
  const hm_mtx_symmetry s = f->symmetry;
  if ((s == HM_MTX_SYMMETRIC || s == HM_MTX_HERMITIAN) && i < j)
    MTX_FAIL(f, "entry (%lld, %lld) lies above the diagonal: a %s file stores only the lower triangle "
                "(row >= column)", (long long)i + 1, (long long)j + 1, names[s]);
  if (s == HM_MTX_SKEW_SYMMETRIC && i <= j)
    MTX_FAIL(f, "entry (%lld, %lld) is not below the diagonal: a skew-symmetric file stores only the strict "
                "lower triangle (row > column)", (long long)i + 1, (long long)j + 1);
  if (s == HM_MTX_HERMITIAN && i == j && im != 0)
    MTX_FAIL(f, "diagonal entry (%lld, %lld) of a Hermitian matrix must be real, found imaginary part %g",
             (long long)i + 1, (long long)j + 1, im);
  if (i >= first && i < first + local) HM_CALL(push(t, i - first, j, re, im));
  if (s != HM_MTX_GENERAL && i != j && j >= first && j < first + local) {
    if (s == HM_MTX_SKEW_SYMMETRIC) HM_CALL(push(t, j - first, i, -re, -im));
    else if (s == HM_MTX_HERMITIAN) HM_CALL(push(t, j - first, i, re, -im));
    else HM_CALL(push(t, j - first, i, re, im));
  }
  return HM_SUCCESS;
}

/* Streams the data lines after the size line: exactly f->entries of them. */
static int read_entries(mtx_file *f, int64_t first, int64_t local, triplets *t) {
  int nfields, found;
  const char *layout = hm_mtx_line_layout(f, &nfields);
  const int complex = f->field == MTX_COMPLEX;
  for (int64_t e = 0; e < f->entries; e++) {
    HM_CALL(hm_mtx_next_line(f, &found));
    if (!found)
      MTX_FAIL(f, "the file ends after %lld of the %lld entries announced on line %lld", (long long)e,
               (long long)f->entries, (long long)f->size_line);
    if (f->ntokens != nfields)
      MTX_FAIL(f, "expected %d fields %s, found %d", nfields, layout, f->ntokens);
    int64_t i, j;
    double re = 1, im = 0;
    HM_CALL(hm_mtx_parse_index(f, 0, f->rows, "row", &i));
    HM_CALL(hm_mtx_parse_index(f, 1, f->cols, "column", &j));
    if (f->field != MTX_PATTERN) HM_CALL(hm_mtx_parse_value(f, 2, complex ? "real part" : "value", &re));
    if (complex) HM_CALL(hm_mtx_parse_value(f, 3, "imaginary part", &im));
    HM_CALL(keep_entry(f, i, j, re, im, first, local, t));
  }
  HM_CALL(hm_mtx_next_line(f, &found));
  if (found)
    MTX_FAIL(f, "more entries than the %lld announced on line %lld", (long long)f->entries,
             (long long)f->size_line);
  return HM_SUCCESS;
}

/* CSR of the kept entries (counting sort by local row; order within a row does not matter). */
static int to_csr(const triplets *t, int64_t local, int64_t *rowptr, int64_t *cols, double *vals) {
  int64_t *next;
  HM_MALLOC(next, local + 1);
  for (int64_t e = 0; e < t->n; e++) rowptr[t->row[e] + 1]++;
  for (int64_t r = 0; r < local; r++) rowptr[r + 1] += rowptr[r];
  for (int64_t r = 0; r < local; r++) next[r] = rowptr[r];
  for (int64_t e = 0; e < t->n; e++) {
    int64_t p = next[t->row[e]]++;
    cols[p] = t->col[e];
    memcpy(vals + p * t->width, t->val + e * t->width, sizeof *vals * (size_t)t->width);
  }
  free(next);
  return HM_SUCCESS;
}

int hm_mtx_read(hm_context *ctx, const char *path, hm_matrix **A) {
  HM_CHECK(ctx && path && A, HM_ERR_ARGUMENT, "ctx, path or A is NULL");
  *A = NULL;
  mtx_file f;
  int st = hm_mtx_open(path, &f);
  if (!st) st = check_header(&f);
  /* A rank whose header was fine still closes its file when another rank's was not. */
  st = hm_mtx_agree(ctx, st, path);
  if (st) hm_mtx_close(&f);
  HM_CALL(st);

  hm_dist *dist = NULL;
  triplets t = {0};
  int64_t *rowptr = NULL, *cols = NULL;
  double *vals = NULL;
  int64_t first = 0, local = 0;
  const hm_scalar type = f.field == MTX_COMPLEX ? HM_COMPLEX : HM_REAL;
  t.width = (int)type;
  HM_CALL_GOTO(st, done, hm_dist_create(ctx, f.rows, 1, 1.0, &dist));
  HM_CALL_GOTO(st, done, hm_dist_range(dist, &first, &local, NULL));
  st = read_entries(&f, first, local, &t);
  if (!st) {
    rowptr = calloc((size_t)local + 1, sizeof *rowptr);
    cols = malloc(sizeof *cols * (size_t)(t.n + 1));
    vals = malloc(sizeof *vals * (size_t)(t.width * (t.n + 1)));
    if (!rowptr || !cols || !vals)
      st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                          "could not allocate the CSR of %lld Matrix Market entries", (long long)t.n);
  }
  if (!st) st = to_csr(&t, local, rowptr, cols, vals);
  /* Every rank must learn of a failure before the collective matrix creation. */
  HM_CALL_GOTO(st, done, hm_mtx_agree(ctx, st, path));
  HM_CALL_GOTO(st, done, hm_matrix_create_csr(ctx, dist, type, rowptr, cols, vals, A));
  hm_matrix_set_source(*A, path); /* named when a Hermitian solver refuses a general file */
done:
  hm_mtx_close(&f);
  triplets_free(&t);
  free(rowptr);
  free(cols);
  free(vals);
  hm_dist_destroy(&dist);
  return st;
}
