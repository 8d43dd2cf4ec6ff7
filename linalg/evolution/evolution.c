/* The Chebyshev propagator. Each step sums c_n T_n(Ht) psi with the KPM recurrence
 * T_{n+1} = 2 Ht T_n - T_{n-1} (the fused kpm_step of the backend's kernel table: CPU, GPU and the
 * matrix-free operator alike) and one complex axpy per term into the accumulator.
 * A real H acts on the real and imaginary parts alike: a complex block of k columns is then
 * multiplied as the real block of 2k columns that has the same memory (row-major, re/im adjacent),
 * and the complex coefficients are added with the complex axpby on that memory.
 * With V = i[H, X] (hm_evolution_set_commutator) the step also carries chi = [X, U] psi: the chain
 * T_n chi beside T_n psi, and D_n = [X, T_n(Ht)] psi by its own recurrence, whose source term is
 * i V T_{n-1} psi (V complex: applied to complex copies, which a real H's blocks are in memory). */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "bessel.h"
#include "error_macros.h"
#include "halo.h"
#include "hamlet/evolution.h"
#include "lanczos.h"
#include "matrix_hermitian.h"

struct hm_evolution_s {
  hm_matrix *H;
  hm_evolution_options opt;
  int k;                    /* complex columns of the state */
  int kk;                   /* columns of H's type: k (complex H) or 2k (real H) */
  double emin, emax, scale, shift;
  int order;                /* terms per step */
  double complex *c;        /* [order] the expansion's coefficients */
  int steps_done;
  struct hm_mvec_s *psi, *t1, *acc; /* blocks of H's type, kk columns, with halo rows */
  double *dots;             /* kpm_step's dot products (backend memory; not used) */
  hm_matrix *V;             /* i[H, X], or NULL: no commutator */
  struct hm_mvec_s *chi, *chi_t1, *chi_acc, *d_a, *d_b; /* the commutator's blocks (as psi's) */
  struct hm_mvec_s *vin, *w;                             /* complex, k columns: V's input and output */
};

int hm_evolution_options_default(hm_evolution_options *opt) {
  HM_CHECK(opt, HM_ERR_ARGUMENT, "opt is NULL");
  memset(opt, 0, sizeof *opt);
  opt->dt = 0.1;
  opt->accuracy = 1e-12;
  opt->bounds = HM_BOUNDS_LANCZOS;
  opt->lanczos_steps = 40;
  opt->bounds_margin = 0.05;
  opt->seed = 1;
  return HM_SUCCESS;
}

static int check_options(const hm_evolution_options *o, int vectors) {
  HM_CHECK(vectors >= 1, HM_ERR_ARGUMENT, "vectors = %d, must be >= 1", vectors);
  HM_CHECK(isfinite(o->dt) && o->dt > 0, HM_ERR_ARGUMENT, "dt = %g, must be finite and > 0", o->dt);
  HM_CHECK(o->accuracy >= 1e-15 && o->accuracy <= 0.1, HM_ERR_ARGUMENT, "accuracy = %g, must be in [1e-15, 0.1]",
           o->accuracy);
  HM_CHECK(o->bounds == HM_BOUNDS_LANCZOS || o->bounds == HM_BOUNDS_GERSHGORIN || o->bounds == HM_BOUNDS_GIVEN,
           HM_ERR_ARGUMENT, "bounds = %d, must be HM_BOUNDS_LANCZOS (0), GERSHGORIN (1) or GIVEN (2)", (int)o->bounds);
  HM_CHECK(o->bounds_margin >= 0 && o->bounds_margin <= 1, HM_ERR_ARGUMENT, "bounds_margin = %g, must be in [0, 1]",
           o->bounds_margin);
  HM_CHECK(o->bounds != HM_BOUNDS_LANCZOS || o->lanczos_steps >= 2, HM_ERR_ARGUMENT,
           "lanczos_steps = %d, must be >= 2", o->lanczos_steps);
  HM_CHECK(o->bounds != HM_BOUNDS_GIVEN || (isfinite(o->emin) && isfinite(o->emax) && o->emin < o->emax),
           HM_ERR_ARGUMENT, "given bounds [%g, %g] must be finite with emin < emax", o->emin, o->emax);
  return HM_SUCCESS;
}

