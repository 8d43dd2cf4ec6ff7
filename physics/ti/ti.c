/* Distributed build of the Wilson-Dirac TI lattice Hamiltonian (see include/hamlet/ti.h).
 * Each rank generates only its own rows (whole sites: 4 rows each), in three OpenMP passes:
 * count entries per row, prefix sum, fill. Hoppings are emitted one by one even where they land
 * on the same column (periodic N = 1 or 2): hm_matrix_create_csr sums duplicates, which is what
 * the Bloch spectrum of such small rings needs. */
#include <complex.h>
#include <stdlib.h>
#include "error_macros.h"
#include "host_alloc.h"
#include "matrix_keyed.h"
#include "ti_internal.h"

/* Gamma1 = tau_z (x) sigma_0: +1 on orbitals 0, 1 and -1 on 2, 3 (orbital o = 2*tau + sigma). */
static double gamma1(int o) { return o < 2 ? 1.0 : -1.0; }

/* The one off-diagonal entry in row o of Gamma_{j+2} = tau_x (x) sigma_j (j = 0, 1, 2 for x, y, z):
 * its column and value sigma_j[s][s'] (tau flips). */
static int gamma_dir(int j, int o, double complex *value) {
  int tau = o / 2, s = o % 2, s2;
  switch (j) {
    case 0: s2 = 1 - s; *value = 1.0; break;                   /* sigma_x */
    case 1: s2 = 1 - s; *value = s == 0 ? -I : I; break;       /* sigma_y */
    default: s2 = s; *value = s == 0 ? 1.0 : -1.0; break;      /* sigma_z */
  }
  return 2 * (1 - tau) + s2;
}

/* Coordinate of the neighbour at c + step (step = +-1) on a ring or chain of n sites; -1 if the
 * hopping leaves an open edge. */
static int64_t neighbour(int64_t c, int step, int64_t n, int boundary) {
  int64_t d = c + step;
  if (d >= 0 && d < n) return d;
  return boundary == HM_BC_PERIODIC ? (d + n) % n : -1;
}

/* Entries in each row of site s: the on-site one plus two per existing neighbour
 * (Gamma1's diagonal and Gamma_{j+1}'s one off-diagonal entry). */
static int64_t row_count(const hm_ti_params *p, int64_t s) {
  int64_t c[3] = {s % p->nx, (s / p->nx) % p->ny, s / (p->nx * p->ny)}, n[3] = {p->nx, p->ny, p->nz};
  int64_t count = 1;
  for (int j = 0; j < 3; j++)
    for (int step = -1; step <= 1; step += 2)
      if (neighbour(c[j], step, n[j], p->boundary[j]) >= 0) count += 2;
  return count;
}

/* Fill the 4 rows of site s, starting at rowptr[4*(s - site0)] in cols / vals.
 * Row (n, a), column (n - e_j, b): -t T_ab with T = (G1 - i G_{j+1})/2 (the term Psi+_{n} T Psi_{n-e_j});
 * column (n + e_j, b): -t (T+)_ab, T+ = (G1 + i G_{j+1})/2 (G Hermitian). */
static void fill_site(const hm_ti_params *p, int64_t s, int64_t *cols, double complex *vals) {
  int64_t c[3] = {s % p->nx, (s / p->nx) % p->ny, s / (p->nx * p->ny)}, n[3] = {p->nx, p->ny, p->nz};
  int64_t stride[3] = {1, p->nx, p->nx * p->ny};
  double v = hm_ti_potential_unchecked(p, c[0], c[1], c[2]);
  int64_t w = 0;
  for (int o = 0; o < 4; o++) {
    cols[w] = 4 * s + o;
    vals[w++] = v + p->m * gamma1(o);
    for (int j = 0; j < 3; j++)
      for (int step = -1; step <= 1; step += 2) {
        int64_t d = neighbour(c[j], step, n[j], p->boundary[j]);
        if (d < 0) continue;
        int64_t nb = s + (d - c[j]) * stride[j];
        double complex g;
        int o2 = gamma_dir(j, o, &g);
        double complex sign = step > 0 ? I : -I; /* T+ to n + e_j, T to n - e_j */
        cols[w] = 4 * nb + o;
        vals[w++] = -p->t * 0.5 * gamma1(o);
        cols[w] = 4 * nb + o2;
        vals[w++] = -p->t * 0.5 * sign * g;
      }
  }
}

int hm_ti_build(hm_context *ctx, const hm_ti_params *p, hm_matrix **H) {
  HM_CHECK(ctx && H, HM_ERR_ARGUMENT, "ctx or H is NULL");
  MPI_Comm comm;
  HM_CALL(hm_context_comm(ctx, &comm));
  *H = NULL;
  HM_CALL(hm_ti_params_check(p));
  const int64_t n_sites = p->nx * p->ny * p->nz;
  hm_dist *dist;
  HM_CALL(hm_dist_create(ctx, 4 * n_sites, 4 /* one site */, 1.0, &dist));
  int64_t first, local;
  HM_CALL(hm_dist_range(dist, &first, &local, NULL));
  const int64_t site0 = first / 4, nsites = local / 4;

  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr);
  int bad = rowptr == NULL, any_bad = 0;
  if (!bad) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < nsites; i++) {
      int64_t count = row_count(p, site0 + i);
      for (int o = 0; o < 4; o++) rowptr[4 * i + o + 1] = count;
    }
    for (int64_t r = 0; r < local; r++) rowptr[r + 1] += rowptr[r];
  }
  int64_t nnz = bad ? 0 : rowptr[local];
  int64_t *cols = hm_alloc_large(sizeof *cols * (size_t)(nnz + 1));
  double complex *vals = hm_alloc_large(sizeof *vals * (size_t)(nnz + 1));
  int64_t *key = malloc(sizeof *key * (size_t)(local + 1));
  bad |= !cols || !vals || !key;
  /* Every rank must learn of a failed allocation before the collective matrix creation. */
  int st = MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
  if (st == MPI_SUCCESS && any_bad) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                        bad ? "could not allocate %lld TI matrix entries on this rank"
                            : "another rank could not allocate its TI matrix entries (%lld here)",
                        (long long)nnz);
  } else if (st != MPI_SUCCESS) {
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Allreduce of the allocation status failed");
  } else {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < nsites; i++) fill_site(p, site0 + i, cols + rowptr[4 * i], vals + rowptr[4 * i]);
    hm_ti_row_keys(p, first, local, key);
    st = hm_matrix_create_csr_keyed(ctx, dist, HM_COMPLEX, rowptr, cols, vals, key, H);
    if (st) st = hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  free(rowptr);
  free(cols);
  free(vals);
  free(key);
  hm_dist_destroy(&dist);
  return st;
}
