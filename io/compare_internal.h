/* What compare.c and compare_attributes.c share: the element test, deviation statistics, the
 * running summary and the report line of one compared item (a dataset or an attribute). */
#ifndef HAMLET_COMPARE_INTERNAL_H
#define HAMLET_COMPARE_INTERNAL_H
#include <stdio.h>
#include <hdf5.h>

/* A growable list of names (dataset paths or attribute names); failed: out of memory while adding. */
typedef struct {
  char **names;
  size_t n, cap;
  int failed;
} hm_compare_names;

void hm_compare_names_add(hm_compare_names *l, const char *name); /* sets failed instead of returning */
void hm_compare_names_free(hm_compare_names *l);                   /* and empties it */
int hm_compare_names_contain(const hm_compare_names *l, const char *name);

/* Deviation statistics of one dataset or attribute. */
typedef struct {
  double worst_abs, worst_rel, a_at, b_at;
  hsize_t at, failures, count, nans;
} hm_compare_deviation;

typedef struct {
  size_t datasets, attributes, differ;
  double worst_abs, worst_rel;
  char worst_abs_at[256], worst_rel_at[256];
} hm_compare_summary;

/* Elementwise |a - b| <= atol + rtol*|b|; a NaN on either side is a difference (NaN vs NaN too). */
void hm_compare_values(const double *a, const double *b, hsize_t n, hsize_t offset, double rtol, double atol,
                       hm_compare_deviation *d);
/* Shape as text, "[3][4]" or "scalar". */
void hm_compare_shape_text(int ndim, const hsize_t *dims, char *buf, size_t n);
/* Count one compared item in s and print its PASS/FAIL line (label: "/path" or "/path@attr"). */
void hm_compare_report(hm_compare_summary *s, const char *label, const char *shape, const hm_compare_deviation *d,
                       FILE *out);
/* The numeric attributes of the object at path in fa and fb: each must exist on both sides with
 * the same shape and agree like datasets do. fa or fb < 0: the object is absent from that file, so
 * each attribute on the other side is a difference. Differences are counted in s; HDF5 failures are errors. */
int hm_compare_attributes(hid_t fa, hid_t fb, const char *path, double rtol, double atol, FILE *out,
                          hm_compare_summary *s);
#endif
