/* The shift-and-invert transform (shift_invert.h). Direct inner solves: A - sigma B gathered to
 * rank 0 and factorized there; each inner solve gathers the block's rows to rank 0, solves all
 * columns at once and scatters the rows back. Rank 0's failures are broadcast, so every rank returns
 * the same error. Iterative inner solves: CG or MINRES distributed (shifted_solve.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "error_macros.h"
#include "objects.h"
#include "shift_invert.h"
#include "shifted_solve.h"
#include "sparse_factor.h"

struct hm_shift_invert_s {
  hm_matrix *A, *B;
  double sigma;
  MPI_Comm comm;
  int rank, size;
  int definite;
  hm_sparse_factor *factor; /* rank 0 only */
  char method[32];
  double rcond, factor_nnz;
  int64_t solves;
  hm_mvec *w;                  /* the operator's work block (its last width) */
  hm_shifted_solve *iterative; /* inner = iterative: CG / MINRES instead of the factorization */
  double inner_tol, outer_residual; /* the inner tolerance never grows; the last outer residual */
  double refreshed_tol;              /* inner_tol when the outer solver last recomputed its images */
  int *counts, *displs; /* per rank, in doubles, for the block width `width` */
  int width;
  double *all, *mine;   /* rank 0: every row; every rank: its rows */
};

/* Agree on rank 0's status: other ranks raise the same code with rank 0's message. */
static int share_status(hm_shift_invert *si, int st) {
  char msg[1024] = "";
  if (si->rank == 0 && st) {
    const char *text = hm_error_message(), *body = strstr(text, "): ");
    snprintf(msg, sizeof msg, "%s", body ? body + 3 : text);
    char *nl = strchr(msg, '\n');
    if (nl) *nl = '\0';
  }
  HM_CALL_MPI(MPI_Bcast(&st, 1, MPI_INT, 0, si->comm));
  if (!st) return HM_SUCCESS;
  HM_CALL_MPI(MPI_Bcast(msg, sizeof msg, MPI_CHAR, 0, si->comm));
  if (si->rank == 0) return hm_error_trace(st, __FILE__, __LINE__, __func__);
  HM_RAISE(st, "%s (on rank 0)", msg);
}

static int64_t entries_limit(void) {
  const char *env = getenv("HAMLET_SHIFT_INVERT_MAX_ENTRIES");
  char *end;
  long long v = env ? strtoll(env, &end, 10) : 0;
  return env && *end == '\0' && v > 0 ? v : HM_SHIFT_INVERT_MAX_ENTRIES;
}

/* Rank 0 gets the lower triangle of A - sigma B (duplicates of A's and B's entries summed later). At
 * sigma = 0 B's entries are left out: zeros there would join the pattern, and B's entries outside A's
 * pattern add fill (the FEM pencil of bench/shift_invert_peer.py: nnz(L) 257,569 against 206,332). */
