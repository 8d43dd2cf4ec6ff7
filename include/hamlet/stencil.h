/* hm_stencil: a translation-invariant tight-binding Hamiltonian on a box of nx x ny x nz unit
 * cells, described by the hopping blocks of one cell plus per-site terms computed from a seed, and
 * made into an hm_matrix either assembled (CSR: every method, the Hermitian check, dense solvers) or
 * matrix-free (the blocks are applied to the vectors directly; nothing of size N but the vectors is
 * stored). physics/lattice fills the description from a model file (or the TI); linalg knows no
 * physics: positions, fields and spins reach it only as the numbers below.
 *
 * Numbering: cell c = (cx, cy, cz), site s = cx + nx (cy + ny cz), row = orbitals * s + i.
 * The product, for every cell c and orbital i:
 *   (H x)[c, i] = sum_b sum_j  f_b(c) block[b][i][j] P_bij(c) x[wrap(c + R_b), j]  +  d(c, i) x[c, i]
 * - R_b = shift[b] (3 integers); the block with R = 0 holds on-site energies and intra-cell hops.
 * - wrap and f_b per direction a: if 0 <= c_a + R_a < n_a nothing happens; otherwise the target
 *   wraps by w_a = floor((c_a + R_a) / n_a) periods: HM_BC_PERIODIC: f *= 1; HM_BC_TWISTED:
 *   f *= exp(i twist[a] w_a); HM_BC_OPEN: the term is dropped (f = 0).
 * - d(c, i) = disorder_w (u - 1/2), u = hm_random_uniform(disorder_seed, disorder_stream, s) when
 *   disorder_per_site (every orbital of the site gets the same value, as the TI's disorder), else
 *   u = hm_random_uniform(disorder_seed, disorder_stream, row) (Anderson disorder per orbital).
 * - Vacancies: site s is vacant when hm_random_uniform(vacancy_seed, vacancy_stream, s) < vacancy_p;
 *   a vacant site's rows and columns are zero (its orbitals become decoupled zero modes, which a
 *   caller that wants the DOS of the remaining lattice subtracts: hm_stencil_vacancies counts them).
 * - Peierls phases (a uniform field in a gauge linear in position), when peierls != NULL:
 *   P_bij(c) = exp(2 pi i (G_bij . c + sum over wrapped directions a of (w_a V_abj . c + K_abj)))
 *   with G_bij = peierls[((b * orbitals + i) * orbitals + j) * 3 + 0..2] (turns per cell index) and
 *   V_abj, K_abj = wrap_phase[((a * nblocks + b) * orbitals + j) * 4 + 0..2] and [.. + 3] (K is added
 *   as is, not times w_a: a hop shorter than the supercell wraps by w_a = sign(R_a)): the gauge
 *   transformation of a hop that crosses the supercell's boundary in direction a. physics computes
 *   them from the positions; they must be used only where every |R_a| < n_a on periodic and twisted
 *   directions (hm_matrix_create_stencil refuses a field otherwise). Without a field P = 1.
 * Hermiticity: the description must give H(-R) = H(R)^dagger block by block (and a Hermitian R = 0
 * block), or -H(R)^dagger where antihermitian is set; hm_matrix_create_stencil checks it to 1e-12 of
 * the largest entry and names the block.
 *
 * Distribution: whole slabs of the slowest direction with more than one cell (z, else y, else x),
 * so the halo of a rank is whole slabs of its neighbours (contiguous in memory). */
#ifndef HAMLET_STENCIL_H
#define HAMLET_STENCIL_H
#include "export.h"
#include <stddef.h>
#include <stdint.h>
#include "matrix.h"

typedef enum { HM_BC_PERIODIC = 0, HM_BC_OPEN = 1, HM_BC_TWISTED = 2 } hm_boundary;

typedef enum {
  HM_STENCIL_ASSEMBLED = 0,  /* CSR (SELL / block copies on the GPU as for any matrix) */
  HM_STENCIL_MATRIX_FREE = 1, /* products from the blocks; no matrix entries stored */
  HM_STENCIL_MATRIX_FREE_REAL = 2 /* the same in real arithmetic (an HM_REAL matrix: real vectors, half the
                                     memory and traffic); only for a real description (hm_stencil_complex_term) */
} hm_stencil_storage;

