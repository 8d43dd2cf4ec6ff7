# IDR(s): against LAPACK, convection-diffusion, rank counts, batches, errors, preconditioners, GPU.
hm_add_c_test(test_idr_dense SOURCES test_idr_dense.c LABELS cpu)
hm_add_test(test_idr_dense_mpi3 COMMAND $<TARGET_FILE:test_idr_dense> quick NPROCS 3 LABELS cpu)
hm_add_c_test(test_idr_convdiff SOURCES test_idr_convdiff.c LABELS cpu)
hm_add_test(test_idr_convdiff_omp2 COMMAND $<TARGET_FILE:test_idr_convdiff> NPROCS 1 THREADS 2 LABELS cpu)
hm_add_test(test_idr_convdiff_ranks COMMAND $<TARGET_FILE:test_idr_convdiff> ranks NPROCS 3 LABELS cpu)
hm_add_c_test(test_idr_batch SOURCES test_idr_batch.c LABELS cpu)
hm_add_test(test_idr_batch_mpi2 COMMAND $<TARGET_FILE:test_idr_batch> NPROCS 2 LABELS cpu)
hm_add_c_test(test_idr_errors SOURCES test_idr_errors.c LABELS cpu)
hm_add_test(test_idr_errors_mpi2 COMMAND $<TARGET_FILE:test_idr_errors> NPROCS 2 LABELS cpu)
hm_add_c_test(test_idr_precond SOURCES test_idr_precond.c LABELS cpu)
hm_add_test(test_idr_precond_mpi2 COMMAND $<TARGET_FILE:test_idr_precond> NPROCS 2 LABELS cpu)
hm_add_c_test(test_idr_checkpoint SOURCES test_idr_checkpoint.c NPROCS 2 LABELS cpu)
hm_add_c_test(test_idr_gpu SOURCES test_idr_gpu.c LABELS gpu)
hm_add_test(test_idr_gpu_mpi2 COMMAND $<TARGET_FILE:test_idr_gpu> NPROCS 2 LABELS gpu) # the halo device to device
set_property(TEST test_idr_gpu_mpi2 APPEND PROPERTY ENVIRONMENT HAMLET_HALO_PEER=1)
hm_add_c_test(test_idr_true_residual SOURCES test_idr_true_residual.c LABELS cpu)
hm_add_c_test(test_solver_stop SOURCES test_solver_stop.c NPROCS 1 LABELS cpu)
target_include_directories(test_solver_stop PRIVATE ${CMAKE_SOURCE_DIR}/linalg/lobpcg)
hm_add_test(test_solver_stop_mpi2 COMMAND $<TARGET_FILE:test_solver_stop> NPROCS 2 LABELS cpu)
hm_add_c_test(test_idr_multishift SOURCES test_idr_multishift.c LABELS cpu)
target_include_directories(test_idr_multishift PRIVATE ${CMAKE_SOURCE_DIR}/linalg/idr)
hm_add_test(test_idr_multishift_mpi2 COMMAND $<TARGET_FILE:test_idr_multishift> quick NPROCS 2 LABELS cpu)
hm_add_test(test_idr_multishift_mpi3 COMMAND $<TARGET_FILE:test_idr_multishift> ranks NPROCS 3 LABELS cpu slow)
hm_add_c_test(test_idr_multishift_gpu SOURCES test_idr_multishift_gpu.c LABELS gpu)
target_include_directories(test_idr_multishift_gpu PRIVATE ${CMAKE_SOURCE_DIR}/linalg/idr)
# IDR(s) on shift-and-invert's indefinite systems (no preconditioner) through shell and matrix operators,
# and the library's inner solve itself (MINRES),
# real and complex, 1 and 2 columns: CUDA against the CPU and a dense reference; the cpu variant
# checks the CPU half alone.
hm_add_c_test(test_idr_shell_gpu SOURCES test_idr_shell_gpu.c LABELS gpu)
target_include_directories(test_idr_shell_gpu PRIVATE ${CMAKE_SOURCE_DIR}/linalg/transform) # shifted_solve.h
hm_add_test(test_idr_shell_gpu_mpi2 COMMAND $<TARGET_FILE:test_idr_shell_gpu> NPROCS 2 LABELS gpu)
hm_add_test(test_idr_shell_cpu COMMAND $<TARGET_FILE:test_idr_shell_gpu> cpu NPROCS 1 LABELS cpu)
hm_add_test(test_idr_shell_cpu_mpi2 COMMAND $<TARGET_FILE:test_idr_shell_gpu> cpu NPROCS 2 LABELS cpu)
