/* The optical conductivity sigma_ab(omega) from the 2D Chebyshev moments mu_nm = Tr[v_a T_n v_b T_m] / N
 * of the Kubo-Bastin tensor (the method of Joao and Lopes, J. Phys.: Condens. Matter 32, 125901 (2020):
 * both Green's functions by their Chebyshev series). hbar = 1. The Kubo formula of the current
 * response to a field at frequency omega, in eigenstates k, l of H with occupations f_k, is
 *   sigma_ab(omega) = (i / omega) [Pi_ab(omega) + D_ab] / Omega,
 *   Pi_ab(omega) = sum_kl (f_k - f_l) (v_b)_kl (v_a)_lk / (omega + E_k - E_l + i eta)
 * (the component order of the DC tensor: omega -> 0 gives its Kubo-Bastin form), D_ab the diamagnetic
 * term. Gauge invariance (no Drude weight: disordered or insulating systems, graphene at its Dirac
 * point; a clean metal's omega = 0 peak is not resolved) makes D_ab = -Pi_ab(0), so
 *   sigma_ab(omega) = (i / omega) [Pi_ab(omega) - Pi_ab(0)] / Omega,
 * analytic in the upper half plane (Kramers-Kronig), with omega -> 0 the DC tensor and the f-sum
 * rule Int_0^inf Re sigma_aa = -(pi / 2) Pi_aa(0) / Omega. With f_k = Int dE f(E) delta(E - E_k),
 *   Pi_ab(omega) = Int dE f(E) { Tr[v_a delta(E - H) v_b G+(E + omega)] + Tr[v_a G-(E - omega) v_b delta(E - H)] },
 * G+-(z) = (z -+ i eta - H)^-1. In Chebyshev series of H~ = s (H - b), e = s (E - b), with the
 * kernel's damping g_n (h_n = (2 - delta_n0) g_n):
 *   delta(e - H~) = sum_n h_n cos(n theta) T_n(H~) / (pi sin theta),  e = cos theta,
 *   (z - H~)^-1   = sum_n h_n w^n T_n(H~) / r,  r = sqrt(z - 1) sqrt(z + 1),  w = z - r  (|w| < 1),
 * and G-(z) the complex conjugate series of G+(z*). delta(E - H) = s delta(e - H~), G(E) = s G~(e),
 * dE = de / s and Tr[v_a T_n v_b T_m] = N mu_nm, so Pi carries s N / Omega = s * density:
 *   Pi_ab(omega) = s density Int de f sum_nm mu_nm [d_n(e) G+_m(e + s omega) + G-_n(e - s omega) d_m(e)].
 * The e integral is the DC tensor's quadrature (theta midpoints, K = 4M, the T = 0 step resolved
 * inside its cell). With eta = 0 the kernel alone broadens (G+ at z + i0). */
#include <cblas.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "hamlet/conductivity.h"
#include "occupation.h"

/* c[n] = h_n w^n / r: the damped Chebyshev coefficients of (z - H~)^-1, z = x + i y, y >= 0 (y = 0: +i0). */
static void resolvent_coefficients(int M, const double *h, double x, double y, double complex *c) {
  const double complex z = CMPLX(x, y), r = csqrt(z - 1) * csqrt(z + 1), w = z - r;
  double complex p = 1 / r;
  for (int n = 0; n < M; n++, p *= w) c[n] = h[n] * p;
}

