// SELL-C-sigma copies of the local matrix on the device, and the SpMMV / fused KPM step on them
// (the table's prepare / unprepare entries and the fast path of its spmmv / kpm_step).
#ifndef HAMLET_SELL_CUDA_H
#define HAMLET_SELL_CUDA_H
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif
int hm_cuda_prepare(hm_scalar type, const struct hm_csr_view *A, int nlists, const int32_t *const *rows,
                    const int32_t *counts, const int32_t *const *keys, int choice, int sigma, void **format);
void hm_cuda_unprepare(void *format);

// The products on the SELL copy made for the row list `rows` (matched by its device pointer and
// length); *done = 0 where the format holds no copy of that list (the caller falls back to CSR).
int hm_cuda_sell_spmmv(const void *format, hm_scalar type, int k, const int32_t *rows, int32_t nrows,
                       const double *x, double *y, int *done);
int hm_cuda_sell_kpm_step(const void *format, hm_scalar type, int k, const int32_t *rows, int32_t nrows,
                          double scale, double shift, const double *V, double *W, double *dots, int *done);

// What was chosen for list `list`: chunk height, sorting window, stored / true entries.
int hm_cuda_sell_info(const void *format, int list, int *chunk, int *sigma, double *fill);

// The block copy (block_cuda.h) of list `list` in *block, NULL where none was made. The first KPM
// step that can take it makes it (HM_FORMAT_AUTO, complex, where it pays); make = 1 makes it now.
int hm_cuda_sell_block(const void *format, int list, int make, const void **block);
// The kernel table's block_info: whether list `list` has a block copy, its vector rows read per
// matrix row and stored / all value blocks (none: 0, 0, 1).
int hm_cuda_sell_block_info(const void *format, int list, int *made, double *reads, double *distinct);

// Launch knobs for benchmarks (the defaults are the measured best; see bench/README.md).
typedef struct {
  int max_lanes;       // lanes across the columns of a row, at most (1, 2, 4, 8, 16 or 32)
  int rows_per_pass;   // row groups a lane accumulates per pass over a chunk's slots (8, 16 or 32)
  int warps_per_block; // 1 to 8
  int prefer_l1;       // 1: smallest shared-memory carve-out (largest L1) for these kernels
  int spmmv_max_k;     // spmmv on the SELL copy up to this block width, on the CSR arrays above it
  int kpm_max_k;       // the same for kpm_step, except where the block copy takes it:
  int block_kpm_min_k; // kpm_step on the block copy (block_cuda.h) from this width
} hm_sell_tuning;
void hm_cuda_sell_tuning(const hm_sell_tuning *set, hm_sell_tuning *get);
// The CSR KPM kernel's register cap for benchmarks (kernels_cuda.cu): blocks per SM it must allow
// (1 = no cap; 4 or 8); set <= 0 leaves it.
void hm_cuda_csr_min_blocks(int set, int *get);
// The CSR product kernels' traversal for benchmarks (kernels_cuda.cu): blocks per group and tiles
// per block; set <= 0 leaves a value.
void hm_cuda_csr_traversal(int set_group, int set_iters, int *group, int *iters);
#ifdef __cplusplus
}
#endif
#endif
