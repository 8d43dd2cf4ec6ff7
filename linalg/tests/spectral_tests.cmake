# A(k, E) through the public include/hamlet/spectral.h: KPM moments of plane waves on fresh random k
# against the TI's Bloch bands, independent of the orbital positions, A integrating to the orbitals;
# 3 ranks; the device against the CPU (gpu).
hm_add_c_test(test_spectral_start SOURCES test_spectral_start.c LABELS cpu)
hm_add_test(test_spectral_start_mpi3 COMMAND $<TARGET_FILE:test_spectral_start> cpu NPROCS 3 LABELS cpu mpi)
hm_add_test(test_spectral_start_cuda COMMAND $<TARGET_FILE:test_spectral_start> cuda NPROCS 1 LABELS gpu)