int hm_conductivity_optical(int moments, int ncomp, const double *mu, double scale, double shift, hm_kpm_kernel kernel,
                            double lorentz_lambda, double density, double eta, int nfreq, const double *freqs,
                            int nenergy, const double *energies, int ntemp, const double *temps, double *sigma) {
  HM_CHECK(moments >= 2 && ncomp >= 1 && nenergy >= 1 && ntemp >= 1 && nfreq >= 1, HM_ERR_ARGUMENT,
           "moments = %d (>= 2), components = %d, energies = %d, temperatures = %d, frequencies = %d (each >= 1)",
           moments, ncomp, nenergy, ntemp, nfreq);
  HM_CHECK(mu && energies && temps && freqs && sigma, HM_ERR_ARGUMENT,
           "mu, energies, temps, freqs and sigma must not be NULL");
  HM_CHECK(isfinite(scale) && scale > 0 && isfinite(shift), HM_ERR_ARGUMENT,
           "scale = %g, shift = %g: need a finite scale > 0 and a finite shift", scale, shift);
  HM_CHECK(isfinite(density) && density > 0, HM_ERR_ARGUMENT, "density = %g: orbitals per cell area or volume, > 0",
           density);
  HM_CHECK(isfinite(eta) && eta >= 0, HM_ERR_ARGUMENT, "eta = %g: the broadening must be finite and >= 0", eta);
  for (int t = 0; t < ntemp; t++)
    HM_CHECK(isfinite(temps[t]) && temps[t] >= 0, HM_ERR_ARGUMENT, "temperature %d = %g: must be finite and >= 0", t,
             temps[t]);
  for (int e = 0; e < nenergy; e++)
    HM_CHECK(isfinite(energies[e]), HM_ERR_ARGUMENT, "energy %d = %g: must be finite", e, energies[e]);
  for (int f = 0; f < nfreq; f++)
    HM_CHECK(isfinite(freqs[f]) && freqs[f] > 0, HM_ERR_ARGUMENT,
             "frequency %d = %g: must be finite and > 0 (omega -> 0 is the DC tensor, hm_conductivity_sigma)", f,
             freqs[f]);
  const int M = moments, K = 4 * moments, F = nfreq + 1, TE = ntemp * nenergy; /* frequency 0 first: Pi(0) */
  double *g = malloc(sizeof(double) * M), *occ = malloc(sizeof(double) * (size_t)TE * K);
  double complex *D = malloc(sizeof(double complex) * (size_t)K * M), *A = malloc(sizeof(double complex) * (size_t)K * M);
  double complex *B = malloc(sizeof(double complex) * (size_t)K * M), *c = malloc(sizeof(double complex) * M);
  double complex *P = malloc(sizeof(double complex) * (size_t)F * K);
  int st = !g || !occ || !D || !A || !B || !c || !P;
  if (st) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "no memory for %d moments at %d nodes", M, K);
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_kpm_kernel_factors(kernel, lorentz_lambda, M, g));
  for (int n = 1; n < M; n++) g[n] *= 2; /* h_n */
  for (int k = 0; k < K; k++) {
    const double th = M_PI * (k + 0.5) / K, q = sin(th);
    for (int n = 0; n < M; n++) D[(size_t)k * M + n] = g[n] * cos(n * th) / (M_PI * q);
  }
  for (int t = 0; t < ntemp; t++)
    for (int e = 0; e < nenergy; e++)
      for (int k = 0; k < K; k++)
        occ[((size_t)t * nenergy + e) * K + k] = hm_cell_occupation(k, K, scale, shift, energies[e], temps[t]);
  const double complex one = 1, zero = 0;
  const double y = scale * eta;
  for (int comp = 0; comp < ncomp; comp++) {
    const double complex *m = (const double complex *)mu + (size_t)comp * M * M;
    /* A[k][m] = sum_n d_n(e_k) mu_nm (against G+_m), B[k][n] = sum_m mu_nm d_m(e_k) (against G-_n) */
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, M, M, &one, D, M, m, M, &zero, A, M);
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasTrans, K, M, M, &one, D, M, m, M, &zero, B, M);
    for (int f = 0; f < F; f++) {
      const double w = f ? scale * freqs[f - 1] : 0;
      for (int k = 0; k < K; k++) {
        const double th = M_PI * (k + 0.5) / K, e = cos(th);
        double complex t1 = 0, t2 = 0;
        resolvent_coefficients(M, g, e + w, y, c);
        for (int n = 0; n < M; n++) t1 += A[(size_t)k * M + n] * c[n];
        resolvent_coefficients(M, g, e - w, y, c);
        for (int n = 0; n < M; n++) t2 += B[(size_t)k * M + n] * conj(c[n]);
        P[(size_t)f * K + k] = (t1 + t2) * sin(th) * (M_PI / K);
      }
    }
    for (int te = 0; te < TE; te++) {
      const double *o = occ + (size_t)te * K;
      double complex pi0 = 0;
      for (int k = 0; k < K; k++) pi0 += o[k] * P[k];
      for (int f = 1; f < F; f++) {
        double complex pi = 0;
        for (int k = 0; k < K; k++) pi += o[k] * P[(size_t)f * K + k];
        /* s density Pi in e^2/hbar, times 2 pi: e^2/h */
        const double complex s = I / freqs[f - 1] * (pi - pi0) * scale * density * 2 * M_PI;
        double *out = sigma + 2 * (((size_t)comp * TE + te) * nfreq + f - 1);
        out[0] = creal(s);
        out[1] = cimag(s);
      }
    }
  }
done:
  free(g), free(occ), free(D), free(A), free(B), free(c), free(P);
  return st;
}
