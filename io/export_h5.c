/* hamlet export -o H.h5: each rank writes its own rows of every dataset (collective MPI-IO), so the
 * file is the same from any rank count and no rank holds more than its rows. */
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "export_h5.h"
#include "h5util.h"

/* The CSR of A in group name: row_start, column, value. */
static int write_csr(hm_context *ctx, hid_t file, const char *name, hm_matrix *A) {
  int64_t n, nnz_global, local, nnz, first;
  hm_scalar type;
  const hm_dist *dist;
  HM_CALL(hm_matrix_info(A, &n, &nnz_global, &type));
  HM_CALL(hm_matrix_dist(A, &dist));
  HM_CALL(hm_dist_range(dist, &first, NULL, NULL));
  HM_CALL(hm_matrix_local_csr(A, &local, &nnz, NULL, NULL, NULL));
  const int w = type == HM_COMPLEX ? 2 : 1;
  int64_t *rowptr = malloc(sizeof(int64_t) * (size_t)(local + 1)), *cols = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
  double *vals = malloc(sizeof(double) * (size_t)w * (size_t)(nnz + 1));
  int st = rowptr && cols && vals ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                                                "%lld entries of %s", (long long)nnz, name);
  MPI_Comm comm;
  hm_context_comm(ctx, &comm);
  int any = st;
  MPI_Allreduce(&st, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) goto done;
  HM_CALL_GOTO(st, done, hm_matrix_local_csr(A, &local, &nnz, rowptr, cols, vals));
  int64_t offset = 0;
  MPI_Exscan(&nnz, &offset, 1, MPI_INT64_T, MPI_SUM, comm);
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) offset = 0;
  for (int64_t i = 0; i <= local; i++) rowptr[i] += offset;
  const int last = local > 0 && first + local == n; /* writes row_start[N] too */
  hid_t g;
  HM_CALL_GOTO(st, done, hm_h5_group(file, name, &g));
  st = hm_h5_write_rows_int64(ctx, g, "row_start", n + 1, first, local + last, 0, rowptr, "none",
                              "row i's entries are column[row_start[i]:row_start[i + 1]] (0-based)");
  if (!st) st = hm_h5_write_rows_int64(ctx, g, "column", nnz_global, offset, nnz, 0, cols, "none",
                                       "global column of each entry (0-based)");
  if (!st) st = hm_h5_write_rows(ctx, g, "value", nnz_global, offset, nnz, 0, type, vals, "energy",
                                 "the entries, in the deck's energy unit");
  if (!st) st = hm_h5_attr_int(g, "N", n);
  if (!st) st = hm_h5_attr_int(g, "nnz", nnz_global);
  if (!st) st = hm_h5_attr_string(g, "arithmetic", type == HM_COMPLEX ? "complex" : "real");
  H5Gclose(g);
done:
  free(rowptr);
  free(cols);
  free(vals);
  return st;
}

/* /rows and /lattice: every row's cell, orbital and position; the cell's vectors and orbitals. */
static int write_geometry(hm_context *ctx, hid_t file, hm_matrix *H, const hm_export_geometry *g) {
  int64_t first, local, n;
  const hm_dist *dist;
  HM_CALL(hm_matrix_dist(H, &dist));
  HM_CALL(hm_dist_range(dist, &first, &local, &n));
  int64_t *cell = malloc(sizeof(int64_t) * 3 * (size_t)(local + 1)), *orbital = malloc(sizeof(int64_t) * (size_t)(local + 1));
  double *pos = malloc(sizeof(double) * 3 * (size_t)(local + 1));
  int st = cell && orbital && pos ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "rows");
  for (int64_t r = 0; !st && r < local; r++) {
    const int64_t row = first + r, o = row % g->orbitals, site = row / g->orbitals;
    const int64_t c[3] = {site % g->cells[0], (site / g->cells[0]) % g->cells[1], site / (g->cells[0] * g->cells[1])};
    orbital[r] = o;
    for (int d = 0; d < 3; d++) {
      cell[3 * r + d] = c[d];
      pos[3 * r + d] = g->positions[3 * o + d] + c[0] * g->lattice[d] + c[1] * g->lattice[3 + d] + c[2] * g->lattice[6 + d];
    }
  }
  hid_t rows = -1, lat = -1;
  if (!st) st = hm_h5_group(file, "/rows", &rows);
  if (!st) st = hm_h5_write_rows_int64(ctx, rows, "cell", n, first, local, 3, cell, "none", "cell (cx, cy, cz) of the row");
  if (!st) st = hm_h5_write_rows_int64(ctx, rows, "orbital", n, first, local, 0, orbital, "none", "orbital in the cell");
  if (!st) st = hm_h5_write_rows(ctx, rows, "position", n, first, local, 3, HM_REAL, pos, g->length_unit,
                                 "cartesian position of the orbital");
  if (!st) st = hm_h5_attr_string(rows, "numbering", "row = orbital + orbitals (cx + nx (cy + ny cz))");
  if (!st) st = hm_h5_group(file, "/lattice", &lat);
  const hsize_t d33[2] = {3, 3}, dpos[2] = {(hsize_t)g->orbitals, 3}, d3[1] = {3};
  const double cells[3] = {(double)g->cells[0], (double)g->cells[1], (double)g->cells[2]};
  if (!st) st = hm_h5_write_small(ctx, lat, "vectors", 2, d33, g->lattice, g->length_unit, "a1, a2, a3 (rows)");
  if (!st) st = hm_h5_write_small(ctx, lat, "cells", 1, d3, cells, "none", "nx, ny, nz");
  if (!st) st = hm_h5_write_small(ctx, lat, "positions", 2, dpos, g->positions, g->length_unit, "the orbitals in the cell");
  if (!st) st = hm_h5_write_text(ctx, lat, "labels", g->labels ? g->labels : "", "the orbitals' labels, blank-separated");
  if (!st) st = hm_h5_attr_int(lat, "orbitals", g->orbitals);
  if (rows >= 0) H5Gclose(rows);
  if (lat >= 0) H5Gclose(lat);
  free(cell);
  free(orbital);
  free(pos);
  return st;
}

int hm_export_h5(hm_context *ctx, const char *path, const char *deck_text, hm_matrix *H, hm_matrix *M,
                 hm_matrix *const v[3], const hm_export_geometry *g) {
  char tmp[4200];
  HM_CHECK(snprintf(tmp, sizeof tmp, "%s.tmp", path) < (int)sizeof tmp, HM_ERR_ARGUMENT, "%s: path too long", path);
  hid_t file = -1;
  int st = hm_h5_create(ctx, tmp, &file);
  if (!st) st = write_csr(ctx, file, "/matrix", H);
  if (!st && M) st = write_csr(ctx, file, "/mass", M);
  static const char *const vnames[3] = {"/velocity_x", "/velocity_y", "/velocity_z"};
  for (int a = 0; a < 3 && !st; a++)
    if (v && v[a]) st = write_csr(ctx, file, vnames[a], v[a]);
  if (!st && g && g->orbitals > 0) st = write_geometry(ctx, file, H, g);
  hid_t root = -1;
  if (!st) st = hm_h5_group(file, "/", &root);
  if (!st) st = hm_h5_write_text(ctx, root, "input", deck_text, "the deck that built these matrices");
  if (!st) st = hm_h5_attr_string(root, "written_by", "hamlet export");
  if (root >= 0) H5Gclose(root);
  return hm_h5_commit(ctx, file, tmp, path, st);
}
