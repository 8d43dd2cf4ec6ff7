/* hm_dense_eigh_distributed: the distributed solver on arrays that ScaLAPACK's descriptors describe.
 * ScaLAPACK's own redistribution (p?gemr2d) moves the caller's layout to the solver's 1 x P column
 * blocks and the eigenvectors back to the caller's layout; the lower triangle is mirrored on the column
 * blocks (one conjugate transpose, an all-to-all). */
#include <stdlib.h>
#include <string.h>
#include "hamlet/dense.h"
#include "dense_distributed.h"
#include "error_macros.h"
#include "scalapack.h"

enum { DTYPE_ = 0, CTXT_ = 1, M_ = 2, N_ = 3 }; /* ScaLAPACK's descriptor entries */

static void redistribute(hm_scalar type, int n, const double *a, const int *desca, double *b, const int *descb, int ctxt) {
  if (type == HM_REAL) Cpdgemr2d(n, n, (double *)a, 1, 1, (int *)desca, b, 1, 1, (int *)descb, ctxt);
  else Cpzgemr2d(n, n, (double *)a, 1, 1, (int *)desca, b, 1, 1, (int *)descb, ctxt);
}

/* The full Hermitian matrix from the lower triangle of the columns aloc (host): A = L' + L'^H, L' the
 * lower triangle with half its diagonal. */
static int mirror_lower(const hm_dense_columns *c, double *aloc) {
  const int s = (int)c->type;
  const int64_t n = c->n, count = s * n * c->nloc;
  hm_dense_columns host = *c;
  host.x.device = -1;
  for (int64_t l = 0; l < c->nloc; l++) {
    const int64_t g = hm_dense_global_of(l, c->b, c->rank, c->P);
    double *col = aloc + s * n * l;
    memset(col, 0, sizeof(double) * (size_t)(s * g));
    for (int q = 0; q < s; q++) col[s * g + q] *= 0.5;
  }
  double *t = malloc(sizeof(double) * (size_t)(count + 1));
  int st = t ? hm_dense_conjugate_transpose(&host, aloc, t)
             : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the mirrored columns");
  if (!st)
    for (int64_t i = 0; i < count; i++) aloc[i] += t[i];
  free(t);
  return st;
}

static int check_descriptor(const int *desc, int n, const char *name) {
  HM_CHECK(desc[DTYPE_] == 1, HM_ERR_ARGUMENT, "%s: descriptor type %d, only 1 (block-cyclic) is allowed", name, desc[DTYPE_]);
  HM_CHECK(desc[M_] == n && desc[N_] == n, HM_ERR_ARGUMENT, "%s is %d x %d, must be %d x %d (square, as A)", name,
           desc[M_], desc[N_], n, n);
  return HM_SUCCESS;
}

/* The caller's grid must hold every rank of ctx (p?gemr2d between it and the solver's). Collective. */
static int check_grid(const hm_context *ctx, const int *desc, const char *name) {
  int nprow = 0, npcol = 0, myrow = -1, mycol = -1;
  Cblacs_gridinfo(desc[CTXT_], &nprow, &npcol, &myrow, &mycol);
  int in = myrow >= 0 && mycol >= 0 && nprow * npcol == ctx->size, all = 0;
  MPI_Allreduce(&in, &all, 1, MPI_INT, MPI_MIN, ctx->comm);
  HM_CHECK(all, HM_ERR_ARGUMENT, "%s's BLACS context must be a grid of exactly the context's %d processes", name, ctx->size);
  return HM_SUCCESS;
}