static int find_interval(hm_evolution *e) {
  const hm_evolution_options *o = &e->opt;
  if (o->bounds == HM_BOUNDS_GIVEN) {
    e->emin = o->emin;
    e->emax = o->emax;
  } else if (o->bounds == HM_BOUNDS_LANCZOS) {
    HM_CALL(hm_lanczos_bounds(e->H, o->lanczos_steps, o->seed, o->bounds_margin, &e->emin, &e->emax));
  } else {
    double lo, hi;
    HM_CALL(hm_matrix_gershgorin(e->H, &lo, &hi));
    double pad = o->bounds_margin * (hi - lo);
    e->emin = lo - pad;
    e->emax = hi + pad;
  }
  if (!(e->emax - e->emin > 1e-300)) { /* a multiple of the identity: any interval around it works */
    e->emin -= 1;
    e->emax += 1;
  }
  e->scale = 2.0 / (e->emax - e->emin);
  e->shift = 0.5 * (e->emax + e->emin);
  return HM_SUCCESS;
}

/* c_n = (2 - delta_n0) (-i)^n J_n(a dt) e^{-i b dt}, a = 1 / scale, b = shift. */
static int make_coefficients(hm_evolution *e) {
  const double x = e->opt.dt / e->scale;
  double *J;
  HM_CALL(hm_bessel_order(x, e->opt.accuracy, &e->order, &J));
  double complex *c = malloc(sizeof *c * (size_t)e->order);
  if (!c) { free(J); HM_RAISE(HM_ERR_MEMORY, "%d coefficients", e->order); }
  const double complex phase = cexp(-I * e->shift * e->opt.dt);
  static const double complex minus_i_pow[4] = {1, -I, -1, I};
  for (int n = 0; n < e->order; n++) c[n] = (n ? 2.0 : 1.0) * minus_i_pow[n % 4] * J[n] * phase;
  free(J);
  e->c = c;
  return HM_SUCCESS;
}

int hm_evolution_create(hm_matrix *H, int vectors, const hm_evolution_options *opt, hm_evolution **ev) {
  HM_CHECK(H && opt && ev, HM_ERR_ARGUMENT, "H, opt or ev is NULL");
  *ev = NULL;
  HM_CALL(check_options(opt, vectors));
  HM_CALL(hm_matrix_require_hermitian(H, "time evolution"));
  hm_evolution *e;
  HM_MALLOC(e, 1);
  e->H = H;
  e->opt = *opt;
  e->k = vectors;
  e->kk = H->type == HM_COMPLEX ? vectors : 2 * vectors;
  int st = find_interval(e);
  if (!st) st = make_coefficients(e);
  struct hm_mvec_s **blocks[3] = {&e->psi, &e->t1, &e->acc};
  for (int i = 0; i < 3 && !st; i++)
    st = hm_mvec_create_with_halo(H->ctx, &H->dist, H->type, e->kk, H->halo.nhalo, blocks[i]);
  if (!st) st = H->ctx->kernels->alloc(sizeof(double) * 2 * (size_t)e->kk, (void **)&e->dots);
  if (st) {
    hm_evolution_destroy(&e);
    return st;
  }
  *ev = e;
  return HM_SUCCESS;
}

int hm_evolution_destroy(hm_evolution **ev) {
  if (!ev || !*ev) return HM_SUCCESS;
  hm_evolution *e = *ev;
  struct hm_mvec_s **blocks[10] = {&e->psi, &e->t1, &e->acc, &e->chi, &e->chi_t1, &e->chi_acc,
                                   &e->d_a, &e->d_b, &e->vin, &e->w};
  for (int i = 0; i < 10; i++) hm_mvec_destroy(blocks[i]);
  if (e->dots) e->H->ctx->kernels->release(e->dots);
  free(e->c);
  free(e);
  *ev = NULL;
  return HM_SUCCESS;
}

/* y := a x + b y, the same real a and b for every column (H's type). With b = 0, y is not read (the
 * kernels follow BLAS), so a = b = 0 with a finite x zeroes y even where its memory was never set. */
static int scale_add(hm_evolution *e, double a, const double *x, double b, double *y) {
  const int kk = e->kk, t = e->H->type;
  double alpha[2 * kk], beta[2 * kk];
  memset(alpha, 0, sizeof alpha);
  memset(beta, 0, sizeof beta);
  for (int j = 0; j < kk; j++) {
    alpha[j * t] = a;
    beta[j * t] = b;
  }
  return e->H->ctx->kernels->axpby(e->H->type, e->H->dist.local, kk, alpha, x, beta, y);
}

