/* ScaLAPACK path: the nonzeros of the lower triangle go straight from their rows to their owners in
 * a 2D block-cyclic layout (one all-to-all; the matrix is never gathered on one rank), p?syevd (or
 * p?syev for eigenvalues only) solves, generalized problems are reduced first (p?potrf on B,
 * p?sygst / p?hegst, back-transform with p?trsm), and the eigenvectors go back to row blocks in a
 * second all-to-all whose order both sides know, so only values travel. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "dense_internal.h"
#include "error_macros.h"
#include "scalapack.h"

static const int izero = 0, ione = 1;

/* The most square grid nprow x npcol = P (nprow <= npcol), square blocks. */
static int grid_create(MPI_Comm comm, int P, int n, hm_dense_grid *g) {
  memset(g, 0, sizeof *g);
  g->ctxt = g->sys = -1;
  int pr = (int)sqrt((double)P);
  while (P % pr) pr--;
  g->sys = Csys2blacs_handle(comm);
  g->ctxt = g->sys;
  Cblacs_gridinit(&g->ctxt, "Row", pr, P / pr);
  Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
  HM_CHECK(g->nprow == pr && g->npcol == P / pr, HM_ERR_INTERNAL, "BLACS made a %d x %d grid, %d x %d asked",
           g->nprow, g->npcol, pr, P / pr);
  const int pmax = g->npcol;
  g->n = n;
  /* Blocks of 64 (the usual ScaLAPACK choice); small matrices get smaller ones so that every
   * process holds a few blocks. */
  g->nb = n / (4 * pmax);
  if (g->nb > 64) g->nb = 64;
  if (g->nb < 4) g->nb = 4;
  g->mloc = numroc_(&g->n, &g->nb, &g->myrow, &izero, &g->nprow);
  g->nloc = numroc_(&g->n, &g->nb, &g->mycol, &izero, &g->npcol);
  g->lld = g->mloc > 1 ? g->mloc : 1;
  int info = 0;
  descinit_(g->desc, &g->n, &g->n, &g->nb, &g->nb, &izero, &izero, &g->ctxt, &g->lld, &info);
  HM_CHECK(info == 0, HM_ERR_INTERNAL, "descinit failed (info %d)", info);
  HM_MALLOC(g->pnum, P);
  for (int r = 0; r < g->nprow; r++)
    for (int c = 0; c < g->npcol; c++) g->pnum[r * g->npcol + c] = Cblacs_pnum(g->ctxt, r, c);
  return HM_SUCCESS;
}

static void grid_free(hm_dense_grid *g) {
  if (g->ctxt >= 0) Cblacs_gridexit(g->ctxt);
  if (g->sys >= 0) Cfree_blacs_system_handle(g->sys);
  free(g->pnum);
  memset(g, 0, sizeof *g);
  g->ctxt = g->sys = -1;
}

/* Workspace of the solver: lwork (scalars of the type), lrwork (doubles), liwork (ints). */
static int solver_query(hm_scalar type, int vectors, hm_dense_grid *g, double *dummy, int *lwork, int *lrwork, int *liwork) {
  const int m1 = -1;
  int info = 0, iq = 0;
  double q[2] = {0, 0}, rq = 0, w = 0;
  const char jobz = vectors ? 'V' : 'N';
  if (type == HM_REAL) {
    if (vectors) pdsyevd_(&jobz, "L", &g->n, dummy, &ione, &ione, g->desc, &w, dummy, &ione, &ione, g->desc, q, &m1, &iq, &m1, &info);
    else pdsyev_(&jobz, "L", &g->n, dummy, &ione, &ione, g->desc, &w, dummy, &ione, &ione, g->desc, q, &m1, &info);
  } else {
    if (vectors) pzheevd_(&jobz, "L", &g->n, dummy, &ione, &ione, g->desc, &w, dummy, &ione, &ione, g->desc, q, &m1, &rq, &m1, &iq, &m1, &info);
    else pzheev_(&jobz, "L", &g->n, dummy, &ione, &ione, g->desc, &w, dummy, &ione, &ione, g->desc, q, &m1, &rq, &m1, &info);
  }
  HM_CHECK(info == 0, HM_ERR_LAPACK, "ScaLAPACK workspace query failed (info %d)", info);
  HM_CHECK(q[0] < INT_MAX / 2 && rq < INT_MAX / 2, HM_ERR_MEMORY,
           "n = %d needs %.3g words of ScaLAPACK workspace per process, more than 32-bit ScaLAPACK can index", g->n, q[0]);
  /* Some ScaLAPACK versions under-report in queries: keep the documented minimum and a margin. */
  *lwork = (int)(q[0] * 1.05) + 64 * g->nb;
  *lrwork = type == HM_COMPLEX ? (int)(rq * 1.05) + 64 * g->nb : 0;
  int iwmin = 7 * g->n + 8 * g->npcol + 2;
  *liwork = vectors ? (iq > iwmin ? iq : iwmin) : 0;
  return HM_SUCCESS;
}

