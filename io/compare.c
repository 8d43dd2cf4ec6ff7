/* Compare the numeric datasets and attributes of two result files with relative and absolute tolerances. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"
#include "compare_internal.h"
#include "h5util.h"

/* Run-dependent groups: wall times, where it ran, joules, peak memory, and the deck text. */
static const char *const skipped[] = {"/timing", "/provenance", "/energy", "/memory", "/input"};

static int is_skipped(const char *path) {
  for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++) {
    size_t n = strlen(skipped[i]);
    if (strncmp(path, skipped[i], n) == 0 && (path[n] == '\0' || path[n] == '/')) return 1;
  }
  return 0;
}

static int is_numeric(hid_t file, const char *path) {
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return 0;
  hid_t t = H5Dget_type(d);
  H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  if (t >= 0) H5Tclose(t);
  H5Dclose(d);
  return c == H5T_INTEGER || c == H5T_FLOAT;
}

void hm_compare_names_add(hm_compare_names *l, const char *name) {
  if (l->failed) return;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    char **p = realloc(l->names, cap * sizeof *p);
    if (!p) { l->failed = 1; return; }
    l->names = p;
    l->cap = cap;
  }
  if (!(l->names[l->n] = strdup(name))) { l->failed = 1; return; }
  l->n++;
}

void hm_compare_names_free(hm_compare_names *l) {
  for (size_t i = 0; i < l->n; i++) free(l->names[i]);
  free(l->names);
  memset(l, 0, sizeof *l);
}

int hm_compare_names_contain(const hm_compare_names *l, const char *name) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->names[i], name) == 0) return 1;
  return 0;
}

/* list: the numeric datasets; objects: every group and dataset (their attributes are compared too). */
typedef struct { hid_t file; hm_compare_names *list, *objects; } visit_data;

#if H5_VERSION_GE(1, 12, 0)
typedef H5O_info2_t object_info;
#else
typedef H5O_info_t object_info;
#endif

static herr_t visit(hid_t obj, const char *name, const object_info *info, void *data) {
  (void)obj;
  visit_data *v = data;
  if (info->type != H5O_TYPE_DATASET && info->type != H5O_TYPE_GROUP) return 0;
  if (strcmp(name, ".") == 0) name = ""; /* the root group */
  size_t n = strlen(name);
  char *path = malloc(n + 2);
  if (!path) { v->list->failed = 1; return -1; }
  path[0] = '/';
  memcpy(path + 1, name, n + 1);
  if (!is_skipped(path)) {
    hm_compare_names_add(v->objects, path);
    if (info->type == H5O_TYPE_DATASET && is_numeric(v->file, path)) hm_compare_names_add(v->list, path);
  }
  free(path);
  return v->list->failed || v->objects->failed ? -1 : 0;
}


static int list_numeric(hid_t file, const char *file_name, hm_compare_names *l, hm_compare_names *objects) {
  memset(l, 0, sizeof *l);
  memset(objects, 0, sizeof *objects);
  visit_data v = {file, l, objects};
#if H5_VERSION_GE(1, 12, 0)
  herr_t e = H5Ovisit3(file, H5_INDEX_NAME, H5_ITER_INC, visit, &v, H5O_INFO_BASIC);
#else
  herr_t e = H5Ovisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &v);
#endif
  if (l->failed || objects->failed) {
    hm_compare_names_free(l);
    hm_compare_names_free(objects);
    HM_RAISE(HM_ERR_MEMORY, "out of memory listing the datasets of '%s'", file_name);
  }
  if (e < 0) {
    hm_compare_names_free(l);
    hm_compare_names_free(objects);
    char msg[256];
    hm_h5_last_message(msg, sizeof msg);
    HM_RAISE(HM_ERR_HDF5, "could not walk the objects of '%s': %s", file_name, msg);
  }
  return HM_SUCCESS;
}

/* NaN vs NaN is a difference too: hamlet writes no NaN into a result on purpose, and a NaN in a
 * reference must not certify a run that produced the same NaN (both are broken). */
