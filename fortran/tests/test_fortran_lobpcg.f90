! A matrix-free 1D Laplacian for test_fortran_lobpcg: y = tridiag(-1, 2, -1) x (Dirichlet ends) on
! blocks distributed over MPI_COMM_WORLD; each rank reads its rows with hm_mvec_get and trades its
! first and last row with its neighbours (MPI_Sendrecv). Also a progress callback that counts.
module lobpcg_test_callbacks
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  implicit none
  integer(c_int), target :: progress_calls = 0, progress_last = -1
contains
  function laplacian_1d(x, y, user) result(status) bind(C)
    type(c_ptr), value :: x, y, user
    integer(c_int) :: status
    integer(c_int64_t) :: local, i
    integer(c_int) :: k
    real(c_double), allocatable :: xv(:, :), yv(:, :), left(:), right(:)
    integer :: rank, size, ierr, lo, hi
    status = hm_mvec_size(x, local, k)
    if (status /= 0) return
    allocate(xv(k, 0:local + 1), yv(k, local), left(k), right(k))
    xv = 0
    status = hm_mvec_get(x, xv(:, 1:local))
    if (status /= 0) return
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    lo = merge(rank - 1, MPI_PROC_NULL, rank > 0)
    hi = merge(rank + 1, MPI_PROC_NULL, rank < size - 1)
    left = 0
    right = 0
    call MPI_Sendrecv(xv(:, local), k, MPI_DOUBLE_PRECISION, hi, 1, left, k, MPI_DOUBLE_PRECISION, lo, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(xv(:, 1), k, MPI_DOUBLE_PRECISION, lo, 2, right, k, MPI_DOUBLE_PRECISION, hi, 2, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    xv(:, 0) = left
    xv(:, local + 1) = right
    do i = 1, local
      yv(:, i) = 2 * xv(:, i) - xv(:, i - 1) - xv(:, i + 1)
    end do
    status = hm_mvec_set(y, yv)
  end function laplacian_1d

  subroutine on_progress(iteration, nev, values, residuals, converged, user) bind(C)
    integer(c_int), value :: iteration, nev
    real(c_double), intent(in) :: values(nev), residuals(nev)
    integer(c_int), value :: converged
    type(c_ptr), value :: user
    if (iteration == progress_last + 1 .and. converged <= nev .and. all(residuals >= 0) .and. values(1) > 0) &
      progress_calls = progress_calls + 1
    progress_last = iteration
    if (c_associated(user)) progress_calls = progress_calls + 1000
  end subroutine on_progress
end module lobpcg_test_callbacks

! LOBPCG from Fortran with a Fortran matrix-free operator (1D Laplacian, n = 48) against the
! analytic eigenvalues 2 - 2 cos(k pi / (n + 1)):
! - smallest 4 and largest 3 to 1e-9 relative, residuals below tol, the returned eigenvectors
!   satisfy A v = lambda v (checked with the operator) and are orthonormal;
! - the same matrix as CSR with the Jacobi preconditioner gives the same eigenvalues;
! - info, history (last row = the result), progress callback once per iteration, options_get;
! - the Fortran hm_lobpcg_options has the C layout (size, every offset: lobpcg_abi_probe.c);
! - a start block of the converged vectors converges at once; state + restore of a finished run
!   continues without iterating; bad options fail with their message.
program test_fortran_lobpcg
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  use lobpcg_test_callbacks
  implicit none
  integer(c_int64_t), parameter :: N = 48
  real(c_double), parameter :: pi = acos(-1.0d0)
  type(c_ptr) :: ctx, dist, op, opm, A, lob, lob2, V, av_block, X, P, X2, P2
  type(hm_lobpcg_options) :: opt, back
  real(c_double) :: val(4), res(4), val2(4), exact(N), norms(4), gram(4, 4)
  real(c_double), allocatable :: hv(:, :), hr(:, :), vv(:, :), avals(:, :), xs(:, :), ps(:, :), vals(:)
  integer(c_int64_t), allocatable :: rowptr(:), cols(:)
  integer(c_int64_t) :: first, local, i, g, nnz
  integer(c_int) :: it, conv, reason, np, it2, k
  integer :: ierr, j
  type(hm_lobpcg_options), target :: probe
  integer(c_int64_t) :: layout(21), mine(21)
  interface
    subroutine hm_lobpcg_abi_layout(out) bind(C, name="hm_lobpcg_abi_layout")
      import :: c_int64_t
      integer(c_int64_t), intent(out) :: out(21)
    end subroutine
  end interface

  call MPI_Init(ierr)
  ! The bind(C) options type has the C layout.
  call hm_lobpcg_abi_layout(layout)
  mine = [c_sizeof(probe), off(c_loc(probe%nev)), off(c_loc(probe%block)), off(c_loc(probe%tol)), &
          off(c_loc(probe%maxit)), off(c_loc(probe%which)), off(c_loc(probe%precond)), off(c_loc(probe%precond_matrix)), &
          off(c_loc(probe%precond_op)), off(c_loc(probe%seed)), off(c_loc(probe%history)), off(c_loc(probe%verbosity)), &
          off(c_loc(probe%checkpoint_every)), off(c_loc(probe%checkpoint_seconds)), off(c_loc(probe%checkpoint)), &
          off(c_loc(probe%checkpoint_user)), off(c_loc(probe%progress)), off(c_loc(probe%progress_user)), &
          off(c_loc(probe%stop)), off(c_loc(probe%stop_user)), off(c_loc(probe%convergence))]
  call test_assert(all(mine == layout), "hm_lobpcg_options: Fortran layout differs from C")
  do j = 1, int(N)
    exact(j) = 2 - 2 * cos(j * pi / (N + 1))
  end do
  call test_ok(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create")
  call test_ok(hm_dist_create(ctx, N, 1_c_int64_t, 1.0d0, dist), "hm_dist_create")
  call test_ok(hm_dist_range(dist, first, local), "hm_dist_range")
  call test_ok(hm_operator_create_shell(ctx, dist, HM_REAL, c_funloc(laplacian_1d), c_null_ptr, op), &
               "hm_operator_create_shell")

  ! Smallest 4 through the Fortran operator.
  call test_ok(hm_lobpcg_options_default(opt), "hm_lobpcg_options_default")
  opt%nev = 4
  opt%block = 7
  opt%tol = 1d-10
  opt%maxit = 400
  opt%progress = c_funloc(on_progress)
  call test_ok(hm_lobpcg_create(op, c_null_ptr, opt, lob), "hm_lobpcg_create")
  call test_ok(hm_lobpcg_options_get(lob, back), "hm_lobpcg_options_get")
  call test_assert(back%block == 7 .and. back%nev == 4 .and. back%history == 1, "hm_lobpcg_options_get: other options")
  call test_ok(hm_lobpcg_run(lob), "hm_lobpcg_run")
  call test_ok(hm_lobpcg_info(lob, it, conv, reason), "hm_lobpcg_info")
  call test_assert(reason == HM_LOBPCG_CONVERGED .and. conv == 4, "smallest: not converged")
  call test_ok(hm_lobpcg_eigenvalues(lob, val), "hm_lobpcg_eigenvalues")
  call test_ok(hm_lobpcg_residuals(lob, res), "hm_lobpcg_residuals")
  call test_assert(all(abs(val - exact(1:4)) <= 1d-9 * exact(1:4)), "smallest: eigenvalues differ from 2 - 2 cos")
  call test_assert(all(res <= opt%tol), "smallest: residuals above tol")
  call test_assert(progress_calls == it + 1, "progress callback: not once per iteration in order")
  allocate(hv(4, it + 1), hr(4, it + 1))
  call test_ok(hm_lobpcg_history(lob, hv, hr), "hm_lobpcg_history")
  call test_assert(all(hv(:, it + 1) == val) .and. all(hr(:, it + 1) == res), "history: last row is not the result")
  call test_assert(hr(1, 1) > 1d3 * hr(1, it + 1), "history: residuals did not fall")

  ! The eigenvectors: A v = lambda v (the operator applied here) and V^T V = I.
  call test_ok(hm_mvec_create(ctx, dist, HM_REAL, 4_c_int, V), "hm_mvec_create V")
  call test_ok(hm_mvec_create(ctx, dist, HM_REAL, 4_c_int, av_block), "hm_mvec_create av_block")
  call test_ok(hm_lobpcg_eigenvectors(lob, V), "hm_lobpcg_eigenvectors")
  call test_ok(hm_operator_apply(op, V, av_block), "hm_operator_apply")
  allocate(vv(4, local), avals(4, local))
  call test_ok(hm_mvec_get(V, vv), "hm_mvec_get V")
  call test_ok(hm_mvec_get(av_block, avals), "hm_mvec_get av_block")
  do j = 1, 4
    avals(j, :) = avals(j, :) - val(j) * vv(j, :)
  end do
  call test_ok(hm_mvec_set(av_block, avals), "hm_mvec_set av_block")
  call test_ok(hm_mvec_norms(av_block, norms), "hm_mvec_norms")
  call test_assert(all(norms <= 2 * opt%tol * val), "eigenvectors: ||A v - lambda v|| above tol")
  call test_ok(hm_mvec_gram(V, V, gram), "hm_mvec_gram")
  do j = 1, 4
    gram(j, j) = gram(j, j) - 1
  end do
  call test_assert(maxval(abs(gram)) < 1d-12, "eigenvectors not orthonormal")

  ! A start block of the converged vectors: converged at once.
  opt%progress = c_null_funptr
  call test_ok(hm_lobpcg_create(op, c_null_ptr, opt, lob2), "hm_lobpcg_create 2")
  call test_ok(hm_lobpcg_set_start(lob2, V), "hm_lobpcg_set_start")
  call test_ok(hm_lobpcg_run(lob2), "hm_lobpcg_run 2")
  call test_ok(hm_lobpcg_info(lob2, it2, conv, reason), "hm_lobpcg_info 2")
  call test_assert(reason == HM_LOBPCG_CONVERGED .and. it2 < it / 2, "start block of eigenvectors: did not converge fast")
  call test_ok(hm_lobpcg_destroy(lob2), "hm_lobpcg_destroy 2")

  ! State of the finished run into a new solver: restored, it has nothing left to do.
  call test_ok(hm_lobpcg_state(lob, X, P, np, it), "hm_lobpcg_state")
  call test_ok(hm_mvec_size(X, local, k), "hm_mvec_size")
  allocate(xs(k, local), ps(k, local))
  call test_ok(hm_mvec_get(X, xs), "hm_mvec_get X")
  call test_ok(hm_mvec_get(P, ps), "hm_mvec_get P")
  call test_ok(hm_lobpcg_create(op, c_null_ptr, opt, lob2), "hm_lobpcg_create 3")
  call test_ok(hm_lobpcg_state(lob2, X2, P2), "hm_lobpcg_state 3")
  call test_ok(hm_mvec_set(X2, xs), "hm_mvec_set X2")
  call test_ok(hm_mvec_set(P2, ps), "hm_mvec_set P2")
  call test_ok(hm_lobpcg_restore(lob2, np, it), "hm_lobpcg_restore")
  call test_ok(hm_lobpcg_run(lob2), "hm_lobpcg_run 3")
  call test_ok(hm_lobpcg_info(lob2, iterations=it2), "hm_lobpcg_info 3")
  call test_ok(hm_lobpcg_eigenvalues(lob2, val2), "hm_lobpcg_eigenvalues 3")
  call test_assert(it2 <= it + 1 .and. all(abs(val2 - val) <= 1d-12 * val), "restored run: not the same answer")
  call test_ok(hm_lobpcg_destroy(lob2), "hm_lobpcg_destroy 3")
  call test_ok(hm_lobpcg_destroy(lob), "hm_lobpcg_destroy")
  call test_assert(.not. c_associated(lob), "hm_lobpcg_destroy did not null the handle")

  ! Largest 3 through the operator.
  opt%nev = 3
  opt%block = 6
  opt%which = HM_LOBPCG_LARGEST
  call test_ok(hm_lobpcg_create(op, c_null_ptr, opt, lob), "hm_lobpcg_create largest")
  call test_ok(hm_lobpcg_run(lob), "hm_lobpcg_run largest")
  call test_ok(hm_lobpcg_eigenvalues(lob, val), "hm_lobpcg_eigenvalues largest")
  call test_assert(all(abs(val(1:3) - exact(N:N - 2:-1)) <= 1d-9 * exact(N:N - 2:-1)), "largest: eigenvalues differ")
  call test_ok(hm_lobpcg_destroy(lob), "hm_lobpcg_destroy largest")

  ! The same matrix as CSR, Jacobi preconditioner.
  allocate(rowptr(local + 1), cols(3 * local), vals(3 * local))
  rowptr(1) = 0
  nnz = 0
  do i = 1, local
    g = first + i - 1   ! 0-based global row
    if (g > 0) then
      nnz = nnz + 1; cols(nnz) = g - 1; vals(nnz) = -1
    end if
    nnz = nnz + 1; cols(nnz) = g; vals(nnz) = 2
    if (g < N - 1) then
      nnz = nnz + 1; cols(nnz) = g + 1; vals(nnz) = -1
    end if
    rowptr(i + 1) = nnz
  end do
  call test_ok(hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, vals, A), "hm_matrix_create_csr")
  call test_ok(hm_operator_create_matrix(A, opm), "hm_operator_create_matrix")
  opt%nev = 4
  opt%block = 7
  opt%which = HM_LOBPCG_SMALLEST
  opt%precond = HM_LOBPCG_PRECOND_JACOBI
  opt%precond_matrix = A
  call test_ok(hm_lobpcg_create(opm, c_null_ptr, opt, lob), "hm_lobpcg_create jacobi")
  call test_ok(hm_lobpcg_run(lob), "hm_lobpcg_run jacobi")
  call test_ok(hm_lobpcg_eigenvalues(lob, val2), "hm_lobpcg_eigenvalues jacobi")
  call test_assert(all(abs(val2 - exact(1:4)) <= 1d-9 * exact(1:4)), "jacobi: eigenvalues differ from 2 - 2 cos")
  call test_ok(hm_lobpcg_destroy(lob), "hm_lobpcg_destroy jacobi")

  ! Bad options.
  opt%nev = 0
  call test_fails(hm_lobpcg_create(op, c_null_ptr, opt, lob), HM_ERR_ARGUMENT, "nev = 0", "hm_lobpcg_create nev = 0")
  opt%nev = 4
  opt%precond_matrix = c_null_ptr
  call test_fails(hm_lobpcg_create(op, c_null_ptr, opt, lob), HM_ERR_ARGUMENT, "needs precond_matrix", &
                  "hm_lobpcg_create jacobi without matrix")

  call test_ok(hm_mvec_destroy(V), "hm_mvec_destroy V")
  call test_ok(hm_mvec_destroy(av_block), "hm_mvec_destroy av_block")
  call test_ok(hm_operator_destroy(opm), "hm_operator_destroy")
  call test_ok(hm_operator_destroy(op), "hm_operator_destroy")
  call test_ok(hm_matrix_destroy(A), "hm_matrix_destroy")
  call test_ok(hm_dist_destroy(dist), "hm_dist_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_lobpcg")
contains
  ! Byte offset of a field of probe.
  integer(c_int64_t) function off(p)
    type(c_ptr), intent(in) :: p
    off = transfer(p, 0_c_intptr_t) - transfer(c_loc(probe), 0_c_intptr_t)
  end function off
end program test_fortran_lobpcg
