/* hm_sparse_factor over SuiteSparse: CHOLMOD's Cholesky LL^H first; where the matrix is not
 * positive definite (a shift inside the spectrum), CHOLMOD's unpivoted LDL^H where the matrix is
 * sparse enough for the simplicial code and a test solve shows it accurate, else UMFPACK's pivoting
 * LU. Simplicial (column by column) where CHOLMOD's flops / nnz(L) stays below SIMPLICIAL_MAX_FLOPS_PER_ENTRY
 * (2D-like fill), supernodal above (3D-like fill, where dense blocks pay). */
#include <complex.h>
#include <math.h>
#include <string.h>
#include <cholmod.h>
#include <umfpack.h>
#include "error_macros.h"
#include "sparse_factor.h"

struct hm_sparse_factor_s {
  hm_scalar type;
  int64_t n;
  int cholesky; /* 1: CHOLMOD's L (LL^H, or LDL^H where ldl), else UMFPACK's numeric object */
  int ldl;
  cholmod_common cc;
  cholmod_factor *L;
  SuiteSparse_long *Ap, *Ai;
  double *Ax;
  void *numeric;
  double rcond, nnz;
  /* Kept between solves (LOBPCG solves hundreds of small blocks; fresh dense objects and CHOLMOD's
   * internal workspace per call cost more than the triangular solves at N ~ 10^3): */
  cholmod_dense *B, *X, *Y, *E; /* CHOLMOD: right-hand sides (room for `capacity` columns), solution, workspace */
  int capacity;
  SuiteSparse_long *Wi;         /* UMFPACK's wsolve workspace and one column in and out */
  double *W, *b, *x;
};

#define SIMPLICIAL_SOLVE_MAX_FILL 64.0
/* CHOLMOD's supernodal_switch (its default 40). Measured at N = 10^4 and 4 10^4 (bench/README.md):
 * 2D grids (flops / nnz(L) 59 and 104) factorize within 25% of the supernodal time and
 * solve 1.4-1.6x faster (real and complex); a 3D grid (437) factorizes 10x slower simplicial. */
#define SIMPLICIAL_MAX_FLOPS_PER_ENTRY 150.0
/* The unpivoted LDL^H is kept where a test solve's normwise backward error stays below this;
 * pivoting LU is backward stable to about 1e-16, so a larger error means pivot growth. */
#define LDL_MAX_BACKWARD_ERROR 1e-12

/* The lower triangle as CHOLMOD's symmetric (Hermitian) matrix, duplicates summed. */
static int lower_matrix(hm_sparse_factor *f, int64_t count, const hm_dense_entry *e, cholmod_sparse **out) {
  cholmod_common *c = &f->cc;
  const int xtype = f->type == HM_COMPLEX ? CHOLMOD_COMPLEX : CHOLMOD_REAL;
  cholmod_triplet *T = cholmod_l_allocate_triplet((size_t)f->n, (size_t)f->n, (size_t)count, -1, xtype, c);
  HM_CHECK(T, HM_ERR_MEMORY, "CHOLMOD could not allocate %lld entries (status %d)", (long long)count, c->status);
  SuiteSparse_long *ti = T->i, *tj = T->j;
  double *tx = T->x;
  for (int64_t p = 0; p < count; p++) {
    ti[p] = e[p].i;
    tj[p] = e[p].j;
    tx[(size_t)f->type * p] = e[p].re;
    if (f->type == HM_COMPLEX) tx[2 * p + 1] = e[p].im;
  }
  T->nnz = (size_t)count;
  *out = cholmod_l_triplet_to_sparse(T, (size_t)count, c);
  cholmod_l_free_triplet(&T, c);
  HM_CHECK(*out, HM_ERR_MEMORY, "CHOLMOD could not convert %lld entries (status %d)", (long long)count, c->status);
  return HM_SUCCESS;
}

