/* Where the moment matrix's time went (for the benchmark): Chebyshev steps (H products and the
 * recursion's vector updates), velocity products, and the dense Gram products of chunks (with
 * their reduction over ranks). Seconds on this rank, the backend synchronised around each part. */
#ifndef HAMLET_CONDUCTIVITY_TIMING_H
#define HAMLET_CONDUCTIVITY_TIMING_H
#include "hamlet/conductivity.h"
int hm_conductivity_timing(const hm_conductivity *c, double *chebyshev, double *velocity, double *gram);
#endif