/* The same status on every rank for a routine that reported info locally. */
static int agree(MPI_Comm comm, int info, int *worst) {
  int lo = 0;
  HM_CALL_MPI(MPI_Allreduce(&info, worst, 1, MPI_INT, MPI_MAX, comm));
  HM_CALL_MPI(MPI_Allreduce(&info, &lo, 1, MPI_INT, MPI_MIN, comm));
  if (lo < 0) *worst = lo;
  return HM_SUCCESS;
}

/* Reduce A z = l B z to standard form: B = L L^H, A <- L^-1 A L^-H (scale: factor of the eigenvalues). */
static int reduce_generalized(MPI_Comm comm, hm_scalar type, hm_dense_grid *g, double *aloc, double *bloc, double *scale) {
  int info = 0, worst = 0;
  if (type == HM_REAL) pdpotrf_("L", &g->n, bloc, &ione, &ione, g->desc, &info);
  else pzpotrf_("L", &g->n, bloc, &ione, &ione, g->desc, &info);
  HM_CALL(agree(comm, info, &worst));
  HM_CHECK(worst <= 0, HM_ERR_NUMERIC, "B is not positive definite: its leading minor of order %d is not (p%spotrf)",
           worst, type == HM_REAL ? "d" : "z");
  HM_CHECK(worst == 0, HM_ERR_LAPACK, "p%spotrf: illegal argument %d", type == HM_REAL ? "d" : "z", -worst);
  *scale = 1.0;
  if (type == HM_REAL) pdsygst_(&ione, "L", &g->n, aloc, &ione, &ione, g->desc, bloc, &ione, &ione, g->desc, scale, &info);
  else pzhegst_(&ione, "L", &g->n, aloc, &ione, &ione, g->desc, bloc, &ione, &ione, g->desc, scale, &info);
  HM_CALL(agree(comm, info, &worst));
  HM_CHECK(worst == 0, HM_ERR_LAPACK, "p%s returned info = %d", type == HM_REAL ? "dsygst" : "zhegst", worst);
  return HM_SUCCESS;
}

static int solve(MPI_Comm comm, hm_scalar type, int vectors, hm_dense_grid *g, double *aloc, double *zloc, double *w,
                 int lwork, int lrwork, int liwork) {
  double *work = malloc(sizeof(double) * (size_t)type * (size_t)lwork + 8);
  double *rwork = malloc(sizeof(double) * (size_t)lrwork + 8);
  int *iwork = malloc(sizeof(int) * (size_t)liwork + 8);
  int info = 0, worst = 0;
  if (work && rwork && iwork) {
    const char jobz = vectors ? 'V' : 'N';
    double *z = vectors ? zloc : aloc;
    if (type == HM_REAL) {
      if (vectors) pdsyevd_(&jobz, "L", &g->n, aloc, &ione, &ione, g->desc, w, z, &ione, &ione, g->desc, work, &lwork, iwork, &liwork, &info);
      else pdsyev_(&jobz, "L", &g->n, aloc, &ione, &ione, g->desc, w, z, &ione, &ione, g->desc, work, &lwork, &info);
    } else {
      if (vectors) pzheevd_(&jobz, "L", &g->n, aloc, &ione, &ione, g->desc, w, z, &ione, &ione, g->desc, work, &lwork, rwork, &lrwork, iwork, &liwork, &info);
      else pzheev_(&jobz, "L", &g->n, aloc, &ione, &ione, g->desc, w, z, &ione, &ione, g->desc, work, &lwork, rwork, &lrwork, &info);
    }
  } else {
    info = INT_MIN; /* allocation failed here; the others must stop too */
  }
  free(work); free(rwork); free(iwork);
  HM_CALL(agree(comm, info, &worst));
  HM_CHECK(worst != INT_MIN, HM_ERR_MEMORY, "could not allocate the ScaLAPACK workspace on some rank");
  const char *name = type == HM_REAL ? (vectors ? "pdsyevd" : "pdsyev") : (vectors ? "pzheevd" : "pzheev");
  HM_CHECK(worst == 0, HM_ERR_LAPACK, "%s returned info = %d (%s)", name, worst,
           worst < 0 ? "an illegal argument" : "the eigenvalue iteration did not converge");
  return HM_SUCCESS;
}

