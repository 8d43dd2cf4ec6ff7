/* The grid potential from HDF5 (io/fem_grid.h): rank 0 writes samples of a harmonic potential as
 * a [gz][gy][gx] dataset; hm_fem_grid_read must give every rank the same dims and values, and the
 * matrix built from them must equal the one built from the samples in memory. A missing file, a
 * file that is not HDF5, a missing dataset and a dataset of the wrong rank fail on every rank with
 * clear messages. Run on 1 and 2 ranks. */
#include <hdf5.h>
#include <unistd.h>
#include "fem_grid.h"
#include "fem_test_util.h"

enum { GX = 5, GY = 4, GZ = 6 };

static double sample(int64_t i, int64_t j, int64_t k) { return 0.5 * (i - 2.0) * (i - 2.0) + 0.25 * j * j + 0.1 * k * k * k; }

/* Rank 0 writes /V [GZ][GY][GX], /group/V the same, /flat [GY][GX]. */
static void write_file(const char *path, int rank) {
  if (rank == 0) {
    double v[GZ][GY][GX];
    for (int k = 0; k < GZ; k++)
      for (int j = 0; j < GY; j++)
        for (int i = 0; i < GX; i++) v[k][j][i] = sample(i, j, k);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[3] = {GZ, GY, GX};
    hid_t space = H5Screate_simple(3, dims, NULL), flat = H5Screate_simple(2, dims + 1, NULL);
    hid_t group = H5Gcreate2(file, "group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const char *names[2] = {"V", "group/V"};
    for (int t = 0; t < 2; t++) {
      hid_t d = H5Dcreate2(file, names[t], H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
      H5Dclose(d);
    }
    hid_t d = H5Dcreate2(file, "flat", H5T_NATIVE_DOUBLE, flat, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Gclose(group);
    H5Sclose(space);
    H5Sclose(flat);
    HM_TEST_ASSERT(H5Fclose(file) >= 0, "could not write %s", path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_read_and_build(hm_context *ctx, const char *path) {
  const char *datasets[2] = {"V", "/group/V"};
  for (int t = 0; t < 2; t++) {
    int64_t dims[3] = {0};
    double *values = NULL;
    HM_TEST_OK(hm_fem_grid_read(ctx, path, datasets[t], dims, &values));
    if (!values) continue;
    HM_TEST_ASSERT(dims[0] == GX && dims[1] == GY && dims[2] == GZ, "%s: dims %lld %lld %lld, expected %d %d %d",
                   datasets[t], (long long)dims[0], (long long)dims[1], (long long)dims[2], GX, GY, GZ);
    int64_t bad = 0;
    for (int64_t k = 0; k < GZ; k++)
      for (int64_t j = 0; j < GY; j++)
        for (int64_t i = 0; i < GX; i++) bad += values[i + GX * (j + GY * k)] != sample(i, j, k);
    HM_TEST_ASSERT(bad == 0, "%s: %lld values differ from those written (x fastest)", datasets[t], (long long)bad);
    free(values);
  }

  /* The matrix from the file's grid equals the one from the same samples in memory. */
  int64_t dims[3];
  double *values = NULL, memory[GX * GY * GZ];
  for (int64_t k = 0; k < GZ; k++)
    for (int64_t j = 0; j < GY; j++)
      for (int64_t i = 0; i < GX; i++) memory[i + GX * (j + GY * k)] = sample(i, j, k);
  HM_TEST_OK(hm_fem_grid_read(ctx, path, "V", dims, &values));
  hm_fem_params p = fem_box(5, 4, 6, 2.0, 1.5, 2.5);
  p.potential = HM_FEM_POTENTIAL_GRID;
  p.gx = dims[0]; p.gy = dims[1]; p.gz = dims[2];
  double *a[2] = {NULL, NULL};
  int64_t n[2] = {0, 0};
  for (int t = 0; t < 2; t++) {
    p.grid = t == 0 ? values : memory;
    hm_matrix *K = NULL, *M = NULL;
    HM_TEST_OK(hm_fem_build(ctx, &p, &K, &M));
    if (K) a[t] = fem_dense(K, &n[t]);
    hm_matrix_destroy(&K);
    hm_matrix_destroy(&M);
  }
  if (a[0] && a[1] && n[0] == n[1]) {
    int same = 1;
    for (int64_t i = 0; i < n[0] * n[0]; i++) same &= a[0][i] == a[1][i];
    HM_TEST_ASSERT(same, "K from the HDF5 grid differs from K from the same samples in memory");
  }
  free(a[0]);
  free(a[1]);
  free(values);
}

static void test_errors(hm_context *ctx, const char *path, const char *text_path) {
  int64_t dims[3];
  double *values = (double *)dims; /* must be reset to NULL on failure */
  HM_TEST_FAILS(hm_fem_grid_read(ctx, "no_such_fem_grid.h5", "V", dims, &values), HM_ERR_INPUT,
                "cannot read 'no_such_fem_grid.h5'");
  HM_TEST_ASSERT(values == NULL, "a failed read must leave values NULL");
  HM_TEST_FAILS(hm_fem_grid_read(ctx, text_path, "V", dims, &values), HM_ERR_INPUT, "is not an HDF5 file");
  HM_TEST_FAILS(hm_fem_grid_read(ctx, path, "W", dims, &values), HM_ERR_INPUT, "no dataset 'W' in");
  HM_TEST_FAILS(hm_fem_grid_read(ctx, path, "/nowhere/V", dims, &values), HM_ERR_INPUT, "no dataset '/nowhere/V'");
  HM_TEST_FAILS(hm_fem_grid_read(ctx, path, "flat", dims, &values), HM_ERR_INPUT,
                "has 2 dimensions: it must have 3, [gz][gy][gx]");
  HM_TEST_FAILS(hm_fem_grid_read(ctx, path, NULL, dims, &values), HM_ERR_ARGUMENT, "is NULL");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  char path[64], text_path[64];
  snprintf(path, sizeof path, "fem_grid_np%d.h5", size); /* the 1- and 2-rank runs may overlap */
  snprintf(text_path, sizeof text_path, "fem_grid_np%d.txt", size);
  write_file(path, rank);
  if (rank == 0) {
    FILE *f = fopen(text_path, "w");
    if (f) fputs("not HDF5\n", f), fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  test_read_and_build(ctx, path);
  test_errors(ctx, path, text_path);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path), unlink(text_path);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
