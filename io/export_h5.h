/* hamlet export's HDF5 file: the matrices a deck builds in CSR, with its rows' cells, orbitals and
 * positions where the model has them (export_h5.c). */
#ifndef HAMLET_EXPORT_H5_H
#define HAMLET_EXPORT_H5_H
#include <stdint.h>
#include "hamlet.h"

/* The geometry of rows orbital + orbitals (cx + nx (cy + ny cz)); orbitals = 0: none (mtx, fem, convdiff). */
typedef struct {
  int64_t cells[3];
  int orbitals;
  double lattice[9];        /* a1, a2, a3 (rows), cartesian */
  const double *positions;  /* [orbitals][3] in the cell, cartesian */
  const char *labels;       /* the orbitals' labels separated by blanks (species, up/down), or NULL */
  const char *length_unit;  /* of the lattice and positions */
} hm_export_geometry;

/* Collective: written as path.tmp and renamed when complete. /matrix (H), /mass (M, or NULL),
 * /velocity_x, _y, _z (those of v that are not NULL) each as row_start [N + 1], column [nnz] (0-based,
 * global), value [nnz] or [nnz][2]; /rows: cell [N][3], orbital [N], position [N][3]; /lattice:
 * vectors [3][3], cells [3], positions [orbitals][3], labels; /input the deck's text. */
int hm_export_h5(hm_context *ctx, const char *path, const char *deck_text, hm_matrix *H, hm_matrix *M,
                 hm_matrix *const v[3], const hm_export_geometry *g);
#endif
