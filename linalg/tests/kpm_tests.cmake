hm_add_c_test(test_kpm_fused SOURCES test_kpm_fused.c LABELS cpu)
hm_add_c_test(test_kpm_fused_mpi2 SOURCES test_kpm_fused.c NPROCS 2 LABELS cpu)
hm_add_c_test(test_kpm_ranks SOURCES test_kpm_ranks.c NPROCS 3 LABELS cpu)
hm_add_c_test(test_kpm_exact SOURCES test_kpm_exact.c NPROCS 2 LABELS cpu)
# The OpenMP reduction of the fused kernel (per-thread partial sums) on 2 threads.
hm_add_test(test_kpm_fused_omp2 COMMAND $<TARGET_FILE:test_kpm_fused> NPROCS 1 THREADS 2 LABELS cpu)
# KPM LDOS (unit start vectors): exact moments and reconstruction, Lorentz kernel vs IDR Green's
# functions, surface vs bulk LDOS of a TI slab; 1 and 2 ranks.
foreach(t test_kpm_ldos test_kpm_ldos_idr test_kpm_ldos_slab)
  hm_add_c_test(${t} SOURCES ${t}.c LABELS cpu)
  hm_add_test(${t}_mpi2 COMMAND $<TARGET_FILE:${t}> NPROCS 2 LABELS cpu)
endforeach()
# Lanczos bounds from adversarial start vectors (constant, staggered, random signs) on small periodic
# square and cubic lattices contain the exact spectrum; KPM widens an interval that misses the top and
# starts again. 1 and 2 ranks, and the GPU against the CPU.
hm_add_c_test(test_lanczos_bounds SOURCES test_lanczos_bounds.c LABELS cpu)
target_include_directories(test_lanczos_bounds PRIVATE ${CMAKE_SOURCE_DIR}/linalg/kpm)
hm_add_test(test_lanczos_bounds_mpi2 COMMAND $<TARGET_FILE:test_lanczos_bounds> NPROCS 2 LABELS cpu)
hm_add_test(test_lanczos_bounds_cuda COMMAND $<TARGET_FILE:test_lanczos_bounds> cuda NPROCS 1 LABELS gpu)