void hm_compare_values(const double *a, const double *b, hsize_t n, hsize_t offset, double rtol, double atol,
                       hm_compare_deviation *d) {
  for (hsize_t i = 0; i < n; i++) {
    double x = a[i], y = b[i], abs_dev = 0, rel_dev = 0;
    int fails = 0;
    if (isnan(x) || isnan(y)) {
      abs_dev = rel_dev = INFINITY;
      fails = 1;
      d->nans++;
    } else if (x != y) {
      abs_dev = fabs(x - y);
      if (isnan(abs_dev)) abs_dev = INFINITY; /* infinities of opposite sign */
      rel_dev = y != 0 && isfinite(y) ? abs_dev / fabs(y) : INFINITY;
      /* an infinity matches only itself */
      fails = !isfinite(x) || !isfinite(y) || !(abs_dev <= atol + rtol * fabs(y));
    }
    if (fails && d->failures++ == 0) { d->at = offset + i; d->a_at = x; d->b_at = y; }
    if (abs_dev > d->worst_abs) d->worst_abs = abs_dev;
    if (rel_dev > d->worst_rel) d->worst_rel = rel_dev;
  }
  d->count += n;
}

void hm_compare_shape_text(int ndim, const hsize_t *dims, char *buf, size_t n) {
  if (ndim == 0) { snprintf(buf, n, "scalar"); return; }
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < ndim && used < n; i++) used += (size_t)snprintf(buf + used, n - used, "[%llu]", (unsigned long long)dims[i]);
}

typedef struct {
  hid_t d, space;
  int ndim;
  hsize_t dims[H5S_MAX_RANK];
} open_set;

static int open_dataset(hid_t file, const char *path, open_set *o) {
  o->space = H5I_INVALID_HID;
  HM_CALL_HDF5(o->d = H5Dopen2(file, path, H5P_DEFAULT));
  if ((o->space = H5Dget_space(o->d)) < 0 || (o->ndim = H5Sget_simple_extent_dims(o->space, o->dims, NULL)) < 0) {
    int st = hm_error_raise_hdf5("H5Dget_space", __FILE__, __LINE__, __func__); /* before closes clear the stack */
    if (o->space >= 0) H5Sclose(o->space);
    H5Dclose(o->d);
    return st;
  }
  return HM_SUCCESS;
}

static void close_dataset(open_set *o) {
  H5Sclose(o->space);
  H5Dclose(o->d);
}