/* psi must be a complex block of the state's width over H's rows. */
static int check_state_block(const hm_evolution *e, const hm_mvec *psi, const char *name) {
  HM_CHECK(psi->type == HM_COMPLEX, HM_ERR_ARGUMENT, "%s is real: the state is a complex block", name);
  HM_CHECK(psi->k == e->k, HM_ERR_ARGUMENT, "%s has %d columns; the evolution was made for vectors = %d", name, psi->k,
           e->k);
  HM_CHECK(psi->dist.n_global == e->H->dist.n_global && psi->dist.first == e->H->dist.first &&
               psi->dist.local == e->H->dist.local,
           HM_ERR_ARGUMENT, "%s is distributed differently from H (rows %lld from %lld of %lld, H has %lld from %lld of %lld)",
           name, (long long)psi->dist.local, (long long)psi->dist.first, (long long)psi->dist.n_global,
           (long long)e->H->dist.local, (long long)e->H->dist.first, (long long)e->H->dist.n_global);
  return HM_SUCCESS;
}

/* The local rows of a complex block and of the state have the same bytes whatever H's type. */
int hm_evolution_set_state(hm_evolution *e, const hm_mvec *psi) {
  HM_CHECK(e && psi, HM_ERR_ARGUMENT, "ev or psi is NULL");
  HM_CALL(check_state_block(e, psi, "psi"));
  HM_CALL(e->H->ctx->kernels->copy(e->psi->data, psi->data, sizeof(double) * 2 * (size_t)e->k * (size_t)psi->dist.local));
  if (e->V) HM_CALL(scale_add(e, 0, e->psi->data, 0, e->chi->data)); /* [X, U(0)] = 0 */
  e->steps_done = 0;
  return HM_SUCCESS;
}

int hm_evolution_get_state(const hm_evolution *e, hm_mvec *psi) {
  HM_CHECK(e && psi, HM_ERR_ARGUMENT, "ev or psi is NULL");
  HM_CALL(check_state_block(e, psi, "psi"));
  HM_CALL(e->H->ctx->kernels->copy(psi->data, e->psi->data, sizeof(double) * 2 * (size_t)e->k * (size_t)psi->dist.local));
  return HM_SUCCESS;
}

/* acc = alpha x + beta acc with one complex alpha, beta for every column (on the complex view). */
static int add_term(hm_evolution *e, double complex alpha, const double *x, double complex beta, double *acc) {
  const int k = e->k;
  double a[2 * k], b[2 * k];
  for (int j = 0; j < k; j++) {
    a[2 * j] = creal(alpha); a[2 * j + 1] = cimag(alpha);
    b[2 * j] = creal(beta); b[2 * j + 1] = cimag(beta);
  }
  return e->H->ctx->kernels->axpby(HM_COMPLEX, e->H->dist.local, k, a, x, b, acc);
}

/* W = 2 Ht V - W over all rows, the halo exchange of V overlapped with the interior rows. */
static int chebyshev_step(hm_evolution *e, struct hm_mvec_s *V, struct hm_mvec_s *W) {
  return hm_matrix_chebyshev_step(e->H, e->scale, e->shift, V, W, e->dots);
}

/* dst := T_1 = scale (H - shift) src. */
static int first_term(hm_evolution *e, struct hm_mvec_s *src, struct hm_mvec_s *dst) {
  HM_CALL(hm_matrix_apply(e->H, src, dst));
  return scale_add(e, -e->scale * e->shift, src->data, e->scale, dst->data);
}

/* w := V x (x a block of the state's shape, copied to V's complex input). */
static int apply_velocity(hm_evolution *e, const struct hm_mvec_s *x) {
  HM_CALL(e->H->ctx->kernels->copy(e->vin->data, x->data, sizeof(double) * 2 * (size_t)e->k * (size_t)e->H->dist.local));
  return hm_matrix_apply(e->V, e->vin, e->w);
}

/* D_n := 2 Ht D_{n-1} - D_{n-2} + 2 scale i V T_{n-1} psi into dprev (which held D_{n-2});
 * tpsi = T_{n-1} psi, dcur = D_{n-1}. */
