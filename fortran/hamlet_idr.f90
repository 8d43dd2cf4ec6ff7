! module hamlet_idr: the IDR(s) linear solver (include/hamlet/idr.h) for Fortran. The operator is
! an hm_operator handle (module hamlet_operator), so a Fortran matrix-free operator is a bind(C)
! function passed with c_funloc to hm_operator_create_shell. b and x are hm_mvec blocks of k
! columns (k systems). Per-system results are arrays of k entries; history(0:iterations).
! Also the two status codes of iterative solvers (include/hamlet/error.h).
module hamlet_idr
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  public

  integer(c_int), parameter :: HM_ERR_NOT_CONVERGED = 14
  integer(c_int), parameter :: HM_ERR_BREAKDOWN = 15

  ! hm_idr_precond
  integer(c_int), parameter :: HM_IDR_PRECOND_NONE = 0, HM_IDR_PRECOND_JACOBI = 1, HM_IDR_PRECOND_USER = 2

  ! hm_idr_options. Fill with hm_idr_options_default, then edit.
  type, bind(C) :: hm_idr_options
    integer(c_int) :: s = 0                            ! shadow space dimension, 1..64
    integer(c_int) :: smoothing = 0                    ! 1: minimal-residual smoothing
    real(c_double) :: tol = 0                          ! relative residual, >= 0
    integer(c_int) :: maxit = 0                        ! operator applications per system
    real(c_double) :: omega_angle = 0                  ! 0 <= angle < 1 (0.7)
    integer(c_int) :: residual_replacement = 0         ! outer iterations; 0 = off
    integer(c_int) :: precond = HM_IDR_PRECOND_NONE
    type(c_ptr) :: precond_op = c_null_ptr             ! hm_operator y = K^-1 x for USER
    type(c_ptr) :: precond_diagonal = c_null_ptr       ! hm_mvec (one column) for JACOBI
    integer(c_int64_t) :: seed = 0                     ! uint64_t in C
    integer(c_int) :: history = 0                      ! 1: residual norm of every iteration
    integer(c_int) :: checkpoint_every = 0             ! outer iterations; 0 = off
    type(c_funptr) :: checkpoint = c_null_funptr       ! procedure(hm_idr_checkpoint_fn)
    type(c_ptr) :: checkpoint_user = c_null_ptr
    real(c_double) :: checkpoint_seconds = 0           ! 0 = off
    type(c_funptr) :: stop = c_null_funptr             ! integer(c_int) function(user) bind(C); same value on every rank
    type(c_ptr) :: stop_user = c_null_ptr
  end type hm_idr_options

  abstract interface
    ! Called every checkpoint_every outer iterations on every rank; the hm_idr_state_* calls give
    ! the state to save. A nonzero return stops the solve.
    function hm_idr_checkpoint_fn(idr, user) result(status) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), value :: idr, user
      integer(c_int) :: status
    end function
  end interface

  interface
    function hm_idr_options_default(opt) result(status) bind(C, name="hm_idr_options_default")
      import :: c_int, hm_idr_options
      type(hm_idr_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    ! Collective: checks the options and builds the shadow space.
    function hm_idr_create(A, opt, idr) result(status) bind(C, name="hm_idr_create")
      import :: c_int, c_ptr, hm_idr_options
      type(c_ptr), value :: A
      type(hm_idr_options), intent(in) :: opt
      type(c_ptr), intent(out) :: idr
      integer(c_int) :: status
    end function
    function hm_idr_destroy(idr) result(status) bind(C, name="hm_idr_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: idr
      integer(c_int) :: status
    end function
    ! Collective: x (initial guess in, solution out) for the k columns of b. HM_SUCCESS,
    ! HM_ERR_NOT_CONVERGED or HM_ERR_BREAKDOWN (results valid in all three cases).
    function hm_idr_solve(idr, b, x) result(status) bind(C, name="hm_idr_solve")
      import :: c_int, c_ptr
      type(c_ptr), value :: idr, b, x
      integer(c_int) :: status
    end function
    function hm_idr_info(idr, k, solve_status) result(status) bind(C, name="hm_idr_info")
      import :: c_int, c_ptr
      type(c_ptr), value :: idr
      integer(c_int), intent(out) :: k, solve_status
      integer(c_int) :: status
    end function
    ! iterations(k), converged(k) (1/0), system_status(k).
    function hm_idr_systems(idr, iterations, converged, system_status) result(status) bind(C, name="hm_idr_systems")
      import :: c_int, c_ptr
      type(c_ptr), value :: idr
      integer(c_int), intent(out) :: iterations(*), converged(*), system_status(*)
      integer(c_int) :: status
    end function
    ! recursive(k), true_residual(k): relative residual norms.
    function hm_idr_residuals(idr, recursive, true_residual) result(status) bind(C, name="hm_idr_residuals")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: idr
      real(c_double), intent(out) :: recursive(*), true_residual(*)
      integer(c_int) :: status
    end function
    ! system is 0-based; values(capacity) gets length = iterations + 1 entries.
    function hm_idr_history(idr, system, values, capacity, length) result(status) bind(C, name="hm_idr_history")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: idr
      integer(c_int), value :: system
      real(c_double), intent(out) :: values(*)
      integer(c_int), value :: capacity
      integer(c_int), intent(out) :: length
      integer(c_int) :: status
    end function
    ! ---- checkpoints ----
    function hm_idr_state_size(idr, nblocks, nscalars) result(status) bind(C, name="hm_idr_state_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: idr
      integer(c_int), intent(out) :: nblocks, nscalars
      integer(c_int) :: status
    end function
    ! i is 0-based; block is owned by idr.
    function hm_idr_state_block(idr, i, block) result(status) bind(C, name="hm_idr_state_block")
      import :: c_int, c_ptr
      type(c_ptr), value :: idr
      integer(c_int), value :: i
      type(c_ptr), intent(out) :: block
      integer(c_int) :: status
    end function
    function hm_idr_state_get(idr, scalars) result(status) bind(C, name="hm_idr_state_get")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: idr
      real(c_double), intent(out) :: scalars(*)
      integer(c_int) :: status
    end function
    function hm_idr_restore(idr, k, scalars) result(status) bind(C, name="hm_idr_restore")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: idr
      integer(c_int), value :: k
      real(c_double), intent(in) :: scalars(*)
      integer(c_int) :: status
    end function
    ! ---- multi-shift IDR(s): (A + shifts(q)) x = b_j for all shifts at once (include/hamlet/idr.h) ----
    ! precond must be HM_IDR_PRECOND_NONE (a preconditioner is not shift-invariant); A complex.
    function hm_idr_multishift_create(A, opt, nshifts, shifts, ms) result(status) &
        bind(C, name="hm_idr_multishift_create")
      import :: c_int, c_ptr, c_double_complex, hm_idr_options
      type(c_ptr), value :: A
      type(hm_idr_options), intent(in) :: opt
      integer(c_int), value :: nshifts
      complex(c_double_complex), intent(in) :: shifts(*)
      type(c_ptr), intent(out) :: ms
      integer(c_int) :: status
    end function
    function hm_idr_multishift_destroy(ms) result(status) bind(C, name="hm_idr_multishift_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: ms
      integer(c_int) :: status
    end function
    ! fn: integer(c_int) function(ms, user) bind(C), called where a checkpoint is due.
    function hm_idr_multishift_set_checkpoint(ms, fn, user) result(status) &
        bind(C, name="hm_idr_multishift_set_checkpoint")
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: ms
      type(c_funptr), value :: fn
      type(c_ptr), value :: user
      integer(c_int) :: status
    end function
    ! b: k columns; x: k * nshifts columns, column q * k + j (0-based) for shift q and b_j.
    function hm_idr_multishift_solve(ms, b, x) result(status) bind(C, name="hm_idr_multishift_solve")
      import :: c_int, c_ptr
      type(c_ptr), value :: ms, b, x
      integer(c_int) :: status
    end function
    ! seed_shift is 0-based.
    function hm_idr_multishift_info(ms, k, seed_shift, solve_status) result(status) &
        bind(C, name="hm_idr_multishift_info")
      import :: c_int, c_ptr
      type(c_ptr), value :: ms
      integer(c_int), intent(out) :: k, seed_shift, solve_status
      integer(c_int) :: status
    end function
    ! arrays of k * nshifts entries (index q * k + j + 1).
    function hm_idr_multishift_results(ms, iterations, converged, estimated, true_residual) result(status) &
        bind(C, name="hm_idr_multishift_results")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ms
      integer(c_int), intent(out) :: iterations(*), converged(*)
      real(c_double), intent(out) :: estimated(*), true_residual(*)
      integer(c_int) :: status
    end function
    function hm_idr_multishift_state_size(ms, nblocks, nscalars) result(status) &
        bind(C, name="hm_idr_multishift_state_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: ms
      integer(c_int), intent(out) :: nblocks, nscalars
      integer(c_int) :: status
    end function
    function hm_idr_multishift_state_block(ms, i, block) result(status) bind(C, name="hm_idr_multishift_state_block")
      import :: c_int, c_ptr
      type(c_ptr), value :: ms
      integer(c_int), value :: i
      type(c_ptr), intent(out) :: block
      integer(c_int) :: status
    end function
    function hm_idr_multishift_state_get(ms, scalars) result(status) bind(C, name="hm_idr_multishift_state_get")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ms
      real(c_double), intent(out) :: scalars(*)
      integer(c_int) :: status
    end function
    function hm_idr_multishift_restore(ms, k, scalars) result(status) bind(C, name="hm_idr_multishift_restore")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ms
      integer(c_int), value :: k
      real(c_double), intent(in) :: scalars(*)
      integer(c_int) :: status
    end function
  end interface
end module hamlet_idr
