/* The distributed Hermitian eigensolver (hm_dense_eigh_matrix with HM_DENSE_DISTRIBUTED): two-stage
 * reduction over a 1 x P grid of column blocks (block = band width b). Each rank's columns and its
 * eigenvectors live on its side (dense_exec.h): the host on a CPU context, the rank's GPU on a CUDA one.
 *   1. dense to band: per panel of b columns a QR on its owner, the reflectors broadcast, the
 *      two-sided update of the trailing matrix as GEMMs on each rank's columns (dense_band_reduce.c);
 *   2. band to tridiagonal by bulge chasing on every rank's host alike (the band is small), its
 *      reflectors kept in blocks by the rank that owns their group of sweeps (dense_band_chase.c);
 *   3. the tridiagonal's eigenvalues on every rank by a divide and conquer that keeps two eigenvector
 *      rows per block (dense_tridiagonal_values.c), or with eigenvectors divide and conquer (on every
 *      rank alike, n^2 doubles each; LAPACK's on the host, hamlet's on a GPU), each rank keeping a range;
 *   4. both back-transformations on each rank's eigenvector columns, the reflector blocks
 *      broadcast by their owners (GEMMs only, no other communication).
 * A generalized problem is reduced to a standard one first (Cholesky of B on the same blocks, its
 * solves and products on the ranks' sides). */
#ifndef HAMLET_DENSE_DISTRIBUTED_H
#define HAMLET_DENSE_DISTRIBUTED_H
#include <mpi.h>
#include <stdint.h>
#include "hamlet/context.h"
#include "dense_exec.h"
#include "dense_internal.h"

/* Where a rank's columns are: P ranks, column blocks of b, this rank's nloc columns, and the side
 * (host or device) that holds them and multiplies. */
typedef struct {
  MPI_Comm comm;
  int rank, P;
  hm_scalar type;
  int64_t n, nloc;
  int b;
  hm_dense_exec x;
} hm_dense_columns;

/* This rank's first local column at or after global column g0. */
static inline int64_t hm_dense_first_local_at(const hm_dense_columns *c, int64_t g0) {
  int64_t l = 0;
  while (l < c->nloc && hm_dense_global_of(l, c->b, c->rank, c->P) < g0) l++;
  return l;
}

/* Stage 1. aloc (on c->x's side): this rank's columns of the full Hermitian matrix (n x nloc, leading dimension n);
 * on return the panels' reflectors below the band, T of each owned panel in *tpanels (b x b each,
 * the panel's owner only), and band: the lower band of width b ((b + 1) x n, band[d + (b + 1) j] =
 * A(j + d, j), type's scalars) on every rank. Collective. */
int hm_dense_band_reduce(const hm_dense_columns *c, double *aloc, double **tpanels, double *band);
/* Z (n x ncols, any of the eigenvectors, on c->x's side) <- Q1 Z, Q1 the product of stage 1's panels. Collective. */
int hm_dense_band_back(const hm_dense_columns *c, const double *aloc, const double *tpanels, int64_t ncols, double *z);

/* Stage 2's reflectors: the ones of sweep group I (b sweeps) kept by rank I % P. */
typedef struct hm_dense_chase_s hm_dense_chase;
/* Stage 2 on every rank: band (as from stage 1) -> d (n) and e (n - 1), real. Collective only in that
 * every rank runs it. */
int hm_dense_chase_run(const hm_dense_columns *c, const double *band, double *d, double *e, hm_dense_chase **out);
/* Z (n x ncols, on c->x's side) <- Q2 Z. Collective. */
int hm_dense_chase_back(const hm_dense_columns *c, const hm_dense_chase *q, int64_t ncols, double *z);
void hm_dense_chase_free(hm_dense_chase **q);

/* Generalized problems (dense_cholesky_reduce.c), all arrays on c->x's side. B = L L^H on the column
 * blocks: bloc (this rank's columns of the full Hermitian B) gets L in its lower part; HM_ERR_NUMERIC if B
 * is not positive definite. Collective. */
int hm_dense_cholesky_columns(const hm_dense_columns *c, double *bloc);
/* x (n x ncols) <- L^-1 x (trans 'N') or L^-H x ('C'). Collective. */
int hm_dense_cholesky_solve(const hm_dense_columns *c, const double *bloc, char trans, int64_t ncols, double *x);
/* y <- x^H, both on the column blocks. Collective. */
int hm_dense_conjugate_transpose(const hm_dense_columns *c, const double *x, double *y);

/* Stages 1 to 4 on the full matrix's columns aloc (on c->x's side, destroyed): w (n, every rank); vectors = 1:
 * *z (on c->x's side, n x (bound[rank + 1] - bound[rank])) gets the eigenvectors of w[bound[rank]] onwards,
 * bound (P + 1) the ranks' ranges. Collective. */
/* The band width b for n on P ranks; each rank's block of eigenvectors, ceil(n / P) columns. */
int hm_dense_distributed_block(int64_t n, int P);
int64_t hm_dense_vector_block(int64_t n, int P);
/* Refuse, before allocating, what the host or the device cannot hold (t, tb: the entries' transfers, or
 * both NULL where the columns come from arrays; local_rows: this rank's rows of the eigenvectors). Collective. */
int hm_dense_distributed_check_memory(const hm_dense_columns *c, const hm_dense_transfer *t,
                                      const hm_dense_transfer *tb, int64_t local_rows, int generalized, int vectors);
/* The whole solve from this rank's host columns *aloc (and *bloc for a pencil, else bloc NULL; n x nloc
 * each, full Hermitian, both freed or moved here, set NULL): w (n, every rank); vectors = 1: *zx (on
 * c->x's side, n x (bound[rank + 1] - bound[rank])) the eigenvectors of w[bound[rank]] onwards,
 * B-orthonormal for a pencil. Collective. */
int hm_dense_distributed_solve(const hm_dense_columns *c, double **aloc, double **bloc, int vectors, double *w,
                               double **zx, int64_t *bound);
/* This process's seconds in the last call's stages (for benchmarks): band reduction, bulge chase,
 * tridiagonal, Q2 back, Q1 back; the matrix's entries to the columns on the rank's side, the pencil's
 * reduction to a standard problem and back, the eigenvectors to the ranks' rows. */
enum { HM_DENSE_STAGES = 8 };
void hm_dense_distributed_seconds(double seconds[HM_DENSE_STAGES]);
int hm_dense_distributed_columns(const hm_dense_columns *c, double *aloc, double *w, int vectors, double **z,
                                 int64_t *bound);
#endif
