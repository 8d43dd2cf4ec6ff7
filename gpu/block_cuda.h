// 4 x 4 block copies of a complex matrix's row list on the device and the fused KPM step on them
// with the FP64 tensor cores (block_cuda.cu): for matrices whose rows come in groups of 4 that
// share their neighbours (a lattice site's orbitals or spins), where a group reads each
// neighbour's vector rows once instead of once per entry.
#ifndef HAMLET_BLOCK_CUDA_H
#define HAMLET_BLOCK_CUDA_H
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif
// A block copy of complex A's rows rows[0..n) (host list; 4 consecutive positions make a group).
// always = 0: *copy stays NULL where blocks do not pay (the product would read more than 3/4 of
// the vector rows it reads from CSR, or the blocks hold more than 4 slots per entry), where the
// copy would take more than half of the free device memory, or on a device before sm_80 (no FP64
// mma); 1: made (an error on a device before sm_80).
int hm_cuda_block_build(const struct hm_csr_view *A, const int32_t *rows, int32_t n, int always, void **copy);
void hm_cuda_block_release(void *copy);
// W = 2 scale (A - shift) V - W for the copy's rows with the per-column dots added into dots
// (device, 2k doubles), as the kernel table's kpm_step; any k >= 1.
int hm_cuda_block_kpm_step(const void *copy, int k, double scale, double shift, const double *V, double *W,
                           double *dots);
// Slots (16 per block) / true entries, the vector rows a product reads per matrix row from the
// blocks and from CSR (entries per row), and distinct value blocks stored / blocks. NULL copy: 1,
// 0, 0, 1. Any pointer may be NULL.
void hm_cuda_block_info(const void *copy, double *fill, double *block_reads, double *csr_reads, double *distinct);
// Launch knobs for benchmarks, {column tiles of 8 per warp at most (1 to 7), block loop unrolling
// (1, 2), blocks per SM the register cap must allow (1..4), rounds of consecutive groups a block
// takes before it strides past the other blocks (1..64), how a lane loads x (1: one complex entry,
// 2: one double per column pair)}; 0 (and 7 tiles): the measured defaults for the width (tiles_for
// and pick_* in block_cuda.cu); set or get may be NULL.
void hm_cuda_block_tuning(const int *set, int *get);
#ifdef __cplusplus
}
#endif
#endif
