/* Helpers of the output / checkpoint / compare tests: read back with the plain HDF5 C API (serial,
 * independent of io/h5util), file existence, and a small hand-made Hermitian matrix. */
#ifndef HAMLET_TEST_OUTPUT_UTIL_H
#define HAMLET_TEST_OUTPUT_UTIL_H
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hdf5.h>
#include "testing.h"

static inline int file_exists(const char *path) { return access(path, F_OK) == 0; }

/* Whole dataset as doubles; returns the element count (-1 on failure). */
static inline long long t_read_doubles(hid_t f, const char *path, double *buf, long long max) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d);
  long long n = (long long)H5Sget_simple_extent_npoints(s);
  H5Sclose(s);
  if (n > max || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) n = -1;
  H5Dclose(d);
  return n;
}

/* A string attribute (fixed length) of the object at path, into buf. */
static inline int t_attr_string(hid_t f, const char *obj, const char *name, char *buf, size_t n) {
  buf[0] = '\0';
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return -1;
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, n);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  herr_t e = H5Aread(a, t, buf);
  H5Tclose(t);
  H5Aclose(a);
  return e < 0 ? -1 : 0;
}

static inline double t_attr_double(hid_t f, const char *obj, const char *name) {
  double v = NAN;
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return NAN;
  H5Aread(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a);
  return v;
}

static inline long long t_attr_int(hid_t f, const char *obj, const char *name) {
  long long v = -999;
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return -999;
  H5Aread(a, H5T_NATIVE_LLONG, &v);
  H5Aclose(a);
  return v;
}

/* Ring of n sites, Hermitian: diagonal 1.5 cos(0.7 i), hopping i -> i+1 of modulus 1 + 0.3 sin(i)
 * and, when complex, phase 0.9 i. Each rank builds its own rows. */
static inline int t_ring(hm_context *ctx, int64_t n, hm_scalar type, hm_matrix **H) {
  hm_dist *dist;
  int st = hm_dist_create(ctx, n, 1, 1.0, &dist);
  if (st) return st;
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t *rowptr = malloc(sizeof(int64_t) * (size_t)(local + 1)), *cols = malloc(sizeof(int64_t) * (size_t)(3 * local + 1));
  double *val = malloc(sizeof(double) * (size_t)(6 * local + 1));
  rowptr[0] = 0;
  for (int64_t r = 0; r < local; r++) {
    int64_t i = first + r, prev = (i + n - 1) % n, next = (i + 1) % n;
    double complex t_next = (1 + 0.3 * sin((double)i)) * (type == HM_COMPLEX ? cexp(I * 0.9 * (double)i) : 1);
    double complex t_prev = conj((1 + 0.3 * sin((double)prev)) * (type == HM_COMPLEX ? cexp(I * 0.9 * (double)prev) : 1));
    double complex v[3] = {t_prev, 1.5 * cos(0.7 * (double)i), t_next};
    int64_t c[3] = {prev, i, next};
    for (int j = 0; j < 3; j++) {
      int64_t p = 3 * r + j;
      cols[p] = c[j];
      if (type == HM_COMPLEX) { val[2 * p] = creal(v[j]); val[2 * p + 1] = cimag(v[j]); }
      else val[p] = creal(v[j]);
    }
    rowptr[r + 1] = 3 * (r + 1);
  }
  st = hm_matrix_create_csr(ctx, dist, type, rowptr, cols, val, H);
  free(rowptr); free(cols); free(val);
  hm_dist_destroy(&dist);
  return st;
}

/* The whole block vector [n][k] (scalars of `type` doubles) on every rank, in global row order. */
static inline double *t_gather(hm_context *ctx, hm_mvec *v, int64_t n, int type) {
  int64_t local;
  int k, size;
  hm_mvec_size(v, &local, &k);
  hm_context_rank(ctx, NULL, &size);
  MPI_Comm comm;
  hm_context_comm(ctx, &comm);
  int row = k * type, mine = (int)local * row;
  double *loc = malloc(sizeof(double) * (size_t)(mine + 1)), *all = malloc(sizeof(double) * (size_t)(n * row));
  int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
  hm_mvec_get(v, loc);
  MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, comm);
  displs[0] = 0;
  for (int r = 1; r < size; r++) displs[r] = displs[r - 1] + counts[r - 1];
  MPI_Allgatherv(loc, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, comm);
  free(loc); free(counts); free(displs);
  return all;
}
#endif
