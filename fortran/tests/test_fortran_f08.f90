! Contexts from mpi_f08 communicators: hm_context_create_f(comm%MPI_VAL, ...) on a communicator
! split off MPI_COMM_WORLD (one per rank parity) gives a context whose rank and size are those of
! the split communicator, not of the world; a distribution over it covers only its ranks' rows.
! (The other tests use `use mpi`; this one cannot share their helper module, so it counts its own
! failures.)
program test_fortran_f08
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use hamlet
  implicit none
  type(MPI_Comm) :: half
  type(c_ptr) :: ctx, dist
  integer :: world_rank, world_size, half_rank, half_size, failures, total
  integer(c_int) :: rank, size
  integer(c_int64_t) :: local, n, sum_local

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, world_rank)
  call MPI_Comm_size(MPI_COMM_WORLD, world_size)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(world_rank, 2), world_rank, half)
  call MPI_Comm_rank(half, half_rank)
  call MPI_Comm_size(half, half_size)
  failures = 0

  call expect(hm_context_create_f(half%MPI_VAL, HM_BACKEND_CPU, ctx) == HM_SUCCESS, "hm_context_create_f(comm%MPI_VAL)")
  call expect(hm_context_rank(ctx, rank, size) == HM_SUCCESS, "hm_context_rank")
  call expect(rank == half_rank .and. size == half_size, "context rank/size differ from the split communicator's")
  ! Rows split over the ranks of this half only: their local counts add up to n_global there.
  call expect(hm_dist_create(ctx, 40_c_int64_t, 4_c_int64_t, 1.0_c_double, dist) == HM_SUCCESS, "hm_dist_create")
  call expect(hm_dist_range(dist, local=local, n_global=n) == HM_SUCCESS, "hm_dist_range")
  call MPI_Allreduce(local, sum_local, 1, MPI_INTEGER8, MPI_SUM, half)
  call expect(n == 40 .and. sum_local == 40, "rows of the split communicator's dist do not add up to 40")
  call expect(hm_dist_destroy(dist) == HM_SUCCESS, "hm_dist_destroy")
  call expect(hm_context_destroy(ctx) == HM_SUCCESS, "hm_context_destroy")
  call MPI_Comm_free(half)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (world_rank == 0) then
    if (total == 0) write(*, '("PASS test_fortran_f08 on ", i0, " ranks")') world_size
    if (total /= 0) write(*, '("FAIL test_fortran_f08: ", i0, " failures")') total
  end if
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (ok) return
    write(*, '("FAIL ", a)') what
    write(*, '(a)') hm_error_message()
    failures = failures + 1
    call hm_error_clear()
  end subroutine expect
end program test_fortran_f08
