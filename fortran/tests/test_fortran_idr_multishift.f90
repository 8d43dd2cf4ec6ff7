! Multi-shift IDR(s) from Fortran: the complex Hermitian tridiagonal H = tridiag(0.5 i, d_r, -0.5 i)
! (d_r = cos r) of size N, and (H + shift_q) x = b for 9 shifts shift_q = -(E_q + 0.1 i): every
! shift's solution against LAPACK's zgesv, the true residuals, a checkpoint state restored into a
! new solver (nothing left to do, same x), a refused preconditioner. On 1 and 2 ranks.
module ms_checkpoint_counter
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: calls = 0
contains
  function count_calls(ms, user) result(status) bind(C)
    type(c_ptr), value :: ms, user
    integer(c_int) :: status
    calls = calls + 1
    status = 0
  end function
end module ms_checkpoint_counter

program test_fortran_idr_multishift
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  use ms_checkpoint_counter
  implicit none
  integer(c_int64_t), parameter :: N = 60
  integer, parameter :: NS = 9
  type(c_ptr) :: ctx, dist, H, op, b, x, ms, ms2, blk, blk2
  type(hm_idr_options) :: opt
  integer(c_int64_t) :: first, local, nglob, i, r
  integer(c_int64_t), allocatable :: rowptr(:), cols(:)
  complex(c_double_complex), allocatable :: vals(:), bl(:), xl(:,:), dense(:,:), ref(:), full(:), mine(:), xl2(:,:)
  complex(c_double_complex) :: shifts(NS)
  integer(c_int) :: k, seed, solve_status, its(NS), conv(NS), nblocks, nscalars, q, ipiv(N), info
  real(c_double) :: est(NS), tru(NS), err
  real(c_double), allocatable :: scalars(:)
  integer :: ierr, nnz

  call MPI_Init(ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  call test_ok(hm_dist_create(ctx, N, 1_c_int64_t, 1.0_c_double, dist), "hm_dist_create")
  call test_ok(hm_dist_range(dist, first, local, nglob), "hm_dist_range")
  allocate(rowptr(local + 1), cols(3 * local + 1), vals(3 * local + 1), bl(max(local, 1_c_int64_t)))
  nnz = 0
  rowptr(1) = 0
  do i = 1, local
    r = first + i - 1 ! 0-based global row
    if (r > 0) then
      nnz = nnz + 1
      cols(nnz) = r - 1
      vals(nnz) = (0.0d0, 0.5d0)
    end if
    nnz = nnz + 1
    cols(nnz) = r
    vals(nnz) = cos(real(r, c_double))
    if (r < N - 1) then
      nnz = nnz + 1
      cols(nnz) = r + 1
      vals(nnz) = (0.0d0, -0.5d0)
    end if
    rowptr(i + 1) = nnz
    bl(i) = cmplx(sin(1.0d0 + r), cos(2.0d0 * r), c_double_complex)
  end do
  call test_ok(hm_matrix_create_csr(ctx, dist, HM_COMPLEX, rowptr, cols, vals, H), "hm_matrix_create_csr")
  call test_ok(hm_operator_create_matrix(H, op), "hm_operator_create_matrix")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 1_c_int, b), "hm_mvec_create b")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, int(NS, c_int), x), "hm_mvec_create x")
  call test_ok(hm_mvec_set(b, bl), "hm_mvec_set b")
  do q = 1, NS
    shifts(q) = -cmplx(-2.0d0 + 0.5d0 * (q - 1), 0.1d0, c_double_complex)
  end do

  call test_ok(hm_idr_options_default(opt), "hm_idr_options_default")
  opt%tol = 1d-10
  opt%s = 2
  opt%checkpoint_every = 2
  call test_ok(hm_idr_multishift_create(op, opt, NS, shifts, ms), "hm_idr_multishift_create")
  call test_ok(hm_idr_multishift_set_checkpoint(ms, c_funloc(count_calls), c_null_ptr), &
               "hm_idr_multishift_set_checkpoint")
  call test_ok(hm_idr_multishift_solve(ms, b, x), "hm_idr_multishift_solve")
  call test_ok(hm_idr_multishift_info(ms, k, seed, solve_status), "hm_idr_multishift_info")
  call test_assert(k == 1 .and. seed >= 0 .and. seed < NS .and. solve_status == HM_SUCCESS, "info: one rhs, a seed, success")
  call test_assert(calls > 0, "the checkpoint callback was called")
  call test_ok(hm_idr_multishift_results(ms, its, conv, est, tru), "hm_idr_multishift_results")
  call test_assert(all(conv == 1) .and. all(tru <= 1d-10) .and. all(its > 0), "every shift converged (true residual)")

  ! LAPACK reference per shift
  allocate(xl(NS, max(local, 1_c_int64_t)), xl2(NS, max(local, 1_c_int64_t)), dense(N, N), ref(N), full(N), mine(N))
  call test_ok(hm_mvec_get(x, xl), "hm_mvec_get x")
  mine = 0
  mine(first + 1:first + local) = bl(1:local)
  call MPI_Allreduce(mine, full, int(N), MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  do q = 1, NS
    dense = 0
    do i = 1, N
      dense(i, i) = cos(real(i - 1, c_double)) + shifts(q)
      if (i > 1) dense(i, i - 1) = (0.0d0, 0.5d0)
      if (i < N) dense(i, i + 1) = (0.0d0, -0.5d0)
    end do
    ref = full
    call zgesv(int(N), 1, dense, int(N), ipiv, ref, int(N), info)
    call test_assert(info == 0, "zgesv")
    mine = 0
    mine(first + 1:first + local) = xl(q, 1:local)
    call MPI_Allreduce(MPI_IN_PLACE, mine, int(N), MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
    err = sqrt(sum(abs(mine - ref)**2) / sum(abs(ref)**2))
    call test_assert(err < 1d-8, "a shift's solution matches LAPACK")
  end do

  ! the checkpoint state after the solve, restored into a new solver: nothing left to do, same x
  call test_ok(hm_idr_multishift_state_size(ms, nblocks, nscalars), "hm_idr_multishift_state_size")
  allocate(scalars(nscalars))
  call test_ok(hm_idr_multishift_state_get(ms, scalars), "hm_idr_multishift_state_get")
  opt%checkpoint_every = 0
  call test_ok(hm_idr_multishift_create(op, opt, NS, shifts, ms2), "hm_idr_multishift_create (restore)")
  call test_ok(hm_idr_multishift_restore(ms2, 1, scalars), "hm_idr_multishift_restore")
  do q = 0, nblocks - 1
    call test_ok(hm_idr_multishift_state_block(ms, q, blk), "hm_idr_multishift_state_block")
    call test_ok(hm_idr_multishift_state_block(ms2, q, blk2), "hm_idr_multishift_state_block (restored)")
    call test_ok(hm_mvec_size(blk, local, k), "hm_mvec_size")
    call test_ok(hm_mvec_copy_columns(blk, 0, blk2, 0, k), "hm_mvec_copy_columns")
  end do
  call test_ok(hm_idr_multishift_solve(ms2, b, x), "hm_idr_multishift_solve (restored)")
  call test_ok(hm_mvec_get(x, xl2), "hm_mvec_get x (restored)")
  call test_assert(all(xl2(:, 1:local) == xl(:, 1:local)), "the restored solver gives the same x")

  opt%precond = HM_IDR_PRECOND_JACOBI
  call test_fails(hm_idr_multishift_create(op, opt, NS, shifts, ms2), HM_ERR_ARGUMENT, "not shift-invariant", &
                  "a preconditioner is refused")
  call test_ok(hm_idr_multishift_destroy(ms), "hm_idr_multishift_destroy")
  call test_ok(hm_idr_multishift_destroy(ms2), "hm_idr_multishift_destroy (restored)")
  call test_ok(hm_mvec_destroy(b), "hm_mvec_destroy b")
  call test_ok(hm_mvec_destroy(x), "hm_mvec_destroy x")
  call test_ok(hm_operator_destroy(op), "hm_operator_destroy")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  call test_ok(hm_dist_destroy(dist), "hm_dist_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_idr_multishift")
end program test_fortran_idr_multishift
