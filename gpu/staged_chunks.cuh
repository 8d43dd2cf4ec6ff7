// How the staged kernels (stencil_staged_cuda.cu: the TI's shape; stencil_box_cuda.cu: 1 and 2
// orbitals) cut a row list's slabs into chunks that thread blocks march along, and which tile and
// chunk a block takes. Blocks are numbered chunk-major: the blocks that run at once work on the same
// chunk of slabs of neighbouring tiles, so the rows they copy are near each other in memory, and a
// chunk has at most a kernel's cap of slabs. On the H100 (bench/README.md) the TI's step
// at N = 10^9, R = 2 went from 1.37x to 1.24x the copy floor with chunks of 16 slabs instead of 1000,
// and R = 2 at 200 x 100 x 40 8% faster from the order alone. A chunk copies 2 slabs more than it computes.
#ifndef HAMLET_STAGED_CHUNKS_CUH
#define HAMLET_STAGED_CHUNKS_CUH
#include <cstdlib>
#include "stencil_exec.h"
#include "tuning.cuh"

namespace {

constexpr int64_t kStagedWantBlocks = 1024; // long chunks where the tiles are few

// A positive integer from a tuning variable (tuning.cuh: benchmarks, tests), else `fallback`.
inline int64_t staged_setting(const char *name, int64_t fallback) {
  const char *v = hm_tuning_variable(name);
  const long long n = v ? atoll(v) : 0;
  return n >= 1 && n <= (1 << 24) ? n : fallback;
}

// Slabs per chunk and the chunks of list `list` for `ntiles` tiles: about HAMLET_STENCIL_STAGED_BLOCKS
// blocks (default kStagedWantBlocks), chunks of at most HAMLET_STENCIL_STAGED_CHUNK slabs (default
// max_chunk); chunks never cross a run (the ring holds consecutive slabs).
inline void staged_chunks(const hm_stencil_exec *E, int list, int64_t ntiles, int64_t max_chunk, int64_t *zchunk,
                          int64_t *nzchunks) {
  int64_t unused;
  hm_stencil_zchunks(hm_stencil_list_slabs(E, list), ntiles, staged_setting("HAMLET_STENCIL_STAGED_BLOCKS", kStagedWantBlocks),
                     zchunk, &unused);
  const int64_t cap = staged_setting("HAMLET_STENCIL_STAGED_CHUNK", max_chunk);
  if (*zchunk > cap) *zchunk = cap;
  *nzchunks = 0;
  for (int r = 0; r < E->nruns[list]; r++) *nzchunks += (E->run[list][r][1] - E->run[list][r][0] + *zchunk - 1) / *zchunk;
}

// Block `block`'s tile and its chunk: local slabs [*l0, *l1) of one run of the list.
__device__ __forceinline__ void staged_block(const hm_stencil_exec &E, int list, int64_t ntiles, int64_t zchunk,
                                             int64_t block, int64_t *tile, int64_t *l0, int64_t *l1) {
  *tile = block % ntiles;
  int64_t rem = block / ntiles;
  *l0 = *l1 = 0;
  for (int r = 0; r < E.nruns[list]; r++) {
    const int64_t begin = E.run[list][r][0], end = E.run[list][r][1], n = (end - begin + zchunk - 1) / zchunk;
    if (rem < n) {
      *l0 = begin + rem * zchunk;
      *l1 = *l0 + zchunk < end ? *l0 + zchunk : end;
      return;
    }
    rem -= n;
  }
}

} // namespace
#endif
