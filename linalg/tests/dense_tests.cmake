# Dense eigensolvers (linalg/dense): LAPACK against analytic spectra, the distributed paths
# (ScaLAPACK and gathered) against each other on 1, 2 and 4 ranks.
hm_add_c_test(test_dense_lapack SOURCES test_dense_lapack.c LABELS cpu)
hm_add_c_test(test_dense_matrix SOURCES test_dense_matrix.c dense_check.c LABELS cpu)
hm_add_test(test_dense_matrix_mpi2 COMMAND $<TARGET_FILE:test_dense_matrix> NPROCS 2 LABELS cpu)
# 4 ranks on CI's 2 cores: ScaLAPACK's many small collectives crawl when oversubscribed, so this
# run checks ScaLAPACK with vectors on two problems only (real standard, complex generalized).
hm_add_test(test_dense_matrix_mpi4 COMMAND $<TARGET_FILE:test_dense_matrix> quick NPROCS 4 LABELS cpu)
# cuSOLVER against LAPACK (skipped without a GPU), and the distributed paths on a CUDA context.
hm_add_c_test(test_dense_gpu SOURCES test_dense_gpu.c LABELS gpu)
hm_add_test(test_dense_matrix_cuda COMMAND $<TARGET_FILE:test_dense_matrix> cuda NPROCS 1 LABELS gpu)
hm_add_test(test_dense_matrix_cuda_mpi2 COMMAND $<TARGET_FILE:test_dense_matrix> cuda NPROCS 2 LABELS gpu)
# hamlet's tridiagonal divide and conquer on the host against LAPACK.
hm_add_c_test(test_dense_tridiagonal SOURCES test_dense_tridiagonal.c LABELS cpu)
target_include_directories(test_dense_tridiagonal PRIVATE ${CMAKE_SOURCE_DIR}/linalg/dense ${CMAKE_SOURCE_DIR}/linalg/core)
hm_add_test(test_dense_tridiagonal_cuda COMMAND $<TARGET_FILE:test_dense_tridiagonal> cuda NPROCS 1 LABELS gpu)
# hamlet's distributed two-stage solver on 1, 2, 3, 4 and 6 ranks against LAPACK on matrices that
# break eigensolvers.
hm_add_c_test(test_dense_distributed SOURCES test_dense_distributed.c dense_check.c LABELS cpu)
target_include_directories(test_dense_distributed PRIVATE ${CMAKE_SOURCE_DIR}/linalg/dense ${CMAKE_SOURCE_DIR}/linalg/core)
foreach(p 2 3)
  hm_add_test(test_dense_distributed_mpi${p} COMMAND $<TARGET_FILE:test_dense_distributed> NPROCS ${p} LABELS cpu)
endforeach()
foreach(p 4 6) # fewer cases: every collective crawls on CI's 2 cores
  hm_add_test(test_dense_distributed_mpi${p} COMMAND $<TARGET_FILE:test_dense_distributed> quick NPROCS ${p} LABELS cpu)
endforeach()
# The same with the columns on the GPU: one device for 1, 2 and 3 ranks (skipped without one).
foreach(p 1 2 3)
  hm_add_test(test_dense_distributed_cuda_mpi${p} COMMAND $<TARGET_FILE:test_dense_distributed> cuda NPROCS ${p} LABELS gpu)
endforeach()
# hm_dense_eigh_distributed on ScaLAPACK-distributed arrays, every grid of 1, 2, 3 and 4 ranks.
hm_add_c_test(test_dense_distributed_arrays SOURCES test_dense_distributed_arrays.c LABELS cpu)
target_include_directories(test_dense_distributed_arrays PRIVATE ${CMAKE_SOURCE_DIR}/linalg/dense ${CMAKE_SOURCE_DIR}/linalg/core)
foreach(p 2 3 4)
  hm_add_test(test_dense_distributed_arrays_mpi${p} COMMAND $<TARGET_FILE:test_dense_distributed_arrays> NPROCS ${p} LABELS cpu)
endforeach()
