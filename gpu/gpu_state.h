// The CUDA backend keeps some state for the process, made on first use (scratch buffers, cuBLAS
// and cuSOLVER handles, page-locked staging, upload slots, a stream). Each file that keeps some
// frees it in its release function; gpu_state.cu calls them all when the last CUDA context of the
// process is destroyed, so a library user who destroys every context gets the device back whole.
#ifndef HAMLET_GPU_STATE_H
#define HAMLET_GPU_STATE_H
void hm_kernels_cuda_release_state();
void hm_kernels_cuda_block_release_state();
void hm_kernels_cuda_idr_release_state();
void hm_sell_cuda_release_state();
void hm_block_cuda_release_state();
void hm_dense_cuda_release_state();
void hm_peer_cuda_release_state();
void hm_host_to_device_release_state();
#endif
