/* Counter-based random numbers: a value depends only on (seed, stream, counter), so random
 * vectors and disorder are the same on any number of ranks. SplitMix64 finalizer rounds over
 * the three words (a strong 64-bit mixer; not for cryptography). */
#ifndef HAMLET_RANDOM_H
#define HAMLET_RANDOM_H
#include <math.h>
#include <stdint.h>

/* The same functions in CUDA kernels (hm_mvec_random_phase on the device gives the host's values). */
#ifdef __CUDACC__
#define HM_RANDOM_FN static inline __host__ __device__
#else
#define HM_RANDOM_FN static inline
#endif

HM_RANDOM_FN uint64_t hm_mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

HM_RANDOM_FN uint64_t hm_random_u64(uint64_t seed, uint64_t stream, uint64_t counter) {
  return hm_mix64(hm_mix64(hm_mix64(seed) ^ stream) ^ counter);
}

/* Uniform in [0, 1) with 53 random bits. */
HM_RANDOM_FN double hm_random_uniform(uint64_t seed, uint64_t stream, uint64_t counter) {
  return (double)(hm_random_u64(seed, stream, counter) >> 11) * 0x1.0p-53;
}

/* One entry of a random-phase vector (hm_mvec_random_phase), out[0] (and out[1] where complex):
 * e^(2 pi i u) or, real, the sign -1 / +1; the host loop and the CUDA kernel both call this.
 * 6.283185307179586 is 2 M_PI as a double (exact). */
HM_RANDOM_FN void hm_random_phase_entry(uint64_t seed, uint64_t stream, uint64_t counter, int complex_,
                                        double *out) {
  const double u = hm_random_uniform(seed, stream, counter);
  if (complex_) {
    out[0] = cos(6.283185307179586 * u);
    out[1] = sin(6.283185307179586 * u);
  } else {
    out[0] = u < 0.5 ? -1.0 : 1.0;
  }
}

/* One entry of a Gaussian vector (hm_mvec_random_gauss), out[0] (and out[1] where complex), by
 * Box-Muller from two uniforms of the same (seed, stream, counter): real N(0, 1), or complex with
 * independent N(0, 1/2) parts. Unlike a random sign or phase, such a vector is orthogonal to a given
 * vector with probability zero, whatever the matrix's symmetries (a Krylov method started from it
 * sees every eigenvector); the host loop and the CUDA kernel both call this. */
HM_RANDOM_FN void hm_random_gauss_entry(uint64_t seed, uint64_t stream, uint64_t counter, int complex_,
                                        double *out) {
  const uint64_t bits = hm_random_u64(seed, stream, counter);
  const double u1 = 1.0 - (double)(bits >> 11) * 0x1.0p-53;                   /* (0, 1]: the log is finite */
  const double u2 = (double)(hm_mix64(bits ^ 0x6761757373ULL) >> 11) * 0x1.0p-53; /* a second, independent word */
  const double r = sqrt(-2.0 * log(u1));
  if (complex_) {
    out[0] = 0.7071067811865476 * r * cos(6.283185307179586 * u2);
    out[1] = 0.7071067811865476 * r * sin(6.283185307179586 * u2);
  } else {
    out[0] = r * cos(6.283185307179586 * u2);
  }
}
#endif
