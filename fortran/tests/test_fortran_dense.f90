! Fortran twin of linalg/tests/test_dense_lapack.c and test_dense_matrix.c, on any rank count:
! hm_dense_eigh on Fortran arrays against analytic spectra (1D Laplacian, the 1D Q1 stiffness/mass
! pair, a complex Hermitian circulant), with eigenvector residuals; hm_dense_eigh_matrix on a
! distributed 1D Laplacian (ScaLAPACK, the two-stage solver, LAPACK on rank 0, AUTO) against the same
! analytic values with residuals A z - lambda z on this rank's rows; hm_dense_eigh_distributed on a
! ScaLAPACK-distributed 1D Laplacian (a 1 x P BLACS grid, blocks of 5) against the analytic eigenpairs;
! the memory refusal and bad arguments.
program test_fortran_dense
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  interface
    integer(c_int) function setenv(name, value, overwrite) bind(C, name="setenv")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*), value(*)
      integer(c_int), value :: overwrite
    end function
    integer(c_int) function unsetenv(name) bind(C, name="unsetenv")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function
  end interface
  real(c_double), parameter :: pi = acos(-1.0d0)
  type(c_ptr) :: ctx
  integer :: ierr, rank, nranks

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  call check_laplacian()
  call check_q1_pair()
  call check_circulant()
  call check_distributed(HM_DENSE_SCALAPACK, "scalapack")
  call check_distributed(HM_DENSE_DISTRIBUTED, "distributed")
  call check_distributed(HM_DENSE_LAPACK, "lapack")
  call check_distributed(HM_DENSE_AUTO, "auto")
  call check_scalapack_arrays()
  call check_refusals()
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_dense")

