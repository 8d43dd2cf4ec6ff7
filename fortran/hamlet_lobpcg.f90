! module hamlet_lobpcg: block LOBPCG (include/hamlet/lobpcg.h) for Fortran. A and B are
! hm_operator handles (module hamlet_operator), so a Fortran matrix-free operator is a bind(C)
! function passed with c_funloc to hm_operator_create_shell. Eigenvalues, residuals and history
! are real(c_double) arrays; history(nev, iterations + 1) (column i+1 = after i iterations).
module hamlet_lobpcg
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  public

  ! hm_lobpcg_which, hm_lobpcg_precond, hm_lobpcg_reason
  integer(c_int), parameter :: HM_LOBPCG_SMALLEST = 0, HM_LOBPCG_LARGEST = 1
  integer(c_int), parameter :: HM_LOBPCG_PRECOND_NONE = 0, HM_LOBPCG_PRECOND_JACOBI = 1, HM_LOBPCG_PRECOND_USER = 2
  integer(c_int), parameter :: HM_LOBPCG_NOT_RUN = 0, HM_LOBPCG_CONVERGED = 1, HM_LOBPCG_MAXIT = 2, &
                               HM_LOBPCG_STAGNATED = 3
  ! hm_lobpcg_convergence: the test of a converged pair (include/hamlet/lobpcg.h)
  integer(c_int), parameter :: HM_LOBPCG_CONV_AUTO = 0, HM_LOBPCG_CONV_RELATIVE = 1, HM_LOBPCG_CONV_NORM = 2

  ! hm_lobpcg_options. Fill with hm_lobpcg_options_default, then edit.
  type, bind(C) :: hm_lobpcg_options
    integer(c_int) :: nev = 0                          ! eigenpairs wanted
    integer(c_int) :: block = 0                        ! >= nev; 0 = automatic
    real(c_double) :: tol = 0                          ! convergence test level; 0 = run maxit
    integer(c_int) :: maxit = 0
    integer(c_int) :: which = HM_LOBPCG_SMALLEST
    integer(c_int) :: precond = HM_LOBPCG_PRECOND_NONE
    type(c_ptr) :: precond_matrix = c_null_ptr         ! hm_matrix for JACOBI
    type(c_ptr) :: precond_op = c_null_ptr             ! hm_operator for USER
    integer(c_int64_t) :: seed = 0                     ! uint64_t in C
    integer(c_int) :: history = 0                      ! 1: keep every iteration's estimates
    integer(c_int) :: verbosity = 0                    ! 1: a line per iteration on rank 0
    integer(c_int) :: checkpoint_every = 0             ! iterations; 0 = off
    real(c_double) :: checkpoint_seconds = 0           ! 0 = off
    type(c_funptr) :: checkpoint = c_null_funptr       ! procedure(hm_lobpcg_checkpoint_fn)
    type(c_ptr) :: checkpoint_user = c_null_ptr
    type(c_funptr) :: progress = c_null_funptr         ! procedure(hm_lobpcg_progress_fn)
    type(c_ptr) :: progress_user = c_null_ptr
    type(c_funptr) :: stop = c_null_funptr             ! integer(c_int) function(user) bind(C); same value on every rank
    type(c_ptr) :: stop_user = c_null_ptr
    integer(c_int) :: convergence = HM_LOBPCG_CONV_AUTO ! auto, relative or norm
  end type hm_lobpcg_options

  abstract interface
    ! Called between iterations on every rank; hm_lobpcg_state gives the state to save.
    function hm_lobpcg_checkpoint_fn(lob, user) result(status) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), value :: lob, user
      integer(c_int) :: status
    end function
    ! values(nev), residuals(nev) of the current estimates.
    subroutine hm_lobpcg_progress_fn(iteration, nev, values, residuals, converged, user) bind(C)
      import :: c_int, c_ptr, c_double
      integer(c_int), value :: iteration, nev
      real(c_double), intent(in) :: values(nev), residuals(nev)
      integer(c_int), value :: converged
      type(c_ptr), value :: user
    end subroutine
  end interface

  interface
    function hm_lobpcg_options_default(opt) result(status) bind(C, name="hm_lobpcg_options_default")
      import :: c_int, hm_lobpcg_options
      type(hm_lobpcg_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    ! Collective. B = c_null_ptr for B = I.
    function hm_lobpcg_create(A, B, opt, lob) result(status) bind(C, name="hm_lobpcg_create")
      import :: c_int, c_ptr, hm_lobpcg_options
      type(c_ptr), value :: A, B
      type(hm_lobpcg_options), intent(in) :: opt
      type(c_ptr), intent(out) :: lob
      integer(c_int) :: status
    end function
    function hm_lobpcg_destroy(lob) result(status) bind(C, name="hm_lobpcg_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: lob
      integer(c_int) :: status
    end function
    function hm_lobpcg_options_get(lob, opt) result(status) bind(C, name="hm_lobpcg_options_get")
      import :: c_int, c_ptr, hm_lobpcg_options
      type(c_ptr), value :: lob
      type(hm_lobpcg_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    function hm_lobpcg_set_start(lob, X0) result(status) bind(C, name="hm_lobpcg_set_start")
      import :: c_int, c_ptr
      type(c_ptr), value :: lob, X0
      integer(c_int) :: status
    end function
    ! Collective; returns 0 also when not converged: read hm_lobpcg_info's reason.
    function hm_lobpcg_run(lob) result(status) bind(C, name="hm_lobpcg_run")
      import :: c_int, c_ptr
      type(c_ptr), value :: lob
      integer(c_int) :: status
    end function
    function hm_lobpcg_info(lob, iterations, converged, reason) result(status) bind(C, name="hm_lobpcg_info")
      import :: c_int, c_ptr
      type(c_ptr), value :: lob
      integer(c_int), intent(out), optional :: iterations, converged, reason
      integer(c_int) :: status
    end function
    function hm_lobpcg_eigenvalues(lob, values) result(status) bind(C, name="hm_lobpcg_eigenvalues")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: lob
      real(c_double), intent(out) :: values(*)
      integer(c_int) :: status
    end function
    function hm_lobpcg_residuals(lob, residuals) result(status) bind(C, name="hm_lobpcg_residuals")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: lob
      real(c_double), intent(out) :: residuals(*)
      integer(c_int) :: status
    end function
    ! Collective: the first k eigenvectors into V (k columns, k <= block).
    function hm_lobpcg_eigenvectors(lob, V) result(status) bind(C, name="hm_lobpcg_eigenvectors")
      import :: c_int, c_ptr
      type(c_ptr), value :: lob, V
      integer(c_int) :: status
    end function
    ! values(nev, iterations + 1), residuals(nev, iterations + 1); either may be absent.
    function hm_lobpcg_history(lob, values, residuals) result(status) bind(C, name="hm_lobpcg_history")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: lob
      real(c_double), intent(out), optional :: values(*), residuals(*)
      integer(c_int) :: status
    end function
    ! X, P: copies made at this call, owned by lob (do not destroy them).
    function hm_lobpcg_state(lob, X, P, np, iteration) result(status) bind(C, name="hm_lobpcg_state")
      import :: c_int, c_ptr
      type(c_ptr), value :: lob
      type(c_ptr), intent(out), optional :: X, P
      integer(c_int), intent(out), optional :: np, iteration
      integer(c_int) :: status
    end function
    ! Collective, after setting X and P from hm_lobpcg_state to the saved values.
    function hm_lobpcg_restore(lob, np, iteration) result(status) bind(C, name="hm_lobpcg_restore")
      import :: c_int, c_ptr
      type(c_ptr), value :: lob
      integer(c_int), value :: np, iteration
      integer(c_int) :: status
    end function
  end interface
end module hamlet_lobpcg