/* 1 when CHOLMOD factorized S as LL^H; 0 when it is not positive definite (other failures raise). */
static int try_cholesky(hm_sparse_factor *f, cholmod_sparse *S) {
  cholmod_common *c = &f->cc;
  c->final_ll = 1;
  c->supernodal = CHOLMOD_AUTO;
  f->L = cholmod_l_analyze(S, c);
  int ok = f->L != NULL;
  if (ok) ok = cholmod_l_factorize(S, f->L, c);
  HM_CHECK(f->L && (c->status == CHOLMOD_OK || c->status == CHOLMOD_NOT_POSDEF), HM_ERR_NUMERIC,
           "CHOLMOD failed to factorize the %lld x %lld shifted matrix (status %d)", (long long)f->n,
           (long long)f->n, c->status);
  if (c->status == CHOLMOD_NOT_POSDEF || f->L->minor < f->L->n) {
    cholmod_l_free_factor(&f->L, c);
    return 0;
  }
  f->rcond = cholmod_l_rcond(f->L, c);
  f->nnz = c->lnz;
  /* Solves of a few columns on a supernodal factor with at most 64 entries per column of L run
   * faster converted to simplicial (real scalars; bench/README.md, shift-and-invert); complex
   * ones were not measured so. Same L, so the same results to rounding. */
  if (f->L->is_super && f->type == HM_REAL && f->nnz <= SIMPLICIAL_SOLVE_MAX_FILL * (double)f->n)
    HM_CHECK(cholmod_l_change_factor(f->L->xtype, 1, 0, 1, 1, f->L, c), HM_ERR_MEMORY,
             "CHOLMOD could not convert the factor for the solves (status %d)", c->status);
  return 1;
}

/* max |r_i| / (||S||_inf max |x_i| + max |b_i|) of one solve S x = b (b fixed, not random, so the
 * choice repeats): the normwise backward error that pivot growth would show. */
static int ldl_backward_error(hm_sparse_factor *f, cholmod_sparse *S, double *error) {
  cholmod_common *c = &f->cc;
  const size_t n = (size_t)f->n, t = (size_t)f->type;
  const int xtype = f->type == HM_COMPLEX ? CHOLMOD_COMPLEX : CHOLMOD_REAL;
  cholmod_dense *b = cholmod_l_zeros(n, 1, xtype, c), *x = NULL, *r = NULL;
  int st = b ? HM_SUCCESS : HM_ERR_MEMORY;
  if (!st) {
    double *bx = b->x;
    for (size_t i = 0; i < n; i++) bx[t * i] = 1.0 + (double)(i % 7) / 7.0; /* no cancellation in ||b|| */
    x = cholmod_l_solve(CHOLMOD_A, f->L, b, c);
    r = cholmod_l_copy_dense(b, c);
    st = x && r ? HM_SUCCESS : HM_ERR_MEMORY;
  }
  if (!st) {
    double minus_one[2] = {-1, 0}, one[2] = {1, 0};
    st = cholmod_l_sdmult(S, 0, minus_one, one, x, r, c) ? HM_SUCCESS : HM_ERR_NUMERIC; /* r = b - S x */
  }
  if (!st) {
    const double denominator = cholmod_l_norm_sparse(S, 0, c) * cholmod_l_norm_dense(x, 0, c) +
                               cholmod_l_norm_dense(b, 0, c);
    const double rn = cholmod_l_norm_dense(r, 0, c);
    *error = denominator > 0 && isfinite(rn) ? rn / denominator : INFINITY;
  }
  cholmod_l_free_dense(&b, c), cholmod_l_free_dense(&x, c), cholmod_l_free_dense(&r, c);
  HM_CHECK(!st, st, "CHOLMOD could not check the LDL^H factorization of %zu rows (status %d)", n, c->status);
  return HM_SUCCESS;
}

/* 1 when CHOLMOD's simplicial LDL^H (no pivoting: what PETSc's own LU does) factorized S with a
 * small backward error; 0 (nothing kept) where S is too dense for the simplicial code, a pivot is
 * zero or the test solve shows growth: then UMFPACK's pivoting LU. Other failures raise. */
static int try_ldl(hm_sparse_factor *f, cholmod_sparse *S) {
  cholmod_common *c = &f->cc;
  c->final_ll = 0;
  c->supernodal = CHOLMOD_SIMPLICIAL;
  f->L = cholmod_l_analyze(S, c);
  HM_CHECK(f->L, HM_ERR_NUMERIC, "CHOLMOD failed to analyze the %lld x %lld shifted matrix (status %d)",
           (long long)f->n, (long long)f->n, c->status);
  if (c->fl > SIMPLICIAL_MAX_FLOPS_PER_ENTRY * c->lnz) { /* 3D-like fill: UMFPACK's BLAS-3 LU is faster */
    cholmod_l_free_factor(&f->L, c);
    return 0;
  }
  cholmod_l_factorize(S, f->L, c);
  HM_CHECK(c->status == CHOLMOD_OK || c->status == CHOLMOD_NOT_POSDEF, HM_ERR_NUMERIC,
           "CHOLMOD failed to factorize the %lld x %lld shifted matrix as LDL^H (status %d)", (long long)f->n,
           (long long)f->n, c->status);
  double error = INFINITY;
  if (f->L->minor == f->L->n) HM_CALL(ldl_backward_error(f, S, &error));
  if (!(error <= LDL_MAX_BACKWARD_ERROR)) { /* a zero pivot (singular?) or growth: the pivoting LU decides */
    cholmod_l_free_factor(&f->L, c);
    return 0;
  }
  f->rcond = cholmod_l_rcond(f->L, c);
  f->nnz = c->lnz;
  return 1;
}

