! ti_dos: density of states of a 3D topological insulator from Fortran, through module hamlet.
! Copy this program and edit the parameters below. Build against the module and link
! hamlet_fortran (CMake: target_link_libraries(my_app PRIVATE hamlet_fortran)); run with
!   mpiexec -n 2 ./ti_dos [output.h5]
! Every hamlet call returns a status; `check` prints hm_error_message() (the whole error text with
! its traceback) and stops all ranks on a failure.
program ti_dos
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  implicit none
  ! ---- parameters: edit these ----
  integer(c_int64_t), parameter :: NX = 8, NY = 8, NZ = 4     ! lattice sites
  real(c_double), parameter :: HOPPING = 1.0d0, MASS = 2.0d0  ! t, m
  real(c_double), parameter :: DISORDER = 0.5d0               ! Anderson W (0 = clean)
  integer(c_int), parameter :: MOMENTS = 128, VECTORS = 8     ! KPM M, R
  integer(c_int), parameter :: POINTS = 201                   ! DOS on a uniform energy grid
  ! ---------------------------------
  type(c_ptr) :: ctx, H, kpm, dos, out
  type(hm_ti_params) :: p
  type(hm_kpm_options) :: kopt
  type(hm_dos_options) :: dopt
  real(c_double), allocatable :: mu_vec(:, :), energy(:), rho(:), err(:)
  real(c_double) :: mu(MOMENTS), scale, shift, emin, emax, t0, t_kpm
  integer(c_int64_t) :: n, nnz
  integer(c_int) :: npoints
  integer :: ierr, rank, nranks, j
  character(256) :: path
  character(:), allocatable :: deck

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  path = "ti_dos.h5"
  if (command_argument_count() >= 1) call get_command_argument(1, path)

  call check(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_AUTO, ctx), "creating the context")

  ! The Hamiltonian, built distributed: each rank makes its own rows.
  call check(hm_ti_params_default(p), "TI defaults")
  p%nx = NX; p%ny = NY; p%nz = NZ
  p%t = HOPPING; p%m = MASS
  p%boundary = [HM_BC_PERIODIC, HM_BC_PERIODIC, HM_BC_OPEN]   ! a slab: surfaces at z = 0 and z = NZ-1
  p%disorder_w = DISORDER
  p%disorder_seed = 7
  call check(hm_ti_build(ctx, p, H), "building the TI Hamiltonian")
  call check(hm_matrix_info(H, n, nnz), "matrix info")
  if (rank == 0) write(*, '("hamlet ", a, ": TI ", i0, "x", i0, "x", i0, ", N = ", i0, ", nnz = ", i0, &
                          &", ", i0, " ranks")') hm_version(), NX, NY, NZ, n, nnz, nranks

  ! KPM moments.
  call check(hm_kpm_options_default(kopt), "KPM defaults")
  kopt%moments = MOMENTS
  kopt%vectors = VECTORS
  kopt%seed = 1
  t0 = MPI_Wtime()
  call check(hm_kpm_create(H, kopt, kpm), "setting up KPM")
  call check(hm_kpm_run(kpm), "running KPM")
  t_kpm = MPI_Wtime() - t0
  allocate(mu_vec(MOMENTS, VECTORS))
  call check(hm_kpm_moments(kpm, mu, mu_vec), "reducing the moments")
  call check(hm_kpm_info(kpm, scale=scale, shift=shift), "KPM info")
  call check(hm_kpm_interval(kpm, emin, emax), "KPM interval")

  ! DOS on a uniform grid, states per unit energy (integrates to N).
  call check(hm_dos_options_default(dopt), "DOS defaults")
  dopt%points = POINTS
  call check(hm_dos_create(MOMENTS, VECTORS, mu_vec, scale, shift, n, dopt, dos), "reconstructing the DOS")
  call check(hm_dos_size(dos, npoints), "DOS size")
  allocate(energy(npoints), rho(npoints), err(npoints))
  call check(hm_dos_get(dos, energy, rho, err), "reading the DOS")

  ! The result file: deck-like text of the parameters, provenance, Hamiltonian, KPM, DOS, timing.
  deck = "# ti_dos.f90" // achar(10) // "[ti]" // achar(10) // "nx = " // itoa(NX) // achar(10) // &
         "ny = " // itoa(NY) // achar(10) // "nz = " // itoa(NZ) // achar(10) // &
         "[kpm]" // achar(10) // "moments = " // itoa(int(MOMENTS, c_int64_t)) // achar(10) // &
         "vectors = " // itoa(int(VECTORS, c_int64_t)) // achar(10)
  call check(hm_output_create(ctx, path, out), "creating " // trim(path))
  call check(hm_output_write_input(out, deck), "writing /input")
  call check(hm_output_write_provenance(out), "writing /provenance")
  call check(hm_output_write_ti(out, p, H), "writing /hamiltonian")
  call check(hm_output_write_kpm(out, kpm, dopt), "writing /kpm")
  call check(hm_output_write_dos(out, dos), "writing /dos")
  call check(hm_output_write_scalar(out, "/timing/kpm", t_kpm, "s"), "writing /timing/kpm")
  call check(hm_output_commit(out), "committing " // trim(path))

  if (rank == 0) then
    write(*, '("interval [", f8.4, ", ", f8.4, "], KPM ", f8.3, " s; wrote ", a)') emin, emax, t_kpm, trim(path)
    write(*, '(a12, a14, a12)') "E", "rho(E)", "error"
    do j = 1, npoints, (npoints - 1) / 10
      write(*, '(f12.4, f14.4, f12.4)') energy(j), rho(j), err(j)
    end do
  end if

  call check(hm_dos_destroy(dos), "destroying the DOS")
  call check(hm_kpm_destroy(kpm), "destroying KPM")
  call check(hm_matrix_destroy(H), "destroying the matrix")
  call check(hm_context_destroy(ctx), "destroying the context")
  call MPI_Finalize(ierr)

contains

  ! On failure: the whole hamlet error text, then stop every rank (the others may be waiting in a
  ! collective call).
  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(*), intent(in) :: what
    integer :: ierr
    if (status == HM_SUCCESS) return
    write(*, '("ti_dos: ", a, " failed: ", a)') what, hm_status_string(status)
    write(*, '(a)') hm_error_message()
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    error stop 1
  end subroutine check

  function itoa(i) result(s)
    integer(c_int64_t), intent(in) :: i
    character(:), allocatable :: s
    character(24) :: buf
    write(buf, '(i0)') i
    s = trim(buf)
  end function itoa
end program ti_dos
