/* The IDR(s) object shared by idr.c (options, shadow space, results, checkpoints) and idr_solve.c
 * (the iteration). */
#ifndef HAMLET_IDR_INTERNAL_H
#define HAMLET_IDR_INTERNAL_H
#include <complex.h>
#include "hamlet/idr.h"
#include "objects.h"

/* per-system state; otherwise HM_SUCCESS / HM_ERR_NOT_CONVERGED / HM_ERR_BREAKDOWN. IDR_RESTART: the
 * s x s system became singular in this cycle; the system starts afresh at the cycle's end. */
enum { IDR_RUNNING = -1, IDR_RESTART = -2 };
enum { IDR_REASON_LEN = 160 };

struct hm_idr_s {
  hm_operator *A;
  hm_context *ctx;
  const hm_kernels *kern;
  hm_idr_options opt;
  hm_scalar type;
  int ts;          /* doubles per scalar */
  const hm_dist *dist;
  int64_t nlocal, nglobal;
  int s;
  hm_mvec *P;      /* shadow space, n x s, orthonormal */
  hm_mvec *dinv;   /* Jacobi: the inverse diagonal (one column) */

  /* The state of a solve of k systems (blocks of width k). */
  int k;
  hm_mvec *x, *r, **G, **U, *dx, *dr; /* dx = xs - x, dr = rs - r (smoothing) */
  hm_mvec *check_x, *check_r;         /* the iterate and b - A x, formed to confirm convergence */
  hm_mvec *v, *t;                     /* work */
  double complex *M;     /* k blocks of s x s, row-major: M[j*s*s + a*s + b] = <P_a|G_b> of system j */
  double complex *f;     /* k x s: <P|r> of the current cycle */
  double complex *omega; /* k */
  double complex *sigma; /* k pending smoothing factors: the stored dr, dx are to be scaled by them */
  double *bnorm, *rnorm2, *res, *true_res; /* k each: ||b||, ||r||^2 (unsmoothed), reported, true */
  int *its, *state;
  int *restarted_at; /* iteration of a system's last restart after a singular s x s system (-1: none) */
  char *reason;          /* k x IDR_REASON_LEN: why a system stopped without converging */
  double *hist;          /* k x (maxit + 1) */
  int outer;             /* outer iterations done */
  int restored;          /* 1: the next solve continues a restored state */
  int status;            /* of the last solve */
  /* host scratch for coefficients in the kernels' layout */
  double *coef, *a, *beta, *sig, *dots, *gram;
};

/* Blocks and small state for k systems (reallocated when k changes; all zero). */
int hm_idr_alloc_state(hm_idr *idr, int k);
#endif
