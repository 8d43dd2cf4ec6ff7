! A downstream Fortran program built against an installed hamlet (find_package(hamlet) or
! pkg-config hamlet-fortran), the twin of ../c/ti_dos_lobpcg.c:
!  1. the KPM density of states of a disordered 3D topological-insulator slab, written to OUT.h5
!     (/hamiltonian, /kpm, /dos), the same file the C program writes;
!  2. the lowest eigenvalues of the 1D Laplacian tridiag(-1, 2, -1), applied by the bind(C)
!     function `laplacian` (a matrix-free callback), checked against 2 - 2 cos(j pi / (N + 1)).
! Run: mpiexec -n 2 ./ti_dos_lobpcg_f [OUT.h5]; exit 0 when every eigenvalue is right.
module downstream_laplacian
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  implicit none
contains
  ! y = A x for a block of k columns over this rank's rows; the edge rows come from the neighbours.
  function laplacian(x, y, user) result(status) bind(C)
    type(c_ptr), value :: x, y, user
    integer(c_int) :: status
    integer(c_int64_t) :: local, i
    integer(c_int) :: k
    real(c_double), allocatable :: xv(:, :), yv(:, :)
    integer :: rank, nranks, below, above, ierr
    status = hm_mvec_size(x, local, k)
    if (status /= HM_SUCCESS) return
    allocate(xv(k, 0:local + 1), yv(k, local))
    xv = 0   ! ghost rows stay 0 at the Dirichlet ends
    status = hm_mvec_get(x, xv(:, 1:local))
    if (status /= HM_SUCCESS) return
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    below = merge(rank - 1, MPI_PROC_NULL, rank > 0)
    above = merge(rank + 1, MPI_PROC_NULL, rank < nranks - 1)
    call MPI_Sendrecv(xv(:, local), k, MPI_DOUBLE_PRECISION, above, 1, xv(:, 0), k, MPI_DOUBLE_PRECISION, below, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(xv(:, 1), k, MPI_DOUBLE_PRECISION, below, 2, xv(:, local + 1), k, MPI_DOUBLE_PRECISION, above, 2, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    do i = 1, local
      yv(:, i) = 2 * xv(:, i) - xv(:, i - 1) - xv(:, i + 1)
    end do
    status = hm_mvec_set(y, yv)
  end function laplacian
end module downstream_laplacian

program ti_dos_lobpcg
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use downstream_laplacian
  implicit none
  integer(c_int64_t), parameter :: NX = 8, NY = 8, NZ = 4, LAPLACE_N = 200
  integer(c_int), parameter :: MOMENTS = 128, VECTORS = 8, POINTS = 201, NEV = 5
  real(c_double), parameter :: pi = acos(-1.0d0)
  type(c_ptr) :: ctx, H, kpm, dos, out, dist, A, lob
  type(hm_ti_params) :: p
  type(hm_kpm_options) :: kopt
  type(hm_dos_options) :: dopt
  type(hm_lobpcg_options) :: lopt
  real(c_double) :: mu(MOMENTS), mu_vec(MOMENTS, VECTORS), scale, shift, values(NEV), residuals(NEV), exact
  integer(c_int64_t) :: n, nnz
  integer(c_int) :: iterations, converged, reason
  integer :: ierr, rank, j, wrong
  character(256) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  path = "ti_dos_f.h5"
  if (command_argument_count() >= 1) call get_command_argument(1, path)
  call check(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_AUTO, ctx), "creating the context")
  if (rank == 0) write(*, '("hamlet ", a, " from Fortran")') hm_version()

  ! 1. TI slab DOS, the same parameters as the C program
  call check(hm_ti_params_default(p), "TI defaults")
  p%nx = NX; p%ny = NY; p%nz = NZ
  p%t = 1.0d0; p%m = 2.0d0
  p%boundary = [HM_BC_PERIODIC, HM_BC_PERIODIC, HM_BC_OPEN]
  p%disorder_w = 0.5d0
  p%disorder_seed = 7
  call check(hm_ti_build(ctx, p, H), "building the TI Hamiltonian")
  call check(hm_matrix_info(H, n, nnz), "matrix info")
  call check(hm_kpm_options_default(kopt), "KPM defaults")
  kopt%moments = MOMENTS
  kopt%vectors = VECTORS
  kopt%seed = 1
  call check(hm_kpm_create(H, kopt, kpm), "setting up KPM")
  call check(hm_kpm_run(kpm), "running KPM")
  call check(hm_kpm_moments(kpm, mu, mu_vec), "reducing the moments")
  call check(hm_kpm_info(kpm, scale=scale, shift=shift), "KPM info")
  call check(hm_dos_options_default(dopt), "DOS defaults")
  dopt%points = POINTS
  call check(hm_dos_create(MOMENTS, VECTORS, mu_vec, scale, shift, n, dopt, dos), "reconstructing the DOS")
  call check(hm_output_create(ctx, path, out), "creating " // trim(path))
  call check(hm_output_write_input(out, "# examples/downstream/fortran" // achar(10)), "writing /input")
  call check(hm_output_write_provenance(out), "writing /provenance")
  call check(hm_output_write_ti(out, p, H), "writing /hamiltonian")
  call check(hm_output_write_kpm(out, kpm, dopt), "writing /kpm")
  call check(hm_output_write_dos(out, dos), "writing /dos")
  call check(hm_output_commit(out), "committing " // trim(path))
  call check(hm_dos_destroy(dos), "destroying the DOS")
  call check(hm_kpm_destroy(kpm), "destroying KPM")
  call check(hm_matrix_destroy(H), "destroying the matrix")

  ! 2. LOBPCG through the Fortran callback
  call check(hm_dist_create(ctx, LAPLACE_N, 1_c_int64_t, 1.0d0, dist), "distributing the rows")
  call check(hm_operator_create_shell(ctx, dist, HM_REAL, c_funloc(laplacian), c_null_ptr, A), "creating the operator")
  call check(hm_lobpcg_options_default(lopt), "LOBPCG defaults")
  lopt%nev = NEV
  lopt%block = NEV + 3
  lopt%tol = 1d-9
  lopt%maxit = 2000
  call check(hm_lobpcg_create(A, c_null_ptr, lopt, lob), "creating LOBPCG")
  call check(hm_lobpcg_run(lob), "running LOBPCG")
  call check(hm_lobpcg_info(lob, iterations, converged, reason), "reading the status")
  call check(hm_lobpcg_eigenvalues(lob, values), "reading the eigenvalues")
  call check(hm_lobpcg_residuals(lob, residuals), "reading the residuals")
  if (rank == 0) write(*, '("LOBPCG, 1D Laplacian N = ", i0, ": ", i0, " of ", i0, " converged in ", i0, " iterations")') &
    LAPLACE_N, converged, NEV, iterations
  wrong = 0
  do j = 1, NEV
    exact = 2 - 2 * cos(j * pi / (LAPLACE_N + 1))
    if (rank == 0) write(*, '("lambda ", i0, " = ", f18.16, " exact ", f18.16, " residual ", es10.3)') &
      j, values(j), exact, residuals(j)
    if (.not. abs(values(j) - exact) <= 1d-8 * exact) wrong = wrong + 1
  end do
  call check(hm_lobpcg_destroy(lob), "destroying LOBPCG")
  call check(hm_operator_destroy(A), "destroying the operator")
  call check(hm_dist_destroy(dist), "destroying the distribution")
  call check(hm_context_destroy(ctx), "destroying the context")
  call MPI_Finalize(ierr)
  if (reason /= HM_LOBPCG_CONVERGED .or. wrong > 0) error stop 1

contains

  ! On failure: hamlet's whole error text, then stop every rank.
  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(*), intent(in) :: what
    integer :: ierr
    if (status == HM_SUCCESS) return
    write(*, '("ti_dos_lobpcg_f: ", a, " failed: ", a)') what, hm_status_string(status)
    write(*, '(a)') hm_error_message()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    error stop 1
  end subroutine check
end program ti_dos_lobpcg
