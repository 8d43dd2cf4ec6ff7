! Constants and interoperable structs of the hamlet C API (include/hamlet/*.h), mirrored field
! by field so that a Fortran variable of these types can be passed straight to the C library.
! Mapping: int64_t -> integer(c_int64_t); uint64_t -> integer(c_int64_t) (same bits: seeds above
! 2**63-1 read as negative numbers in Fortran); C enums -> integer(c_int); double -> real(c_double);
! function pointers -> type(c_funptr) (set with c_funloc of a bind(C) procedure); void * ->
! type(c_ptr) (set with c_loc of a target, or leave c_null_ptr).
! fortran/tests/test_fortran_layout checks every offset and value below against the C compiler.
module hamlet_types
  use, intrinsic :: iso_c_binding
  implicit none
  public

  ! hm_status (include/hamlet/error.h)
  integer(c_int), parameter :: HM_SUCCESS = 0
  integer(c_int), parameter :: HM_ERR_ARGUMENT = 1
  integer(c_int), parameter :: HM_ERR_MEMORY = 2
  integer(c_int), parameter :: HM_ERR_MPI = 3
  integer(c_int), parameter :: HM_ERR_HDF5 = 4
  integer(c_int), parameter :: HM_ERR_CUDA = 5
  integer(c_int), parameter :: HM_ERR_BACKEND = 6
  integer(c_int), parameter :: HM_ERR_DECK = 7
  integer(c_int), parameter :: HM_ERR_IO = 8
  integer(c_int), parameter :: HM_ERR_LAPACK = 9
  integer(c_int), parameter :: HM_ERR_FFTW = 10
  integer(c_int), parameter :: HM_ERR_NUMERIC = 11
  integer(c_int), parameter :: HM_ERR_MISMATCH = 12
  integer(c_int), parameter :: HM_ERR_INTERNAL = 13
  integer(c_int), parameter :: HM_ERR_STOPPED = 16
  integer(c_int), parameter :: HM_ERR_INPUT = 17

  ! hm_backend, hm_scalar (context.h)
  integer(c_int), parameter :: HM_BACKEND_AUTO = 0
  integer(c_int), parameter :: HM_BACKEND_CPU = 1
  integer(c_int), parameter :: HM_BACKEND_CUDA = 2
  integer(c_int), parameter :: HM_BACKEND_MIXED = 3
  integer(c_int), parameter :: HM_REAL = 1     ! value = doubles per scalar
  integer(c_int), parameter :: HM_COMPLEX = 2

  ! hm_format (matrix.h)
  integer(c_int), parameter :: HM_FORMAT_AUTO = 0
  integer(c_int), parameter :: HM_FORMAT_CSR = 1
  integer(c_int), parameter :: HM_FORMAT_SELL = 2

  ! hm_boundary (stencil.h)
  integer(c_int), parameter :: HM_BC_PERIODIC = 0
  integer(c_int), parameter :: HM_BC_OPEN = 1
  integer(c_int), parameter :: HM_BC_TWISTED = 2

  ! hm_bounds_method (kpm.h)
  integer(c_int), parameter :: HM_BOUNDS_LANCZOS = 0
  integer(c_int), parameter :: HM_BOUNDS_GERSHGORIN = 1
  integer(c_int), parameter :: HM_BOUNDS_GIVEN = 2

  ! hm_kpm_kernel, hm_dos_norm (dos.h)
  integer(c_int), parameter :: HM_KERNEL_JACKSON = 0
  integer(c_int), parameter :: HM_KERNEL_LORENTZ = 1
  integer(c_int), parameter :: HM_NORM_STATES = 0   ! DOS integrates to N
  integer(c_int), parameter :: HM_NORM_UNIT = 1     ! DOS integrates to 1

  ! hm_ti_params (ti.h). Fill with hm_ti_params_default, then edit.
  type, bind(C) :: hm_ti_params
    integer(c_int64_t) :: nx = 0, ny = 0, nz = 0
    real(c_double) :: t = 0, m = 0
    integer(c_int) :: boundary(3) = HM_BC_PERIODIC   ! x, y, z
    integer(c_int64_t) :: dot_period_x = 0, dot_period_y = 0, dot_depth = 0
    real(c_double) :: dot_radius = 0, dot_v0 = 0
    real(c_double) :: disorder_w = 0
    integer(c_int64_t) :: disorder_seed = 0            ! uint64_t in C
    integer(c_int) :: block_width = 0                  ! vectors per GPU product; below 32: 16 x 16 tiles
  end type hm_ti_params

  ! hm_kpm_options (kpm.h). Fill with hm_kpm_options_default, then edit.
  type, bind(C) :: hm_kpm_options
    integer(c_int) :: moments = 0                      ! M, even, >= 2
    integer(c_int) :: vectors = 0                      ! R, >= 1
    integer(c_int64_t) :: seed = 0                     ! uint64_t in C
    integer(c_int) :: bounds = HM_BOUNDS_LANCZOS
    integer(c_int) :: lanczos_steps = 0
    real(c_double) :: bounds_margin = 0
    real(c_double) :: emin = 0, emax = 0               ! for HM_BOUNDS_GIVEN
    integer(c_int) :: checkpoint_every = 0             ! moment pairs; 0 = off
    real(c_double) :: checkpoint_seconds = 0           ! 0 = off
    type(c_funptr) :: checkpoint = c_null_funptr       ! procedure(hm_kpm_checkpoint_fn)
    type(c_ptr) :: checkpoint_user = c_null_ptr
    type(c_funptr) :: progress = c_null_funptr         ! procedure(hm_kpm_progress_fn)
    type(c_ptr) :: progress_user = c_null_ptr
    type(c_funptr) :: stop = c_null_funptr             ! integer(c_int) function(user) bind(C); same value on every rank
    type(c_ptr) :: stop_user = c_null_ptr
    integer(c_int) :: block = 0                        ! vectors per pass; 0 = all in one pass
  end type hm_kpm_options

  ! hm_dos_options (dos.h). Fill with hm_dos_options_default, then edit.
  type, bind(C) :: hm_dos_options
    integer(c_int) :: kernel = HM_KERNEL_JACKSON
    real(c_double) :: lorentz_lambda = 0
    integer(c_int) :: points = 0                       ! 0: the 2M Chebyshev nodes
    real(c_double) :: emin = 0, emax = 0
    integer(c_int) :: norm = HM_NORM_STATES
  end type hm_dos_options

  ! The callbacks of hm_kpm_options: write yours with these interfaces and store c_funloc(it).
  abstract interface
    ! Called collectively every checkpoint_every moment pairs; return HM_SUCCESS or a status.
    function hm_kpm_checkpoint_fn(kpm, user) result(status) bind(C)
      import :: c_ptr, c_int
      type(c_ptr), value :: kpm, user
      integer(c_int) :: status
    end function hm_kpm_checkpoint_fn
    ! Called on every rank after each step.
    subroutine hm_kpm_progress_fn(moments_done, moments, user) bind(C)
      import :: c_ptr, c_int
      integer(c_int), value :: moments_done, moments
      type(c_ptr), value :: user
    end subroutine hm_kpm_progress_fn
  end interface
end module hamlet_types