/* Full (both triangles) CSC of the Hermitian matrix for UMFPACK; duplicates summed. */
static int full_columns(hm_sparse_factor *f, int64_t count, const hm_dense_entry *e) {
  const size_t t = (size_t)f->type, cap = 2 * (size_t)count + 1;
  SuiteSparse_long *ti = malloc(sizeof *ti * cap), *tj = malloc(sizeof *tj * cap);
  double *tx = malloc(sizeof *tx * cap * t);
  f->Ap = malloc(sizeof *f->Ap * (size_t)(f->n + 1));
  f->Ai = malloc(sizeof *f->Ai * cap);
  f->Ax = malloc(sizeof *f->Ax * cap * t);
  if (!ti || !tj || !tx || !f->Ap || !f->Ai || !f->Ax) {
    free(ti), free(tj), free(tx);
    HM_RAISE(HM_ERR_MEMORY, "could not allocate the %lld entries of the LU factorization's matrix",
             (long long)(2 * count));
  }
  SuiteSparse_long m = 0;
  for (int64_t p = 0; p < count; p++) {
    ti[m] = e[p].i, tj[m] = e[p].j, tx[t * m] = e[p].re;
    if (t == 2) tx[2 * m + 1] = e[p].im;
    m++;
    if (e[p].i == e[p].j) continue;
    ti[m] = e[p].j, tj[m] = e[p].i, tx[t * m] = e[p].re; /* the mirrored entry: conj(a_ij) */
    if (t == 2) tx[2 * m + 1] = -e[p].im;
    m++;
  }
  const SuiteSparse_long n = f->n;
  SuiteSparse_long st = t == 2 ? umfpack_zl_triplet_to_col(n, n, m, ti, tj, tx, NULL, f->Ap, f->Ai, f->Ax, NULL, NULL)
                               : umfpack_dl_triplet_to_col(n, n, m, ti, tj, tx, f->Ap, f->Ai, f->Ax, NULL);
  free(ti), free(tj), free(tx);
  HM_CHECK(st == UMFPACK_OK, HM_ERR_INTERNAL, "UMFPACK could not assemble the matrix (status %ld)", (long)st);
  return HM_SUCCESS;
}

static int lu(hm_sparse_factor *f, int64_t count, const hm_dense_entry *e) {
  HM_CALL(full_columns(f, count, e));
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  const SuiteSparse_long n = f->n;
  void *symbolic = NULL;
  SuiteSparse_long st;
  if (f->type == HM_COMPLEX) {
    umfpack_zl_defaults(control);
    st = umfpack_zl_symbolic(n, n, f->Ap, f->Ai, f->Ax, NULL, &symbolic, control, info);
    if (st == UMFPACK_OK) st = umfpack_zl_numeric(f->Ap, f->Ai, f->Ax, NULL, symbolic, &f->numeric, control, info);
    umfpack_zl_free_symbolic(&symbolic);
  } else {
    umfpack_dl_defaults(control);
    st = umfpack_dl_symbolic(n, n, f->Ap, f->Ai, f->Ax, &symbolic, control, info);
    if (st == UMFPACK_OK) st = umfpack_dl_numeric(f->Ap, f->Ai, f->Ax, symbolic, &f->numeric, control, info);
    umfpack_dl_free_symbolic(&symbolic);
  }
  HM_CHECK(st != UMFPACK_WARNING_singular_matrix, HM_ERR_NUMERIC,
           "the shifted matrix A - shift B (%lld x %lld) is singular: the LU factorization met a zero pivot, "
           "so the shift is an eigenvalue (to rounding); move the shift off the eigenvalue",
           (long long)n, (long long)n);
  HM_CHECK(st == UMFPACK_OK, st == UMFPACK_ERROR_out_of_memory ? HM_ERR_MEMORY : HM_ERR_NUMERIC,
           "UMFPACK failed to factorize the %lld x %lld shifted matrix (status %ld)", (long long)n, (long long)n,
           (long)st);
  f->rcond = info[UMFPACK_RCOND];
  f->nnz = info[UMFPACK_LNZ] + info[UMFPACK_UNZ];
  HM_CHECK(f->rcond > 0, HM_ERR_NUMERIC,
           "the shifted matrix A - shift B is singular (pivot ratio %g): the shift is an eigenvalue (to rounding); "
           "move the shift off the eigenvalue", f->rcond);
  return HM_SUCCESS;
}

