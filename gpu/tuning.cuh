// The GPU kernels' tuning variables (HAMLET_STENCIL_TILE, HAMLET_STENCIL_STAGED_KINDS,
// HAMLET_STENCIL_STAGED_BLOCKS, HAMLET_STENCIL_STAGED_CHUNK) are for benchmarks and the tests of their
// variants: read only in a build configured with -DHAMLET_TUNING=ON (scripts/gpu_host.sh does), so a
// production build's kernels depend on nothing in the environment.
#ifndef HAMLET_TUNING_CUH
#define HAMLET_TUNING_CUH
#include <cstdlib>

inline const char *hm_tuning_variable(const char *name) {
#ifdef HAMLET_TUNING
  return getenv(name);
#else
  (void)name;
  return nullptr;
#endif
}
#endif
