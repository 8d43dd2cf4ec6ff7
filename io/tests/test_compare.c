/* hm_compare_files on small files written with the plain HDF5 API: identical numbers (with
 * different timings, provenance, energy) are equal; one value perturbed beyond rtol is a FAIL
 * naming the dataset, within rtol or atol it passes; missing, extra and reshaped datasets, integer
 * data and NaNs (a NaN differs from everything, NaN included); numeric attributes (N, converged,
 * interval) are compared like datasets; unreadable files are errors. */
#define _GNU_SOURCE
#include <stdio.h>
#include "compare.h"
#include "test_output_util.h"

typedef struct {
  double timing, scale3;  /* /timing/build, factor on moments[3] */
  int drop_rho, extra, rho_len, count1, nan_at;
  /* attributes: /hamiltonian@N, /kpm@converged, the length of /kpm@interval (NaN in its last entry
   * if interval_nan), /kpm@extra only in this file, /hamiltonian@N dropped, /provenance@ranks */
  int N, converged, interval_len, interval_nan, attr_extra, attr_drop, ranks;
} variant;

static void put_attr(hid_t f, const char *obj, const char *name, hid_t type, hsize_t n, const void *data) {
  hid_t s = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate_by_name(f, obj, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type == H5T_STD_I64LE ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, data);
  H5Aclose(a);
  H5Sclose(s);
}

static void put(hid_t loc, const char *name, hid_t type, int ndim, const hsize_t *dims, const void *data) {
  hid_t s = ndim ? H5Screate_simple(ndim, dims, NULL) : H5Screate(H5S_SCALAR);
  hid_t d = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, type == H5T_STD_I32LE ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(d);
  H5Sclose(s);
}

static void make(const char *path, variant v) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  H5Gclose(H5Gcreate2(f, "/kpm", lcpl, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "/dos", lcpl, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "/timing", lcpl, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "/provenance", lcpl, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "/energy/gpu", lcpl, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(f, "/hamiltonian", lcpl, H5P_DEFAULT, H5P_DEFAULT));
  if (!v.attr_drop) put_attr(f, "/hamiltonian", "N", H5T_STD_I64LE, 0, &v.N);
  put_attr(f, "/kpm", "converged", H5T_STD_I64LE, 0, &v.converged);
  double interval[3] = {-2.5, 2.5, 7};
  if (v.interval_nan) interval[v.interval_len - 1] = NAN;
  put_attr(f, "/kpm", "interval", H5T_IEEE_F64LE, (hsize_t)v.interval_len, interval);
  if (v.attr_extra) put_attr(f, "/kpm", "extra", H5T_IEEE_F64LE, 0, &v.timing);
  put_attr(f, "/provenance", "ranks", H5T_STD_I64LE, 0, &v.ranks);
  double mu[8], mv[2][8], rho[6] = {0.1, 0.2, 0.3, 0.25, 0.15, 0.05};
  for (int i = 0; i < 8; i++) {
    mu[i] = cos(1.0 + i);
    mv[0][i] = mu[i] + 1e-3 * i;
    mv[1][i] = mu[i] - 1e-3 * i;
  }
  mu[3] *= v.scale3;
  if (v.nan_at >= 0) mv[1][v.nan_at] = NAN;
  hsize_t d8 = 8, d28[2] = {2, 8}, drho = (hsize_t)v.rho_len, d3 = 3;
  put(f, "/kpm/moments", H5T_IEEE_F64LE, 1, &d8, mu);
  put(f, "/kpm/moments_per_vector", H5T_IEEE_F64LE, 2, d28, mv);
  if (!v.drop_rho) put(f, "/dos/rho", H5T_IEEE_F64LE, 1, &drho, rho);
  int counts[3] = {4, v.count1, 6};
  put(f, "/counts", H5T_STD_I32LE, 1, &d3, counts);
  put(f, "/timing/build", H5T_IEEE_F64LE, 0, NULL, &v.timing);
  put(f, "/provenance/ranks", H5T_IEEE_F64LE, 0, NULL, &v.timing);
  put(f, "/energy/gpu/joules", H5T_IEEE_F64LE, 0, NULL, &v.timing);
  if (v.extra) put(f, "/dos/extra", H5T_IEEE_F64LE, 0, NULL, &v.timing);
  hid_t st = H5Tcopy(H5T_C_S1), ss = H5Screate(H5S_SCALAR);
  H5Tset_size(st, 16);
  char deck[16] = "timing varies";
  deck[0] = (char)('a' + (int)v.timing);
  hid_t d = H5Dcreate2(f, "/input", st, ss, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, deck);
  H5Dclose(d); H5Sclose(ss); H5Tclose(st); H5Pclose(lcpl);
  H5Fclose(f);
}