int hm_dense_scalapack(struct hm_matrix_s *A, struct hm_matrix_s *B, int vectors, double *w, struct hm_mvec_s *Z) {
  hm_context *ctx = A->ctx;
  const hm_scalar type = A->type;
  hm_dense_grid g;
  hm_dense_transfer ta = {0}, tb = {0};
  double *aloc = NULL, *bloc = NULL, *zloc = NULL, dummy[4] = {0};
  int st = HM_SUCCESS, lwork = 0, lrwork = 0, liwork = 0, node = 1;
  HM_CALL_GOTO(st, done, grid_create(ctx->comm, ctx->size, (int)A->dist.n_global, &g));
  HM_CALL_GOTO(st, done, hm_dense_transfer_plan(A, &g, 0, &ta));
  if (B) HM_CALL_GOTO(st, done, hm_dense_transfer_plan(B, &g, 0, &tb));
  HM_CALL_GOTO(st, done, solver_query(type, vectors, &g, dummy, &lwork, &lrwork, &liwork));

  /* Peak per rank: the local arrays plus the larger of the entry exchange, the solver's workspace
   * and the eigenvectors' way back to row blocks. */
  {
    const double elt = 8.0 * type, loc = (double)g.mloc * g.nloc;
    const double arrays = elt * loc * (1 + vectors + (B != NULL));
    const double entries = (double)(ta.nsend + ta.nrecv + tb.nsend + tb.nrecv) * sizeof(hm_dense_entry);
    const double work = elt * lwork + 8.0 * lrwork + 4.0 * liwork;
    const double back = vectors ? elt * (loc + 2.0 * (double)A->dist.local * g.n) : 0;
    double need = arrays + fmax(entries, fmax(work, back));
    node = hm_dense_ranks_on_node(ctx->comm);
    char what[96];
    snprintf(what, sizeof what, "ScaLAPACK for n = %d on a %d x %d process grid", g.n, g.nprow, g.npcol);
    HM_CALL_GOTO(st, done, hm_dense_check_memory(ctx->comm, ctx->rank, need, (double)hm_dense_host_available(node), what,
                                                 "use more ranks or nodes"));
  }

  const size_t loc_doubles = (size_t)type * (size_t)g.lld * (size_t)(g.nloc > 0 ? g.nloc : 1);
  int ok = (aloc = calloc(loc_doubles, sizeof(double))) && (!vectors || (zloc = calloc(loc_doubles, sizeof(double)))) &&
           (!B || (bloc = calloc(loc_doubles, sizeof(double))));
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
  if (!all_ok) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the ScaLAPACK local arrays on some rank");
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_dense_transfer_run(A, &g, &ta, aloc));
  if (B) HM_CALL_GOTO(st, done, hm_dense_transfer_run(B, &g, &tb, bloc));

  double scale = 1.0;
  if (B) HM_CALL_GOTO(st, done, reduce_generalized(ctx->comm, type, &g, aloc, bloc, &scale));
  HM_CALL_GOTO(st, done, solve(ctx->comm, type, vectors, &g, aloc, zloc, w, lwork, lrwork, liwork));
  if (scale != 1.0)
    for (int i = 0; i < g.n; i++) w[i] *= scale;
  free(aloc);
  aloc = NULL;
  if (B && vectors) { /* z = L^-H y */
    const double one[2] = {1.0, 0.0};
    if (type == HM_REAL) pdtrsm_("L", "L", "T", "N", &g.n, &g.n, one, bloc, &ione, &ione, g.desc, zloc, &ione, &ione, g.desc);
    else pztrsm_("L", "L", "C", "N", &g.n, &g.n, one, bloc, &ione, &ione, g.desc, zloc, &ione, &ione, g.desc);
  }
  free(bloc);
  bloc = NULL;
  if (vectors) HM_CALL_GOTO(st, done, hm_dense_vectors_to_rows(A, &g, zloc, Z));
done:
  hm_dense_transfer_free(&ta);
  hm_dense_transfer_free(&tb);
  free(aloc); free(bloc); free(zloc);
  grid_free(&g);
  return st;
}