static int gather_shifted(hm_shift_invert *si, hm_dense_entry **out, int64_t *count) {
  hm_dense_entry *ea = NULL, *eb = NULL, *all = NULL;
  int64_t na = 0, nb = 0;
  HM_CALL(hm_dense_lower_entries(si->A, &ea, &na));
  if (si->B && si->sigma != 0.0) {
    int st = hm_dense_lower_entries(si->B, &eb, &nb);
    if (st) { free(ea); return hm_error_trace(st, __FILE__, __LINE__, __func__); }
  }
  hm_dense_entry *mine = realloc(ea, sizeof *mine * (size_t)(na + nb + 1));
  if (!mine) { free(ea), free(eb); HM_RAISE(HM_ERR_MEMORY, "could not allocate %lld entries", (long long)(na + nb)); }
  for (int64_t p = 0; p < nb; p++) {
    mine[na + p] = eb[p];
    mine[na + p].re *= -si->sigma;
    mine[na + p].im *= -si->sigma;
  }
  free(eb);
  if (!si->B && si->sigma != 0.0) { /* B = I: -sigma on the diagonal of the owned rows */
    int64_t first, local;
    hm_dist_range(&si->A->dist, &first, &local, NULL);
    hm_dense_entry *grown = realloc(mine, sizeof *mine * (size_t)(na + local + 1));
    if (!grown) { free(mine); HM_RAISE(HM_ERR_MEMORY, "could not allocate %lld entries", (long long)(na + local)); }
    mine = grown;
    for (int64_t r = 0; r < local; r++) mine[na + r] = (hm_dense_entry){first + r, first + r, -si->sigma, 0.0};
    nb = local;
  }
  long long n_mine = na + nb, total = 0;
  MPI_Allreduce(&n_mine, &total, 1, MPI_LONG_LONG, MPI_SUM, si->comm);
  const int64_t limit = entries_limit();
  if (total > limit || total > INT_MAX) {
    free(mine);
    HM_RAISE(HM_ERR_ARGUMENT,
             "A - shift B has %lld lower-triangle entries, more than the %lld the direct factorization gathers on "
             "one rank (HAMLET_SHIFT_INVERT_MAX_ENTRIES); inner = iterative (or auto) solves it distributed",
             total, (long long)(limit < INT_MAX ? limit : INT_MAX));
  }
  int *counts = NULL, *displs = NULL, n_int = (int)n_mine;
  if (si->rank == 0) {
    counts = malloc(sizeof(int) * (size_t)si->size);
    displs = malloc(sizeof(int) * (size_t)si->size);
    all = malloc(sizeof *all * (size_t)(total + 1));
  }
  int ok = si->rank != 0 || (counts && displs && all);
  MPI_Bcast(&ok, 1, MPI_INT, 0, si->comm);
  MPI_Datatype t;
  int st = ok ? hm_dense_entry_type(&t) : HM_ERR_MEMORY;
  if (!st) {
    MPI_Gather(&n_int, 1, MPI_INT, counts, 1, MPI_INT, 0, si->comm);
    if (si->rank == 0)
      for (int r = 0, d = 0; r < si->size; d += counts[r], r++) displs[r] = d;
    if (MPI_Gatherv(mine, n_int, t, all, counts, displs, t, 0, si->comm) != MPI_SUCCESS) st = HM_ERR_MPI;
    MPI_Type_free(&t);
  }
  free(mine), free(counts), free(displs);
  if (st) {
    free(all);
    HM_RAISE(st, "could not gather the %lld entries of A - shift B on rank 0", total);
  }
  *out = all;
  *count = total;
  return HM_SUCCESS;
}

/* An upper bound of the lower-triangle entries gather_shifted would collect (auto's test). */
static int64_t shifted_entries_bound(const hm_matrix *A, const hm_matrix *B) {
  const int64_t n = A->dist.n_global;
  return (A->nnz_global + n) / 2 + (B ? (B->nnz_global + n) / 2 : n);
}

int hm_shift_invert_create(hm_matrix *A, hm_matrix *B, double sigma, hm_shift_invert **out) {
  HM_CALL(hm_shift_invert_create_inner(A, B, sigma, HM_SHIFT_INVERT_DIRECT, 1, out));
  return HM_SUCCESS;
}