/* The GPU kernel of a matrix-free operator's products (hm_matrix_set_stencil_kernel). auto chooses
 * by the model and the number of vectors (docs/architecture.md's kernel table); the others are used
 * wherever they can serve the product (the per-site kernel elsewhere), for benchmarks and tests.
 * The default is auto, or HAMLET_STENCIL_KERNEL (the same words) where set. No effect on the CPU. */
typedef enum {
  HM_STENCIL_KERNEL_AUTO = 0,
  HM_STENCIL_KERNEL_STAGED = 1, /* 4 orbitals, face hops (the TI's shape): slabs staged in shared memory */
  HM_STENCIL_KERNEL_BOX = 2,    /* 1 and 2 orbitals, hops within one cell, multiples of 8 vectors */
  HM_STENCIL_KERNEL_MMA = 3,    /* 4 orbitals, KPM steps on FP64 tensor cores, multiples of 8 vectors */
  HM_STENCIL_KERNEL_SMALL = 4,  /* 1, 2 (and 4) orbitals: the few-orbital kernel */
  HM_STENCIL_KERNEL_SITE = 5    /* the per-site kernel (any model without a field) */
} hm_stencil_kernel;

typedef struct {
  int64_t cells[3];           /* nx, ny, nz >= 1 */
  int orbitals;               /* per cell, >= 1 */
  int nblocks;                /* >= 1 */
  const int32_t *shift;       /* [nblocks][3]: R_b in cells */
  const double *block;        /* [nblocks][orbitals][orbitals] complex (re, im pairs):
                                 block[b][i][j] = <i, c | H | j, c + R_b> */
  int boundary[3];            /* hm_boundary per direction */
  double twist[3];            /* radians, used where boundary[a] == HM_BC_TWISTED */
  double disorder_w;          /* 0 = no disorder */
  uint64_t disorder_seed, disorder_stream;
  int disorder_per_site;      /* 1: one value per site (all orbitals), 0: one per orbital */
  double vacancy_p;           /* in [0, 1); 0 = no vacancies */
  uint64_t vacancy_seed, vacancy_stream;
  const double *peierls;      /* NULL, or [nblocks][orbitals][orbitals][3] (see above) */
  const double *wrap_phase;   /* with peierls: [3][nblocks][orbitals][4] (see above) */
  int antihermitian;          /* 0: H(-R) = H(R)^dagger is checked; 1: H(-R) = -H(R)^dagger (an operator
                                 such as A = -i v, real where the velocity v of a real H is imaginary) */
} hm_stencil;

#ifdef __cplusplus
extern "C" {
#endif

/* A one-orbital, one-cell, zero-block description with periodic boundaries and no terms: callers
 * set cells, orbitals, nblocks, shift, block and what else they need. */
HM_API int hm_stencil_init(hm_stencil *s);
/* Collective: the matrix of the description on ctx (arrays are copied; s may be freed after).
 * Errors: sizes, a non-Hermitian description, a field with a hop longer than the supercell. */
HM_API int hm_matrix_create_stencil(hm_context *ctx, const hm_stencil *s, hm_stencil_storage storage, hm_matrix **A);
/* Not collective: the GPU kernel of A's products (A matrix-free; an unknown value is an error). */
HM_API int hm_matrix_set_stencil_kernel(hm_matrix *A, hm_stencil_kernel kernel);
/* Not collective: the kernel named by word (auto, staged, box, mma, small, site); an error naming
 * the allowed words otherwise. */
HM_API int hm_stencil_kernel_from_word(const char *word, hm_stencil_kernel *kernel);
/* Not collective: whether the description has a complex term (*is_complex = 1, and term names it
 * in at most len bytes): a block entry with a non-zero imaginary part, a field (peierls), or a twist
 * other than 0 on a twisted boundary. Otherwise *is_complex = 0: every product term is real. */
HM_API int hm_stencil_complex_term(const hm_stencil *s, int *is_complex, char *term, size_t len);
/* Not collective: the number of vacant sites of the whole box (the same on every rank). */
HM_API int hm_stencil_vacancies(const hm_stencil *s, int64_t *vacant_sites);

#ifdef __cplusplus
}
#endif
#endif