static int commutator_term(hm_evolution *e, struct hm_mvec_s *tpsi, struct hm_mvec_s *dcur,
                           struct hm_mvec_s *dprev) {
  HM_CALL(apply_velocity(e, tpsi));
  HM_CALL(chebyshev_step(e, dcur, dprev));
  return add_term(e, 2 * e->scale * I, e->w->data, 1, dprev->data);
}

/* psi := sum_n c_n T_n(Ht) psi; with a commutator also chi := sum_n c_n (T_n(Ht) chi + D_n). */
static int one_step(hm_evolution *e) {
  const int comm = e->V != NULL;
  HM_CALL(add_term(e, e->c[0], e->psi->data, 0, e->acc->data));
  HM_CALL(first_term(e, e->psi, e->t1));
  HM_CALL(add_term(e, e->c[1], e->t1->data, 1, e->acc->data));
  /* D_0 = 0 (d_a), D_1 = scale i V psi (d_b) */
  struct hm_mvec_s *dprev = e->d_a, *dcur = e->d_b;
  if (comm) {
    HM_CALL(add_term(e, e->c[0], e->chi->data, 0, e->chi_acc->data));
    HM_CALL(first_term(e, e->chi, e->chi_t1));
    HM_CALL(add_term(e, e->c[1], e->chi_t1->data, 1, e->chi_acc->data));
    HM_CALL(scale_add(e, 0, e->psi->data, 0, dprev->data));
    HM_CALL(apply_velocity(e, e->psi));
    HM_CALL(add_term(e, e->scale * I, e->w->data, 0, dcur->data));
    HM_CALL(add_term(e, e->c[1], dcur->data, 1, e->chi_acc->data));
  }
  /* T_0 = psi is not needed after the first recurrence step: its block takes T_2 (and likewise chi's). */
  struct hm_mvec_s *prev = e->psi, *cur = e->t1, *cprev = e->chi, *ccur = e->chi_t1;
  for (int n = 2; n < e->order; n++) {
    if (comm) {
      HM_CALL(commutator_term(e, cur, dcur, dprev)); /* dprev := D_n, from T_{n-1} psi (cur) */
      HM_CALL(add_term(e, e->c[n], dprev->data, 1, e->chi_acc->data));
      const double c[2] = {creal(e->c[n]), cimag(e->c[n])};
      HM_CALL(hm_matrix_chebyshev_step_sum(e->H, e->scale, e->shift, ccur, cprev, e->dots, c, e->chi_acc));
      struct hm_mvec_s *s = dprev; dprev = dcur; dcur = s;
      s = cprev; cprev = ccur; ccur = s;
    }
    const double c[2] = {creal(e->c[n]), cimag(e->c[n])};
    HM_CALL(hm_matrix_chebyshev_step_sum(e->H, e->scale, e->shift, cur, prev, e->dots, c, e->acc)); /* prev := T_n */
    struct hm_mvec_s *s = prev; prev = cur; cur = s;
  }
  struct hm_mvec_s *state = e->acc; /* the accumulator becomes the state, the old state scratch */
  e->acc = e->psi;
  e->psi = state;
  if (comm) {
    state = e->chi_acc;
    e->chi_acc = e->chi;
    e->chi = state;
  }
  e->steps_done++;
  return HM_SUCCESS;
}

int hm_evolution_step(hm_evolution *e, int steps) {
  HM_CHECK(e, HM_ERR_ARGUMENT, "ev is NULL");
  HM_CHECK(steps >= 0, HM_ERR_ARGUMENT, "steps = %d, must be >= 0", steps);
  for (int s = 0; s < steps; s++) HM_CALL(one_step(e));
  return HM_SUCCESS;
}

