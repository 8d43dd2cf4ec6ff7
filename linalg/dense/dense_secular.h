/* The parts of a tridiagonal divide and conquer (Cuppen; LAPACK's dlaed0 to dlaed3) shared by the
 * eigenvector solver (dense_tridiagonal.c) and the eigenvalues-only one (dense_tridiagonal_values.c), all
 * on the host: the tree of torn leaves, and each merge's deflation of the rank-one update D + rho z z^T
 * and its secular equation.
 *
 * A merge of T1 (n1 rows) and T2 (n2) torn at beta: T = diag(T1', T2') + rho u u^T, T1', T2' having
 * |beta| less on the touching diagonals, u = e_{n1-1} + sign(beta) e_{n1}, rho = 2 |beta|, and with the
 * halves' eigenpairs T = Q (D + rho z z^T) Q^T, z = Q^T u / sqrt 2: the last row of Q1 and, signed, the
 * first row of Q2. Deflated pairs keep their columns of Q (after the recorded rotations); the K others
 * become Q S, S the rank-one problem's unit eigenvectors: column j for root j, its entry at kept pole i
 * wnew_i / delta(i, j) scaled to unit norm, delta(i, j) = (dl_i - dl_{origin_j}) + offset_j. */
#ifndef HAMLET_DENSE_SECULAR_H
#define HAMLET_DENSE_SECULAR_H
#include <stdint.h>

/* The tree: `blocks` leaves (a power of two) of about HM_DC_LEAF rows, leaf b rows start[b] .. start[b + 1],
 * merged pairwise level by level; leaf: one leaf's eigenvectors, scratch: n doubles. */
enum { HM_DC_LEAF = 32 };
typedef struct {
  int64_t n, blocks, *start;
  double *leaf, *scratch;
} hm_dc_tree;

/* The tree of n >= 1 rows, d torn at every leaf boundary (|e| off both touching diagonals); 0 or
 * HM_ERR_MEMORY (raised). */
int hm_dc_tree_create(int64_t n, double *d, const double *e, hm_dc_tree *t);
void hm_dc_tree_free(hm_dc_tree *t);
/* Leaf b by dsteqr: d[*lo .. *lo + *m) its eigenvalues, ascending; t->leaf its eigenvectors (*m x *m).
 * Returns dsteqr's info. */
int hm_dc_tree_leaf(hm_dc_tree *t, int64_t b, double *d, const double *e, int64_t *lo, int64_t *m);
/* The merge at level width of blocks b .. b + 2 width: rows [*lo, *lo + *nm), the first *n1 of the left half. */
void hm_dc_tree_pair(const hm_dc_tree *t, int64_t b, int64_t width, int64_t *lo, int64_t *n1, int64_t *nm);
/* d (n) <- d[order[j]], the columns' values in their final order. */
void hm_dc_tree_sort_values(hm_dc_tree *t, double *d, const int64_t *order);

typedef struct {
  int64_t nm, K, ngone, nrot;
  double *z;                 /* nm: the update's vector by local column (set by the caller) */
  int64_t *keep, *gone;      /* K kept columns by ascending pole, ngone deflated ones */
  int *half;                 /* per column: 1 rows in T1's part only, 3 in T2's only, 2 in both */
  double *dl, *wt, *lam;     /* K: the kept poles (ascending), their weights, the roots */
  int64_t *origin;           /* K > 2: each root's nearest kept pole, offset = dl[origin] - root */
  double *offset, *wnew;     /* K > 2: offsets and Gu and Eisenstat's recomputed weights */
  double small[4];           /* K <= 2: S itself, column j, row i (dlaed4 returns it) */
  int64_t *rot_pair;         /* nrot rotations in order: columns (a, b) <- (c a + s b, c b - s a) */
  double *rot_cs;
  int64_t *scratch;          /* nm */
  void *keyed;               /* nm sort keys */
} hm_dc_merge;

/* Arrays for a merge of nm columns; 0 or HM_ERR_MEMORY (raised). */
int hm_dc_merge_alloc(hm_dc_merge *m, int64_t nm);
void hm_dc_merge_free(hm_dc_merge *m);
/* idx (count) sorted by d[idx]. */
void hm_dc_sort_by_value(int64_t *idx, int64_t count, const double *d, void *keyed);
/* Deflation (dlaed2): d (nm, by local column), m->z set, ord (nm local columns by ascending d), rho.
 * Fills keep, gone, half and the rotations; d and z change as the rotations say. */
void hm_dc_deflate(hm_dc_merge *m, int64_t n1, double *d, const int64_t *ord, double rho);
/* The secular problem of the kept poles: dl, wt, lam and origin, offset, wnew (K > 2) or small (K <= 2).
 * Returns dlaed4's first nonzero info; HM_ERR_MEMORY raised as -1. */
int hm_dc_secular(hm_dc_merge *m, const double *d, double rho);
/* d (nm) <- the roots then the deflated values, by the merged block's columns; ord <- those columns by
 * ascending value, plus lo. */
void hm_dc_finish(hm_dc_merge *m, double *d, int64_t *ord, int64_t lo);
#endif
