! module hamlet_interior: the eigenpairs of a Hermitian matrix in a window by Chebyshev filter
! diagonalization (include/hamlet/interior.h) for Fortran. Values and residuals are real(c_double)
! arrays of the found count; the vectors go into an hm_mvec of that width.
module hamlet_interior
  use, intrinsic :: iso_c_binding
  implicit none
  public

  ! hm_interior_options. Fill with hm_interior_options_default, then edit.
  type, bind(C) :: hm_interior_options
    real(c_double) :: emin = 0, emax = 0      ! the window
    real(c_double) :: tol = 0                 ! residual relative to the spectral scale
    integer(c_int) :: search = 0              ! search space columns; 0 = automatic
    integer(c_int) :: degree = 0              ! filter degree; 0 = automatic
    integer(c_int) :: dos_moments = 0         ! count estimate's moments; 0 = automatic
    integer(c_int) :: dos_vectors = 0         ! count estimate's random vectors
    integer(c_int) :: max_passes = 0
    real(c_double) :: memory_limit = 0        ! bytes over all ranks; 0 = half the host's memory
    integer(c_int64_t) :: seed = 0            ! uint64_t in C
    integer(c_int) :: lanczos_steps = 0
    integer(c_int) :: verbosity = 0
  end type hm_interior_options

  interface
    function hm_interior_options_default(opt) result(status) bind(C, name="hm_interior_options_default")
      import :: c_int, hm_interior_options
      type(hm_interior_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    ! Collective.
    function hm_interior_create(H, opt, solver) result(status) bind(C, name="hm_interior_create")
      import :: c_int, c_ptr, hm_interior_options
      type(c_ptr), value :: H
      type(hm_interior_options), intent(in) :: opt
      type(c_ptr), intent(out) :: solver
      integer(c_int) :: status
    end function
    function hm_interior_destroy(solver) result(status) bind(C, name="hm_interior_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: solver
      integer(c_int) :: status
    end function
    ! Collective.
    function hm_interior_run(solver) result(status) bind(C, name="hm_interior_run")
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
      integer(c_int) :: status
    end function
    function hm_interior_info(solver, found, estimate, degree, search, passes, converged) result(status) &
        bind(C, name="hm_interior_info")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      integer(c_int), intent(out), optional :: found, degree, search, passes, converged
      real(c_double), intent(out), optional :: estimate
      integer(c_int) :: status
    end function
    ! This rank's seconds in the filter and in the rest of the passes; the filter's vector-steps.
    function hm_interior_timing(solver, filter_seconds, other_seconds, vector_steps) result(status) &
        bind(C, name="hm_interior_timing")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), intent(out), optional :: filter_seconds, other_seconds, vector_steps
      integer(c_int) :: status
    end function
    function hm_interior_bounds(solver, lo, hi) result(status) bind(C, name="hm_interior_bounds")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), intent(out) :: lo, hi
      integer(c_int) :: status
    end function
    ! values(found), ascending.
    function hm_interior_values(solver, values) result(status) bind(C, name="hm_interior_values")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), intent(out) :: values(*)
      integer(c_int) :: status
    end function
    function hm_interior_residuals(solver, residuals) result(status) bind(C, name="hm_interior_residuals")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), intent(out) :: residuals(*)
      integer(c_int) :: status
    end function
    ! Collective: V an hm_mvec of found columns over H's rows and type.
    function hm_interior_vectors(solver, V) result(status) bind(C, name="hm_interior_vectors")
      import :: c_int, c_ptr
      type(c_ptr), value :: solver, V
      integer(c_int) :: status
    end function
  end interface
end module hamlet_interior
