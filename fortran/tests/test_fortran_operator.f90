! Callback for test_fortran_operator: y = 3 x, through hm_mvec_get / hm_mvec_set; it counts its
! calls in the integer its user pointer points to.
module operator_test_callbacks
  use, intrinsic :: iso_c_binding
  use hamlet
  implicit none
contains
  function times_three(x, y, user) result(status) bind(C)
    type(c_ptr), value :: x, y, user
    integer(c_int) :: status
    integer(c_int), pointer :: calls
    integer(c_int64_t) :: local
    integer(c_int) :: k
    complex(c_double_complex), allocatable :: v(:, :)
    call c_f_pointer(user, calls)
    calls = calls + 1
    status = hm_mvec_size(x, local, k)
    if (status /= 0) return
    allocate(v(k, local))
    status = hm_mvec_get(x, v)
    if (status /= 0) return
    v = 3 * v
    status = hm_mvec_set(y, v)
  end function times_three
end module operator_test_callbacks

! The block operations and hm_operator from Fortran, each against values computed here from the
! global row formulas (so every rank knows every entry): complex blocks X (3 columns) and Y (2),
! x(j, g) = cmplx(cos(g + j), sin(0.5 g j)), y(j, g) = cmplx(1 / (g + j), g - 2 j) (g 1-based);
! - hm_mvec_dist, hm_mvec_type; hm_mvec_gram (G(b, a) = sum conj x_a y_b over all rows);
! - hm_mvec_update, hm_mvec_axpby, hm_mvec_norms, hm_mvec_copy_columns, hm_mvec_scale_rows with
!   the diagonal from hm_matrix_diagonal of a tridiagonal complex Hermitian matrix;
! - operators: the matrix (A x), shifted (z - A) x with one and with per-column shifts, and a shell
!   whose Fortran callback computes 3 x; info, context; errors for bad calls.
program test_fortran_operator
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  use operator_test_callbacks
  implicit none
  integer(c_int64_t), parameter :: N = 17
  type(c_ptr) :: ctx, dist, A, X, Y, Z, R, d, op, dist2, ctx2, bad
  integer(c_int64_t) :: first, local, i, g, nnz
  integer(c_int64_t), allocatable :: rowptr(:), cols(:)
  complex(c_double_complex), allocatable :: vals(:), xv(:, :), yv(:, :), zv(:, :), xg(:, :), yg(:, :), ref(:, :), dv(:)
  complex(c_double_complex) :: gm(2, 3), gref_(2, 3), cf(2, 3), beta(1), alpha2(2), beta2(2), shift(1), shifts(3)
  real(c_double) :: norms(3), nref(3)
  integer(c_int) :: type, k
  integer(c_int), target :: calls
  integer :: ierr, j, ia, ib

  call MPI_Init(ierr)
  call test_ok(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create")
  call test_ok(hm_dist_create(ctx, N, 1_c_int64_t, 1.0d0, dist), "hm_dist_create")
  call test_ok(hm_dist_range(dist, first, local), "hm_dist_range")

  ! Global values, then this rank's rows.
  allocate(xg(3, N), yg(2, N))
  do g = 1, N
    do j = 1, 3
      xg(j, g) = cmplx(cos(real(g + j, c_double)), sin(0.5d0 * g * j), c_double)
    end do
    do j = 1, 2
      yg(j, g) = cmplx(1.0d0 / (g + j), real(g - 2 * j, c_double), c_double)
    end do
  end do
  xv = xg(:, first + 1:first + local)
  yv = yg(:, first + 1:first + local)
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 3_c_int, X), "hm_mvec_create X")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 2_c_int, Y), "hm_mvec_create Y")
  call test_ok(hm_mvec_set(X, xv), "hm_mvec_set X")
  call test_ok(hm_mvec_set(Y, yv), "hm_mvec_set Y")

  ! dist and type.
  call test_ok(hm_mvec_dist(X, dist2), "hm_mvec_dist")
  call test_ok(hm_dist_range(dist2, i, local), "hm_dist_range of X's dist")
  call test_assert(i == first, "hm_mvec_dist: another first row")
  call test_ok(hm_mvec_type(X, type), "hm_mvec_type")
  call test_assert(type == HM_COMPLEX, "hm_mvec_type: not HM_COMPLEX")
  call test_ok(hm_mvec_context(X, ctx2), "hm_mvec_context")
  call test_assert(c_associated(ctx2, ctx), "hm_mvec_context: not the context X was made in")

  ! Gram block.
  call test_ok(hm_mvec_gram(X, Y, gm), "hm_mvec_gram")
  do ia = 1, 3
    do ib = 1, 2
      gref_(ib, ia) = sum(conjg(xg(ia, :)) * yg(ib, :))
    end do
  end do
  call test_assert(maxval(abs(gm - gref_)) < 1e-12 * maxval(abs(gref_)), "hm_mvec_gram differs from the Fortran sum")

  ! Y = beta Y + X cf.
  do ia = 1, 3
    do ib = 1, 2
      cf(ib, ia) = cmplx(ia - ib, ia * ib, c_double)
    end do
  end do
  beta(1) = (0.5d0, -1.0d0)
  call test_ok(hm_mvec_update(Y, beta, X, cf), "hm_mvec_update")
  call test_ok(hm_mvec_get(Y, yv), "hm_mvec_get Y")
  allocate(ref(2, local))
  do i = 1, local
    do ib = 1, 2
      ref(ib, i) = beta(1) * yg(ib, first + i) + sum(xg(:, first + i) * cf(ib, :))
    end do
  end do
  call test_assert(maxval(abs(yv - ref)) < 1e-12, "hm_mvec_update differs from the Fortran product")

  ! y_j = alpha_j x_j + beta_j y_j on two columns (x = the first two columns of X, copied).
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 2_c_int, Z), "hm_mvec_create Z")
  call test_ok(hm_mvec_copy_columns(X, 1_c_int, Z, 0_c_int, 2_c_int), "hm_mvec_copy_columns")
  allocate(zv(2, local))
  call test_ok(hm_mvec_get(Z, zv), "hm_mvec_get Z")
  call test_assert(all(zv == xv(2:3, :)), "hm_mvec_copy_columns: columns 1, 2 of X not in Z")
  alpha2 = [(2.0d0, 0.0d0), (0.0d0, 1.0d0)]
  beta2 = [(-1.0d0, 0.0d0), (0.5d0, 0.5d0)]
  call test_ok(hm_mvec_axpby(Y, alpha2, Z, beta2), "hm_mvec_axpby")
  ref(1, :) = alpha2(1) * xv(2, :) + beta2(1) * ref(1, :)
  ref(2, :) = alpha2(2) * xv(3, :) + beta2(2) * ref(2, :)
  call test_ok(hm_mvec_get(Y, yv), "hm_mvec_get Y")
  call test_assert(maxval(abs(yv - ref)) < 1e-12, "hm_mvec_axpby differs from the Fortran update")

  ! Norms.
  call test_ok(hm_mvec_norms(X, norms), "hm_mvec_norms")
  do j = 1, 3
    nref(j) = sqrt(sum(abs(xg(j, :))**2))
  end do
  call test_assert(maxval(abs(norms - nref)) < 1e-12 * maxval(nref), "hm_mvec_norms differs from the Fortran norms")

  ! A tridiagonal Hermitian matrix: diagonal 2 + g / 10, off-diagonal (-1, 0.5) / conjugate.
  allocate(rowptr(local + 1), cols(3 * local), vals(3 * local))
  rowptr(1) = 0
  nnz = 0
  do i = 1, local
    g = first + i   ! 1-based global row; cf column indices are 0-based
    if (g > 1) then
      nnz = nnz + 1; cols(nnz) = g - 2; vals(nnz) = conjg((-1.0d0, 0.5d0))
    end if
    nnz = nnz + 1; cols(nnz) = g - 1; vals(nnz) = 2 + g / 10.0d0
    if (g < N) then
      nnz = nnz + 1; cols(nnz) = g; vals(nnz) = (-1.0d0, 0.5d0)
    end if
    rowptr(i + 1) = nnz
  end do
  call test_ok(hm_matrix_create_csr(ctx, dist, HM_COMPLEX, rowptr, cols, vals, A), "hm_matrix_create_csr")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 1_c_int, d), "hm_mvec_create d")
  call test_ok(hm_matrix_diagonal(A, d), "hm_matrix_diagonal")
  allocate(dv(local))
  call test_ok(hm_mvec_get(d, dv), "hm_mvec_get d")
  call test_assert(all(abs(dv - [(2 + (first + i) / 10.0d0, i = 1, local)]) < 1e-15), "hm_matrix_diagonal: wrong diagonal")
  call test_ok(hm_mvec_scale_rows(X, d, X), "hm_mvec_scale_rows")
  call test_ok(hm_mvec_get(X, xv), "hm_mvec_get X")
  call test_assert(maxval(abs(xv - spread(dv, 1, 3) * xg(:, first + 1:first + local))) < 1e-12, &
                   "hm_mvec_scale_rows differs from d_i x_ij")

  ! Operators on the scaled X (values xv on this rank; the global scaled values for the product).
  do g = 1, N
    xg(:, g) = (2 + g / 10.0d0) * xg(:, g)
  end do
  deallocate(ref)
  allocate(ref(3, local))
  do i = 1, local
    g = first + i
    ref(:, i) = (2 + g / 10.0d0) * xg(:, g)
    if (g > 1) ref(:, i) = ref(:, i) + conjg((-1.0d0, 0.5d0)) * xg(:, g - 1)
    if (g < N) ref(:, i) = ref(:, i) + (-1.0d0, 0.5d0) * xg(:, g + 1)
  end do
  deallocate(zv)
  allocate(zv(3, local))
  call test_ok(hm_mvec_destroy(Z), "hm_mvec_destroy Z")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 3_c_int, Z), "hm_mvec_create Z")
  call test_ok(hm_operator_create_matrix(A, op), "hm_operator_create_matrix")
  call test_ok(hm_operator_apply(op, X, Z), "hm_operator_apply matrix")
  call test_ok(hm_mvec_get(Z, zv), "hm_mvec_get Z")
  call test_assert(maxval(abs(zv - ref)) < 1e-12, "matrix operator: A x differs from the Fortran product")
  call test_ok(hm_operator_info(op, dist2, type), "hm_operator_info")
  call test_assert(type == HM_COMPLEX, "hm_operator_info: not HM_COMPLEX")
  call test_ok(hm_operator_context(op, ctx2), "hm_operator_context")
  call test_assert(c_associated(ctx2, ctx), "hm_operator_context: another context")
  call test_fails(hm_operator_apply(op, X, X), HM_ERR_ARGUMENT, "distinct", "hm_operator_apply(op, X, X)")
  call test_ok(hm_operator_destroy(op), "hm_operator_destroy")
  call test_assert(.not. c_associated(op), "hm_operator_destroy did not null the handle")

  shift(1) = (0.25d0, 1.0d0)
  call test_ok(hm_operator_create_shifted(A, 1_c_int, shift, op), "hm_operator_create_shifted 1")
  call test_ok(hm_operator_apply(op, X, Z), "hm_operator_apply shifted 1")
  call test_ok(hm_mvec_get(Z, zv), "hm_mvec_get Z")
  call test_assert(maxval(abs(zv - (shift(1) * xv - ref))) < 1e-12, "shifted operator: (z - A) x differs")
  call test_ok(hm_operator_destroy(op), "hm_operator_destroy")
  shifts = [(1.0d0, 0.0d0), (0.0d0, -2.0d0), (3.0d0, 0.5d0)]
  call test_ok(hm_operator_create_shifted(A, 3_c_int, shifts, op), "hm_operator_create_shifted 3")
  call test_ok(hm_operator_apply(op, X, Z), "hm_operator_apply shifted 3")
  call test_ok(hm_mvec_get(Z, zv), "hm_mvec_get Z")
  call test_assert(maxval(abs(zv - (spread(shifts, 2, int(local)) * xv - ref))) < 1e-12, &
                   "per-column shifted operator: (z_j - A) x_j differs")
  call test_fails(hm_operator_apply(op, Y, Y), HM_ERR_ARGUMENT, "distinct", "hm_operator_apply(op, Y, Y)")
  call test_ok(hm_operator_destroy(op), "hm_operator_destroy")

  calls = 0
  call test_ok(hm_operator_create_shell(ctx, dist, HM_COMPLEX, c_funloc(times_three), c_loc(calls), op), &
               "hm_operator_create_shell")
  call test_ok(hm_operator_apply(op, X, Z), "hm_operator_apply shell")
  call test_ok(hm_mvec_get(Z, zv), "hm_mvec_get Z")
  call test_assert(calls == 1 .and. maxval(abs(zv - 3 * xv)) < 1e-14, "shell operator: 3 x not returned")
  call test_ok(hm_mvec_size(Z, local, k), "hm_mvec_size")
  call test_fails(hm_operator_create_shell(ctx, dist, 5_c_int, c_funloc(times_three), c_null_ptr, bad), &
                  HM_ERR_ARGUMENT, "type 5", "hm_operator_create_shell bad type")
  call test_ok(hm_operator_destroy(op), "hm_operator_destroy")
  call test_ok(hm_mvec_create(ctx, dist, HM_REAL, 2_c_int, R), "hm_mvec_create R")
  call test_fails(hm_mvec_gram(X, R, gm), HM_ERR_ARGUMENT, "differ in scalar type", "hm_mvec_gram of real and complex")
  call test_ok(hm_mvec_destroy(R), "hm_mvec_destroy")

  call test_ok(hm_mvec_destroy(X), "hm_mvec_destroy")
  call test_ok(hm_mvec_destroy(Y), "hm_mvec_destroy")
  call test_ok(hm_mvec_destroy(Z), "hm_mvec_destroy")
  call test_ok(hm_mvec_destroy(d), "hm_mvec_destroy")
  call test_ok(hm_matrix_destroy(A), "hm_matrix_destroy")
  call test_ok(hm_dist_destroy(dist), "hm_dist_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_operator")
end program test_fortran_operator
