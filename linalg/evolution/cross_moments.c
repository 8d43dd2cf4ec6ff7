/* Chebyshev cross moments mu_n = Re <A_j|T_n(Ht)|B_j> of two blocks (evolution.h): the recurrence
 * T_{n+1} = 2 Ht T_n - T_{n-1} runs on B with the fused Chebyshev step; each term's local dots with A
 * are kept on the host and summed over the ranks once at the end. A real H acts on a complex block as
 * on the real block of twice its columns that shares its memory (as the propagator does). */
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "halo.h"
#include "hamlet/evolution.h"

/* x must be a complex block of k columns over H's rows. */
static int check_block(const hm_matrix *H, const hm_mvec *x, int k, const char *name) {
  HM_CHECK(x->type == HM_COMPLEX, HM_ERR_ARGUMENT, "%s is real: the cross moments take complex blocks", name);
  HM_CHECK(x->k == k, HM_ERR_ARGUMENT, "%s has %d columns, A has %d", name, x->k, k);
  HM_CHECK(x->dist.n_global == H->dist.n_global && x->dist.first == H->dist.first && x->dist.local == H->dist.local,
           HM_ERR_ARGUMENT, "%s is distributed differently from H (rows %lld from %lld of %lld, H has %lld from %lld)",
           name, (long long)x->dist.local, (long long)x->dist.first, (long long)x->dist.n_global,
           (long long)H->dist.local, (long long)H->dist.first);
  return HM_SUCCESS;
}

/* mu[j M + n] += Re <A_j|t_j> over this rank's rows (t: the complex view of a block of H's type). */
static int add_dots(const hm_matrix *H, const hm_mvec *A, const double *t, int M, int n, double *mu) {
  const int k = A->k;
  double dots[2 * k];
  HM_CALL(H->ctx->kernels->dot(HM_COMPLEX, H->dist.local, k, A->data, t, dots));
  for (int j = 0; j < k; j++) mu[(size_t)j * M + n] += dots[2 * j];
  return HM_SUCCESS;
}

/* y := a x + b y on every column of a block of H's type (kk columns). */
static int scale_add(const hm_matrix *H, int kk, double a, const double *x, double b, double *y) {
  const int t = H->type;
  double alpha[2 * kk], beta[2 * kk];
  memset(alpha, 0, sizeof alpha);
  memset(beta, 0, sizeof beta);
  for (int j = 0; j < kk; j++) alpha[j * t] = a, beta[j * t] = b;
  return H->ctx->kernels->axpby(H->type, H->dist.local, kk, alpha, x, beta, y);
}

/* The recurrence on two blocks prev = T_0 B, cur of H's type; mu local. */
static int recurrence(hm_matrix *H, double scale, double shift, int M, const hm_mvec *A, hm_mvec *prev, hm_mvec *cur,
                      double *dots, double *mu) {
  const int kk = prev->k;
  HM_CALL(add_dots(H, A, prev->data, M, 0, mu));
  if (M == 1) return HM_SUCCESS;
  HM_CALL(hm_matrix_apply(H, prev, cur));
  HM_CALL(scale_add(H, kk, -scale * shift, prev->data, scale, cur->data));
  HM_CALL(add_dots(H, A, cur->data, M, 1, mu));
  for (int n = 2; n < M; n++) {
    HM_CALL(hm_matrix_chebyshev_step(H, scale, shift, cur, prev, dots)); /* prev := T_n B */
    HM_CALL(add_dots(H, A, prev->data, M, n, mu));
    hm_mvec *s = prev;
    prev = cur, cur = s;
  }
  return HM_SUCCESS;
}

int hm_evolution_cross_moments(hm_matrix *H, double emin, double emax, int moments, const hm_mvec *A,
                               const hm_mvec *B, double *mu) {
  HM_CHECK(H && A && B && mu, HM_ERR_ARGUMENT, "H, A, B or mu is NULL");
  HM_CHECK(moments >= 1, HM_ERR_ARGUMENT, "moments = %d, must be >= 1", moments);
  HM_CHECK(isfinite(emin) && isfinite(emax) && emax > emin, HM_ERR_ARGUMENT,
           "interval [%g, %g]: need finite emin < emax", emin, emax);
  HM_CALL(check_block(H, A, A->k, "A"));
  HM_CALL(check_block(H, B, A->k, "B"));
  HM_CHECK(A->ctx == H->ctx && B->ctx == H->ctx, HM_ERR_ARGUMENT, "A, B and H belong to different contexts");
  const int k = A->k, kk = H->type == HM_COMPLEX ? k : 2 * k;
  const double scale = 2.0 / (emax - emin), shift = 0.5 * (emax + emin); /* as hm_kpm's interval */
  memset(mu, 0, sizeof *mu * (size_t)k * moments);
  hm_mvec *prev = NULL, *cur = NULL;
  double *dots = NULL;
  int st = hm_mvec_create_with_halo(H->ctx, &H->dist, H->type, kk, H->halo.nhalo, &prev);
  if (!st) st = hm_mvec_create_with_halo(H->ctx, &H->dist, H->type, kk, H->halo.nhalo, &cur);
  if (!st) st = H->ctx->kernels->alloc(sizeof(double) * 2 * (size_t)kk, (void **)&dots);
  if (!st) st = H->ctx->kernels->copy(prev->data, B->data, sizeof(double) * 2 * (size_t)k * (size_t)H->dist.local);
  if (!st) st = recurrence(H, scale, shift, moments, A, prev, cur, dots, mu);
  if (!st && MPI_Allreduce(MPI_IN_PLACE, mu, k * moments, MPI_DOUBLE, MPI_SUM, H->ctx->comm) != MPI_SUCCESS)
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Allreduce of %d cross moments", k * moments);
  hm_mvec_destroy(&prev), hm_mvec_destroy(&cur);
  if (dots) H->ctx->kernels->release(dots);
  if (st) memset(mu, 0, sizeof *mu * (size_t)k * moments);
  HM_CALL(st);
  return HM_SUCCESS;
}
