# Every test runs OpenBLAS's SSE3 kernels (OPENBLAS_CORETYPE=Prescott): Debian 12's OpenBLAS 0.3.21
# zgemv_n for AVX cores (SkylakeX, Sandybridge) reads past its buffers (OpenBLAS issue 4013, fixed
# upstream), which crashed zheevd in 16 of 120 runs of test_kpm_exact with 3 threads here and once
# in test_dense_matrix_mpi4; with Prescott's kernels, 0 of 120.
set(HM_TEST_BLAS_ENV "OPENBLAS_CORETYPE=Prescott")

# hm_add_test(NAME COMMAND cmd args... [NPROCS n] [THREADS t] [LABELS l...])
# One helper for every test so labels and MPI launch are uniform. GPU tests return 77 (skip)
# when no device is visible.
function(hm_add_test name)
  cmake_parse_arguments(T "" "NPROCS;THREADS" "COMMAND;LABELS" ${ARGN})
  if(NOT T_NPROCS)
    set(T_NPROCS 1)
  endif()
  if(NOT T_THREADS)
    set(T_THREADS 1)
  endif()
  set(cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NPROCS} ${T_COMMAND})
  add_test(NAME ${name} COMMAND ${cmd} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set(labels ${T_LABELS})
  if(T_NPROCS GREATER 1)
    list(APPEND labels mpi)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77
                       PROCESSORS ${T_NPROCS}
                       ENVIRONMENT "${HM_TEST_BLAS_ENV};OMP_NUM_THREADS=${T_THREADS};HAMLET_SOURCE_DIR=${CMAKE_SOURCE_DIR};HAMLET_BINARY_DIR=${CMAKE_BINARY_DIR}")
endfunction()

# hm_add_c_test(NAME SOURCES... [NPROCS n] [LABELS ...] [LIBS ...]): build a C test and register it.
function(hm_add_c_test name)
  cmake_parse_arguments(T "" "NPROCS" "SOURCES;LABELS;LIBS;ARGS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE hamlet_testing ${T_LIBS})
  if(NOT T_NPROCS)
    set(T_NPROCS 1)
  endif()
  hm_add_test(${name} COMMAND $<TARGET_FILE:${name}> ${T_ARGS} NPROCS ${T_NPROCS} LABELS ${T_LABELS})
endfunction()

# hm_add_script_test(NAME SCRIPT file [ARGS ...] [LABELS ...] [PROCESSORS n]): a bash test that drives
# the hamlet program itself (it launches mpiexec as it needs). Gets HAMLET (the program), MPIEXEC,
# SOURCE_DIR. PROCESSORS: the most processes it runs at once (default 2); ctest never runs tests
# beside it beyond -j, since MPI ranks that share a core wait a time slice for every message.
function(hm_add_script_test name)
  cmake_parse_arguments(T "" "SCRIPT;PROCESSORS" "ARGS;LABELS" ${ARGN})
  if(NOT T_PROCESSORS)
    set(T_PROCESSORS 2)
  endif()
  add_test(NAME ${name} COMMAND bash ${T_SCRIPT} ${T_ARGS} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" SKIP_RETURN_CODE 77
                       PROCESSORS ${T_PROCESSORS}
                       ENVIRONMENT "${HM_TEST_BLAS_ENV};OMP_NUM_THREADS=1;HAMLET=$<TARGET_FILE:hamlet_app>;HAMLET_TESTHOOKS=$<TARGET_FILE:hamlet_testhooks>;MPIEXEC=${MPIEXEC_EXECUTABLE};SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endfunction()

# hm_add_omp3_variants(test...): rerun each one-rank C test with 3 OpenMP threads (NAME_omp3), so
# every OpenMP kernel and builder is checked with an uneven thread split as well as with 1 thread.
function(hm_add_omp3_variants)
  foreach(t ${ARGN})
    hm_add_test(${t}_omp3 COMMAND $<TARGET_FILE:${t}> NPROCS 1 THREADS 3 LABELS cpu)
  endforeach()
endfunction()
