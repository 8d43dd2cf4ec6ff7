# LOBPCG: against dense LAPACK, the TI lattice's analytic spectrum, options and robustness, rank
# counts, and the GPU against the CPU.
hm_add_c_test(test_lobpcg_dense SOURCES test_lobpcg_dense.c LABELS cpu)
hm_add_test(test_lobpcg_dense_mpi2 COMMAND $<TARGET_FILE:test_lobpcg_dense> NPROCS 2 LABELS cpu)
hm_add_c_test(test_lobpcg_ti SOURCES test_lobpcg_ti.c LABELS cpu)
hm_add_test(test_lobpcg_ti_mpi2 COMMAND $<TARGET_FILE:test_lobpcg_ti> NPROCS 2 LABELS cpu)
hm_add_c_test(test_lobpcg_solver SOURCES test_lobpcg_solver.c LABELS cpu)
hm_add_test(test_lobpcg_solver_mpi2 COMMAND $<TARGET_FILE:test_lobpcg_solver> NPROCS 2 LABELS cpu)
hm_add_c_test(test_lobpcg_ranks SOURCES test_lobpcg_ranks.c NPROCS 2 LABELS cpu)
hm_add_c_test(test_lobpcg_gpu SOURCES test_lobpcg_gpu.c LABELS gpu)
hm_add_test(test_lobpcg_gpu_mpi2 COMMAND $<TARGET_FILE:test_lobpcg_gpu> NPROCS 2 LABELS gpu) # the halo device to device
set_property(TEST test_lobpcg_gpu_mpi2 APPEND PROPERTY ENVIRONMENT HAMLET_HALO_PEER=1)
hm_add_c_test(test_lobpcg_fem SOURCES test_lobpcg_fem.c LABELS cpu)
target_include_directories(test_lobpcg_fem PRIVATE ${CMAKE_SOURCE_DIR}/linalg/lobpcg) # lobpcg_report.h
hm_add_test(test_lobpcg_fem_mpi2 COMMAND $<TARGET_FILE:test_lobpcg_fem> NPROCS 2 LABELS cpu)
# The solvers' internal block operations (LOBPCG's fused residual pass, Gram blocks on a column
# range) against the compositions they replace: 1 and 2 ranks, two threads, and on the GPU.
hm_add_c_test(test_mvec_internal SOURCES test_mvec_internal.c LABELS cpu)
hm_add_test(test_mvec_internal_mpi2 COMMAND $<TARGET_FILE:test_mvec_internal> NPROCS 2 LABELS cpu)
hm_add_test(test_mvec_internal_omp2 COMMAND $<TARGET_FILE:test_mvec_internal> NPROCS 1 THREADS 2 LABELS cpu)
hm_add_test(test_mvec_internal_cuda COMMAND $<TARGET_FILE:test_mvec_internal> cuda NPROCS 1 LABELS gpu)
# A stiff SPD pencil (springs over decades, lumped masses): every eigenvalue within its error bound of
# LAPACK's, and nothing called converged that is not accurate to tol.
hm_add_c_test(test_lobpcg_stiff SOURCES test_lobpcg_stiff.c LABELS cpu)
target_include_directories(test_lobpcg_stiff PRIVATE ${CMAKE_SOURCE_DIR}/linalg/lobpcg)
hm_add_test(test_lobpcg_stiff_mpi2 COMMAND $<TARGET_FILE:test_lobpcg_stiff> NPROCS 2 LABELS cpu)