HM_API int hm_dense_eigh_distributed(hm_context *ctx, hm_scalar type, const double *a, const int desca[9],
                                     const double *b, const int descb[9], int vectors, double *w, double *z,
                                     const int descz[9]) {
  HM_CHECK(ctx, HM_ERR_ARGUMENT, "ctx is NULL");
  HM_CHECK(type == HM_REAL || type == HM_COMPLEX, HM_ERR_ARGUMENT, "type %d: allowed HM_REAL (1), HM_COMPLEX (2)", (int)type);
  HM_CHECK(desca && w, HM_ERR_ARGUMENT, "desca and w must not be NULL");
  HM_CHECK(!b == !descb, HM_ERR_ARGUMENT, "b and descb: both NULL (a standard problem) or both given");
  HM_CHECK(vectors == 0 || vectors == 1, HM_ERR_ARGUMENT, "vectors = %d: allowed 0 or 1", vectors);
  HM_CHECK(vectors ? z && descz : !z && !descz, HM_ERR_ARGUMENT,
           "z and descz: both given with vectors = 1, both NULL with vectors = 0");
  const int n = desca[M_];
  HM_CALL(check_descriptor(desca, n, "A"));
  HM_CHECK(n >= 0, HM_ERR_ARGUMENT, "n = %d, must be >= 0", n);
  if (descb) HM_CALL(check_descriptor(descb, n, "B"));
  if (descz) HM_CALL(check_descriptor(descz, n, "Z"));
  HM_CALL(check_grid(ctx, desca, "A"));
  if (descb) HM_CALL(check_grid(ctx, descb, "B"));
  if (descz) HM_CALL(check_grid(ctx, descz, "Z"));
  if (n == 0) return HM_SUCCESS;
  hm_dense_columns c = {ctx->comm, ctx->rank, ctx->size, type, n, 0, hm_dense_distributed_block(n, ctx->size),
                        {ctx->backend == HM_BACKEND_CUDA ? ctx->device : -1}};
  c.nloc = hm_dense_numroc(n, c.b, c.rank, c.P);
  const int s = (int)type, P = c.P;
  HM_CALL(hm_dense_distributed_check_memory(&c, NULL, NULL, (n + P - 1) / P, b != NULL, vectors));
  /* the solver's layouts on a 1 x P grid of ctx's ranks: A's column blocks, the eigenvectors' blocks */
  int sys = Csys2blacs_handle(ctx->comm), ctxt = sys, nprow = 0, npcol = 0, myrow = -1, mycol = -1, info = 0;
  Cblacs_gridinit(&ctxt, "Row", 1, P);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  int cols_desc[9], z_desc[9], vb = (int)hm_dense_vector_block(n, P), ld = n > 1 ? n : 1, zero = 0;
  double *aloc = NULL, *bloc = NULL, *zx = NULL, *zh = NULL;
  int64_t *bound = malloc(sizeof(int64_t) * (size_t)(P + 1));
  int st = mycol == ctx->rank ? HM_SUCCESS
                              : hm_error_raise(HM_ERR_INTERNAL, __FILE__, __LINE__, __func__, "BLACS placed rank %d at column %d",
                                               ctx->rank, mycol);
  if (!st) descinit_(cols_desc, &n, &n, &n, &c.b, &zero, &zero, &ctxt, &ld, &info);
  if (!st && !info) descinit_(z_desc, &n, &n, &n, &vb, &zero, &zero, &ctxt, &ld, &info);
  if (!st && info) st = hm_error_raise(HM_ERR_INTERNAL, __FILE__, __LINE__, __func__, "descinit failed (info %d)", info);
  const size_t cols = (size_t)(s * n * c.nloc) + 1;
  aloc = calloc(cols, sizeof(double));
  if (b) bloc = calloc(cols, sizeof(double));
  if (!st && (!bound || !aloc || (b && !bloc)))
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the local columns");
  HM_CALL_GOTO(st, done, hm_dense_agree(ctx->comm, st));
  redistribute(type, n, a, desca, aloc, cols_desc, ctxt);
  if (b) redistribute(type, n, b, descb, bloc, cols_desc, ctxt);
  HM_CALL_GOTO(st, done, mirror_lower(&c, aloc));
  if (b) HM_CALL_GOTO(st, done, mirror_lower(&c, bloc));
  HM_CALL_GOTO(st, done, hm_dense_distributed_solve(&c, &aloc, b ? &bloc : NULL, vectors, w, &zx, bound));
  if (vectors) {
    const int64_t count = s * (int64_t)n * (bound[c.rank + 1] - bound[c.rank]);
    if (c.x.device >= 0) {
      zh = malloc(sizeof(double) * (size_t)(count + 1));
      st = zh ? hm_dense_x_copy(&c.x, 'D', zh, zx, count)
              : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate this rank's eigenvectors");
    }
    HM_CALL_GOTO(st, done, hm_dense_agree(ctx->comm, st));
    redistribute(type, n, c.x.device >= 0 ? zh : zx, z_desc, z, descz, ctxt);
  }
done:
  hm_dense_x_free(&c.x, zx);
  free(zh); free(aloc); free(bloc); free(bound);
  Cblacs_gridexit(ctxt);
  Cfree_blacs_system_handle(sys);
  return st;
}
