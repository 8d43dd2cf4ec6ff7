! ChebFD from Fortran: the surface states of a TI slab (open in z) in the window [-0.6, 0.6] against
! LAPACK zheev of the gathered matrix (every eigenvalue to 1e-9 of the spectral scale, the count
! equal), orthonormal vectors, the info and bounds; a window beside the spectrum finds none; a
! memory limit below the search space is refused with the estimate.
program test_fortran_interior
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  type(c_ptr) :: ctx, H, solver, dist, V
  type(hm_ti_params) :: p
  type(hm_interior_options) :: opt
  complex(c_double_complex), allocatable :: dense(:, :), G(:, :)
  real(c_double), allocatable :: w(:), values(:), residuals(:)
  integer(c_int) :: found, degree, search, passes, converged, first, ndense, i
  real(c_double) :: estimate, lo, hi, scale, tf, to, steps
  integer :: ierr

  call MPI_Init(ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  call test_ok(hm_ti_params_default(p), "hm_ti_params_default")
  p%nx = 4; p%ny = 4; p%nz = 6
  p%boundary(3) = HM_BC_OPEN
  call test_ok(hm_ti_build(ctx, p, H), "hm_ti_build")
  call test_dense(ctx, H, dense)
  allocate(w(size(dense, 1)))
  call test_eigh(dense, w)
  scale = max(abs(w(1)), abs(w(size(w))))
  first = count(w < -0.6d0) + 1
  ndense = count(w >= -0.6d0 .and. w <= 0.6d0)

  call test_ok(hm_interior_options_default(opt), "hm_interior_options_default")
  opt%emin = -0.6d0; opt%emax = 0.6d0
  call test_ok(hm_interior_create(H, opt, solver), "hm_interior_create")
  call test_ok(hm_interior_run(solver), "hm_interior_run")
  call test_ok(hm_interior_info(solver, found, estimate, degree, search, passes, converged), "hm_interior_info")
  call test_assert(converged == 1, "not converged")
  call test_assert(found == ndense .and. ndense >= 4, "found a count other than the dense one")
  call test_assert(degree > 0 .and. search >= found .and. passes >= 2, "degree, search or passes implausible")
  call test_assert(abs(estimate - ndense) < 0.5d0 * ndense + 3, "count estimate far from the dense count")
  call test_ok(hm_interior_bounds(solver, lo, hi), "hm_interior_bounds")
  call test_ok(hm_interior_timing(solver, tf, to, steps), "hm_interior_timing")
  ! every pass filters at least the columns not locked yet: at least degree x found vector-steps
  call test_assert(tf > 0 .and. to > 0 .and. steps >= dble(degree) * found, "timing implausible")
  call test_assert(lo <= w(1) .and. hi >= w(size(w)), "bounds do not enclose the spectrum")
  if (found == ndense) then
    allocate(values(found), residuals(found), G(found, found))
    call test_ok(hm_interior_values(solver, values), "hm_interior_values")
    call test_ok(hm_interior_residuals(solver, residuals), "hm_interior_residuals")
    call test_assert(maxval(abs(values - w(first:first + ndense - 1))) <= 1d-9 * scale, &
                     "eigenvalues off the dense ones")
    call test_assert(maxval(residuals) <= 1d-9, "residual above tol")
    call test_ok(hm_matrix_dist(H, dist), "hm_matrix_dist")
    call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, found, V), "hm_mvec_create")
    call test_ok(hm_interior_vectors(solver, V), "hm_interior_vectors")
    call test_ok(hm_mvec_gram(V, V, G), "hm_mvec_gram")
    do i = 1, found
      G(i, i) = G(i, i) - 1
    end do
    call test_assert(maxval(abs(G)) < 1d-10, "eigenvectors not orthonormal")
    call test_ok(hm_mvec_destroy(V), "hm_mvec_destroy")
  end if
  call test_ok(hm_interior_destroy(solver), "hm_interior_destroy")

  ! Beside the spectrum: none, and success.
  opt%emin = w(size(w)) + 1; opt%emax = w(size(w)) + 2
  call test_ok(hm_interior_create(H, opt, solver), "hm_interior_create beside")
  call test_ok(hm_interior_run(solver), "hm_interior_run beside")
  call test_ok(hm_interior_info(solver, found=found), "hm_interior_info beside")
  call test_assert(found == 0, "a window beside the spectrum found pairs")
  call test_ok(hm_interior_destroy(solver), "hm_interior_destroy")

  ! The whole spectrum in 1 kB: refused.
  opt%emin = w(1); opt%emax = w(size(w)); opt%memory_limit = 1d3
  call test_ok(hm_interior_create(H, opt, solver), "hm_interior_create limit")
  call test_fails(hm_interior_run(solver), HM_ERR_MEMORY, "above the memory limit", "hm_interior_run limit")
  call test_ok(hm_interior_destroy(solver), "hm_interior_destroy")

  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_interior")
end program test_fortran_interior