int hm_shift_invert_create_inner(hm_matrix *A, hm_matrix *B, double sigma, hm_shift_invert_inner inner,
                                 int inner_maxit, hm_shift_invert **out) {
  HM_CHECK(A && out, HM_ERR_ARGUMENT, "A or si is NULL");
  HM_CHECK(!B || (B->dist.n_global == A->dist.n_global && B->type == A->type), HM_ERR_ARGUMENT,
           "B must have A's size and scalar type");
  HM_CHECK(inner >= HM_SHIFT_INVERT_AUTO && inner <= HM_SHIFT_INVERT_ITERATIVE, HM_ERR_ARGUMENT,
           "inner = %d must be auto (0), direct (1) or iterative (2)", (int)inner);
  *out = NULL;
  hm_shift_invert *si = calloc(1, sizeof *si);
  HM_CHECK(si, HM_ERR_MEMORY, "could not allocate the transform");
  si->A = A, si->B = B, si->sigma = sigma;
  si->comm = A->ctx->comm, si->rank = A->ctx->rank, si->size = A->ctx->size;
  si->inner_tol = si->refreshed_tol = HM_SHIFT_INVERT_INNER_TOL_MAX;
  if (inner == HM_SHIFT_INVERT_AUTO)
    inner = shifted_entries_bound(A, B) <= entries_limit() ? HM_SHIFT_INVERT_DIRECT : HM_SHIFT_INVERT_ITERATIVE;
  if (inner == HM_SHIFT_INVERT_ITERATIVE) {
    int st = hm_shifted_solve_create(A, B, sigma, inner_maxit, &si->iterative);
    if (!st) {
      snprintf(si->method, sizeof si->method, "%s", hm_shifted_solve_method(si->iterative));
      si->definite = hm_shifted_solve_definite(si->iterative);
      *out = si;
      return HM_SUCCESS;
    }
    hm_shift_invert_destroy(&si);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  hm_dense_entry *e = NULL;
  int64_t count = 0;
  int st = gather_shifted(si, &e, &count);
  if (!st) {
    int made = 0;
    if (si->rank == 0) {
      made = hm_sparse_factor_create(A->type, A->dist.n_global, count, e, &si->factor);
      if (!made) {
        snprintf(si->method, sizeof si->method, "%s", hm_sparse_factor_method(si->factor));
        si->definite = strcmp(si->method, "cholmod-llt") == 0;
        si->rcond = hm_sparse_factor_rcond(si->factor);
        si->factor_nnz = hm_sparse_factor_nnz(si->factor);
      }
    }
    free(e);
    st = share_status(si, made);
  }
  if (!st) {
    double info[3] = {si->definite, si->rcond, si->factor_nnz};
    MPI_Bcast(info, 3, MPI_DOUBLE, 0, si->comm);
    MPI_Bcast(si->method, sizeof si->method, MPI_CHAR, 0, si->comm);
    si->definite = (int)info[0], si->rcond = info[1], si->factor_nnz = info[2];
  }
  if (st) {
    hm_shift_invert_destroy(&si);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  *out = si;
  return HM_SUCCESS;
}

int hm_shift_invert_destroy(hm_shift_invert **si) {
  if (!si || !*si) return HM_SUCCESS;
  hm_sparse_factor_destroy(&(*si)->factor);
  hm_shifted_solve_destroy(&(*si)->iterative);
  hm_mvec_destroy(&(*si)->w);
  free((*si)->counts), free((*si)->displs), free((*si)->all), free((*si)->mine);
  free(*si);
  *si = NULL;
  return HM_SUCCESS;
}

/* Buffers for blocks of width k (reallocated when the width changes). */
static int buffers(hm_shift_invert *si, int k) {
  if (si->width == k) return HM_SUCCESS;
  const struct hm_dist_s *d = &si->A->dist;
  const double per_row = (double)k * (double)si->A->type;
  HM_CHECK(per_row * (double)d->n_global <= INT_MAX, HM_ERR_ARGUMENT,
           "a block of %d columns over %lld rows is too large to gather on one rank", k, (long long)d->n_global);
  free(si->counts), free(si->displs), free(si->all), free(si->mine);
  si->counts = malloc(sizeof(int) * (size_t)si->size);
  si->displs = malloc(sizeof(int) * (size_t)si->size);
  si->mine = malloc(sizeof(double) * (size_t)(per_row * (double)d->local + 1));
  si->all = si->rank == 0 ? malloc(sizeof(double) * (size_t)(per_row * (double)d->n_global + 1)) : NULL;
  si->width = 0;
  HM_CHECK(si->counts && si->displs && si->mine && (si->rank != 0 || si->all), HM_ERR_MEMORY,
           "could not allocate the gather buffers of a %d-column block", k);
  for (int r = 0; r < si->size; r++) {
    si->counts[r] = (int)(per_row * (double)(d->offsets[r + 1] - d->offsets[r]));
    si->displs[r] = (int)(per_row * (double)d->offsets[r]);
  }
  si->width = k;
  return HM_SUCCESS;
}

int hm_shift_invert_solve(hm_shift_invert *si, hm_mvec *x, hm_mvec *y) {
  HM_CHECK(si && x && y, HM_ERR_ARGUMENT, "si, x or y is NULL");
  HM_CHECK(x->k == y->k && x->dist.local == si->A->dist.local && y->dist.local == si->A->dist.local &&
               x->type == si->A->type && y->type == si->A->type,
           HM_ERR_ARGUMENT, "x and y must be blocks of equal width over A's rows and type");
  if (si->iterative) {
    HM_CALL(hm_shifted_solve_apply(si->iterative, si->inner_tol, x, y));
    si->solves += x->k;
    return HM_SUCCESS;
  }
  if (si->size == 1) { /* no gather: solve the local rows, in place where they live on the host */
    if (x->ctx->backend == HM_BACKEND_CPU) {
      HM_CALL(hm_sparse_factor_solve_into(si->factor, x->k, x->data, y->data));
    } else {
      HM_CALL(buffers(si, x->k));
      HM_CALL(hm_mvec_get(x, si->all));
      HM_CALL(hm_sparse_factor_solve(si->factor, x->k, si->all));
      HM_CALL(hm_mvec_set(y, si->all));
    }
    si->solves += x->k;
    return HM_SUCCESS;
  }
  HM_CALL(buffers(si, x->k));
  HM_CALL(hm_mvec_get(x, si->mine));
  HM_CALL_MPI(MPI_Gatherv(si->mine, si->counts[si->rank], MPI_DOUBLE, si->all, si->counts, si->displs, MPI_DOUBLE, 0,
                          si->comm));
  int st = si->rank == 0 ? hm_sparse_factor_solve(si->factor, x->k, si->all) : 0;
  HM_CALL(share_status(si, st));
  HM_CALL_MPI(MPI_Scatterv(si->all, si->counts, si->displs, MPI_DOUBLE, si->mine, si->counts[si->rank], MPI_DOUBLE, 0,
                           si->comm));
  HM_CALL(hm_mvec_set(y, si->mine));
  si->solves += x->k;
  return HM_SUCCESS;
}

/* y = B x, or a copy of x where B = I. */
static int apply_b(hm_shift_invert *si, hm_mvec *x, hm_mvec *y) {
  if (si->B) HM_CALL(hm_matrix_apply(si->B, x, y));
  else HM_CALL(hm_mvec_copy_columns(x, 0, y, 0, x->k));
  return HM_SUCCESS;
}

/* The shell operator: y = B T x (definite) or B T T x (indefinite), T = (A - sigma B)^-1 B. */
static int apply_transform(hm_mvec *x, hm_mvec *y, void *user) {
  hm_shift_invert *si = user;
  int st = HM_SUCCESS;
  if (!si->w || si->w->k != x->k) { /* kept between products: a fresh block per product cost page faults */
    hm_mvec_destroy(&si->w);
    st = hm_mvec_create(x->ctx, &x->dist, x->type, x->k, &si->w);
  }
  hm_mvec *w = si->w;
  if (!st) st = apply_b(si, x, y);           /* y = B x */
  if (!st) st = hm_shift_invert_solve(si, y, w); /* w = T x */
  if (!st && !si->definite) {
    st = apply_b(si, w, y);                  /* w = T T x */
    if (!st) st = hm_shift_invert_solve(si, y, w);
  }
  if (!st) st = apply_b(si, w, y);
  return st;
}

int hm_shift_invert_operator(hm_shift_invert *si, hm_operator **op) {
  HM_CHECK(si && op, HM_ERR_ARGUMENT, "si or op is NULL");
  HM_CALL(hm_operator_create_shell(si->A->ctx, &si->A->dist, si->A->type, apply_transform, si, op));
  return HM_SUCCESS;
}

int hm_shift_invert_info(const hm_shift_invert *si, const char **method, int *definite, double *rcond,
                         double *factor_nnz, int64_t *solves) {
  HM_CHECK(si, HM_ERR_ARGUMENT, "si is NULL");
  if (method) *method = si->method;
  if (definite) *definite = si->definite;
  if (rcond) *rcond = si->rcond;
  if (factor_nnz) *factor_nnz = si->factor_nnz;
  if (solves) *solves = si->solves;
  return HM_SUCCESS;
}

int hm_shift_invert_problem(const hm_shift_invert *si, hm_matrix **A, hm_matrix **B, double *sigma) {
  HM_CHECK(si && A && B && sigma, HM_ERR_ARGUMENT, "a pointer is NULL");
  *A = si->A, *B = si->B, *sigma = si->sigma;
  return HM_SUCCESS;
}

int hm_shift_invert_set_outer_residual(hm_shift_invert *si, double residual, int *refresh) {
  HM_CHECK(si && residual >= 0, HM_ERR_ARGUMENT, "si is NULL or the residual %g is negative", residual);
  if (refresh) *refresh = 0;
  if (!si->iterative) return HM_SUCCESS;
  double target = fmin(HM_SHIFT_INVERT_INNER_TOL_MAX, 0.01 * residual);
  /* the outer residual stalls at a multiple of the inner error: where it did not halve, tighten */
  if (si->outer_residual > 0 && residual > 0.5 * si->outer_residual) target = fmin(target, 0.1 * si->inner_tol);
  si->inner_tol = fmax(HM_SHIFT_INVERT_INNER_TOL_MIN, fmin(si->inner_tol, target));
  si->outer_residual = residual;
  if (si->inner_tol <= 0.01 * si->refreshed_tol) { /* 100 times tighter than the images' products */
    si->refreshed_tol = si->inner_tol;
    if (refresh) *refresh = 1;
  }
  return HM_SUCCESS;
}

int hm_shift_invert_inner_info(const hm_shift_invert *si, int *iterative, int64_t *iterations, double *worst,
                               double *tol) {
  HM_CHECK(si, HM_ERR_ARGUMENT, "si is NULL");
  int64_t its = 0;
  double w = 0;
  if (si->iterative) hm_shifted_solve_stats(si->iterative, &its, &w);
  if (iterative) *iterative = si->iterative != NULL;
  if (iterations) *iterations = its;
  if (worst) *worst = w;
  if (tol) *tol = si->inner_tol;
  return HM_SUCCESS;
}
