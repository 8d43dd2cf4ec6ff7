/* The iterative inner solve of shift-and-invert: (A - sigma B) y = b for every column of a block at
 * once, distributed like A and on A's backend (only hm_matrix_apply and hm_mvec block operations,
 * so it runs wherever they run). Where A - sigma B is positive definite: CG with a Jacobi
 * preconditioner, all columns advancing together (one SpMM per iteration, each column with its own
 * alpha and beta, stopping on its own); elsewhere MINRES (minres.h: the block at once,
 * unpreconditioned: the diagonal of a matrix shifted into its spectrum passes near zero).
 * Definiteness is decided at create: a diagonal entry <= 0 proves indefiniteness; otherwise a CG
 * probe on a random right-hand side (to 1e-6) looks for negative curvature p^H S p <= 0, which
 * exists as soon as the Krylov space resolves a negative eigenvalue. A later CG solve that meets
 * negative curvature fails with a message (never a silent wrong answer). */
#ifndef HAMLET_SHIFTED_SOLVE_H
#define HAMLET_SHIFTED_SOLVE_H
#include <stdint.h>
#include "hamlet/matrix.h"
#include "hamlet/mvec.h"

typedef struct hm_shifted_solve_s hm_shifted_solve;

/* Collective: prepare S = A - sigma B (B NULL: the identity); maxit bounds the iterations of each
 * solve (per column). A, B must outlive it. */
int hm_shifted_solve_create(hm_matrix *A, hm_matrix *B, double sigma, int maxit, hm_shifted_solve **s);
void hm_shifted_solve_destroy(hm_shifted_solve **s);
/* Collective: y = S^-1 b for every column, ||b_j - S y_j|| <= tol ||b_j|| (recursive residual).
 * Fails with HM_ERR_NOT_CONVERGED naming the column and its residual where maxit is reached, and
 * with HM_ERR_NUMERIC where CG meets negative curvature. */
int hm_shifted_solve_apply(hm_shifted_solve *s, double tol, hm_mvec *b, hm_mvec *y);
/* 1 where S was found positive definite (CG), 0 otherwise (MINRES). */
int hm_shifted_solve_definite(const hm_shifted_solve *s);
/* "cg-jacobi" or "minres". */
const char *hm_shifted_solve_method(const hm_shifted_solve *s);
/* Iterations summed over the solves (one per column and operator application), and the largest
 * true relative residual ||b - S y|| / ||b|| measured at the end of a solve. */
void hm_shifted_solve_stats(const hm_shifted_solve *s, int64_t *iterations, double *worst_residual);
#endif
