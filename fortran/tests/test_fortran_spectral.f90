! A(k, E) from Fortran through the public API only (module hamlet_spectral + hm_kpm_set_start) on
! a clean periodic TI, 4 x 3 x 3 cells, t = 0.9, m = 1.5, against its 4 x 4 Bloch Hamiltonian
!   H(k) = (m - t sum_j cos k_j) G1 + t sum_j sin k_j G_(j+1),  G1 = tau_z sigma_0, G_(j+1) = tau_x sigma_j,
! diagonalised by LAPACK zheev (H(k) = U diag(E) U^H, x_b = scale (E_b - shift)):
! - hm_spectral_reciprocal: b_i . a_j = 2 pi delta_ij on an oblique cell; a flat cell fails;
! - hm_spectral_nearest_allowed: three wanted points land on the supercell's grid (m_i / n_i, the
!   nearest, given here by hand); twisted and open directions; a bad boundary fails;
! - hm_spectral_start_fill (orbitals at arbitrary positions) + KPM: the moment of column
!   (point j, orbital o) is sum_b |U_(o, b)|^2 T_n(x_b), and their sum over o is sum_b T_n(x_b) (1e-10);
! - hm_spectral_reconstruct on the 2M Chebyshev nodes: the damped Chebyshev series of the summed
!   moments (1e-10 of the peak), and int A dE = 4 orbitals (Gauss-Chebyshev, exact here, 1e-10);
! - bad inputs (a start block of the wrong width, count = 0) fail with messages.
program test_fortran_spectral
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  real(c_double), parameter :: pi = acos(-1.0d0)
  integer, parameter :: M = 32, NK = 3, NO = 4, K = NK * NO
  integer(c_int64_t), parameter :: cells(3) = [4_c_int64_t, 3_c_int64_t, 3_c_int64_t]
  real(c_double), parameter :: t_hop = 0.9d0, mass = 1.5d0
  ! wanted points (reduced) and, by hand, the nearest grid points m_i / n_i (n = 4, 3, 3)
  real(c_double), parameter :: wanted(3, NK) = reshape([0.3d0, 0.4d0, -0.2d0, 0.45d0, 0.1d0, 0.62d0, &
                                                       -0.12d0, 0.7d0, 0.2d0], [3, NK])
  real(c_double), parameter :: grid(3, NK) = reshape([1 / 4.0d0, 1 / 3.0d0, -1 / 3.0d0, 2 / 4.0d0, 0.0d0, 2 / 3.0d0, &
                                                     0.0d0, 2 / 3.0d0, 1 / 3.0d0], [3, NK])
  integer(c_int), parameter :: periodic(3) = [HM_BC_PERIODIC, HM_BC_PERIODIC, HM_BC_PERIODIC]
  complex(c_double_complex), parameter :: one = (1.0d0, 0.0d0), i1 = (0.0d0, 1.0d0), nil = (0.0d0, 0.0d0)
  complex(c_double_complex), parameter :: sigma_x(2, 2) = reshape([nil, one, one, nil], [2, 2]), &
                                          sigma_y(2, 2) = reshape([nil, i1, -i1, nil], [2, 2]), &
                                          sigma_z(2, 2) = reshape([one, nil, nil, -one], [2, 2])
  type(c_ptr) :: ctx, H, kpm, dist, V, narrow
  type(hm_ti_params) :: p
  type(hm_kpm_options) :: opt
  type(hm_dos_options) :: dopt
  real(c_double) :: lattice(3, 3), oblique(3, 3), flat(3, 3), recip(3, 3), positions(3, NO), kpts(3, NK)
  real(c_double) :: allowed(3), twisted(3), want, zero3(3)
  real(c_double) :: mu(M), mu_vec(M, K), exact(M, K), summed(M, NK), bloch(M, NK), g(M)
  real(c_double) :: E(NO), scale, shift, x, th, ref, peak, worst, integral
  complex(c_double_complex) :: hk(NO, NO), U(NO, NO)
  real(c_double), allocatable :: energy(:), A(:, :)
  integer(c_int) :: layer(NK), points, bc(3)
  integer :: ierr, i, j, o, q, b

  call MPI_Init(ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")

  ! Reciprocal vectors of an oblique cell (columns a_i), and of the cubic cell of the ti.
  oblique = reshape([1.0d0, 0.2d0, 0.0d0, 0.5d0, 0.9d0, 0.1d0, 0.3d0, -0.2d0, 1.7d0], [3, 3])
  call test_ok(hm_spectral_reciprocal(oblique, recip), "hm_spectral_reciprocal")
  worst = 0
  do i = 1, 3
    do j = 1, 3
      want = merge(2 * pi, 0.0d0, i == j)
      worst = max(worst, abs(dot_product(recip(:, i), oblique(:, j)) - want))
    end do
  end do
  call test_assert(worst < 1d-13, "b_i . a_j must be 2 pi delta_ij")
  flat = reshape([1.0d0, 0.0d0, 0.0d0, 2.0d0, 0.0d0, 0.0d0, 0.0d0, 0.0d0, 1.0d0], [3, 3])
  call test_fails(hm_spectral_reciprocal(flat, recip), HM_ERR_ARGUMENT, "span no volume", "a flat cell")
  lattice = 0
  do i = 1, 3
    lattice(i, i) = 1
  end do
  call test_ok(hm_spectral_reciprocal(lattice, recip), "hm_spectral_reciprocal cubic")

  ! The points the supercell allows, and their cartesian k = sum_i allowed_i b_i.
  zero3 = 0
  do j = 1, NK
    call test_ok(hm_spectral_nearest_allowed(cells, periodic, zero3, wanted(:, j), allowed), "nearest_allowed")
    call test_assert(maxval(abs(allowed - grid(:, j))) < 1d-15, "nearest allowed point differs from the grid's")
    call test_assert(all(abs(allowed - wanted(:, j)) <= 0.5d0 / cells + 1d-15), "allowed point is not the nearest")
    kpts(:, j) = matmul(recip, allowed)
  end do
  bc = [HM_BC_PERIODIC, HM_BC_TWISTED, HM_BC_OPEN]
  call test_ok(hm_spectral_nearest_allowed(cells, bc, [0.0d0, 1.0d0, 0.0d0], wanted(:, 1), twisted), &
               "nearest_allowed twisted and open")
  ! twisted: (m + theta / 2 pi) / n with m = nint(0.4 * 3 - 1 / 2 pi) = 1; open: unchanged
  call test_assert(abs(twisted(1) - 0.25d0) < 1d-15 .and. abs(twisted(2) - (1 + 1 / (2 * pi)) / 3) < 1d-15 &
                   .and. twisted(3) == wanted(3, 1), "nearest allowed point with twisted and open directions")
  bc(2) = 5
  call test_fails(hm_spectral_nearest_allowed(cells, bc, zero3, wanted(:, 1), twisted), HM_ERR_ARGUMENT, &
                  "boundary[1] = 5", "a bad boundary")

  ! KPM moments of the plane waves |k_j, o> on the whole supercell.
  call test_ok(hm_ti_params_default(p), "hm_ti_params_default")
  p%nx = cells(1); p%ny = cells(2); p%nz = cells(3)
  p%t = t_hop; p%m = mass
  call test_ok(hm_ti_build(ctx, p, H), "hm_ti_build")
  call test_ok(hm_kpm_options_default(opt), "hm_kpm_options_default")
  opt%moments = M
  opt%vectors = K
  opt%bounds = HM_BOUNDS_GIVEN
  opt%emin = -5.2d0; opt%emax = 4.6d0     ! |E| <= m + 3t = 4.2; off-centre: shift /= 0
  call test_ok(hm_kpm_create(H, opt, kpm), "hm_kpm_create")
  call test_ok(hm_matrix_dist(H, dist), "hm_matrix_dist")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, int(K, c_int), V), "hm_mvec_create")
  positions = reshape([0.1d0, 0.0d0, 0.3d0, 0.5d0, 0.5d0, 0.0d0, -0.2d0, 0.7d0, 0.1d0, 0.0d0, 0.25d0, 0.9d0], [3, NO])
  layer = -1
  call test_ok(hm_spectral_start_fill(V, cells, int(NO, c_int), lattice, positions, int(NK, c_int), kpts, layer), &
               "hm_spectral_start_fill")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 3_c_int, narrow), "hm_mvec_create narrow")
  call test_fails(hm_spectral_start_fill(narrow, cells, int(NO, c_int), lattice, positions, int(NK, c_int), kpts, &
                  layer), HM_ERR_ARGUMENT, "3 points x 4 orbitals = 12 expected", "a start block of 3 columns")
  call test_ok(hm_kpm_set_start(kpm, V), "hm_kpm_set_start")
  call test_ok(hm_kpm_run(kpm), "hm_kpm_run")
  call test_ok(hm_kpm_moments(kpm, mu, mu_vec), "hm_kpm_moments")
  call test_ok(hm_kpm_info(kpm, scale=scale, shift=shift), "hm_kpm_info")

  ! The exact moments from the 4 x 4 Bloch Hamiltonian of each point.
  do j = 1, NK
    hk = 0
    do o = 1, NO
      hk(o, o) = (mass - t_hop * sum(cos(kpts(:, j)))) * merge(1, -1, o <= 2)
    end do
    ! tau_x sigma_j: the off-diagonal 2 x 2 blocks are sigma_j (orbital o = 2 tau + s)
    hk(1:2, 3:4) = t_hop * (sin(kpts(1, j)) * sigma_x + sin(kpts(2, j)) * sigma_y + sin(kpts(3, j)) * sigma_z)
    hk(3:4, 1:2) = hk(1:2, 3:4)
    call test_eigh(hk, E, U)
    do q = 1, M
      bloch(q, j) = sum(cos((q - 1) * acos(scale * (E - shift))))
      do o = 1, NO
        exact(q, NO * (j - 1) + o) = sum([(abs(U(o, b))**2 * cos((q - 1) * acos(scale * (E(b) - shift))), b = 1, NO)])
      end do
    end do
    summed(:, j) = sum(mu_vec(:, NO * (j - 1) + 1:NO * j), dim=2)
  end do
  worst = maxval(abs(mu_vec - exact))
  call test_assert(worst < 1d-10, "plane-wave moments differ from the Bloch eigenpairs'")
  if (worst >= 1d-10) write(*, '("  max |mu_vec - exact| = ", es10.3)') worst
  worst = maxval(abs(summed - bloch))
  call test_assert(worst < 1d-10, "orbital-summed moments differ from sum_b T_n(x_b)")
  if (worst >= 1d-10) write(*, '("  max |mu - sum_b T_n| = ", es10.3)') worst

  ! A(k, E) on the Chebyshev nodes: the direct damped series, and the orbitals it integrates to.
  call test_ok(hm_dos_options_default(dopt), "hm_dos_options_default")
  call test_ok(hm_ldos_points(int(M, c_int), dopt, points), "hm_ldos_points")
  allocate(energy(points), A(points, NK))
  call test_ok(hm_spectral_reconstruct(int(M, c_int), int(NK, c_int), int(NO, c_int), summed, scale, shift, dopt, &
                                       energy, A), "hm_spectral_reconstruct")
  call test_ok(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 4.0d0, int(M, c_int), g), "kernel factors")
  peak = maxval(abs(A))
  worst = 0
  do j = 1, NK
    integral = 0
    do i = 1, points
      x = scale * (energy(i) - shift)
      th = acos(x)
      ref = scale * (g(1) * summed(1, j) + 2 * sum([(g(q + 1) * summed(q + 1, j) * cos(q * th), q = 1, M - 1)])) &
            / (pi * sin(th))
      worst = max(worst, abs(A(i, j) - ref))
      integral = integral + pi / (points * scale) * A(i, j) * sin(th)
    end do
    call test_assert(abs(integral - NO) < 1d-10, "int A dE must be the 4 orbitals")
    if (abs(integral - NO) >= 1d-10) write(*, '("  point ", i0, ": int A dE = ", es22.15)') j, integral
  end do
  call test_assert(worst < 1d-10 * peak, "A differs from the direct Chebyshev series")
  if (worst >= 1d-10 * peak) write(*, '("  max |A - series| = ", es10.3, " of peak ", es10.3)') worst, peak
  call test_fails(hm_spectral_reconstruct(int(M, c_int), 0_c_int, int(NO, c_int), summed, scale, shift, dopt, &
                                          energy, A), HM_ERR_ARGUMENT, "count = 0", "count = 0")

  call test_ok(hm_kpm_destroy(kpm), "hm_kpm_destroy")
  call test_ok(hm_mvec_destroy(V), "hm_mvec_destroy")
  call test_ok(hm_mvec_destroy(narrow), "hm_mvec_destroy narrow")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_spectral")
end program test_fortran_spectral
