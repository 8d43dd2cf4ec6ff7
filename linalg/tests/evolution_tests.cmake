# Time evolution: exact propagator (dense eigenvectors), norm, composition, Bessel functions; the
# chain's ballistic 2 t^2; on 1, 2 and 3 ranks; the CUDA backend against the CPU one.
hm_add_c_test(test_evolution_exact SOURCES test_evolution_exact.c LABELS cpu)
target_include_directories(test_evolution_exact PRIVATE ${CMAKE_SOURCE_DIR}/linalg/evolution)
hm_add_test(test_evolution_exact_mpi2 COMMAND $<TARGET_FILE:test_evolution_exact> NPROCS 2 LABELS cpu)
hm_add_test(test_evolution_exact_mpi3 COMMAND $<TARGET_FILE:test_evolution_exact> NPROCS 3 LABELS cpu)
hm_add_c_test(test_evolution_chain SOURCES test_evolution_chain.c LABELS cpu)
hm_add_test(test_evolution_chain_mpi2 COMMAND $<TARGET_FILE:test_evolution_chain> NPROCS 2 LABELS cpu)
hm_add_test(test_evolution_chain_mpi3 COMMAND $<TARGET_FILE:test_evolution_chain> NPROCS 3 LABELS cpu)
hm_add_c_test(test_evolution_gpu SOURCES test_evolution_gpu.c LABELS gpu)
# The time-dependent Kubo-Greenwood mean-square displacement (evolution + KPM): ballistic clean chain, saturation under disorder.
hm_add_c_test(test_evolution_msd SOURCES test_evolution_msd.c LABELS cpu)
hm_add_test(test_evolution_msd_mpi2 COMMAND $<TARGET_FILE:test_evolution_msd> NPROCS 2 LABELS cpu)
# The commutator [X, U(t)] psi carried beside the state: against two propagated states, the ring's 2 t^2, restart.
hm_add_c_test(test_evolution_commutator SOURCES test_evolution_commutator.c LABELS cpu)
hm_add_test(test_evolution_commutator_mpi2 COMMAND $<TARGET_FILE:test_evolution_commutator> NPROCS 2 LABELS cpu)
hm_add_test(test_evolution_commutator_cuda COMMAND $<TARGET_FILE:test_evolution_commutator> cuda NPROCS 1 LABELS gpu)
# The velocity auto-correlation's cross moments: the exact trace over unit vectors against dense eigenpairs.
hm_add_c_test(test_evolution_vac SOURCES test_evolution_vac.c LABELS cpu)
hm_add_test(test_evolution_vac_mpi3 COMMAND $<TARGET_FILE:test_evolution_vac> NPROCS 3 LABELS cpu)
hm_add_test(test_evolution_vac_cuda COMMAND $<TARGET_FILE:test_evolution_vac> cuda NPROCS 1 LABELS gpu)
