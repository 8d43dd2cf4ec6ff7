/* The optical conductivity sigma_ab(omega) from exact-trace moments of a twisted, disordered 4 x 3
 * Qi-Wu-Zhang lattice (components xx, xy):
 *  (a) against the Kubo formula evaluated from dense eigenpairs (the same kernel-damped Chebyshev
 *      series of delta and of both Green's functions, the same eta and energy quadrature) to 1e-8;
 *  (b) omega -> 0 (eta = 0) equals the DC Kubo-Bastin tensor of the same moments;
 *  (c) Kramers-Kronig: Im sigma_xx from the principal-value integral of Re sigma_xx;
 *  (d) the f-sum rule: Int_0^inf Re sigma_xx equals (pi / 2) density 2 pi sum_kl (f_k - f_l) |v_kl|^2 /
 *      (E_l - E_k) / N of the dense eigenpairs (the paramagnetic static response, i.e. the kinetic term);
 * bad inputs. Arguments: backend (cpu | cuda). */
#include "conductivity_testlib.h"

enum { M = 128, C = 2 };
static const double density = 2.0, temp = 0.2, efermi = 0.3;

/* Eigenpairs and velocity matrices in the eigenbasis (column-major). */
typedef struct {
  int64_t n;
  double *w;
  double complex *Va, *Vb;
} eigen_data;

static void to_eigenbasis(int64_t n, const double complex *U, const double complex *X, double complex *out) {
  double complex *tmp = malloc(sizeof(double complex) * n * n);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      double complex acc = 0;
      for (int64_t l = 0; l < n; l++) acc += X[l * n + i] * U[j * n + l];
      tmp[j * n + i] = acc;
    }
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      double complex acc = 0;
      for (int64_t l = 0; l < n; l++) acc += conj(U[i * n + l]) * tmp[j * n + l];
      out[j * n + i] = acc;
    }
  free(tmp);
}

/* sum_n coef[n] T_n(x) */
static double complex chebyshev_sum(int m, const double complex *coef, double x) {
  double complex acc = 0;
  const double th = acos(fmax(-1.0, fmin(1.0, x)));
  for (int n = 0; n < m; n++) acc += coef[n] * cos(n * th);
  return acc;
}

/* The dense Kubo formula: sigma_ab(omega) = i [Pi(omega) - Pi(0)] / omega s density 2 pi with Pi from
 * the eigenpairs, delta and G+- as their damped Chebyshev series evaluated at each eigenvalue. */
