/* The worst Hermitian pair of a matrix, max |a_ij - conj(a_ji)| with its position, kept the same way
 * by the assembled check (matrix_hermitian.c) and the matrix-free one (stencil_wrap_hermitian.c). */
#ifndef HAMLET_HERMITIAN_WORST_H
#define HAMLET_HERMITIAN_WORST_H

#include <math.h>
#include <stdint.h>

typedef struct {
  double defect;
  int64_t row, col;
} hm_hermitian_worst;

/* Keeps the larger defect. Defects within 1e-12 of each other are ties: a lattice repeats the same
 * pair at every cell, and the two storages (or two rank counts) round copies of it to values an ulp
 * apart. Ties go to the smaller (row, col) and keep the larger value, so every rank count and both
 * storages report the same pair. */
static inline void hm_hermitian_keep_worse(hm_hermitian_worst *w, double defect, int64_t row, int64_t col) {
  const double tie = 1e-12 * fmax(defect, w->defect);
  if (defect > w->defect + tie)
    *w = (hm_hermitian_worst){defect, row, col};
  else if (defect > 0 && defect >= w->defect - tie && (row < w->row || (row == w->row && col < w->col)))
    *w = (hm_hermitian_worst){fmax(defect, w->defect), row, col};
}

#endif