static variant base(void) {
  return (variant){.timing = 1, .scale3 = 1, .rho_len = 6, .count1 = 5, .nan_at = -1, .N = 64, .converged = 1,
                   .interval_len = 2, .ranks = 2};
}

/* Compare a with a file of variant v; the report is returned (free it). */
static char *compare(const char *a, variant v, double rtol, double atol, int *equal) {
  make("cmp_b.h5", v);
  char *text = NULL;
  size_t len = 0;
  FILE *rep = open_memstream(&text, &len);
  *equal = -1;
  HM_TEST_OK(hm_compare_files(a, "cmp_b.h5", rtol, atol, rep, equal));
  fclose(rep);
  return text;
}

static void expect(const char *what, const char *a, variant v, double rtol, double atol, int want_equal,
                   const char *needle) {
  int equal;
  char *rep = compare(a, v, rtol, atol, &equal);
  HM_TEST_ASSERT(equal == want_equal, "%s: equal = %d, expected %d; report:\n%s", what, equal, want_equal, rep);
  HM_TEST_ASSERT(!needle || strstr(rep, needle), "%s: report lacks \"%s\":\n%s", what, needle, rep);
  HM_TEST_ASSERT(strstr(rep, want_equal ? ": EQUAL" : ": DIFFERENT"), "%s: summary line wrong:\n%s", what, rep);
  free(rep);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  make("cmp_a.h5", base());
  variant v = base();
  v.timing = 2; /* differs only in skipped groups and /input */
  expect("identical numbers", "cmp_a.h5", v, 0, 0, 1, "PASS  /kpm/moments  [8]");
  v = base();
  v.scale3 = 1 + 1e-6;
  expect("perturbed beyond rtol", "cmp_a.h5", v, 1e-8, 0, 0, "FAIL  /kpm/moments  [8]");
  expect("perturbed: others pass", "cmp_a.h5", v, 1e-8, 0, 0, "PASS  /kpm/moments_per_vector");
  expect("perturbed: flat index", "cmp_a.h5", v, 1e-8, 0, 0, "first at flat index 3");
  expect("perturbed within rtol", "cmp_a.h5", v, 1e-5, 0, 1, NULL);
  expect("perturbed within atol", "cmp_a.h5", v, 0, 1e-5, 1, NULL);
  v = base();
  v.drop_rho = 1;
  expect("missing dataset", "cmp_a.h5", v, 1e-8, 0, 0, "FAIL  /dos/rho  missing in B");
  v = base();
  v.extra = 1;
  expect("extra dataset", "cmp_a.h5", v, 1e-8, 0, 0, "FAIL  /dos/extra  only in B");
  v = base();
  v.rho_len = 5;
  expect("shape", "cmp_a.h5", v, 1e-8, 0, 0, "FAIL  /dos/rho  shape [6] in A, [5] in B");
  v = base();
  v.count1 = 7;
  expect("integer data", "cmp_a.h5", v, 0.1, 0, 0, "FAIL  /counts");
  v = base();
  v.nan_at = 2;
  expect("NaN only in B", "cmp_a.h5", v, 1e-8, 0, 0, "FAIL  /kpm/moments_per_vector");
  make("cmp_nan.h5", v);
  expect("NaN in both", "cmp_nan.h5", v, 1, 1, 0, "(1 NaN)");

  /* Attributes: sizes and flags must agree too; run-dependent groups stay out. */
  v = base();
  v.ranks = 3;
  v.timing = 2;
  expect("attributes of skipped groups", "cmp_a.h5", v, 0, 0, 1, "PASS  /hamiltonian@N  scalar");
  v = base();
  v.N = 65;
  expect("attribute N", "cmp_a.h5", v, 1e-8, 0, 0, "FAIL  /hamiltonian@N  scalar");
  expect("attribute N within rtol", "cmp_a.h5", v, 0.1, 0, 1, NULL);
  v = base();
  v.converged = 0;
  expect("attribute converged", "cmp_a.h5", v, 0, 0.5, 0, "FAIL  /kpm@converged");
  v = base();
  v.interval_len = 3;
  expect("attribute shape", "cmp_a.h5", v, 1, 1, 0, "FAIL  /kpm@interval  shape [2] in A, [3] in B");
  v = base();
  v.interval_nan = 1;
  expect("attribute NaN", "cmp_a.h5", v, 1, 1, 0, "FAIL  /kpm@interval  [2]");
  v = base();
  v.attr_drop = 1;
  expect("attribute missing", "cmp_a.h5", v, 0, 0, 0, "FAIL  /hamiltonian@N  missing in B");
  v = base();
  v.attr_extra = 1;
  expect("attribute only in B", "cmp_a.h5", v, 0, 0, 0, "FAIL  /kpm@extra  only in B");

  /* --only: a difference outside the selected datasets does not count, inside it does. */
  v = base();
  v.scale3 = 1 + 1e-6; /* /kpm/moments differs */
  make("cmp_b.h5", v);
  int equal = 7;
  HM_TEST_OK(hm_compare_files_only("cmp_a.h5", "cmp_b.h5", 1e-8, 0, "/dos", NULL, &equal));
  HM_TEST_ASSERT(equal == 1, "--only /dos must ignore /kpm/moments");
  HM_TEST_OK(hm_compare_files_only("cmp_a.h5", "cmp_b.h5", 1e-8, 0, "/dos/rho,/kpm/moments", NULL, &equal));
  HM_TEST_ASSERT(equal == 0, "--only /dos/rho,/kpm/moments must see /kpm/moments differ");
  v = base();
  v.converged = 0; /* an attribute of /kpm */
  make("cmp_b.h5", v);
  HM_TEST_OK(hm_compare_files_only("cmp_a.h5", "cmp_b.h5", 0, 0, "/dos,/kpm/moments", NULL, &equal));
  HM_TEST_ASSERT(equal == 1, "--only /dos,/kpm/moments must ignore /kpm@converged");
  HM_TEST_OK(hm_compare_files_only("cmp_a.h5", "cmp_b.h5", 0, 0, "/kpm", NULL, &equal));
  HM_TEST_ASSERT(equal == 0, "--only /kpm must see /kpm@converged differ");
  HM_TEST_FAILS(hm_compare_files_only("cmp_a.h5", "cmp_b.h5", 0, 0, "/nothing", NULL, &equal), HM_ERR_ARGUMENT,
                "selects no dataset");
  HM_TEST_FAILS(hm_compare_files_only("cmp_a.h5", "cmp_b.h5", 0, 0, "dos", NULL, &equal), HM_ERR_ARGUMENT,
                "absolute");

  HM_TEST_OK(hm_compare_files("cmp_a.h5", "cmp_a.h5", 0, 0, NULL, &equal));
  HM_TEST_ASSERT(equal == 1, "a file differs from itself");
  HM_TEST_FAILS(hm_compare_files("cmp_a.h5", "cmp_missing.h5", 0, 0, NULL, &equal), HM_ERR_IO, "cannot read 'cmp_missing.h5'");
  FILE *t = fopen("cmp_text.h5", "w");
  fputs("plain text\n", t);
  fclose(t);
  HM_TEST_FAILS(hm_compare_files("cmp_text.h5", "cmp_a.h5", 0, 0, NULL, &equal), HM_ERR_IO, "'cmp_text.h5' is not an HDF5 file");
  HM_TEST_FAILS(hm_compare_files("cmp_a.h5", "cmp_a.h5", -1, 0, NULL, &equal), HM_ERR_ARGUMENT, "rtol");
  return hm_test_finish();
}
