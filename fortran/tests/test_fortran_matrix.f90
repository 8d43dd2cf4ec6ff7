! Fortran twin of linalg/tests/test_matrix.c, on any rank count: contexts from a Fortran
! communicator, weighted distributions, vector blocks (set/get, random phases, dots), and y = A x
! of a small random sparse matrix built in Fortran (same on every rank) against the dense product
! computed in Fortran, real and complex, several block widths; bad inputs fail with the right
! status and a message that says what is wrong.
program test_fortran_matrix
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  integer, parameter :: N = 157, PER_ROW = 7
  type(c_ptr) :: ctx, ctx2, d
  integer :: ierr, rank, nranks, k
  integer(c_int) :: crank, csize, backend, status

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  ! Contexts.
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  call test_ok(hm_context_rank(ctx, crank, csize), "hm_context_rank")
  call test_assert(crank == rank .and. csize == nranks, "context rank/size differ from MPI_COMM_WORLD's")
  call test_ok(hm_context_backend(ctx, backend), "hm_context_backend")
  call test_assert(backend == HM_BACKEND_CPU, "backend should be cpu")
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_AUTO, ctx2), "hm_context_create_f auto")
  call test_ok(hm_context_backend(ctx2, backend), "hm_context_backend auto")
  call test_assert(backend == HM_BACKEND_CPU .or. backend == HM_BACKEND_CUDA, "auto must resolve to cpu or cuda")
  call test_ok(hm_context_destroy(ctx2), "hm_context_destroy")
  call test_assert(.not. c_associated(ctx2), "hm_context_destroy must null the handle")
  ! MPICH: a C MPI_Comm is an int equal to the Fortran handle, so the C entry point works too.
  call test_ok(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx2), "hm_context_create")
  call test_ok(hm_context_rank(ctx2, size=csize), "hm_context_rank size only")
  call test_assert(csize == nranks, "hm_context_create: size differs")
  call test_ok(hm_context_destroy(ctx2), "hm_context_destroy")
  call test_fails(hm_context_create_f(MPI_COMM_WORLD, 7_c_int, ctx2), HM_ERR_ARGUMENT, &
                  "auto (0), cpu (1), cuda (2)", "backend 7")
  ! cuda: refused with HM_ERR_BACKEND where it is not available, or works.
  status = hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CUDA, ctx2)
  if (status /= HM_SUCCESS) then
    call test_fails(status, HM_ERR_BACKEND, "cuda", "backend cuda")
  else
    call test_ok(hm_context_destroy(ctx2), "hm_context_destroy cuda")
  end if

  call check_dist(ctx)
  call check_mvec(ctx)
  do k = 1, 8
    call check_apply(ctx, HM_COMPLEX, k)
    call check_apply(ctx, HM_REAL, k)
  end do
  call check_apply(ctx, HM_COMPLEX, 32)
  call check_bad_matrix(ctx)

  ! Destroying a null handle is a no-op.
  d = c_null_ptr
  call test_ok(hm_dist_destroy(d), "hm_dist_destroy(null)")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_matrix")

