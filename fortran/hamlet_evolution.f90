! module hamlet_evolution: time evolution psi(t + dt) = exp(-i H dt) psi(t) by the Chebyshev expansion
! (evolution.h). The state is a complex block of `vectors` columns over H's rows, set and read with
! hm_evolution_set_state / hm_evolution_get_state through an hm_mvec (hm_mvec_set / hm_mvec_get).
module hamlet_evolution
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  public

  ! hm_evolution_options (evolution.h). Fill with hm_evolution_options_default, then edit.
  type, bind(C) :: hm_evolution_options
    real(c_double) :: dt = 0                    ! time step, > 0 (hbar = 1, H's energy unit)
    real(c_double) :: accuracy = 0              ! neglected Chebyshev tail per step, [1e-15, 0.1]
    integer(c_int) :: bounds = HM_BOUNDS_LANCZOS
    integer(c_int) :: lanczos_steps = 0
    real(c_double) :: bounds_margin = 0
    real(c_double) :: emin = 0, emax = 0        ! for HM_BOUNDS_GIVEN
    integer(c_int64_t) :: seed = 0              ! uint64_t in C
  end type hm_evolution_options

  interface
    function hm_evolution_options_default(opt) result(status) bind(C, name="hm_evolution_options_default")
      import :: c_int, hm_evolution_options
      type(hm_evolution_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    ! Collective. The state starts at zero.
    function hm_evolution_create(H, vectors, opt, ev) result(status) bind(C, name="hm_evolution_create")
      import :: c_int, c_ptr, hm_evolution_options
      type(c_ptr), value :: H
      integer(c_int), value :: vectors
      type(hm_evolution_options), intent(in) :: opt
      type(c_ptr), intent(out) :: ev
      integer(c_int) :: status
    end function
    function hm_evolution_destroy(ev) result(status) bind(C, name="hm_evolution_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: ev
      integer(c_int) :: status
    end function
    ! psi: a complex hm_mvec of width vectors over H's distribution (copied); the clock restarts.
    function hm_evolution_set_state(ev, psi) result(status) bind(C, name="hm_evolution_set_state")
      import :: c_int, c_ptr
      type(c_ptr), value :: ev, psi
      integer(c_int) :: status
    end function
    function hm_evolution_get_state(ev, psi) result(status) bind(C, name="hm_evolution_get_state")
      import :: c_int, c_ptr
      type(c_ptr), value :: ev, psi
      integer(c_int) :: status
    end function
    ! Collective: advance by steps time steps.
    function hm_evolution_step(ev, steps) result(status) bind(C, name="hm_evolution_step")
      import :: c_int, c_ptr
      type(c_ptr), value :: ev
      integer(c_int), value :: steps
      integer(c_int) :: status
    end function
    function hm_evolution_info(ev, vectors, steps_done, time, order) result(status) bind(C, name="hm_evolution_info")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ev
      integer(c_int), intent(out) :: vectors, steps_done, order
      real(c_double), intent(out) :: time
      integer(c_int) :: status
    end function
    function hm_evolution_interval(ev, emin, emax) result(status) bind(C, name="hm_evolution_interval")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ev
      real(c_double), intent(out) :: emin, emax
      integer(c_int) :: status
    end function
    ! Collective: norms(vectors) of the current state's columns.
    function hm_evolution_norms(ev, norms) result(status) bind(C, name="hm_evolution_norms")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ev
      real(c_double), intent(out) :: norms(*)
      integer(c_int) :: status
    end function
    ! Collective: also carry chi(t) = [X, U(t)] psi(0), given V = i[H, X] (complex, Hermitian; outlives ev).
    function hm_evolution_set_commutator(ev, V) result(status) bind(C, name="hm_evolution_set_commutator")
      import :: c_int, c_ptr
      type(c_ptr), value :: ev, V
      integer(c_int) :: status
    end function
    ! chi: a complex hm_mvec shaped as the state (a restart, after hm_evolution_set_state).
    function hm_evolution_set_commutator_state(ev, chi) result(status) &
        bind(C, name="hm_evolution_set_commutator_state")
      import :: c_int, c_ptr
      type(c_ptr), value :: ev, chi
      integer(c_int) :: status
    end function
    function hm_evolution_get_commutator_state(ev, chi) result(status) &
        bind(C, name="hm_evolution_get_commutator_state")
      import :: c_int, c_ptr
      type(c_ptr), value :: ev, chi
      integer(c_int) :: status
    end function
    ! Collective: mu(n + 1 + M j) = Re <A_j|T_n(Ht)|B_j>, n < moments, j < the blocks' width (complex hm_mvecs
    ! over H's rows), Ht = H mapped from [emin, emax] onto [-1, 1] as by hm_kpm (velocity auto-correlation).
    function hm_evolution_cross_moments(H, emin, emax, moments, A, B, mu) result(status) &
        bind(C, name="hm_evolution_cross_moments")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: H
      real(c_double), value :: emin, emax
      integer(c_int), value :: moments
      type(c_ptr), value :: A, B
      real(c_double), intent(out) :: mu(*)
      integer(c_int) :: status
    end function
  end interface
end module hamlet_evolution
