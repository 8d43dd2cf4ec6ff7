# Energy meters against a fake RAPL tree and a fake NVML library; /energy on 1 and 2 ranks.
add_library(fake_nvml MODULE fake_nvml.c)
foreach(np 1 2)
  hm_add_c_test(test_energy_np${np} SOURCES test_energy.c NPROCS ${np} LABELS cpu ARGS $<TARGET_FILE:fake_nvml>)
  target_include_directories(test_energy_np${np} PRIVATE ${HDF5_INCLUDE_DIRS} ${CMAKE_SOURCE_DIR}/io)
  add_dependencies(test_energy_np${np} fake_nvml)
endforeach()
