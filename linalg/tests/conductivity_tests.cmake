# Conductivity (Kubo-Bastin KPM): velocity blocks vs i[H, X]; exact-trace moments vs dense
# eigenpairs on 1 and 3 ranks, chunking, stop and restore; sigma_xy of the Qi-Wu-Zhang model.
hm_add_c_test(test_velocity SOURCES test_velocity.c LABELS cpu)
hm_add_test(test_velocity_mpi3 COMMAND $<TARGET_FILE:test_velocity> NPROCS 3 LABELS cpu)
hm_add_c_test(test_conductivity_exact SOURCES test_conductivity_exact.c LABELS cpu)
hm_add_test(test_conductivity_exact_mpi3 COMMAND $<TARGET_FILE:test_conductivity_exact> cpu 8 NPROCS 3 LABELS cpu)
# GPU vs the dense reference (the CPU backend passes the same test): gram and products on the device.
hm_add_test(test_conductivity_exact_cuda COMMAND $<TARGET_FILE:test_conductivity_exact> cuda 5 NPROCS 1 LABELS gpu)
hm_add_c_test(test_conductivity_qwz SOURCES test_conductivity_qwz.c LABELS cpu)
# The 64 x 64, M = 512 case within 2% on the GPU (label gpu: scripts/gpu_host.sh check).
hm_add_test(test_conductivity_qwz_cuda COMMAND $<TARGET_FILE:test_conductivity_qwz> 64 512 4 cuda 0.02 NPROCS 1 LABELS gpu)
# The local Chern marker: bulk +-1 / 0 of open QWZ flakes (1 and 3 ranks); GPU against CPU.
hm_add_c_test(test_marker SOURCES test_marker.c LABELS cpu)
hm_add_test(test_marker_mpi3 COMMAND $<TARGET_FILE:test_marker> NPROCS 3 LABELS cpu)
hm_add_test(test_marker_cuda COMMAND $<TARGET_FILE:test_marker> cuda NPROCS 1 LABELS gpu)
# The marker with the Fermi projector (small T, undamped) against the exact step projector from dense
# eigenpairs on an 8 x 8 flake, to 1e-8 on every row (CPU, GPU). About 2 x 8346 x 4 products: on 3
# ranks of a shared 2-core machine the halo exchanges took minutes, so the ranks are covered by
# test_marker_mpi3 (the Fermi projector's bulk marker) and e2e_marker (1 against 3 ranks).
hm_add_c_test(test_marker_exact SOURCES test_marker_exact.c LABELS cpu)
target_include_directories(test_marker_exact PRIVATE ${CMAKE_SOURCE_DIR}/linalg/kpm)
hm_add_test(test_marker_exact_cuda COMMAND $<TARGET_FILE:test_marker_exact> cuda NPROCS 1 LABELS gpu)
# The optical conductivity from exact-trace moments: the dense Kubo formula, omega -> 0 = DC,
# Kramers-Kronig, the f-sum rule (CPU; the GPU's moments into the same checks).
hm_add_c_test(test_conductivity_optical SOURCES test_conductivity_optical.c LABELS cpu)
hm_add_test(test_conductivity_optical_cuda COMMAND $<TARGET_FILE:test_conductivity_optical> cuda NPROCS 1 LABELS gpu)
# Clean graphene at its Dirac point: Re sigma_xx(omega) against the k-space interband sum within 3%
# for 0.2 t < omega < 0.9 t and the van Hove peak at 2t (L = 384: N = 294912, M = 256, R = 1, eta = 0.2 t).
hm_add_c_test(test_conductivity_graphene_optical SOURCES test_conductivity_graphene_optical.c ARGS 384 256 1 0.2 LABELS cpu)
hm_add_test(test_conductivity_graphene_optical_cuda COMMAND $<TARGET_FILE:test_conductivity_graphene_optical> 384 256 1 0.2 cuda NPROCS 1 LABELS gpu)
# The spin Hall conductivity of the Kane-Mele model: spin-current moments against the dense formula,
# sigma^S_xy = 2 e^2/h in the quantum spin Hall phase, 0 in the trivial one (CPU and GPU).
hm_add_c_test(test_conductivity_spin_hall SOURCES test_conductivity_spin_hall.c ARGS 24 512 6 LABELS cpu)
hm_add_test(test_conductivity_spin_hall_cuda COMMAND $<TARGET_FILE:test_conductivity_spin_hall> 24 512 6 cuda NPROCS 1 LABELS gpu)
# Single-shot sigma_xx(E): equal to the Greenwood sum over the moments of the same start vectors (exact
# and random traces) and to the Kubo-Bastin sigma_xx within its quadrature; 1 and 3 ranks; GPU.
hm_add_c_test(test_conductivity_single_shot SOURCES test_conductivity_single_shot.c LABELS cpu)
hm_add_test(test_conductivity_single_shot_mpi3 COMMAND $<TARGET_FILE:test_conductivity_single_shot> cpu 4 2 NPROCS 3 LABELS cpu)
hm_add_test(test_conductivity_single_shot_cuda COMMAND $<TARGET_FILE:test_conductivity_single_shot> cuda NPROCS 1 LABELS gpu)