contains

  ! Row ranges: contiguous, in whole blocks, cover all rows, rank r gets weight (r+1).
  subroutine check_dist(ctx)
    type(c_ptr), intent(in) :: ctx
    type(c_ptr) :: d
    integer(c_int64_t) :: first, local, n, total, next, last
    real(c_double) :: expect
    integer :: ierr
    call test_ok(hm_dist_create(ctx, 4000_c_int64_t, 4_c_int64_t, rank + 1.0_c_double, d), "hm_dist_create")
    call test_ok(hm_dist_range(d, first, local, n), "hm_dist_range")
    expect = 4000.0d0 * (rank + 1) / (nranks * (nranks + 1) / 2.0d0)
    call test_assert(n == 4000 .and. abs(local - expect) <= 4 .and. mod(local, 4_c_int64_t) == 0 &
                     .and. mod(first, 4_c_int64_t) == 0, "weighted dist: rows not about weight/total")
    call MPI_Allreduce(local, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
    call test_assert(total == 4000, "dist ranges do not cover every row once")
    ! The next rank starts where this one ends.
    last = first + local
    call MPI_Sendrecv(last, 1, MPI_INTEGER8, modulo(rank + 1, nranks), 0, next, 1, MPI_INTEGER8, &
                      modulo(rank - 1, nranks), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (rank > 0) call test_assert(next == first, "dist ranges are not contiguous")
    if (rank == 0) call test_assert(first == 0, "rank 0 must start at row 0")
    call test_ok(hm_dist_destroy(d), "hm_dist_destroy")
    call test_assert(.not. c_associated(d), "hm_dist_destroy must null the handle")
    call test_fails(hm_dist_create(ctx, 10_c_int64_t, 4_c_int64_t, 1.0_c_double, d), HM_ERR_ARGUMENT, &
                    "multiple of block", "dist 10 rows in blocks of 4")
    call test_fails(hm_dist_create(ctx, 12_c_int64_t, 4_c_int64_t, -1.0_c_double, d), HM_ERR_ARGUMENT, &
                    "weight", "dist with weight -1")
  end subroutine check_dist

  ! Blocks: set/get round trip, random phases of modulus 1 (complex) or +-1 (real), and dots
  ! against sums computed in Fortran.
  subroutine check_mvec(ctx)
    type(c_ptr), intent(in) :: ctx
    integer, parameter :: K = 3
    type(c_ptr) :: d, x, y
    integer(c_int64_t) :: first, local, rows, i
    integer(c_int) :: kk
    complex(c_double_complex), allocatable :: xc(:, :), yc(:, :), back(:, :)
    complex(c_double_complex) :: dots(K), ref(K), part(K)
    real(c_double), allocatable :: xr(:, :)
    real(c_double) :: rdots(K)
    integer :: ierr, j
    call test_ok(hm_dist_create(ctx, int(N, c_int64_t), 1_c_int64_t, 1.0_c_double, d), "hm_dist_create")
    call test_ok(hm_dist_range(d, first, local), "hm_dist_range")
    call test_ok(hm_mvec_create(ctx, d, HM_COMPLEX, int(K, c_int), x), "hm_mvec_create x")
    call test_ok(hm_mvec_create(ctx, d, HM_COMPLEX, int(K, c_int), y), "hm_mvec_create y")
    call test_ok(hm_mvec_size(x, rows, kk), "hm_mvec_size")
    call test_assert(rows == local .and. kk == K, "hm_mvec_size differs from the dist")
    allocate(xc(K, local), yc(K, local), back(K, local))
    do i = 1, local
      xc(:, i) = [(cmplx(first + i, j, c_double_complex), j = 1, K)]
      yc(:, i) = [(cmplx(sin(0.3d0 * (first + i) + j), cos(0.7d0 * (first + i) * j), c_double_complex), j = 1, K)]
    end do
    call test_ok(hm_mvec_set(x, xc), "hm_mvec_set x")
    call test_ok(hm_mvec_set(y, yc), "hm_mvec_set y")
    call test_ok(hm_mvec_get(x, back), "hm_mvec_get")
    call test_assert(all(back == xc), "hm_mvec_get does not return what hm_mvec_set stored")
    ! <x_j|y_j> = sum conj(x) y, over all ranks.
    call test_ok(hm_mvec_dot(x, y, dots), "hm_mvec_dot")
    part = sum(conjg(xc) * yc, dim=2)
    call MPI_Allreduce(part, ref, K, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
    call test_assert(maxval(abs(dots - ref)) <= 1d-12 * maxval(abs(ref)), "complex hm_mvec_dot differs from the sum")
    call test_ok(hm_mvec_random_phase(x, 42_c_int64_t), "hm_mvec_random_phase")
    call test_ok(hm_mvec_get(x, back), "hm_mvec_get phases")
    call test_assert(maxval(abs(abs(back) - 1)) < 1d-14, "complex random phases must have modulus 1")
    call test_ok(hm_mvec_dot(x, x, dots), "hm_mvec_dot x x")
    call test_assert(maxval(abs(dots - N)) < 1d-10, "<x|x> of random phases must be N")
    call test_ok(hm_mvec_destroy(x), "hm_mvec_destroy")
    call test_ok(hm_mvec_destroy(y), "hm_mvec_destroy")
    call test_assert(.not. c_associated(x), "hm_mvec_destroy must null the handle")
    ! Real: entries +-1, both signs present, <x|x> = N.
    call test_ok(hm_mvec_create(ctx, d, HM_REAL, int(K, c_int), x), "hm_mvec_create real")
    call test_ok(hm_mvec_random_phase(x, 7_c_int64_t), "hm_mvec_random_phase real")
    allocate(xr(K, local))
    call test_ok(hm_mvec_get(x, xr), "hm_mvec_get real")
    call test_assert(all(abs(xr) == 1), "real random phases must be +-1")
    call test_ok(hm_mvec_dot(x, x, rdots), "hm_mvec_dot real")
    call test_assert(all(rdots == N), "real <x|x> must be N")
    call test_fails(hm_mvec_create(ctx, d, 3_c_int, 1_c_int, y), HM_ERR_ARGUMENT, "HM_REAL (1) or HM_COMPLEX (2)", &
                    "mvec of type 3")
    call test_fails(hm_mvec_create(ctx, d, HM_REAL, 0_c_int, y), HM_ERR_ARGUMENT, "must be >= 1", "mvec k = 0")
    call test_ok(hm_mvec_destroy(x), "hm_mvec_destroy")
    call test_ok(hm_dist_destroy(d), "hm_dist_destroy")
  end subroutine check_mvec

  ! Column of entry p of global row i (0-based), the same on every rank: p = 0 the diagonal,
  ! p = 1 the previous row (in another rank's range at range starts), the rest scattered with
  ! repeats (duplicates must be summed).
  integer(c_int64_t) function column(i, p)
    integer(c_int64_t), intent(in) :: i
    integer, intent(in) :: p
    if (p == 0) then
      column = i
    else if (p == 1) then
      column = modulo(i - 1, int(N, c_int64_t))
    else
      column = modulo(i * 7919 + p * p * 104729 + i * i * 31, int(N, c_int64_t))
    end if
  end function column

  complex(c_double_complex) function entry(i, p, type)
    integer(c_int64_t), intent(in) :: i
    integer, intent(in) :: p
    integer(c_int), intent(in) :: type
    entry = cmplx(sin(1.3d0 * i + 2.1d0 * p + 0.7d0) * 0.5d0, 0, c_double_complex)
    if (type == HM_COMPLEX) entry = entry + cmplx(0, cos(0.9d0 * i - 1.7d0 * p) * 0.5d0, c_double_complex)
  end function entry

  subroutine check_apply(ctx, type, k)
    type(c_ptr), intent(in) :: ctx
    integer(c_int), intent(in) :: type
    integer, intent(in) :: k
    type(c_ptr) :: d, A, x, y, z, Ad
    integer(c_int64_t) :: first, local, i, q, n_got, nnz, nnz_ref, f2, l2, nnz_local
    integer(c_int64_t), allocatable :: rowptr(:), cols(:), rp(:), cl(:)
    real(c_double), allocatable :: vr(:), vl(:)
    complex(c_double_complex), allocatable :: row(:)
    complex(c_double_complex), allocatable :: vc(:), xv(:, :), yv(:, :), xl(:, :), xg(:, :), ref(:, :)
    complex(c_double_complex), allocatable :: dense(:, :)
    real(c_double) :: worst, lo, hi, glo, ghi, radius
    integer(c_int) :: t
    integer :: p, r, ierr
    character(64) :: what
    write(what, '("type ", i0, " k ", i0)') type, k
    call test_ok(hm_dist_create(ctx, int(N, c_int64_t), 1_c_int64_t, 1.0_c_double, d), "hm_dist_create")
    call test_ok(hm_dist_range(d, first, local), "hm_dist_range")
    ! This rank's CSR rows, and the whole dense matrix (dense(i+1, c+1) = A_ic).
    allocate(rowptr(0:local), cols(local * PER_ROW), vr(local * PER_ROW), vc(local * PER_ROW))
    allocate(dense(N, N))
    dense = 0
    do i = 0, N - 1
      do p = 0, PER_ROW - 1
        dense(i + 1, column(i, p) + 1) = dense(i + 1, column(i, p) + 1) + entry(i, p, type)
        if (i >= first .and. i < first + local) then
          q = (i - first) * PER_ROW + p + 1
          cols(q) = column(i, p)
          vr(q) = real(entry(i, p, type))
          vc(q) = entry(i, p, type)
        end if
      end do
    end do
    rowptr = [(i * PER_ROW, i = 0, local)]
    if (type == HM_REAL) then
      call test_ok(hm_matrix_create_csr(ctx, d, type, rowptr, cols, vr, A), "hm_matrix_create_csr real")
    else
      call test_ok(hm_matrix_create_csr(ctx, d, type, rowptr, cols, vc, A), "hm_matrix_create_csr complex")
    end if
    ! Size, stored nonzeros (distinct (row, column) pairs), type, and the row distribution.
    call test_ok(hm_matrix_info(A, n_got, nnz, t), "hm_matrix_info")
    nnz_ref = 0
    do i = 0, N - 1
      do p = 0, PER_ROW - 1
        if (all([(column(i, r) /= column(i, p), r = 0, p - 1)])) nnz_ref = nnz_ref + 1
      end do
    end do
    call test_assert(n_got == N .and. nnz == nnz_ref .and. t == type, "hm_matrix_info: " // trim(what))
    call test_ok(hm_matrix_dist(A, Ad), "hm_matrix_dist")
    call test_ok(hm_dist_range(Ad, f2, l2), "hm_dist_range of matrix")
    call test_assert(f2 == first .and. l2 == local, "hm_matrix_dist differs from the dist it was made with")
    ! The stored rows read back with global columns: each equals the dense matrix's row (duplicates summed).
    call test_ok(hm_matrix_local_csr(A, l2, nnz_local), "hm_matrix_local_csr sizes")
    call test_assert(l2 == local, "hm_matrix_local_csr: local rows")
    allocate(rp(0:l2), cl(max(nnz_local, 1_c_int64_t)), vl(2 * max(nnz_local, 1_c_int64_t)), row(N))
    call test_ok(hm_matrix_local_csr(A, l2, nnz_local, rp, cl, vl), "hm_matrix_local_csr")
    worst = 0
    do i = 0, local - 1
      row = 0
      do q = rp(i), rp(i + 1) - 1
        if (type == HM_REAL) then
          row(cl(q + 1) + 1) = row(cl(q + 1) + 1) + vl(q + 1)
        else
          row(cl(q + 1) + 1) = row(cl(q + 1) + 1) + cmplx(vl(2 * q + 1), vl(2 * q + 2), c_double_complex)
        end if
      end do
      worst = max(worst, maxval(abs(row - dense(first + i + 1, :))))
    end do
    call test_assert(worst == 0 .and. rp(0) == 0, "hm_matrix_local_csr differs from the rows given: " // trim(what))
    deallocate(rp, cl, vl, row)

    ! y = A x against the dense product with x gathered from all ranks.
    call test_ok(hm_mvec_create(ctx, d, type, int(k, c_int), x), "hm_mvec_create x")
    call test_ok(hm_mvec_create(ctx, d, type, int(k, c_int), y), "hm_mvec_create y")
    call test_ok(hm_mvec_random_phase(x, 42_c_int64_t), "hm_mvec_random_phase")
    call test_ok(hm_matrix_apply(A, x, y), "hm_matrix_apply " // trim(what))
    allocate(xv(k, local), yv(k, local))
    call get_block(x, type, xv)
    call get_block(y, type, yv)
    allocate(xl(k, N), xg(k, N))
    xl = 0
    xl(:, first + 1:first + local) = xv
    call MPI_Allreduce(xl, xg, k * N, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
    ref = transpose(matmul(dense(first + 1:first + local, :), transpose(xg)))
    worst = maxval(abs(yv - ref))
    ! Entries are below 0.5 in modulus, 7 per row, |x| = 1: rounding stays near 1e-15.
    call test_assert(worst < 1d-13, "|y - A x| too large: " // trim(what))
    if (worst >= 1d-13) write(*, '("  |y - A x| = ", es10.3)') worst

    ! Product format: the CPU backend reads CSR whatever is asked (CSR, chunk 0, sigma 0, fill 1),
    ! a SELL request leaves y = A x unchanged, and bad formats or sigmas are refused.
    call check_format_csr(A, "after create: " // trim(what))
    call test_ok(hm_matrix_set_format(A, HM_FORMAT_SELL, 64_c_int), "hm_matrix_set_format sell 64")
    call check_format_csr(A, "after sell 64: " // trim(what))
    call test_ok(hm_matrix_apply(A, x, y), "hm_matrix_apply after set_format " // trim(what))
    call get_block(y, type, yv)
    worst = maxval(abs(yv - ref))
    call test_assert(worst < 1d-13, "|y - A x| too large after set_format sell 64: " // trim(what))
    call test_fails(hm_matrix_set_format(A, 7_c_int, 0_c_int), HM_ERR_ARGUMENT, "format 7", "set_format format 7")
    call test_fails(hm_matrix_set_format(A, HM_FORMAT_SELL, -1_c_int), HM_ERR_ARGUMENT, "sigma", "set_format sigma -1")
    call test_fails(hm_matrix_set_format(A, HM_FORMAT_CSR, 5_c_int), HM_ERR_ARGUMENT, "sigma", &
                    "set_format csr with sigma 5")
    call test_ok(hm_matrix_set_format(A, HM_FORMAT_AUTO, 0_c_int), "hm_matrix_set_format auto 0")
    call check_format_csr(A, "after auto: " // trim(what))

    ! Gershgorin discs of the rows (centre: real part of the diagonal).
    call test_ok(hm_matrix_gershgorin(A, glo, ghi), "hm_matrix_gershgorin")
    lo = huge(lo)
    hi = -huge(hi)
    do i = 1, N
      radius = sum(abs(dense(i, :))) - abs(dense(i, i))
      lo = min(lo, real(dense(i, i)) - radius)
      hi = max(hi, real(dense(i, i)) + radius)
    end do
    call test_assert(abs(glo - lo) < 1d-12 .and. abs(ghi - hi) < 1d-12, "gershgorin bounds: " // trim(what))

    ! A block of another width, or x = y, is refused with a message that says which.
    call test_ok(hm_mvec_create(ctx, d, type, int(k + 1, c_int), z), "hm_mvec_create z")
    call test_fails(hm_matrix_apply(A, x, z), HM_ERR_ARGUMENT, "equal width", "apply to a wider block")
    call test_fails(hm_matrix_apply(A, x, x), HM_ERR_ARGUMENT, "distinct", "apply in place")
    call test_ok(hm_mvec_destroy(z), "hm_mvec_destroy z")
    ! A block of the other scalar type is refused too.
    call test_ok(hm_mvec_create(ctx, d, 3_c_int - type, int(k, c_int), z), "hm_mvec_create other type")
    call test_fails(hm_matrix_apply(A, z, y), HM_ERR_ARGUMENT, "the matrix", "apply to a block of the other type")
    call test_ok(hm_mvec_destroy(z), "hm_mvec_destroy z")

    call test_ok(hm_mvec_destroy(x), "hm_mvec_destroy x")
    call test_ok(hm_mvec_destroy(y), "hm_mvec_destroy y")
    call test_ok(hm_matrix_destroy(A), "hm_matrix_destroy")
    call test_assert(.not. c_associated(A), "hm_matrix_destroy must null the handle")
    call test_ok(hm_dist_destroy(d), "hm_dist_destroy")
  end subroutine check_apply

  ! The block v of the given type as complex numbers (shape of out: k x local rows).
  subroutine get_block(v, type, out)
    type(c_ptr), intent(in) :: v
    integer(c_int), intent(in) :: type
    complex(c_double_complex), intent(out) :: out(:, :)
    real(c_double), allocatable :: r(:, :)
    if (type == HM_REAL) then
      allocate(r(size(out, 1), size(out, 2)))
      call test_ok(hm_mvec_get(v, r), "hm_mvec_get real")
      out = r
    else
      call test_ok(hm_mvec_get(v, out), "hm_mvec_get complex")
    end if
  end subroutine get_block

  ! hm_matrix_format_info on the CPU backend: CSR, chunk 0, sigma 0, fill 1; hm_matrix_block_info:
  ! no block copy (0, 0, 1).
  subroutine check_format_csr(A, what)
    type(c_ptr), intent(in) :: A
    character(*), intent(in) :: what
    integer(c_int) :: format, chunk, sigma, made
    real(c_double) :: fill, reads, distinct
    format = -1
    chunk = -1
    sigma = -1
    fill = -1
    call test_ok(hm_matrix_format_info(A, format, chunk, sigma, fill), "hm_matrix_format_info")
    call test_assert(format == HM_FORMAT_CSR .and. chunk == 0 .and. sigma == 0 .and. abs(fill - 1) < epsilon(fill), &
                     "hm_matrix_format_info should report csr, 0, 0, 1: " // what)
    made = -1
    reads = -1
    distinct = -1
    call test_ok(hm_matrix_block_info(A, made, reads, distinct), "hm_matrix_block_info")
    call test_assert(made == 0 .and. reads == 0 .and. distinct == 1, &
                     "hm_matrix_block_info should report no block copy (0, 0, 1): " // what)
  end subroutine check_format_csr

  ! A column outside the matrix and decreasing row pointers are refused.
  subroutine check_bad_matrix(ctx)
    type(c_ptr), intent(in) :: ctx
    type(c_ptr) :: d, A
    integer(c_int64_t) :: local
    integer(c_int64_t), allocatable :: rowptr(:)
    integer(c_int64_t) :: bad_col(1) = [99]
    real(c_double) :: one(1) = [1.0d0]
    call test_ok(hm_dist_create(ctx, 12_c_int64_t, 4_c_int64_t, 1.0_c_double, d), "hm_dist_create")
    call test_ok(hm_dist_range(d, local=local), "hm_dist_range")
    allocate(rowptr(0:local))
    rowptr = 1
    rowptr(0) = 0  ! one entry, in the first local row
    if (local >= 1) call test_fails(hm_matrix_create_csr(ctx, d, HM_REAL, rowptr, bad_col, one, A), HM_ERR_ARGUMENT, &
                                    "outside [0, 12)", "column 99 of a 12 x 12 matrix")
    if (local >= 2) then
      rowptr(1) = 2
      call test_fails(hm_matrix_create_csr(ctx, d, HM_REAL, rowptr, bad_col, one, A), HM_ERR_ARGUMENT, &
                      "rowptr decreases", "decreasing rowptr")
    end if
    call test_ok(hm_dist_destroy(d), "hm_dist_destroy")
  end subroutine check_bad_matrix
end program test_fortran_matrix
