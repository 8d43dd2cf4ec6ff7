! Helpers for the Fortran twins of the C tests (the same jobs as tests/support/testing.h):
! checked calls, assertions counted over all ranks, and exact references for small matrices.
module hamlet_testing
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  implicit none
  private
  public :: test_ok, test_assert, test_fails, test_finish, test_dense, test_eigh, test_failures

  integer :: test_failures = 0

contains

  ! The call returned HM_SUCCESS.
  subroutine test_ok(status, where)
    integer(c_int), intent(in) :: status
    character(*), intent(in) :: where
    if (status /= HM_SUCCESS) then
      write(*, '("FAIL ", a, ": returned ", i0)') where, status
      write(*, '(a)') hm_error_message()
      test_failures = test_failures + 1
      call hm_error_clear()
    end if
  end subroutine test_ok

  subroutine test_assert(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      write(*, '("FAIL ", a)') what
      test_failures = test_failures + 1
    end if
  end subroutine test_assert

  ! The call failed with `code`, and hm_error_message contains `needle`.
  subroutine test_fails(status, code, needle, where)
    integer(c_int), intent(in) :: status, code
    character(*), intent(in) :: needle, where
    character(:), allocatable :: msg
    msg = hm_error_message()
    if (status /= code) then
      write(*, '("FAIL ", a, ": returned ", i0, ", expected ", i0, " (", a, ")")') where, status, code, &
        hm_status_string(code)
      write(*, '(a)') msg
      test_failures = test_failures + 1
    else if (index(msg, needle) == 0) then
      write(*, '("FAIL ", a, ": message lacks """, a, """:")') where, needle
      write(*, '(a)') msg
      test_failures = test_failures + 1
    end if
    call hm_error_clear()
  end subroutine test_fails

  ! Sum failures over MPI_COMM_WORLD, print PASS or FAIL on rank 0, finalize MPI, and stop with
  ! a nonzero exit code on failure.
  subroutine test_finish(name)
    character(*), intent(in) :: name
    integer :: total, rank, ierr
    call MPI_Allreduce(test_failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    if (rank == 0) then
      if (total == 0) then
        write(*, '("PASS ", a)') name
      else
        write(*, '("FAIL ", a, ": ", i0, " failures")') name, total
      end if
    end if
    call MPI_Finalize(ierr)
    if (total /= 0) error stop 1
  end subroutine test_finish

  ! Dense n x n copy of a small hm_matrix on every rank, made only through the public API: A is
  ! applied to the n unit vectors (one block of n columns) and the rows are summed over ranks.
  subroutine test_dense(ctx, A, dense)
    type(c_ptr), intent(in) :: ctx, A
    complex(c_double_complex), allocatable, intent(out) :: dense(:, :)
    type(c_ptr) :: dist, x, y
    integer(c_int64_t) :: n, first, local, i
    integer(c_int) :: type
    integer :: ierr, k
    real(c_double), allocatable :: xr(:, :), yr(:, :)
    complex(c_double_complex), allocatable :: xc(:, :), yc(:, :), part(:, :)
    call test_ok(hm_matrix_info(A, n_global=n, type=type), "hm_matrix_info")
    call test_ok(hm_matrix_dist(A, dist), "hm_matrix_dist")
    call test_ok(hm_dist_range(dist, first, local), "hm_dist_range")
    k = int(n)
    call test_ok(hm_mvec_create(ctx, dist, type, k, x), "hm_mvec_create x")
    call test_ok(hm_mvec_create(ctx, dist, type, k, y), "hm_mvec_create y")
    allocate(part(n, n))
    part = 0
    ! Block column j is unit vector e_j; entry (j, i) of the block is row i, column j.
    if (type == HM_REAL) then
      allocate(xr(k, local), yr(k, local))
      xr = 0
      do i = 1, local
        xr(first + i, i) = 1
      end do
      call test_ok(hm_mvec_set(x, xr), "hm_mvec_set")
      call test_ok(hm_matrix_apply(A, x, y), "hm_matrix_apply")
      call test_ok(hm_mvec_get(y, yr), "hm_mvec_get")
      do i = 1, local
        part(first + i, :) = yr(:, i)
      end do
    else
      allocate(xc(k, local), yc(k, local))
      xc = 0
      do i = 1, local
        xc(first + i, i) = 1
      end do
      call test_ok(hm_mvec_set(x, xc), "hm_mvec_set")
      call test_ok(hm_matrix_apply(A, x, y), "hm_matrix_apply")
      call test_ok(hm_mvec_get(y, yc), "hm_mvec_get")
      do i = 1, local
        part(first + i, :) = yc(:, i)
      end do
    end if
    allocate(dense(n, n))
    call MPI_Allreduce(part, dense, int(n * n), MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
    call test_ok(hm_mvec_destroy(x), "hm_mvec_destroy x")
    call test_ok(hm_mvec_destroy(y), "hm_mvec_destroy y")
  end subroutine test_dense

  ! Ascending eigenvalues w (and eigenvectors in the columns of vec, if present) of a dense
  ! Hermitian matrix, by LAPACK zheev.
  subroutine test_eigh(h, w, vec)
    complex(c_double_complex), intent(in) :: h(:, :)
    real(c_double), intent(out) :: w(:)
    complex(c_double_complex), intent(out), optional :: vec(:, :)
    external :: zheev
    complex(c_double_complex), allocatable :: a(:, :), work(:)
    real(c_double), allocatable :: rwork(:)
    integer :: n, info
    character :: jobz
    n = size(h, 1)
    a = h
    jobz = 'N'
    if (present(vec)) jobz = 'V'
    allocate(work(4 * n), rwork(3 * n))
    call zheev(jobz, 'U', n, a, n, w, work, 4 * n, rwork, info)
    call test_assert(info == 0, "zheev failed")
    if (present(vec)) vec = a
  end subroutine test_eigh
end module hamlet_testing
