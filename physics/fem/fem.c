/* Distributed assembly of the Q1 finite-element matrices K and M (see include/hamlet/fem.h).
 * Each rank fills only its own rows: for the node of a row it visits the 8 elements around it and
 * adds the element-matrix row of that node into 27 slots, one per neighbour offset in {-1,0,1}^3.
 * No global matrix exists anywhere and nothing is communicated before hm_matrix_create_csr.
 * Exact symmetry: an entry (a, b) receives the same element terms in the same order in row a and
 * in row b, and every element term is built from symmetric products, so K and M are symmetric to
 * the last bit on any rank count. */
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "fem_internal.h"

enum { NQ = 27 }; /* 3 x 3 x 3 Gauss points per element */

/* What every element shares on a uniform mesh: the exact element stiffness/2 and mass, and the
 * Gauss points with their products of shape functions. Local node l = ax + 2 ay + 4 az. */
typedef struct {
  const hm_fem_params *p;
  double centre[3];
  double h[3];              /* element edge lengths */
  int64_t n[3];             /* interior nodes per direction: e_d - 1 */
  double kin[8][8], mass[8][8];
  double xi[NQ][3];         /* Gauss point in the reference element [0,1]^3 */
  double weight[NQ];        /* Gauss weight times the element volume */
  double phiphi[NQ][8][8];  /* phi_a(q) phi_b(q), symmetric in (a, b) bit for bit */
} fem_element;

static void element_init(const hm_fem_params *p, fem_element *el) {
  el->p = p;
  hm_fem_centre(p, el->centre);
  const int64_t e[3] = {p->ex, p->ey, p->ez};
  const double len[3] = {p->lx, p->ly, p->lz};
  for (int d = 0; d < 3; d++) {
    el->h[d] = len[d] / (double)e[d];
    el->n[d] = e[d] - 1;
  }
  /* 1D Q1 element matrices on an element of length h: mass h/6 [2 1; 1 2], stiffness 1/h [1 -1; -1 1]. */
  double m1[3][2][2], s1[3][2][2];
  for (int d = 0; d < 3; d++)
    for (int a = 0; a < 2; a++)
      for (int b = 0; b < 2; b++) {
        m1[d][a][b] = el->h[d] / 6.0 * (a == b ? 2.0 : 1.0);
        s1[d][a][b] = (a == b ? 1.0 : -1.0) / el->h[d];
      }
  for (int la = 0; la < 8; la++)
    for (int lb = 0; lb < 8; lb++) {
      const int a[3] = {la & 1, (la >> 1) & 1, la >> 2}, b[3] = {lb & 1, (lb >> 1) & 1, lb >> 2};
      const double mx = m1[0][a[0]][b[0]], my = m1[1][a[1]][b[1]], mz = m1[2][a[2]][b[2]];
      el->mass[la][lb] = mx * my * mz;
      el->kin[la][lb] = 0.5 * (s1[0][a[0]][b[0]] * my * mz + mx * s1[1][a[1]][b[1]] * mz + mx * my * s1[2][a[2]][b[2]]);
    }
  /* 3-point Gauss rule on [0, 1]: exact for polynomials of degree <= 5. */
  const double g[3] = {0.5 - 0.5 * sqrt(0.6), 0.5, 0.5 + 0.5 * sqrt(0.6)}, w[3] = {5.0 / 18, 8.0 / 18, 5.0 / 18};
  const double volume = el->h[0] * el->h[1] * el->h[2];
  for (int q = 0; q < NQ; q++) {
    const int qi[3] = {q % 3, q / 3 % 3, q / 9};
    double phi[8];
    el->weight[q] = w[qi[0]] * w[qi[1]] * w[qi[2]] * volume;
    for (int d = 0; d < 3; d++) el->xi[q][d] = g[qi[d]];
    for (int l = 0; l < 8; l++) {
      phi[l] = 1.0;
      for (int d = 0; d < 3; d++) phi[l] *= (l >> d) & 1 ? g[qi[d]] : 1.0 - g[qi[d]];
    }
    for (int la = 0; la < 8; la++)
      for (int lb = 0; lb < 8; lb++) el->phiphi[q][la][lb] = phi[la] * phi[lb];
  }
}

/* Entries in the row of interior node c (1-based per direction): neighbours within the interior. */
static int64_t row_count(const fem_element *el, const int64_t c[3]) {
  int64_t count = 1;
  for (int d = 0; d < 3; d++) count *= 3 - (c[d] == 1) - (c[d] == el->n[d]);
  return count;
}

static void node_of_row(const fem_element *el, int64_t row, int64_t c[3]) {
  c[0] = row % el->n[0] + 1;
  c[1] = row / el->n[0] % el->n[1] + 1;
  c[2] = row / (el->n[0] * el->n[1]) + 1;
}