static double complex dense_pi(const eigen_data *E, const double *h, double s, double b, double eta, double omega) {
  const int64_t n = E->n;
  const int K = 4 * M;
  double complex d[M], gp[M], gm[M], dx[64], gpx[64], gmx[64], total = 0;
  for (int k = 0; k < K; k++) {
    const double th = M_PI * (k + 0.5) / K, e = cos(th), q = sin(th);
    /* Fermi factor at the node (temp > 0: the midpoint value, as the library's quadrature) */
    const double f = 1 / (1 + exp((e / s + b - efermi) / temp));
    for (int sign = 0; sign < 2; sign++) {
      const double complex z = CMPLX(e + (sign ? -1 : 1) * s * omega, s * eta);
      const double complex r = csqrt(z - 1) * csqrt(z + 1), w = z - r;
      double complex p = 1 / r;
      for (int m = 0; m < M; m++, p *= w) (sign ? gm : gp)[m] = sign ? conj(h[m] * p) : h[m] * p;
    }
    for (int m = 0; m < M; m++) d[m] = h[m] * cos(m * th) / (M_PI * q);
    for (int64_t i = 0; i < n; i++) {
      const double x = s * (E->w[i] - b);
      dx[i] = chebyshev_sum(M, d, x);
      gpx[i] = chebyshev_sum(M, gp, x);
      gmx[i] = chebyshev_sum(M, gm, x);
    }
    double complex acc = 0; /* Tr[va delta vb G+] + Tr[va G- vb delta] in the eigenbasis */
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++)
        acc += E->Va[j * n + i] * E->Vb[i * n + j] * (dx[j] * gpx[i] + gmx[j] * dx[i]);
    total += f * acc * q * (M_PI / K);
  }
  return total / (double)n;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  const int cuda = argc > 1 && !strcmp(argv[1], "cuda");
  if (cuda) HM_TEST_NEED_GPU();
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  const int64_t cells[3] = {4, 3, 1}, n = 24;
  const int bc[3] = {HM_BC_TWISTED, HM_BC_PERIODIC, HM_BC_OPEN};
  const double twist[3] = {0.37, 0, 0}, lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, tau[6] = {0, 0, 0, 0.25, 0.1, 0};
  double blk[QWZ_BLOCKS * 8], vx[QWZ_BLOCKS * 8], vy[QWZ_BLOCKS * 8];
  qwz_blocks(-1.2, 0.3, blk);
  HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 0, vx));
  HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 1, vy));
  double complex *Hd = malloc(sizeof(double complex) * n * n), *Vd[2];
  stencil_dense(cells, 2, QWZ_BLOCKS, qwz_shift, blk, bc, twist, Hd);
  for (int i = 0; i < n; i++) Hd[i * n + i] += 0.8 * sin(7.1 * i); /* fixed "disorder" */
  for (int a = 0; a < 2; a++) {
    Vd[a] = malloc(sizeof(double complex) * n * n);
    stencil_dense(cells, 2, QWZ_BLOCKS, qwz_shift, a ? vy : vx, bc, twist, Vd[a]);
  }
  hm_matrix *H, *V[2];
  HM_TEST_OK(matrix_from_dense(ctx, n, 2, Hd, &H));
  for (int a = 0; a < 2; a++) HM_TEST_OK(matrix_from_dense(ctx, n, 2, Vd[a], &V[a]));
  hm_matrix *left[C] = {V[0], V[0]}, *right[C] = {V[0], V[1]};

  hm_conductivity_options opt;
  hm_conductivity_options_default(&opt);
  opt.moments = M;
  opt.trace = HM_TRACE_EXACT;
  hm_conductivity *c;
  HM_TEST_OK(hm_conductivity_create(H, C, left, right, &opt, &c));
  HM_TEST_OK(hm_conductivity_run(c));
  double s, b, *mu = malloc(sizeof(double) * 2 * C * M * M);
  HM_TEST_OK(hm_conductivity_info(c, NULL, NULL, NULL, NULL, NULL, &s, &b, NULL));
  HM_TEST_OK(hm_conductivity_moments(c, mu, NULL));

  eigen_data E = {n, malloc(sizeof(double) * n), malloc(sizeof(double complex) * n * n),
                  malloc(sizeof(double complex) * n * n)};
  double complex *U = malloc(sizeof(double complex) * n * n), *Vy = malloc(sizeof(double complex) * n * n);
  hm_test_eigh(n, Hd, E.w, U);
  to_eigenbasis(n, U, Vd[0], E.Va);
  to_eigenbasis(n, U, Vd[1], Vy);
  double h[M];
  HM_TEST_OK(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 0, M, h));
  for (int m = 1; m < M; m++) h[m] *= 2;

  /* (a) against the dense formula, xx and xy, eta = 0.05 and 0, a few frequencies */
  const double freqs[4] = {0.05, 0.7, 2.3, 5.5};
  double sig[C * 4 * 2];
  for (int pass = 0; pass < 2; pass++) {
    const double eta = pass ? 0 : 0.05;
    HM_TEST_OK(hm_conductivity_optical(M, C, mu, s, b, HM_KERNEL_JACKSON, 0, density, eta, 4, freqs, 1, &efermi, 1,
                                       &temp, sig));
    for (int k = 0; k < C; k++) {
      E.Vb = k ? Vy : E.Va;
      const double complex pi0 = dense_pi(&E, h, s, b, eta, 0);
      double worst = 0, largest = 0;
      for (int f = 0; f < 4; f++) {
        const double complex ref = I / freqs[f] * (dense_pi(&E, h, s, b, eta, freqs[f]) - pi0) * s * density * 2 * M_PI;
        const double complex got = sig[2 * (k * 4 + f)] + I * sig[2 * (k * 4 + f) + 1];
        worst = fmax(worst, cabs(got - ref));
        largest = fmax(largest, cabs(ref));
      }
      printf("(a) eta %g component %d: largest |sigma| %.6g, off the dense formula by %.3g\n", eta, k, largest, worst);
      HM_TEST_ASSERT(worst < 1e-8 * largest && largest > 1e-3, "eta %g component %d: %g off the dense formula (largest %g)",
                     eta, k, worst, largest);
    }
  }
  E.Vb = E.Va;

  /* (b) omega -> 0 with eta = 0: the DC tensor of the same moments (T = 0 and T > 0) */
  const double temps[2] = {0, temp}, energies[3] = {-1.0, efermi, 1.7}, tiny = 1e-7;
  double dc[C * 2 * 3], low[C * 2 * 3 * 2];
  HM_TEST_OK(hm_conductivity_sigma(M, C, mu, s, b, HM_KERNEL_JACKSON, 0, density, 3, energies, 2, temps, dc));
  HM_TEST_OK(hm_conductivity_optical(M, C, mu, s, b, HM_KERNEL_JACKSON, 0, density, 0, 1, &tiny, 3, energies, 2, temps,
                                     low));
  for (int i = 0; i < C * 2 * 3; i++) {
    printf("(b) %d: DC %.10g, omega -> 0: %.10g %+.3gi\n", i, dc[i], low[2 * i], low[2 * i + 1]);
    HM_TEST_ASSERT(fabs(low[2 * i] - dc[i]) < 1e-5 * fmax(1, fabs(dc[i])), "entry %d: Re sigma(omega -> 0) = %.10g, DC %.10g",
                   i, low[2 * i], dc[i]);
  }
  for (int i = 0; i < 2 * 3; i++) /* xx: Im sigma vanishes with omega */
    HM_TEST_ASSERT(fabs(low[2 * i + 1]) < 1e-5 * fmax(1, fabs(dc[i])), "Im sigma_xx(omega -> 0) = %g", low[2 * i + 1]);

  /* (c), (d) on a fine grid: sigma_xx with eta = 0.02 up to beyond twice the spectral width */
  const double eta = 0.02, step = 0.004, top = 3.0 * 2 / s;
  const int nw = (int)(top / step);
  double *w = malloc(sizeof(double) * nw), *sw = malloc(sizeof(double) * 2 * nw);
  for (int i = 0; i < nw; i++) w[i] = step * (i + 1);
  HM_TEST_OK(hm_conductivity_optical(M, 1, mu, s, b, HM_KERNEL_JACKSON, 0, density, eta, nw, w, 1, &efermi, 1, &temp, sw));
  /* (d): trapezoid from 0 (Re sigma(0) from the first points, linearly) */
  double fsum = 0.5 * step * (2 * sw[0] - sw[2]);
  for (int i = 0; i + 1 < nw; i++) fsum += 0.5 * step * (sw[2 * i] + sw[2 * i + 2]);
  double kinetic = 0;
  for (int64_t k = 0; k < n; k++)
    for (int64_t l = 0; l < n; l++) {
      const double d = E.w[l] - E.w[k];
      if (fabs(d) < 1e-12) continue;
      const double fk = 1 / (1 + exp((E.w[k] - efermi) / temp)), fl = 1 / (1 + exp((E.w[l] - efermi) / temp));
      kinetic += (fk - fl) * creal(E.Va[l * n + k] * E.Va[k * n + l]) / d;
    }
  kinetic *= 0.5 * M_PI * density * 2 * M_PI / (double)n;
  printf("(d) f-sum: Int Re sigma_xx = %.8g, (pi/2) kinetic term of the eigenpairs = %.8g\n", fsum, kinetic);
  HM_TEST_ASSERT(fabs(fsum - kinetic) < 5e-3 * kinetic && kinetic > 0.1, "f-sum rule: %.8g against %.8g", fsum, kinetic);
  /* (c): Im sigma(w0) = -(2 w0 / pi) PV Int_0^top Re sigma(w) / (w^2 - w0^2) dw, the pole subtracted */
  double worst = 0, largest = 0;
  for (int i0 = 99; i0 < nw / 2; i0 += 211) {
    const double w0 = w[i0], r0 = sw[2 * i0];
    double pv = 0;
    for (int i = 0; i + 1 < nw; i++) {
      double y[2];
      for (int j = 0; j < 2; j++) {
        const int ii = i + j;
        y[j] = ii == i0 ? 0 : (sw[2 * ii] - r0) / (w[ii] * w[ii] - w0 * w0);
      }
      if (i == i0 || i + 1 == i0) { /* the removable point: the derivative of Re sigma over 2 w0 */
        const double dr = (sw[2 * (i0 + 1)] - sw[2 * (i0 - 1)]) / (2 * step) / (2 * w0);
        y[i == i0 ? 0 : 1] = dr;
      }
      pv += 0.5 * step * (y[0] + y[1]);
    }
    /* the subtracted r0 / (w^2 - w0^2) from 0 to top, analytically */
    pv += 0.5 * step * (sw[0] - r0) / (-w0 * w0) + r0 * log(fabs((top - w0) / (top + w0))) / (2 * w0);
    const double im = -2 * w0 / M_PI * pv;
    worst = fmax(worst, fabs(im - sw[2 * i0 + 1]));
    largest = fmax(largest, fabs(sw[2 * i0 + 1]));
    printf("(c) omega %.4f: Im sigma %.6g, Kramers-Kronig of Re %.6g\n", w0, sw[2 * i0 + 1], im);
  }
  HM_TEST_ASSERT(worst < 2e-2 * largest && largest > 0.05, "Kramers-Kronig: %g off (largest Im sigma %g)", worst, largest);

  /* bad inputs */
  const double zero = 0, neg = -0.1;
  HM_TEST_FAILS(hm_conductivity_optical(M, 1, mu, s, b, HM_KERNEL_JACKSON, 0, density, eta, 1, &zero, 1, &efermi, 1,
                                        &temp, sig), HM_ERR_ARGUMENT, "must be finite and > 0");
  HM_TEST_FAILS(hm_conductivity_optical(M, 1, mu, s, b, HM_KERNEL_JACKSON, 0, density, neg, 1, freqs, 1, &efermi, 1,
                                        &temp, sig), HM_ERR_ARGUMENT, "eta = -0.1");
  HM_TEST_FAILS(hm_conductivity_optical(M, 1, mu, s, b, HM_KERNEL_JACKSON, 0, density, eta, 0, freqs, 1, &efermi, 1,
                                        &temp, sig), HM_ERR_ARGUMENT, "frequencies = 0");

  hm_conductivity_destroy(&c);
  hm_matrix_destroy(&H);
  for (int a = 0; a < 2; a++) {
    hm_matrix_destroy(&V[a]);
    free(Vd[a]);
  }
  free(Hd), free(mu), free(E.w), free(E.Va), free(Vy), free(U), free(w), free(sw);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