/* *nonpositive = 1 when a diagonal entry (duplicates summed) is <= 0: e_i^H M e_i <= 0, so the Hermitian M is not
 * positive definite and CHOLMOD would fail after its whole analysis (a shift inside the spectrum). */
static int has_nonpositive_diagonal(int64_t n, int64_t count, const hm_dense_entry *e, int *nonpositive) {
  double *d = calloc((size_t)n, sizeof *d);
  HM_CHECK(d, HM_ERR_MEMORY, "could not allocate a diagonal of %lld entries", (long long)n);
  for (int64_t p = 0; p < count; p++)
    if (e[p].i == e[p].j && e[p].i >= 0 && e[p].i < n) d[e[p].i] += e[p].re;
  *nonpositive = 0;
  for (int64_t i = 0; i < n && !*nonpositive; i++) *nonpositive = !(d[i] > 0.0);
  free(d);
  return HM_SUCCESS;
}

int hm_sparse_factor_create(hm_scalar type, int64_t n, int64_t count, const hm_dense_entry *lower,
                            hm_sparse_factor **out) {
  HM_CHECK(out && (lower || count == 0) && n >= 1, HM_ERR_ARGUMENT, "bad arguments (n = %lld)", (long long)n);
  *out = NULL;
  hm_sparse_factor *f = calloc(1, sizeof *f);
  HM_CHECK(f, HM_ERR_MEMORY, "could not allocate a factorization");
  f->type = type;
  f->n = n;
  cholmod_l_start(&f->cc);
  f->cc.print = 0;
  f->cc.error_handler = NULL; /* failures come back as statuses, printed by hamlet's error path */
  f->cc.quick_return_if_not_posdef = 1;
  f->cc.supernodal_switch = SIMPLICIAL_MAX_FLOPS_PER_ENTRY;
  int indefinite = 0, st = has_nonpositive_diagonal(n, count, lower, &indefinite);
  cholmod_sparse *S = NULL;
  if (st == HM_SUCCESS) st = lower_matrix(f, count, lower, &S);
  /* certainly indefinite: no LL^H analysis to throw away */
  if (st == HM_SUCCESS) st = indefinite ? 0 : try_cholesky(f, S);
  if (st == 0) {
    st = try_ldl(f, S);
    f->ldl = st == 1;
  }
  cholmod_l_free_sparse(&S, &f->cc);
  if (st == 1) {
    f->cholesky = 1;
    st = HM_SUCCESS;
  } else if (st == 0) {
    st = lu(f, count, lower);
  }
  if (st) {
    hm_sparse_factor_destroy(&f);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  *out = f;
  return HM_SUCCESS;
}

/* Y = M^-1 X for row-major X, Y (n x k; they may alias) through column-major blocks that persist:
 * cholmod_solve2 reuses B, X and its workspaces Y, E while the width fits. */
/* n scalars of t doubles from src (every src_step-th scalar) to dst (every dst_step-th): one memcpy where
 * both are contiguous (a single column), else plain loops (a memcpy call per scalar cost about as
 * much as the triangular solves: 2 n calls per column). */
static void copy_scalars(double *dst, size_t dst_step, const double *src, size_t src_step, size_t n, size_t t) {
  if (dst_step == 1 && src_step == 1) {
    memcpy(dst, src, sizeof(double) * n * t);
    return;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t r = 0; r < t; r++) dst[t * i * dst_step + r] = src[t * i * src_step + r];
}

static int solve_cholesky(hm_sparse_factor *f, int k, const double *in, double *out) {
  cholmod_common *c = &f->cc;
  const size_t n = (size_t)f->n, t = (size_t)f->type;
  if (k > f->capacity) {
    cholmod_l_free_dense(&f->B, c);
    f->capacity = 0;
    f->B = cholmod_l_allocate_dense(n, (size_t)k, n, f->type == HM_COMPLEX ? CHOLMOD_COMPLEX : CHOLMOD_REAL, c);
    HM_CHECK(f->B, HM_ERR_MEMORY, "CHOLMOD could not allocate %d right-hand sides", k);
    f->capacity = k;
  }
  f->B->ncol = (size_t)k; /* the first k columns of the kept block: nzmax stays the capacity's */
  double *b = f->B->x;
  for (int j = 0; j < k; j++) copy_scalars(b + t * (size_t)j * n, 1, in + t * (size_t)j, (size_t)k, n, t);
  int ok = cholmod_l_solve2(CHOLMOD_A, f->L, f->B, NULL, &f->X, NULL, &f->Y, &f->E, c);
  HM_CHECK(ok && f->X, HM_ERR_NUMERIC, "CHOLMOD's solve failed (status %d)", c->status);
  const double *y = f->X->x;
  for (int j = 0; j < k; j++) copy_scalars(out + t * (size_t)j, (size_t)k, y + t * (size_t)j * n, 1, n, t);
  return HM_SUCCESS;
}

/* UMFPACK solves one column at a time; wsolve with kept workspace instead of solve's per-call malloc. */
static int solve_lu(hm_sparse_factor *f, int k, const double *in, double *out) {
  const size_t n = (size_t)f->n, t = (size_t)f->type;
  if (!f->W) { /* W: 5n doubles (real) or 10n (complex) with iterative refinement (umfpack_wsolve.h) */
    f->Wi = malloc(sizeof *f->Wi * n);
    f->W = malloc(sizeof(double) * n * 5 * t);
    f->b = malloc(sizeof(double) * n * t);
    f->x = malloc(sizeof(double) * n * t);
    if (!f->Wi || !f->W || !f->b || !f->x) {
      free(f->Wi), free(f->W), free(f->b), free(f->x);
      f->Wi = NULL, f->W = f->b = f->x = NULL;
      HM_RAISE(HM_ERR_MEMORY, "could not allocate the LU solve's workspace of %zu rows", n);
    }
  }
  double *b = f->b, *x = f->x, info[UMFPACK_INFO];
  SuiteSparse_long st = UMFPACK_OK;
  for (int j = 0; j < k && (st == UMFPACK_OK || st == UMFPACK_WARNING_singular_matrix); j++) {
    copy_scalars(b, 1, in + t * (size_t)j, (size_t)k, n, t);
    st = t == 2 ? umfpack_zl_wsolve(UMFPACK_A, f->Ap, f->Ai, f->Ax, NULL, x, NULL, b, NULL, f->numeric, NULL, info,
                                    f->Wi, f->W)
                : umfpack_dl_wsolve(UMFPACK_A, f->Ap, f->Ai, f->Ax, x, b, f->numeric, NULL, info, f->Wi, f->W);
    copy_scalars(out + t * (size_t)j, (size_t)k, x, 1, n, t);
  }
  HM_CHECK(st == UMFPACK_OK, HM_ERR_NUMERIC, "UMFPACK's solve failed (status %ld)", (long)st);
  return HM_SUCCESS;
}

int hm_sparse_factor_solve(hm_sparse_factor *f, int k, double *X) {
  HM_CALL(hm_sparse_factor_solve_into(f, k, X, X));
  return HM_SUCCESS;
}

int hm_sparse_factor_solve_into(hm_sparse_factor *f, int k, const double *X, double *Y) {
  HM_CHECK(f && X && Y && k >= 1, HM_ERR_ARGUMENT, "bad arguments (k = %d)", k);
  HM_CALL(f->cholesky ? solve_cholesky(f, k, X, Y) : solve_lu(f, k, X, Y));
  return HM_SUCCESS;
}

const char *hm_sparse_factor_method(const hm_sparse_factor *f) {
  return f->ldl ? "cholmod-ldlt" : f->cholesky ? "cholmod-llt" : "umfpack-lu";
}
double hm_sparse_factor_rcond(const hm_sparse_factor *f) { return f->rcond; }
double hm_sparse_factor_nnz(const hm_sparse_factor *f) { return f->nnz; }

void hm_sparse_factor_destroy(hm_sparse_factor **fp) {
  if (!fp || !*fp) return;
  hm_sparse_factor *f = *fp;
  if (f->L) cholmod_l_free_factor(&f->L, &f->cc);
  cholmod_l_free_dense(&f->B, &f->cc), cholmod_l_free_dense(&f->X, &f->cc);
  cholmod_l_free_dense(&f->Y, &f->cc), cholmod_l_free_dense(&f->E, &f->cc);
  free(f->Wi), free(f->W), free(f->b), free(f->x);
  if (f->numeric) {
    if (f->type == HM_COMPLEX) umfpack_zl_free_numeric(&f->numeric);
    else umfpack_dl_free_numeric(&f->numeric);
  }
  cholmod_l_finish(&f->cc);
  free(f->Ap), free(f->Ai), free(f->Ax);
  free(f);
  *fp = NULL;
}