/* Gauss weight times V at each Gauss point of element (ei, ej, ek). */
static void element_potential(const fem_element *el, const int64_t e[3], double wv[NQ]) {
  for (int q = 0; q < NQ; q++) {
    double x[3];
    for (int d = 0; d < 3; d++) x[d] = ((double)e[d] + el->xi[q][d]) * el->h[d];
    wv[q] = el->weight[q] * hm_fem_potential_unchecked(el->p, el->centre, x[0], x[1], x[2]);
  }
}

/* Fill the row of interior node c: columns ascending, K and M values. */
static void fill_row(const fem_element *el, const int64_t c[3], int64_t *cols, double *kval, double *mval) {
  double ks[27] = {0}, ms[27] = {0}, wv[NQ];
  const int with_potential = el->p->potential != HM_FEM_POTENTIAL_NONE;
  int64_t e[3];
  for (e[2] = c[2] - 1; e[2] <= c[2]; e[2]++)
    for (e[1] = c[1] - 1; e[1] <= c[1]; e[1]++)
      for (e[0] = c[0] - 1; e[0] <= c[0]; e[0]++) {
        const int la = (int)(c[0] - e[0]) + 2 * (int)(c[1] - e[1]) + 4 * (int)(c[2] - e[2]);
        if (with_potential) element_potential(el, e, wv);
        for (int lb = 0; lb < 8; lb++) {
          /* Slot of node e + (lb's corner) relative to c, each offset in {0, 1, 2}. */
          int slot = 0, stride = 1;
          for (int d = 0; d < 3; d++, stride *= 3) slot += (int)(e[d] + ((lb >> d) & 1) - c[d] + 1) * stride;
          double k = el->kin[la][lb];
          if (with_potential)
            for (int q = 0; q < NQ; q++) k += wv[q] * el->phiphi[q][la][lb];
          ks[slot] += k;
          ms[slot] += el->mass[la][lb];
        }
      }
  int64_t w = 0;
  for (int slot = 0; slot < 27; slot++) {
    const int64_t b[3] = {c[0] + slot % 3 - 1, c[1] + slot / 3 % 3 - 1, c[2] + slot / 9 - 1};
    int interior = 1;
    for (int d = 0; d < 3; d++) interior &= b[d] >= 1 && b[d] <= el->n[d];
    if (!interior) continue; /* Dirichlet node: not an unknown */
    cols[w] = (b[0] - 1) + el->n[0] * ((b[1] - 1) + el->n[1] * (b[2] - 1));
    kval[w] = ks[slot];
    mval[w++] = ms[slot];
  }
}

int hm_fem_build(hm_context *ctx, const hm_fem_params *p, hm_matrix **K, hm_matrix **M) {
  HM_CHECK(ctx && K && M, HM_ERR_ARGUMENT, "ctx, K or M is NULL");
  MPI_Comm comm;
  HM_CALL(hm_context_comm(ctx, &comm));
  *K = *M = NULL;
  HM_CALL(hm_fem_params_check(p));
  HM_CALL(hm_fem_grid_check_values(p));
  fem_element *el;
  HM_MALLOC(el, 1);
  element_init(p, el);
  hm_dist *dist = NULL;
  int st = hm_dist_create(ctx, el->n[0] * el->n[1] * el->n[2], 1, 1.0, &dist);
  if (st) {
    free(el);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);

  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr);
  int bad = rowptr == NULL, any_bad = 0;
  if (!bad) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < local; r++) {
      int64_t c[3];
      node_of_row(el, first + r, c);
      rowptr[r + 1] = row_count(el, c);
    }
    for (int64_t r = 0; r < local; r++) rowptr[r + 1] += rowptr[r];
  }
  const int64_t nnz = bad ? 0 : rowptr[local];
  int64_t *cols = malloc(sizeof *cols * (size_t)(nnz + 1));
  double *kval = malloc(sizeof *kval * (size_t)(nnz + 1)), *mval = malloc(sizeof *mval * (size_t)(nnz + 1));
  bad |= !cols || !kval || !mval;
  /* Every rank must learn of a failed allocation before the collective matrix creation. */
  st = MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  if (st == MPI_SUCCESS && any_bad) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                        bad ? "could not allocate %lld FEM matrix entries on this rank"
                            : "another rank could not allocate its FEM matrix entries (%lld here)",
                        (long long)nnz);
  } else if (st != MPI_SUCCESS) {
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Allreduce of the allocation status failed");
  } else {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < local; r++) {
      int64_t c[3];
      node_of_row(el, first + r, c);
      fill_row(el, c, cols + rowptr[r], kval + rowptr[r], mval + rowptr[r]);
    }
    st = hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, kval, K);
    if (!st) st = hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, mval, M);
    if (st) {
      hm_matrix_destroy(K);
      st = hm_error_trace(st, __FILE__, __LINE__, __func__);
    }
  }
  free(rowptr);
  free(cols);
  free(kval);
  free(mval);
  free(el);
  hm_dist_destroy(&dist);
  return st;
}
