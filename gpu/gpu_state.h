// The CUDA backend keeps some state per device, made on first use there (scratch buffers, cuBLAS
// and cuSOLVER handles, page-locked staging, upload slots, a stream), in one slot per device
// (gpu_device.cuh). Each file that keeps some frees the current device's slot in its release
// function; gpu_state.cu makes a device current and calls them all when the last CUDA context on
// that device is destroyed, so a library user who destroys every context gets the device back whole.
#ifndef HAMLET_GPU_STATE_H
#define HAMLET_GPU_STATE_H
void hm_kernels_cuda_release_state();
void hm_kernels_cuda_block_release_state();
void hm_kernels_cuda_idr_release_state();
void hm_sell_cuda_release_state();
void hm_block_cuda_release_state();
void hm_dense_cuda_release_state();
void hm_dense_exec_cuda_release_state();
void hm_peer_cuda_release_state();
void hm_host_to_device_release_state();
#endif
