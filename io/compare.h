/* hm_compare_files: are two hamlet result files the same within tolerances? (`hamlet compare`) */
#ifndef HAMLET_COMPARE_H
#define HAMLET_COMPARE_H
#include <stdio.h>

/* Not collective: call it on one rank. Every numeric dataset and every numeric attribute of a
 * group or dataset of a (except under /timing, /provenance, /energy and /input) must exist in b
 * with the same shape and agree elementwise, |a - b| <= atol + rtol*|b|; a NaN on either side is
 * a difference (NaN vs NaN too: a result holds no NaN on purpose); items only in b are
 * differences too. One line per dataset or attribute ("/path@name") (worst
 * absolute and relative deviation, PASS/FAIL) and a summary go to report (NULL: silent).
 * *equal = 1 when all agree. A difference is not an error: HM_SUCCESS is returned with
 * *equal = 0; files that cannot be read are errors (HM_ERR_IO, HM_ERR_HDF5). */
int hm_compare_files(const char *a, const char *b, double rtol, double atol, FILE *report, int *equal);
/* The same, restricted to the datasets at or under the comma-separated paths in `only`
 * ("/eigen/values,/ldos"): what iterative solvers must reproduce, without their iteration
 * histories, whose length may change with rounding. only = NULL compares everything. */
int hm_compare_files_only(const char *a, const char *b, double rtol, double atol, const char *only, FILE *report,
                          int *equal);
#endif
