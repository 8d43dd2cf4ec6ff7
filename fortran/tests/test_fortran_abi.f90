! The Fortran mirrors match the C library: every field offset and size of hm_ti_params,
! hm_kpm_options, hm_dos_options equals the C compiler's (abi_probe.c), every HM_* parameter
! equals its C enum value, the status codes and their texts agree, and the string wrappers return
! the C strings (version, error message, error clear).
program test_fortran_abi
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  interface
    function hm_probe_struct(which, off, count) result(size) bind(C)
      import :: c_int, c_int64_t
      integer(c_int), value :: which
      integer(c_int64_t), intent(out) :: off(*)
      integer(c_int), intent(out) :: count
      integer(c_int64_t) :: size
    end function
    function hm_probe_enums(v, enum_size_ok) result(count) bind(C)
      import :: c_int
      integer(c_int), intent(out) :: v(*), enum_size_ok
      integer(c_int) :: count
    end function
  end interface
  type(hm_ti_params), target :: p
  type(hm_kpm_options), target :: o
  type(hm_idr_options), target :: io
  type(hm_dos_options), target :: d
  integer :: ierr, i
  integer(c_int) :: nenum, size_ok, values(64)
  type(c_ptr) :: ctx
  character(:), allocatable :: text

  call MPI_Init(ierr)

  call compare_struct("hm_ti_params", 1, c_sizeof(p), [ &
    at(c_loc(p%nx)), at(c_loc(p%ny)), at(c_loc(p%nz)), at(c_loc(p%t)), at(c_loc(p%m)), &
    at(c_loc(p%boundary)), at(c_loc(p%dot_period_x)), at(c_loc(p%dot_period_y)), &
    at(c_loc(p%dot_depth)), at(c_loc(p%dot_radius)), at(c_loc(p%dot_v0)), at(c_loc(p%disorder_w)), &
    at(c_loc(p%disorder_seed)), at(c_loc(p%block_width))] - at(c_loc(p)))
  call compare_struct("hm_kpm_options", 2, c_sizeof(o), [ &
    at(c_loc(o%moments)), at(c_loc(o%vectors)), at(c_loc(o%seed)), at(c_loc(o%bounds)), &
    at(c_loc(o%lanczos_steps)), at(c_loc(o%bounds_margin)), at(c_loc(o%emin)), at(c_loc(o%emax)), &
    at(c_loc(o%checkpoint_every)), at(c_loc(o%checkpoint_seconds)), at(c_loc(o%checkpoint)), &
    at(c_loc(o%checkpoint_user)), at(c_loc(o%progress)), at(c_loc(o%progress_user)), &
    at(c_loc(o%stop)), at(c_loc(o%stop_user)), at(c_loc(o%block))] - at(c_loc(o)))
  call compare_struct("hm_idr_options", 4, c_sizeof(io), [ &
    at(c_loc(io%s)), at(c_loc(io%smoothing)), at(c_loc(io%tol)), at(c_loc(io%maxit)), at(c_loc(io%omega_angle)), &
    at(c_loc(io%residual_replacement)), at(c_loc(io%precond)), at(c_loc(io%precond_op)), &
    at(c_loc(io%precond_diagonal)), at(c_loc(io%seed)), at(c_loc(io%history)), at(c_loc(io%checkpoint_every)), &
    at(c_loc(io%checkpoint)), at(c_loc(io%checkpoint_user)), at(c_loc(io%checkpoint_seconds)), &
    at(c_loc(io%stop)), at(c_loc(io%stop_user))] - at(c_loc(io)))
  call compare_struct("hm_dos_options", 3, c_sizeof(d), [ &
    at(c_loc(d%kernel)), at(c_loc(d%lorentz_lambda)), at(c_loc(d%points)), at(c_loc(d%emin)), &
    at(c_loc(d%emax)), at(c_loc(d%norm))] - at(c_loc(d)))

  ! Enum values, in abi_probe.c's order.
  nenum = hm_probe_enums(values, size_ok)
  call test_assert(size_ok == 1, "a C enum is not int-sized")
  call test_assert(nenum == 36, "abi_probe lists a different number of enum values")
  if (nenum == 36) call test_assert(all(values(1:36) == [ &
    HM_SUCCESS, HM_ERR_ARGUMENT, HM_ERR_MEMORY, HM_ERR_MPI, HM_ERR_HDF5, HM_ERR_CUDA, &
    HM_ERR_BACKEND, HM_ERR_DECK, HM_ERR_IO, HM_ERR_LAPACK, HM_ERR_FFTW, HM_ERR_NUMERIC, &
    HM_ERR_MISMATCH, HM_ERR_INTERNAL, HM_ERR_NOT_CONVERGED, HM_ERR_BREAKDOWN, HM_ERR_STOPPED, HM_ERR_INPUT, &
    HM_BACKEND_AUTO, HM_BACKEND_CPU, &
    HM_BACKEND_CUDA, HM_BACKEND_MIXED, &
    HM_REAL, HM_COMPLEX, HM_FORMAT_AUTO, HM_FORMAT_CSR, HM_FORMAT_SELL, &
    HM_BC_PERIODIC, HM_BC_OPEN, HM_BOUNDS_LANCZOS, HM_BOUNDS_GERSHGORIN, &
    HM_BOUNDS_GIVEN, HM_KERNEL_JACKSON, HM_KERNEL_LORENTZ, HM_NORM_STATES, HM_NORM_UNIT]), &
    "a Fortran HM_* parameter differs from its C enum value")

  ! Status texts through the string wrapper; codes 0..17 are known, 18 is not.
  call test_assert(hm_status_string(HM_SUCCESS) == "success", "status text of HM_SUCCESS")
  call test_assert(hm_status_string(HM_ERR_ARGUMENT) == "invalid argument", "status text of HM_ERR_ARGUMENT")
  call test_assert(hm_status_string(HM_ERR_INTERNAL) == "internal error", "status text of HM_ERR_INTERNAL")
  do i = 0, 17
    call test_assert(hm_status_string(int(i, c_int)) /= "unknown status", "a status code has no text")
  end do
  call test_assert(hm_status_string(HM_ERR_NOT_CONVERGED) == "iterative solver did not converge", &
                   "status text of HM_ERR_NOT_CONVERGED")
  call test_assert(hm_status_string(HM_ERR_BREAKDOWN) == "iterative solver broke down", "status text of HM_ERR_BREAKDOWN")
  call test_assert(hm_status_string(HM_ERR_INPUT) == "invalid input file", "status text of HM_ERR_INPUT")
  call test_assert(hm_status_string(18_c_int) == "unknown status", "code 18 should be unknown")

  ! Version: "<major>.<minor>.<patch> (git <commit>)".
  text = hm_version()
  call test_assert(index(text, " (git ") > 1 .and. scan(text, "0123456789") == 1, "hm_version() = '" // text // "'")

  ! Error text: empty, filled by a failure, emptied by hm_error_clear.
  call hm_error_clear()
  call test_assert(len(hm_error_message()) == 0, "hm_error_message not empty after hm_error_clear")
  call test_fails(hm_context_create_f(MPI_COMM_WORLD, 7_c_int, ctx), HM_ERR_ARGUMENT, &
                  "auto (0), cpu (1), cuda (2)", "context with backend 7")
  call test_assert(.not. c_associated(ctx), "a failed create must leave the handle null")
  call test_assert(len(hm_error_message()) == 0, "test_fails must clear the error")

  ! Defaults written by C are read back field by field (the documented ones).
  call test_ok(hm_ti_params_default(p), "hm_ti_params_default")
  call test_assert(p%nx == 8 .and. p%ny == 8 .and. p%nz == 8 .and. p%t == 1 .and. p%m == 2 .and. &
                   all(p%boundary == HM_BC_PERIODIC) .and. p%dot_v0 == 0 .and. p%disorder_w == 0, &
                   "hm_ti_params_default: 8x8x8 periodic, t = 1, m = 2, no potential")
  call test_ok(hm_dos_options_default(d), "hm_dos_options_default")
  call test_assert(d%lorentz_lambda == 4 .and. d%kernel == HM_KERNEL_JACKSON .and. d%points == 0, &
                   "hm_dos_options_default: Jackson, lambda 4, Chebyshev nodes")
  call test_ok(hm_kpm_options_default(o), "hm_kpm_options_default")
  call test_assert(o%moments >= 2 .and. mod(o%moments, 2) == 0 .and. o%vectors >= 1 .and. &
                   .not. c_associated(o%checkpoint) .and. .not. c_associated(o%progress_user), &
                   "hm_kpm_options_default: even moments, vectors >= 1, no callbacks")

  call test_finish("test_fortran_abi")

contains

  function at(p) result(address)
    type(c_ptr), intent(in) :: p
    integer(c_int64_t) :: address
    address = transfer(p, address)
  end function at

  subroutine compare_struct(name, which, fsize, foff)
    character(*), intent(in) :: name
    integer, intent(in) :: which
    integer(c_size_t), intent(in) :: fsize
    integer(c_int64_t), intent(in) :: foff(:)
    integer(c_int64_t) :: csize, coff(32)
    integer(c_int) :: count
    integer :: j
    csize = hm_probe_struct(int(which, c_int), coff, count)
    call test_assert(csize == int(fsize, c_int64_t), name // ": size differs between C and Fortran")
    call test_assert(count == size(foff), name // ": field count differs between C and Fortran")
    if (count /= size(foff)) return
    do j = 1, count
      if (coff(j) /= foff(j)) then
        write(*, '(a, ": field ", i0, " at C offset ", i0, ", Fortran offset ", i0)') name, j, coff(j), foff(j)
        call test_assert(.false., name // ": field offsets differ")
      end if
    end do
  end subroutine compare_struct
end program test_fortran_abi