int hm_evolution_set_commutator(hm_evolution *e, hm_matrix *V) {
  HM_CHECK(e && V, HM_ERR_ARGUMENT, "ev or V is NULL");
  HM_CHECK(V->type == HM_COMPLEX, HM_ERR_ARGUMENT, "V is real: V = i[H, X] is complex (imaginary for a real H)");
  HM_CHECK(V->dist.n_global == e->H->dist.n_global && V->dist.first == e->H->dist.first &&
               V->dist.local == e->H->dist.local,
           HM_ERR_ARGUMENT, "V is distributed differently from H (rows %lld from %lld of %lld, H has %lld from %lld)",
           (long long)V->dist.local, (long long)V->dist.first, (long long)V->dist.n_global, (long long)e->H->dist.local,
           (long long)e->H->dist.first);
  HM_CHECK(V->ctx == e->H->ctx, HM_ERR_ARGUMENT, "V and H belong to different contexts");
  HM_CALL(hm_matrix_require_hermitian(V, "the commutator's V = i[H, X]"));
  struct hm_mvec_s **blocks[5] = {&e->chi, &e->chi_t1, &e->chi_acc, &e->d_a, &e->d_b};
  for (int i = 0; i < 5; i++)
    if (!*blocks[i])
      HM_CALL(hm_mvec_create_with_halo(e->H->ctx, &e->H->dist, e->H->type, e->kk, e->H->halo.nhalo, blocks[i]));
  hm_mvec_destroy(&e->vin); /* sized for this V's halo */
  HM_CALL(hm_mvec_create_with_halo(e->H->ctx, &e->H->dist, HM_COMPLEX, e->k, V->halo.nhalo, &e->vin));
  if (!e->w) HM_CALL(hm_mvec_create_with_halo(e->H->ctx, &e->H->dist, HM_COMPLEX, e->k, 0, &e->w));
  e->V = V;
  HM_CALL(scale_add(e, 0, e->psi->data, 0, e->chi->data)); /* 0 x psi; hm_evolution_set_state zeroes it too */
  return HM_SUCCESS;
}

int hm_evolution_set_commutator_state(hm_evolution *e, const hm_mvec *chi) {
  HM_CHECK(e && chi, HM_ERR_ARGUMENT, "ev or chi is NULL");
  HM_CHECK(e->V, HM_ERR_ARGUMENT, "no commutator: call hm_evolution_set_commutator first");
  HM_CALL(check_state_block(e, chi, "chi"));
  const size_t bytes = sizeof(double) * 2 * (size_t)e->k * (size_t)chi->dist.local;
  HM_CALL(e->H->ctx->kernels->copy(e->chi->data, chi->data, bytes));
  return HM_SUCCESS;
}

int hm_evolution_get_commutator_state(const hm_evolution *e, hm_mvec *chi) {
  HM_CHECK(e && chi, HM_ERR_ARGUMENT, "ev or chi is NULL");
  HM_CHECK(e->V, HM_ERR_ARGUMENT, "no commutator: call hm_evolution_set_commutator first");
  HM_CALL(check_state_block(e, chi, "chi"));
  const size_t bytes = sizeof(double) * 2 * (size_t)e->k * (size_t)chi->dist.local;
  HM_CALL(e->H->ctx->kernels->copy(chi->data, e->chi->data, bytes));
  return HM_SUCCESS;
}

int hm_evolution_info(const hm_evolution *e, int *vectors, int *steps_done, double *time, int *order) {
  HM_CHECK(e, HM_ERR_ARGUMENT, "ev is NULL");
  if (vectors) *vectors = e->k;
  if (steps_done) *steps_done = e->steps_done;
  if (time) *time = e->steps_done * e->opt.dt;
  if (order) *order = e->order;
  return HM_SUCCESS;
}

int hm_evolution_interval(const hm_evolution *e, double *emin, double *emax) {
  HM_CHECK(e && emin && emax, HM_ERR_ARGUMENT, "ev, emin or emax is NULL");
  *emin = e->emin;
  *emax = e->emax;
  return HM_SUCCESS;
}

/* ||psi_j||^2 = sum over its real and imaginary parts, i.e. over the columns 2j, 2j + 1 of a real view. */
int hm_evolution_norms(const hm_evolution *e, double *norms) {
  HM_CHECK(e && norms, HM_ERR_ARGUMENT, "ev or norms is NULL");
  const int k = e->k;
  double dots[2 * k], sums[k];
  HM_CALL(e->H->ctx->kernels->dot(HM_COMPLEX, e->H->dist.local, k, e->psi->data, e->psi->data, dots));
  for (int j = 0; j < k; j++) sums[j] = dots[2 * j];
  HM_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, sums, k, MPI_DOUBLE, MPI_SUM, e->H->ctx->comm));
  for (int j = 0; j < k; j++) norms[j] = sqrt(sums[j]);
  return HM_SUCCESS;
}
