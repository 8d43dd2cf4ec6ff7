# HDF5 results, checkpoints, file comparison, and the DOS plot script.
foreach(np 1 2)
  hm_add_c_test(test_output_np${np} SOURCES test_output.c NPROCS ${np} LABELS cpu)
  hm_add_c_test(test_checkpoint_np${np} SOURCES test_checkpoint.c NPROCS ${np} LABELS cpu)
endforeach()
# Written on 3 ranks, restored on 1, 2 and 3: row ranges that cut across the writer's.
hm_add_c_test(test_checkpoint_np3 SOURCES test_checkpoint.c NPROCS 3 LABELS cpu)
hm_add_c_test(test_compare SOURCES test_compare.c LABELS cpu)
# KPM in passes of [kpm] block vectors: the moments of one pass; a checkpoint inside a pass restarts.
hm_add_c_test(test_kpm_block SOURCES test_kpm_block.c LABELS cpu)
hm_add_test(test_kpm_block_mpi2 COMMAND $<TARGET_FILE:test_kpm_block> NPROCS 2 LABELS cpu)
hm_add_test(test_kpm_block_cuda COMMAND $<TARGET_FILE:test_kpm_block> cuda NPROCS 1 LABELS gpu)
# Two Hamiltonians in one process: each checkpoint carries its own writer's identity.
hm_add_c_test(test_checkpoint_identity SOURCES test_checkpoint_identity.c LABELS cpu)
hm_add_test(test_checkpoint_identity_mpi2 COMMAND $<TARGET_FILE:test_checkpoint_identity> NPROCS 2 LABELS cpu)
foreach(t test_output_np1 test_output_np2 test_checkpoint_np1 test_checkpoint_np2 test_checkpoint_np3 test_compare
        test_checkpoint_identity test_kpm_block)
  target_include_directories(${t} PRIVATE ${HDF5_INCLUDE_DIRS} ${CMAKE_SOURCE_DIR}/io)
endforeach()
set_tests_properties(test_output_np1 PROPERTIES FIXTURES_SETUP output_file)

# The result file is readable by the standard HDF5 tools (skipped without h5dump, failed where required).
hm_add_test(test_output_h5dump COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/h5dump_header.sh output_np1.h5 LABELS cpu)
set_tests_properties(test_output_h5dump PROPERTIES FIXTURES_REQUIRED output_file)

# tools/plot_dos.py draws the DOS of that file (skipped without Debian's h5py and matplotlib).
hm_add_test(test_plot_dos COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_plot_dos.sh ${CMAKE_SOURCE_DIR}/tools/plot_dos.py
            output_np1.h5 LABELS cpu)
set_tests_properties(test_plot_dos PROPERTIES FIXTURES_REQUIRED output_file)
