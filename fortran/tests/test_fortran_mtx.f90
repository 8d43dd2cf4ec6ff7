! Fortran twin of physics/tests/test_mtx.c: rank 0 writes small Matrix Market files (a real
! general matrix with comments and blank lines, a complex Hermitian one stored as its lower
! triangle, a complex right-hand side); every rank reads them with hm_mtx_read /
! hm_mtx_read_vector, and the entries, seen through hm_matrix_apply on the unit vectors
! (test_dense), must equal the matrices the test built; hm_mtx_info reports the headers; a file
! with an index out of range fails with a message that names file, line and the allowed range;
! hm_mtx_write writes the Hermitian matrix back (every entry), read again exactly.
program test_fortran_mtx
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  integer, parameter :: NR = 7, NH = 5
  type(c_ptr) :: ctx, A, dist, b
  real(c_double) :: ref_real(NR, NR)
  complex(c_double_complex) :: ref_herm(NH, NH), rhs(NH)
  complex(c_double_complex), allocatable :: dense(:, :), got(:)
  integer(c_int64_t) :: rows, cols, entries, first, local
  integer(c_int) :: type, symmetry
  integer :: ierr, rank, nprocs, i, j, u, nstored
  character(64) :: real_file, herm_file, rhs_file, bad_file

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  write(real_file, '("ftn_mtx_np", i0, "_real.mtx")') nprocs
  write(herm_file, '("ftn_mtx_np", i0, "_herm.mtx")') nprocs
  write(rhs_file, '("ftn_mtx_np", i0, "_rhs.mtx")') nprocs
  write(bad_file, '("ftn_mtx_np", i0, "_bad.mtx")') nprocs

  ! The reference matrices: a sparse real one with a far corner entry, a Hermitian one.
  ref_real = 0
  do j = 1, NR
    do i = 1, NR
      if (mod(3 * i + 5 * j, 4) == 0 .or. i == j) ref_real(i, j) = (i + 0.25d0 * j) * (-1)**j / 3
    end do
  end do
  ref_real(NR, 1) = -7.125d0
  ref_herm = 0
  do j = 1, NH
    ref_herm(j, j) = 1.5d0 * j
    do i = j + 1, NH
      if (mod(i + j, 2) == 1) then
        ref_herm(i, j) = cmplx(0.1d0 * i, -0.3d0 * j / 7, c_double_complex)
        ref_herm(j, i) = conjg(ref_herm(i, j))
      end if
    end do
  end do
  do i = 1, NH
    rhs(i) = cmplx(1.0d0 / i, -2.0d0 * i / 3, c_double_complex)
  end do

  if (rank == 0) then
    open(newunit=u, file=trim(real_file), status='replace', action='write')
    write(u, '(a)') '%%MatrixMarket matrix coordinate real general'
    write(u, '(a)') '% written by test_fortran_mtx'
    write(u, '(a)') ''
    write(u, '(i0, 1x, i0, 1x, i0)') NR, NR, count(ref_real /= 0)
    do j = 1, NR
      do i = 1, NR
        if (ref_real(i, j) /= 0) write(u, '(i0, 1x, i0, 1x, es25.17)') i, j, ref_real(i, j)
      end do
      write(u, '(a)') '% end of a column'
    end do
    close(u)
    open(newunit=u, file=trim(herm_file), status='replace', action='write')
    write(u, '(a)') '%%MatrixMarket matrix coordinate complex hermitian'
    nstored = 0
    do j = 1, NH
      do i = j, NH
        if (ref_herm(i, j) /= 0) nstored = nstored + 1
      end do
    end do
    write(u, '(i0, 1x, i0, 1x, i0)') NH, NH, nstored
    do j = 1, NH
      do i = j, NH
        if (ref_herm(i, j) /= 0) write(u, '(i0, 1x, i0, 2(1x, es25.17))') i, j, ref_herm(i, j)
      end do
    end do
    close(u)
    open(newunit=u, file=trim(rhs_file), status='replace', action='write')
    write(u, '(a)') '%%MatrixMarket matrix array complex general'
    write(u, '(i0, 1x, i0)') NH, 1
    do i = 1, NH
      write(u, '(es25.17, 1x, es25.17)') rhs(i)
    end do
    close(u)
    open(newunit=u, file=trim(bad_file), status='replace', action='write')
    write(u, '(a)') '%%MatrixMarket matrix coordinate real general'
    write(u, '(a)') '3 3 2'
    write(u, '(a)') '1 1 1.0'
    write(u, '(a)') '1 9 1.0'
    close(u)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! Real general.
  call test_ok(hm_mtx_info(ctx, real_file, rows, cols, entries, type, symmetry), "hm_mtx_info real")
  call test_assert(rows == NR .and. cols == NR .and. entries == count(ref_real /= 0), "real header sizes")
  call test_assert(type == HM_REAL .and. symmetry == HM_MTX_GENERAL, "real header type / symmetry")
  call test_ok(hm_mtx_read(ctx, real_file, A), "hm_mtx_read real")
  call test_dense(ctx, A, dense)
  call test_assert(maxval(abs(dense - ref_real)) < 1d-15, "real matrix read differs from the written one")
  call test_ok(hm_matrix_destroy(A), "hm_matrix_destroy")

  ! Complex Hermitian: the reader adds the conjugated upper triangle.
  call test_ok(hm_mtx_info(ctx, herm_file, type=type, symmetry=symmetry), "hm_mtx_info hermitian")
  call test_assert(type == HM_COMPLEX .and. symmetry == HM_MTX_HERMITIAN, "hermitian header type / symmetry")
  call test_ok(hm_mtx_read(ctx, herm_file, A), "hm_mtx_read hermitian")
  call test_dense(ctx, A, dense)
  call test_assert(maxval(abs(dense - ref_herm)) < 1d-15, "Hermitian matrix read differs from the written one")

  ! Written back by hm_mtx_write (every entry, general) and read again: the same matrix, exactly.
  call test_ok(hm_mtx_write(A, "test_fortran_mtx_written.mtx"), "hm_mtx_write")
  call test_ok(hm_mtx_info(ctx, "test_fortran_mtx_written.mtx", rows, cols, entries, type, symmetry), "written header")
  call test_assert(rows == NH .and. entries == count(ref_herm /= 0) .and. type == HM_COMPLEX .and. &
                   symmetry == HM_MTX_GENERAL, "written header: sizes, every entry, complex, general")
  call test_ok(hm_matrix_destroy(A), "hm_matrix_destroy")
  call test_ok(hm_mtx_read(ctx, "test_fortran_mtx_written.mtx", A), "hm_mtx_read written")
  call test_dense(ctx, A, dense)
  call test_assert(maxval(abs(dense - ref_herm)) == 0, "the written matrix read back differs")

  ! The right-hand side over the matrix's distribution.
  call test_ok(hm_matrix_dist(A, dist), "hm_matrix_dist")
  call test_ok(hm_dist_range(dist, first, local), "hm_dist_range")
  call test_ok(hm_mtx_read_vector(ctx, rhs_file, dist, b), "hm_mtx_read_vector")
  allocate(got(max(local, 1_c_int64_t)))
  call test_ok(hm_mvec_get(b, got), "hm_mvec_get")
  if (local > 0) call test_assert(maxval(abs(got(1:local) - rhs(first + 1:first + local))) == 0, &
                                  "right-hand side read differs from the written one")
  call test_ok(hm_mvec_destroy(b), "hm_mvec_destroy")
  call test_ok(hm_matrix_destroy(A), "hm_matrix_destroy")

  ! Errors: file and line named; a vector file read as a matrix.
  call test_fails(hm_mtx_read(ctx, bad_file, A), HM_ERR_INPUT, &
                  trim(bad_file) // ":4: column index 9 is out of range: expected 1..3", "index out of range")
  call test_assert(.not. c_associated(A), "a failed read must leave the handle null")
  call test_fails(hm_mtx_read(ctx, rhs_file, A), HM_ERR_INPUT, trim(rhs_file) // ":1: a matrix must be in coordinate", &
                  "array file as a matrix")
  call test_fails(hm_mtx_info(ctx, "no_such_file.mtx", rows), HM_ERR_INPUT, "cannot open", "missing file")

  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_mtx")
end program test_fortran_mtx
