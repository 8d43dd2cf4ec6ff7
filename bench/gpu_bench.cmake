# GPU KPM / SpMV benchmark (CUDA builds only): hamlet's CUDA kernels next to cuSPARSE + cuBLAS
# compositions and the device memory roofline. Figures come from full runs (bench/README.md).

# hm_add_bad_options_test(TARGET "ARGS|MESSAGE"...): TARGET run with each ARGS exits 2 and prints
# MESSAGE (bad_options.sh); the benchmarks parse their options before they look for a device.
function(hm_add_bad_options_test target)
  add_test(NAME ${target}_bad_options COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bad_options.sh $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${target}_bad_options PROPERTIES LABELS "bench")
endfunction()

add_executable(bench_kpm_gpu kpm_gpu_bench.cu)
target_include_directories(bench_kpm_gpu PRIVATE ${CMAKE_SOURCE_DIR}/linalg/core)
target_link_libraries(bench_kpm_gpu PRIVATE hamlet_static CUDA::cusparse CUDA::cublas CUDA::cudart)
# A tiny run keeps it building and checking (a) = (c) on a GPU machine; exits 77 (skip) without a GPU.
hm_add_test(bench_kpm_gpu_smoke COMMAND $<TARGET_FILE:bench_kpm_gpu> --nx 16 --ny 16 --nz 8 --steps 3 NPROCS 1 LABELS gpu bench)
hm_add_bad_options_test(bench_kpm_gpu
                        "--block-sweep 4|--block-sweep needs an integer in [8, 1024], got \"4\""
                        "--R 0|--R needs an integer in [1, 1024]"
                        "--nx 1|--nx needs an integer in [2, 1048576]"
                        "--steps|an option is missing its value"
                        "--bogus 3|unknown option \"--bogus\""
                        "--use-traversal 1,2,3|--use-traversal needs GROUP,TILES"
                        "--nx 2000 --ny 2000 --nz 1000|more than 2^31 - 1 rows"
                        "--block-width -1|--block-width needs an integer in [0, 1048576]")
# SpMM table: hamlet's CUDA spmmv vs cuSPARSE SpMM (row- and column-major) for k = 1..64 on the TI
# lattice and a 27-point stencil, with the copy-bandwidth roofline. Smoke: tiny sizes, 77 without a GPU.
add_executable(bench_spmm_gpu spmm_gpu_bench.cu)
target_include_directories(bench_spmm_gpu PRIVATE ${CMAKE_SOURCE_DIR}/linalg/core)
target_link_libraries(bench_spmm_gpu PRIVATE hamlet_static CUDA::cusparse CUDA::cudart)
hm_add_test(bench_spmm_gpu_smoke COMMAND $<TARGET_FILE:bench_spmm_gpu> --ti 8 8 4 --L 10 --k 1,4,16 NPROCS 1 LABELS gpu bench)
hm_add_bad_options_test(bench_spmm_gpu
                        "--k 1,300|--k needs an integer in [1, 256], got \"300\""
                        "--ti 4 4|--ti nz needs an integer in [2, 1048576]"
                        "--L 2000|--L needs an integer in [2, 1290]"
                        "--bogus 1|unknown option \"--bogus\"")
# Unfused IDR(s): every vector operation one cuBLAS call, cuSPARSE SpMV, s x s systems on the host,
# next to hamlet's fused hm_idr in the same run. Smoke: --check on tiny matrices (both solvers to
# tol, histories and true residuals); exits 77 without a GPU.
add_executable(bench_idr_unfused_gpu idr_unfused_gpu.cu)
target_include_directories(bench_idr_unfused_gpu PRIVATE ${CMAKE_SOURCE_DIR}/linalg/core)
target_link_libraries(bench_idr_unfused_gpu PRIVATE hamlet_static CUDA::cusparse CUDA::cublas CUDA::cudart)
hm_add_test(bench_idr_unfused_gpu_smoke COMMAND $<TARGET_FILE:bench_idr_unfused_gpu> --check --convdiff 20 --ti 6 6 4 --s 2,4 NPROCS 1 LABELS gpu bench)
hm_add_bad_options_test(bench_idr_unfused_gpu
                        "--s 1,99|--s needs an integer in [1, 64], got \"99\""
                        "--tol -1|--tol needs a positive number, got \"-1\""
                        "--outer|an option is missing its value"
                        "--convdiff 5000|--convdiff needs an integer in [0, 1000]")