contains

  ! tridiag(-1, 2, -1): 2 - 2 cos(k pi / (n + 1)); lda > n.
  subroutine check_laplacian()
    integer, parameter :: n = 30, lda = 33
    real(c_double) :: a(lda, n), a0(n, n), w(n), exact(n)
    integer :: i
    a = 0
    do i = 1, n
      a(i, i) = 2
      if (i < n) a(i + 1, i) = -1
      if (i > 1) a(i - 1, i) = -1
      exact(i) = 2 - 2 * cos(i * pi / (n + 1))
    end do
    a0 = a(1:n, :)
    call test_ok(hm_dense_eigh(HM_REAL, int(n, c_int64_t), a, int(lda, c_int64_t), ldb=0_c_int64_t, vectors=1_c_int, &
                               method=HM_DENSE_LAPACK, w=w), "hm_dense_eigh laplacian")
    call test_assert(maxval(abs(w - exact)) < 1d-13, "1D Laplacian eigenvalues")
    call test_assert(maxval(abs(matmul(a0, a(1:n, :)) - a(1:n, :) * spread(w, 1, n))) < 1d-13, "1D Laplacian residual")
    call test_assert(maxval(abs(matmul(transpose(a(1:n, :)), a(1:n, :)) - identity(n))) < 1d-13, &
                     "1D Laplacian eigenvectors not orthonormal")
  end subroutine check_laplacian

  ! K = tridiag(-1, 2, -1) / h, M = h tridiag(1, 4, 1) / 6: 6 (1 - cos t) / (h^2 (2 + cos t)), t = k pi h.
  subroutine check_q1_pair()
    integer, parameter :: n = 25
    real(c_double) :: k(n, n), m(n, n), k0(n, n), m0(n, n), w(n), exact(n), h, t
    integer :: i
    h = 1.0d0 / (n + 1)
    k = 0
    m = 0
    do i = 1, n
      k(i, i) = 2 / h
      m(i, i) = 4 * h / 6
      if (i < n) then
        k(i + 1, i) = -1 / h; k(i, i + 1) = -1 / h
        m(i + 1, i) = h / 6; m(i, i + 1) = h / 6
      end if
      t = i * pi * h
      exact(i) = 6 * (1 - cos(t)) / (h * h * (2 + cos(t)))
    end do
    k0 = k
    m0 = m
    call test_ok(hm_dense_eigh(HM_REAL, int(n, c_int64_t), k, int(n, c_int64_t), m, int(n, c_int64_t), 1_c_int, &
                               HM_DENSE_AUTO, w), "hm_dense_eigh Q1 pair")
    call test_assert(maxval(abs(w - exact) / exact) < 1d-12, "Q1 pair eigenvalues")
    call test_assert(maxval(abs(matmul(k0, k) - matmul(m0, k) * spread(w, 1, n))) < 1d-10 * maxval(w), "Q1 pair residual")
    call test_assert(maxval(abs(matmul(transpose(k), matmul(m0, k)) - identity(n))) < 1d-12, &
                     "Q1 eigenvectors not M-orthonormal")
  end subroutine check_q1_pair

  ! Hermitian circulant C(i, j) = c((i - j) mod n): eigenvalues sum_j c_j exp(-2 pi i j m / n).
  subroutine check_circulant()
    integer, parameter :: n = 20
    complex(c_double_complex) :: c(0:n - 1), a(n, n), a0(n, n), s
    real(c_double) :: w(n), exact(n)
    integer :: i, j, mm
    c = 0
    c(0) = 1.5d0
    c(1) = (0.5d0, 0.3d0); c(n - 1) = conjg(c(1))
    c(3) = (0.0d0, 0.2d0); c(n - 3) = conjg(c(3))
    do j = 1, n
      do i = 1, n
        a(i, j) = c(modulo(i - j, n))
      end do
    end do
    do mm = 0, n - 1
      s = 0
      do j = 0, n - 1
        s = s + c(j) * exp(cmplx(0, -2 * pi * j * mm / n, c_double_complex))
      end do
      exact(mm + 1) = real(s)
    end do
    call sort(exact)
    a0 = a
    call test_ok(hm_dense_eigh(HM_COMPLEX, int(n, c_int64_t), a, int(n, c_int64_t), ldb=0_c_int64_t, vectors=1_c_int, &
                               method=HM_DENSE_LAPACK, w=w), "hm_dense_eigh circulant")
    call test_assert(maxval(abs(w - exact)) < 1d-13, "complex circulant eigenvalues")
    call test_assert(maxval(abs(matmul(a0, a) - a * spread(w, 1, n))) < 1d-13, "complex circulant residual")
  end subroutine check_circulant

  ! A distributed 1D Laplacian (rows split unevenly): all eigenpairs, residuals on this rank's rows.
  subroutine check_distributed(method, what)
    integer(c_int), intent(in) :: method
    character(*), intent(in) :: what
    integer(c_int64_t), parameter :: n = 24
    type(c_ptr) :: d, A, Z, AZ
    integer(c_int64_t) :: first, local, i, p
    integer(c_int64_t), allocatable :: rowptr(:), cols(:)
    real(c_double), allocatable :: vals(:), zr(:, :), azr(:, :)
    real(c_double) :: w(n), exact(n), resid, all_resid
    integer :: k, ierr
    call test_ok(hm_dist_create(ctx, n, 1_c_int64_t, 1.0d0 + rank, d), "hm_dist_create")
    call test_ok(hm_dist_range(d, first, local), "hm_dist_range")
    allocate(rowptr(0:local), cols(3 * local + 1), vals(3 * local + 1))
    p = 0
    rowptr(0) = 0
    do i = first, first + local - 1
      if (i > 0) then
        p = p + 1; cols(p) = i - 1; vals(p) = -1
      end if
      p = p + 1; cols(p) = i; vals(p) = 2
      if (i < n - 1) then
        p = p + 1; cols(p) = i + 1; vals(p) = -1
      end if
      rowptr(i - first + 1) = p
    end do
    call test_ok(hm_matrix_create_csr(ctx, d, HM_REAL, rowptr, cols, vals, A), "hm_matrix_create_csr")
    call test_ok(hm_mvec_create(ctx, d, HM_REAL, int(n, c_int), Z), "hm_mvec_create Z")
    call test_ok(hm_mvec_create(ctx, d, HM_REAL, int(n, c_int), AZ), "hm_mvec_create AZ")
    call test_ok(hm_dense_eigh_matrix(A, c_null_ptr, 1_c_int, method, w, Z), "hm_dense_eigh_matrix " // what)
    exact = [(2 - 2 * cos(k * pi / (n + 1)), k = 1, int(n))]
    call test_assert(maxval(abs(w - exact)) < 1d-13, "distributed Laplacian eigenvalues: " // what)
    ! Rows of Z and A Z (row-major in C: Fortran (n, local)).
    allocate(zr(n, local), azr(n, local))
    call test_ok(hm_matrix_apply(A, Z, AZ), "hm_matrix_apply")
    call test_ok(hm_mvec_get(Z, zr), "hm_mvec_get Z")
    call test_ok(hm_mvec_get(AZ, azr), "hm_mvec_get AZ")
    resid = 0
    if (local > 0) resid = maxval(abs(azr - zr * spread(w, 2, int(local))))
    call MPI_Allreduce(resid, all_resid, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    call test_assert(all_resid < 1d-13, "distributed Laplacian residual: " // what)
    ! Eigenvalues only.
    call test_ok(hm_dense_eigh_matrix(A, c_null_ptr, 0_c_int, method, w, c_null_ptr), "values only " // what)
    call test_assert(maxval(abs(w - exact)) < 1d-13, "distributed Laplacian eigenvalues without vectors: " // what)
    call test_ok(hm_mvec_destroy(Z), "hm_mvec_destroy")
    call test_ok(hm_mvec_destroy(AZ), "hm_mvec_destroy")
    call test_ok(hm_matrix_destroy(A), "hm_matrix_destroy")
    call test_ok(hm_dist_destroy(d), "hm_dist_destroy")
  end subroutine check_distributed

  ! The 1D Laplacian as a ScaLAPACK caller holds it (n = 24 in blocks of 5 over a 1 x P grid): the
  ! eigenvalues and, entry by entry, |z| against sqrt(2 / (n + 1)) |sin(i k pi / (n + 1))|.
  subroutine check_scalapack_arrays()
    integer, parameter :: n = 24, nb = 5
    integer, external :: numroc
    integer :: ictxt, nprow, npcol, myrow, mycol, nloc, info, desca(9), lj, i, j, k
    real(c_double), allocatable :: a(:, :), z(:, :)
    real(c_double) :: w(n), exact(n), err, all_err
    integer :: ierr
    call blacs_get(-1, 0, ictxt)
    call blacs_gridinit(ictxt, 'R', 1, nranks)
    call blacs_gridinfo(ictxt, nprow, npcol, myrow, mycol)
    nloc = numroc(n, nb, mycol, 0, npcol)
    call descinit(desca, n, n, n, nb, 0, 0, ictxt, n, info)
    call test_assert(info == 0, "descinit")
    allocate(a(n, max(nloc, 1)), z(n, max(nloc, 1)))
    a = 7 ! above the diagonal: never read
    do lj = 1, nloc
      j = ((lj - 1) / nb * npcol + mycol) * nb + mod(lj - 1, nb) + 1 ! global column
      a(j:, lj) = 0
      a(j, lj) = 2
      if (j < n) a(j + 1, lj) = -1
    end do
    exact = [(2 - 2 * cos(k * pi / (n + 1)), k = 1, n)]
    call test_ok(hm_dense_eigh_distributed(ctx, HM_REAL, a, desca, vectors=1_c_int, w=w, z=z, descz=desca), &
                 "hm_dense_eigh_distributed")
    call test_assert(maxval(abs(w - exact)) < 1d-13, "ScaLAPACK-distributed Laplacian eigenvalues")
    err = 0
    do lj = 1, nloc
      k = ((lj - 1) / nb * npcol + mycol) * nb + mod(lj - 1, nb) + 1
      do i = 1, n
        err = max(err, abs(abs(z(i, lj)) - sqrt(2.0d0 / (n + 1)) * abs(sin(i * k * pi / (n + 1)))))
      end do
    end do
    call MPI_Allreduce(err, all_err, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    call test_assert(all_err < 1d-12, "ScaLAPACK-distributed Laplacian eigenvectors")
    w = 0
    call test_ok(hm_dense_eigh_distributed(ctx, HM_REAL, a, desca, vectors=0_c_int, w=w), "eigenvalues only")
    call test_assert(maxval(abs(w - exact)) < 1d-13, "ScaLAPACK-distributed Laplacian eigenvalues alone")
    call test_fails(hm_dense_eigh_distributed(ctx, HM_REAL, a, desca, vectors=1_c_int, w=w), HM_ERR_ARGUMENT, &
                    "vectors = 1", "vectors without z")
    call blacs_gridexit(ictxt)
  end subroutine check_scalapack_arrays

  subroutine check_refusals()
    integer, parameter :: n = 100
    real(c_double) :: a(n, n), w(n)
    integer :: i
    a = 0
    do i = 1, n
      a(i, i) = i
    end do
    call test_assert(setenv("HAMLET_DENSE_MEMORY_LIMIT" // c_null_char, "1000" // c_null_char, 1_c_int) == 0, "setenv")
    call test_fails(hm_dense_eigh(HM_REAL, int(n, c_int64_t), a, int(n, c_int64_t), ldb=0_c_int64_t, vectors=1_c_int, &
                                  method=HM_DENSE_LAPACK, w=w), HM_ERR_MEMORY, "1000 B available", "memory cap")
    call test_assert(unsetenv("HAMLET_DENSE_MEMORY_LIMIT" // c_null_char) == 0, "unsetenv")
    call test_fails(hm_dense_eigh(HM_REAL, int(n, c_int64_t), a, int(n, c_int64_t), ldb=0_c_int64_t, vectors=2_c_int, &
                                  method=HM_DENSE_LAPACK, w=w), HM_ERR_ARGUMENT, "vectors = 2", "vectors = 2")
    call test_fails(hm_dense_eigh(HM_REAL, int(n, c_int64_t), a, int(n - 1, c_int64_t), ldb=0_c_int64_t, &
                                  vectors=0_c_int, method=HM_DENSE_LAPACK, w=w), HM_ERR_ARGUMENT, "lda = 99", "lda < n")
    call test_fails(hm_dense_eigh(HM_REAL, int(n, c_int64_t), a, int(n, c_int64_t), ldb=0_c_int64_t, vectors=0_c_int, &
                                  method=HM_DENSE_SCALAPACK, w=w), HM_ERR_ARGUMENT, "hm_dense_eigh_matrix", &
                    "ScaLAPACK for a local array")
    call test_ok(hm_dense_eigh(HM_REAL, int(n, c_int64_t), a, int(n, c_int64_t), ldb=0_c_int64_t, vectors=0_c_int, &
                               method=HM_DENSE_AUTO, w=w), "hm_dense_eigh diagonal")
    call test_assert(all(abs(w - [(real(i, c_double), i = 1, n)]) < 1d-13), "diagonal matrix eigenvalues")
  end subroutine check_refusals

  function identity(n) result(e)
    integer, intent(in) :: n
    real(c_double) :: e(n, n)
    integer :: i
    e = 0
    do i = 1, n
      e(i, i) = 1
    end do
  end function identity

  subroutine sort(x)
    real(c_double), intent(inout) :: x(:)
    integer :: i, j
    real(c_double) :: t
    do i = 2, size(x)
      t = x(i)
      j = i - 1
      do while (j >= 1)
        if (x(j) <= t) exit
        x(j + 1) = x(j)
        j = j - 1
      end do
      x(j + 1) = t
    end do
  end subroutine sort
end program test_fortran_dense