/* Read slabs of whole leading-dimension rows, so large vectors need little memory. */
static int read_slab(open_set *o, hsize_t row, hsize_t rows, hsize_t row_len, double *buf) {
  if (o->ndim == 0) {
    HM_CALL_HDF5(H5Dread(o->d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    return HM_SUCCESS;
  }
  hsize_t start[H5S_MAX_RANK] = {0}, count[H5S_MAX_RANK];
  memcpy(count, o->dims, sizeof(hsize_t) * (size_t)o->ndim);
  start[0] = row;
  count[0] = rows;
  hsize_t mdim = rows * row_len;
  hid_t m;
  HM_CALL_HDF5(m = H5Screate_simple(1, &mdim, NULL));
  int st = HM_SUCCESS;
  HM_H5_GOTO(st, done, H5Sselect_hyperslab(o->space, H5S_SELECT_SET, start, NULL, count, NULL));
  HM_H5_GOTO(st, done, H5Dread(o->d, H5T_NATIVE_DOUBLE, m, o->space, H5P_DEFAULT, buf));
done:
  H5Sclose(m);
  return st;
}

static int compare_data(open_set *a, open_set *b, double rtol, double atol, hm_compare_deviation *d) {
  hsize_t rows = a->ndim ? a->dims[0] : 1, row_len = 1;
  for (int i = 1; i < a->ndim; i++) row_len *= a->dims[i];
  if (rows == 0 || row_len == 0) return HM_SUCCESS;
  hsize_t per = row_len >= (1u << 20) ? 1 : (1u << 20) / row_len; /* about 8 MB per buffer */
  if (per > rows) per = rows;
  double *x = malloc(sizeof(double) * per * row_len), *y = malloc(sizeof(double) * per * row_len);
  int st = x && y ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
  for (hsize_t r = 0; !st && r < rows; r += per) {
    hsize_t n = r + per <= rows ? per : rows - r;
    st = read_slab(a, r, n, row_len, x);
    if (!st) st = read_slab(b, r, n, row_len, y);
    if (!st) hm_compare_values(x, y, n * row_len, r * row_len, rtol, atol, d);
  }
  free(x);
  free(y);
  HM_CALL(st);
  return HM_SUCCESS;
}

static void note_worst(hm_compare_summary *s, const char *path, double abs_dev, double rel_dev) {
  if (abs_dev > s->worst_abs || !s->worst_abs_at[0]) { s->worst_abs = abs_dev; snprintf(s->worst_abs_at, 256, "%s", path); }
  if (rel_dev > s->worst_rel || !s->worst_rel_at[0]) { s->worst_rel = rel_dev; snprintf(s->worst_rel_at, 256, "%s", path); }
}

void hm_compare_report(hm_compare_summary *s, const char *label, const char *shape, const hm_compare_deviation *d,
                       FILE *out) {
  note_worst(s, label, d->worst_abs, d->worst_rel);
  if (d->failures) s->differ++;
  if (!out) return;
  fprintf(out, "%s  %s  %s  abs %.3e  rel %.3e", d->failures ? "FAIL" : "PASS", label, shape, d->worst_abs, d->worst_rel);
  if (d->failures)
    fprintf(out, "  (%llu of %llu values differ; first at flat index %llu: %.17g vs %.17g)",
            (unsigned long long)d->failures, (unsigned long long)d->count, (unsigned long long)d->at, d->a_at, d->b_at);
  if (d->nans) fprintf(out, "  (%llu NaN)", (unsigned long long)d->nans);
  fprintf(out, "\n");
}

static int compare_one(hid_t fa, hid_t fb, const char *path, double rtol, double atol, FILE *out, hm_compare_summary *s) {
  open_set a, b;
  HM_CALL(open_dataset(fa, path, &a));
  int st = open_dataset(fb, path, &b);
  if (st) {
    close_dataset(&a);
    HM_CALL(st);
  }
  char sa[128], sb[128];
  hm_compare_shape_text(a.ndim, a.dims, sa, sizeof sa);
  hm_compare_shape_text(b.ndim, b.dims, sb, sizeof sb);
  hm_compare_deviation d = {0};
  if (strcmp(sa, sb) != 0) {
    s->differ++;
    if (out) fprintf(out, "FAIL  %s  shape %s in A, %s in B\n", path, sa, sb);
  } else if (!(st = compare_data(&a, &b, rtol, atol, &d))) {
    hm_compare_report(s, path, sa, &d, out);
  }
  close_dataset(&a);
  close_dataset(&b);
  HM_CALL(st);
  return HM_SUCCESS;
}

static int compare_lists(hid_t fa, hid_t fb, const hm_compare_names *la, const hm_compare_names *lb, double rtol, double atol,
                         FILE *out, hm_compare_summary *s) {
  for (size_t i = 0; i < la->n; i++) {
    s->datasets++;
    if (!hm_compare_names_contain(lb, la->names[i])) {
      s->differ++;
      if (out) fprintf(out, "FAIL  %s  missing in B (or not numeric there)\n", la->names[i]);
      continue;
    }
    HM_CALL(compare_one(fa, fb, la->names[i], rtol, atol, out, s));
  }
  for (size_t i = 0; i < lb->n; i++) {
    if (hm_compare_names_contain(la, lb->names[i])) continue;
    s->datasets++;
    s->differ++;
    if (out) fprintf(out, "FAIL  %s  only in B\n", lb->names[i]);
  }
  return HM_SUCCESS;
}

/* The numeric attributes of every group and dataset of either file. */
static int compare_object_attributes(hid_t fa, hid_t fb, const hm_compare_names *oa, const hm_compare_names *ob, double rtol,
                                     double atol, FILE *out, hm_compare_summary *s) {
  for (size_t i = 0; i < oa->n; i++)
    HM_CALL(hm_compare_attributes(fa, hm_compare_names_contain(ob, oa->names[i]) ? fb : H5I_INVALID_HID, oa->names[i], rtol, atol, out, s));
  for (size_t i = 0; i < ob->n; i++)
    if (!hm_compare_names_contain(oa, ob->names[i])) HM_CALL(hm_compare_attributes(H5I_INVALID_HID, fb, ob->names[i], rtol, atol, out, s));
  return HM_SUCCESS;
}

/* Is path one of the comma-separated paths in only, or under one of them? */
static int selected(const char *path, const char *only) {
  for (const char *p = only; *p;) {
    size_t n = strcspn(p, ",");
    if (n && strncmp(path, p, n) == 0 && (path[n] == '\0' || path[n] == '/' || p[n - 1] == '/')) return 1;
    p += n + (p[n] == ',');
  }
  return 0;
}

/* Keep the names that only selects. */
static void filter(hm_compare_names *l, const char *only) {
  size_t w = 0;
  for (size_t i = 0; i < l->n; i++) {
    if (selected(l->names[i], only)) l->names[w++] = l->names[i];
    else free(l->names[i]);
  }
  l->n = w;
}

int hm_compare_files(const char *a, const char *b, double rtol, double atol, FILE *report, int *equal) {
  HM_CALL(hm_compare_files_only(a, b, rtol, atol, NULL, report, equal));
  return HM_SUCCESS;
}

int hm_compare_files_only(const char *a, const char *b, double rtol, double atol, const char *only, FILE *report,
                          int *equal) {
  HM_CHECK(a && b && equal, HM_ERR_ARGUMENT, "a, b or equal is NULL");
  HM_CHECK(!only || (only[0] == '/'), HM_ERR_ARGUMENT, "--only '%s': give absolute dataset or group paths, "
           "comma-separated (\"/eigen/values,/ldos\")", only ? only : "");
  HM_CHECK(rtol >= 0 && atol >= 0, HM_ERR_ARGUMENT, "rtol = %g and atol = %g must be >= 0", rtol, atol);
  *equal = 0;
  hid_t fa, fb;
  HM_CALL(hm_h5_open_serial(a, &fa));
  int st = hm_h5_open_serial(b, &fb);
  if (st) {
    H5Fclose(fa);
    HM_CALL(st);
  }
  hm_compare_names la = {0}, lb = {0}, oa = {0}, ob = {0};
  hm_compare_summary s = {0};
  st = list_numeric(fa, a, &la, &oa);
  if (!st) st = list_numeric(fb, b, &lb, &ob);
  if (!st && only) {
    filter(&la, only);
    filter(&lb, only);
    filter(&oa, only);
    filter(&ob, only);
    if (la.n + lb.n + oa.n + ob.n == 0)
      st = hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__, "--only %s selects no dataset or group of either file", only);
  }
  if (!st && report) fprintf(report, "comparing A = %s with B = %s (pass: |a - b| <= %g + %g*|b|)\n", a, b, atol, rtol);
  if (!st) st = compare_lists(fa, fb, &la, &lb, rtol, atol, report, &s);
  if (!st) st = compare_object_attributes(fa, fb, &oa, &ob, rtol, atol, report, &s);
  hm_compare_names_free(&la);
  hm_compare_names_free(&lb);
  hm_compare_names_free(&oa);
  hm_compare_names_free(&ob);
  H5Fclose(fa);
  H5Fclose(fb);
  HM_CALL(st);
  *equal = s.differ == 0;
  if (report) {
    fprintf(report, "summary: %zu datasets, %zu attributes, %zu differ; worst abs %.3e%s%s%s, worst rel %.3e%s%s%s: %s\n",
            s.datasets, s.attributes, s.differ, s.worst_abs, s.worst_abs_at[0] ? " (" : "", s.worst_abs_at, s.worst_abs_at[0] ? ")" : "",
            s.worst_rel, s.worst_rel_at[0] ? " (" : "", s.worst_rel_at, s.worst_rel_at[0] ? ")" : "",
            *equal ? "EQUAL" : "DIFFERENT");
  }
  return HM_SUCCESS;
}
