! The conductivity API from Fortran: hm_velocity_blocks on a one-orbital chain (v = i R t);
! hm_matrix_create_velocity of a TI lattice is Hermitian and not zero;
! exact-trace moments with H itself as both "velocity" operators on a small TI lattice against
! LAPACK eigenvalues: Tr[H T_n H T_m]/N = sum_k E_k^2 T_n(x_k) T_m(x_k) / N (1e-10); state and
! restore; sigma from the moments is finite and the optical sigma(omega -> 0) equals it; bad inputs
! fail with their messages; the spin-current blocks of an up-down chain; the single-shot sigma with V = H
! against the eigenvalue sum.
program test_fortran_conductivity
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  integer, parameter :: M = 8
  type(c_ptr) :: ctx, H, c, c2, left(1), right(1), Vx
  type(hm_ti_params) :: p
  type(hm_conductivity_options) :: opt
  complex(c_double_complex), allocatable :: dense(:, :), vdense(:, :)
  real(c_double) :: tipos(12)
  real(c_double), allocatable :: E(:)
  complex(c_double_complex) :: mu(M, M), mu2(M, M), sum(M, M)
  complex(c_double_complex), allocatable :: part(:, :, :)
  real(c_double) :: scale, shift, ref, worst, x(2), sigma(2), temps(1), vblk(4), optical(2, 1, 2), cblk(8)
  real(c_double) :: single(2), bounds(2), dk, g, sums(4), parts(2)
  real(c_double), parameter :: pi = 3.141592653589793d0
  complex(c_double_complex) :: zblk(4)
  integer(c_int32_t) :: shift3(6)
  real(c_double) :: blk(4), lattice(9), positions(3)
  integer(c_int) :: starts, done, chunks, block
  integer(c_int64_t) :: N
  integer :: ierr, i, j, k

  call MPI_Init(ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")

  ! A chain: blocks R = +1, -1 with hop t = 0.5 (real): v = i R t, on lattice a1 = (2, 0, 0).
  shift3 = [1, 0, 0, -1, 0, 0]
  blk = [0.5d0, 0d0, 0.5d0, 0d0]
  lattice = [2d0, 0d0, 0d0, 0d0, 1d0, 0d0, 0d0, 0d0, 1d0]
  positions = 0
  call test_ok(hm_velocity_blocks(1, 2, shift3, blk, lattice, positions, 0, vblk), "hm_velocity_blocks")
  call test_assert(all(abs(vblk - [0d0, 1d0, 0d0, -1d0]) < 1d-15), "chain velocity blocks are not (0, i), (0, -i)")
  call test_fails(hm_velocity_blocks(1, 2, shift3, blk, lattice, positions, 5, vblk), HM_ERR_ARGUMENT, &
                  "allowed are 0 (x), 1 (y), 2 (z)", "hm_velocity_blocks direction 5")

  ! The spin current of a chain of one up and one down orbital per cell: (s_i + s_j)/2 times v.
  call test_ok(hm_current_blocks(2, 1, [(1d0, i = 1, 8)], [1d0, -1d0], cblk), "hm_current_blocks")
  call test_assert(all(cblk == [1d0, 1d0, 0d0, 0d0, 0d0, 0d0, -1d0, -1d0]), "current blocks are not diag(1, -1) v")
  call test_fails(hm_current_blocks(0, 1, [(1d0, i = 1, 8)], [1d0, -1d0], cblk), HM_ERR_ARGUMENT, "must be >= 1", &
                  "hm_current_blocks orbitals 0")
  ! Any Hermitian S: sigma_x on the pair, v = [[1, 2], [3, 4]] (row-major): (S v + v S)/2 = [[2.5, 2.5], [2.5, 2.5]];
  ! S = diag(1, -1) gives hm_current_blocks' blocks; a non-Hermitian S is refused.
  call test_ok(hm_current_blocks_operator(2, 1, [(1d0, 0d0), (2d0, 0d0), (3d0, 0d0), (4d0, 0d0)], &
                                          [(0d0, 0d0), (1d0, 0d0), (1d0, 0d0), (0d0, 0d0)], zblk), &
               "hm_current_blocks_operator")
  call test_assert(all(abs(zblk - (2.5d0, 0d0)) < 1d-15), "{sigma_x, v}/2 blocks are wrong")
  call test_ok(hm_current_blocks_operator(2, 1, [((1d0, 1d0), i = 1, 4)], [(1d0, 0d0), (0d0, 0d0), (0d0, 0d0), &
                                          (-1d0, 0d0)], zblk), "hm_current_blocks_operator diag")
  call test_assert(all(zblk == [(1d0, 1d0), (0d0, 0d0), (0d0, 0d0), (-1d0, -1d0)]), &
                   "diagonal S differs from hm_current_blocks")
  call test_fails(hm_current_blocks_operator(2, 1, [((1d0, 0d0), i = 1, 4)], [(0d0, 0d0), (1d0, 0d0), (0d0, 0d0), &
                  (0d0, 0d0)], zblk), HM_ERR_ARGUMENT, "S is not Hermitian", "hm_current_blocks_operator non-Hermitian")

  call test_ok(hm_ti_params_default(p), "hm_ti_params_default")
  p%nx = 3; p%ny = 2; p%nz = 2
  p%boundary(3) = HM_BC_OPEN
  call test_ok(hm_ti_build(ctx, p, H), "hm_ti_build")
  call test_dense(ctx, H, dense)
  N = size(dense, 1)
  allocate(E(N))
  call test_eigh(dense, E)

  lattice = [1d0, 0d0, 0d0, 0d0, 1d0, 0d0, 0d0, 0d0, 1d0]
  tipos = 0
  call test_ok(hm_matrix_create_velocity(H, [3_c_int64_t, 2_c_int64_t, 2_c_int64_t], 4, lattice, tipos, 0, Vx), &
               "hm_matrix_create_velocity")
  call test_dense(ctx, Vx, vdense)
  call test_assert(maxval(abs(vdense - conjg(transpose(vdense)))) < 1d-14, "TI velocity is not Hermitian")
  call test_assert(maxval(abs(vdense)) > 0.1d0, "TI velocity is zero")
  call test_ok(hm_matrix_destroy(Vx), "hm_matrix_destroy (velocity)")

  call test_ok(hm_conductivity_options_default(opt), "hm_conductivity_options_default")
  opt%moments = M
  opt%trace = HM_TRACE_EXACT
  opt%chunk = 3
  opt%block = 4
  left(1) = H
  right(1) = H
  call test_ok(hm_conductivity_create(H, 1, left, right, opt, c), "hm_conductivity_create")
  call test_ok(hm_conductivity_run(c), "hm_conductivity_run")
  call test_ok(hm_conductivity_info(c, starts=starts, scale=scale, shift=shift), "hm_conductivity_info")
  call test_assert(starts == N, "exact trace runs one start vector per row")
  call test_ok(hm_conductivity_moments(c, mu), "hm_conductivity_moments")
  worst = 0
  do i = 1, M
    do j = 1, M
      ref = 0
      do k = 1, int(N)
        ref = ref + E(k)**2 * cos((i - 1) * acos(scale * (E(k) - shift))) * cos((j - 1) * acos(scale * (E(k) - shift)))
      end do
      worst = max(worst, abs(mu(i, j) - ref / N))
    end do
  end do
  call test_assert(worst < 1d-10, "moments off the eigenvalue sums")

  ! The final state restored into a new object: nothing left to do, the same moments.
  call test_ok(hm_conductivity_block(c, block), "hm_conductivity_block")
  call test_assert(block == min(starts, 4), "start vectors per block is not the options' 4")
  allocate(part(M, M, block))
  call test_ok(hm_conductivity_state(c, done, chunks, sum, part), "hm_conductivity_state")
  call test_assert(done == N .and. chunks == 0, "final state is not all start vectors done")
  opt%bounds = HM_BOUNDS_GIVEN
  call test_ok(hm_conductivity_interval(c, opt%emin, opt%emax), "hm_conductivity_interval")
  call test_assert(abs(2 / (opt%emax - opt%emin) - scale) < 1d-14 * scale, "interval does not give the scale")
  call test_ok(hm_conductivity_create(H, 1, left, right, opt, c2), "hm_conductivity_create (restore)")
  call test_ok(hm_conductivity_restore(c2, done, chunks, sum, part), "hm_conductivity_restore")
  call test_ok(hm_conductivity_run(c2), "hm_conductivity_run (restored)")
  call test_ok(hm_conductivity_moments(c2, mu2), "hm_conductivity_moments (restored)")
  call test_assert(all(mu2 == mu), "restored moments differ (a restore continues bit for bit)")
  call test_ok(hm_conductivity_destroy(c2), "hm_conductivity_destroy")

  x = [-0.5d0, 0.5d0]
  temps = 0.1d0
  call test_ok(hm_conductivity_sigma(M, 1, mu, scale, shift, HM_KERNEL_JACKSON, 0d0, 1d0, 2, x, 1, temps, sigma), &
               "hm_conductivity_sigma")
  call test_assert(all(abs(sigma) < 1d6), "sigma is not finite")
  call test_fails(hm_conductivity_sigma(M, 1, mu, scale, shift, HM_KERNEL_JACKSON, 0d0, -1d0, 2, x, 1, temps, sigma), &
                  HM_ERR_ARGUMENT, "orbitals per cell", "hm_conductivity_sigma density -1")
  ! The optical conductivity at a tiny frequency (eta = 0): Re is the DC sigma of the same moments.
  call test_ok(hm_conductivity_optical(M, 1, mu, scale, shift, HM_KERNEL_JACKSON, 0d0, 1d0, 0d0, 1, [1d-7], 2, x, 1, &
                                       temps, optical), "hm_conductivity_optical")
  call test_assert(all(abs(optical(1, 1, :) - sigma) < 1d-5 * max(1d0, abs(sigma))) .and. maxval(abs(sigma)) > 1d-3, &
                   "Re sigma(omega -> 0) is not the DC sigma")
  call test_fails(hm_conductivity_optical(M, 1, mu, scale, shift, HM_KERNEL_JACKSON, 0d0, 1d0, 0d0, 1, [0d0], 2, x, 1, &
                                          temps, optical), HM_ERR_ARGUMENT, "must be finite and > 0", &
                  "hm_conductivity_optical frequency 0")
  ! Single shot with V = H (exact trace, the same interval): 2 pi^2 sum_k E_k^2 delta_M(x - E_k)^2, delta_M the
  ! Jackson-damped series of the DOS.
  call test_ok(hm_conductivity_single_shot(H, H, opt, HM_KERNEL_JACKSON, 0d0, 1d0, 2, x, single, bounds=bounds), &
               "hm_conductivity_single_shot")
  call test_assert(abs(bounds(1) - opt%emin) + abs(bounds(2) - opt%emax) == 0, "single shot's interval is not the given one")
  do j = 1, 2
    ref = 0
    do k = 1, int(N)
      dk = 0
      do i = 0, M - 1
        g = ((M - i + 1) * cos(pi / (M + 1) * i) + sin(pi / (M + 1) * i) / tan(pi / (M + 1))) / (M + 1)
        dk = dk + merge(1d0, 2d0, i == 0) * g * cos(i * acos(scale * (x(j) - shift))) * &
             cos(i * acos(scale * (E(k) - shift)))
      end do
      dk = dk * scale / (pi * sqrt(1 - (scale * (x(j) - shift))**2))
      ref = ref + E(k)**2 * dk**2
    end do
    ref = 2 * pi**2 * ref / N
    call test_assert(abs(single(j) - ref) < 1d-10 * max(1d0, abs(ref)) .and. abs(ref) > 1d-3, &
                     "single shot off the eigenvalue sum")
  end do
  call test_fails(hm_conductivity_single_shot(H, H, opt, HM_KERNEL_JACKSON, 0d0, 1d0, 0, x, single), HM_ERR_ARGUMENT, &
                  "nenergy >= 1", "hm_conductivity_single_shot nenergy 0")
  ! The same in two parts (a checkpointed run's pieces) and _sigma: the same sigma.
  sums = 0
  call test_ok(hm_conductivity_single_shot_part(H, H, opt, HM_KERNEL_JACKSON, 0d0, 2, x, 0, 5, sums, done, bounds), &
               "hm_conductivity_single_shot_part 0-5")
  call test_assert(done == 5, "the first part did not do its 5 start vectors")
  call test_ok(hm_conductivity_single_shot_part(H, H, opt, HM_KERNEL_JACKSON, 0d0, 2, x, 5, int(N, c_int), sums, done, &
                                                bounds), "hm_conductivity_single_shot_part 5-N")
  call test_ok(hm_conductivity_single_shot_sigma(opt, N, 1d0, 2, sums, parts), "hm_conductivity_single_shot_sigma")
  call test_assert(all(abs(parts - single) <= 1d-12 * maxval(abs(single))), "two parts differ from one single shot")
  call test_fails(hm_conductivity_single_shot_part(H, H, opt, HM_KERNEL_JACKSON, 0d0, 2, x, 5, 4, sums, done, bounds), &
                  HM_ERR_ARGUMENT, "want 0 <= first <= last", "hm_conductivity_single_shot_part 5-4")
  opt%moments = 7
  call test_fails(hm_conductivity_create(H, 1, left, right, opt, c2), HM_ERR_ARGUMENT, "must be even", &
                  "hm_conductivity_create moments 7")

  call test_ok(hm_conductivity_destroy(c), "hm_conductivity_destroy")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_conductivity")
end program test_fortran_conductivity
