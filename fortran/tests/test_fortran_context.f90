! Context weights and the mixed backend from Fortran: the default weight is 1; a weight of 3 on
! rank 0 gives it three times the rows of another rank in hm_dist_create; a weight of 0 is
! refused; backend = mixed resolves to cpu or cuda per rank; a context on a device number that
! is not visible is refused with a message naming the device (no GPU runs Fortran tests).
program test_fortran_context
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  type(c_ptr) :: ctx, dist
  real(c_double) :: w
  integer(c_int64_t) :: first, local, n
  integer(c_int) :: backend, status
  integer :: ierr, rank, nranks, comm, cmp

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "context")
  call test_ok(hm_context_weight(ctx, w), "weight")
  ! the context's communicator is a duplicate of the one given: congruent, not identical
  call test_ok(hm_context_comm_f(ctx, comm), "hm_context_comm_f")
  call MPI_Comm_compare(comm, MPI_COMM_WORLD, cmp, ierr)
  call test_assert(cmp == MPI_CONGRUENT, "hm_context_comm_f: not a duplicate of MPI_COMM_WORLD")
  ! hm_context_create takes the Fortran handle too (it binds to hm_context_create_f)
  call test_ok(hm_context_destroy(ctx), "context destroy")
  call test_ok(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create, Fortran handle")
  call test_assert(w == 1, "the default weight is 1")
  if (rank == 0) then
    call test_ok(hm_context_set_weight(ctx, 3.0_c_double), "set weight")
  end if
  call test_ok(hm_dist_create(ctx, int(12 * (nranks + 2), c_int64_t), 1_c_int64_t, 1.0_c_double, dist), "dist")
  call test_ok(hm_dist_range(dist, first, local, n), "range")
  if (rank == 0) then
    call test_assert(local == 36, "rank 0 with weight 3 gets 3/(size + 2) of the rows")
  else
    call test_assert(local == 12, "a rank with weight 1 gets 1/(size + 2) of the rows")
  end if
  call test_fails(hm_context_set_weight(ctx, 0.0_c_double), HM_ERR_ARGUMENT, "must be finite and > 0", "weight 0")
  call test_ok(hm_dist_destroy(dist), "dist destroy")
  call test_ok(hm_context_destroy(ctx), "context destroy")
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_MIXED, ctx), "mixed context")
  call test_ok(hm_context_backend(ctx, backend), "backend")
  call test_assert(backend == HM_BACKEND_CPU .or. backend == HM_BACKEND_CUDA, "mixed resolves to cpu or cuda")
  call test_ok(hm_context_destroy(ctx), "context destroy")
  call test_fails(hm_context_create_on_device(MPI_COMM_WORLD, -1, ctx), HM_ERR_ARGUMENT, &
                  "a device number is >= 0", "device -1")
  call test_assert(.not. c_associated(ctx), "a refused context is NULL")
  ! without CUDA built: HM_ERR_BACKEND; built, with fewer devices visible: HM_ERR_ARGUMENT
  status = hm_context_create_on_device_f(MPI_COMM_WORLD, 1000, ctx)
  call test_assert(status == HM_ERR_ARGUMENT .or. status == HM_ERR_BACKEND, "device 1000: argument or backend error")
  call test_assert(index(hm_error_message(), "CUDA device 1000 asked") > 0, "device 1000: the message names it")
  call test_finish("test_fortran_context")
end program test_fortran_context
