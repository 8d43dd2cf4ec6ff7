! module hamlet_conductivity: the Kubo-Bastin conductivity by KPM for Fortran (conductivity.h):
! velocity blocks of a stencil from its geometry, the 2D moments mu(m, n, c) = Tr[v_a T_n v_b T_m]/N
! (Fortran order of C's mu[c][n][m], complex) and sigma, DC and optical, from them. Handles are type(c_ptr).
module hamlet_conductivity
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  public

  integer(c_int), parameter :: HM_TRACE_RANDOM = 0, HM_TRACE_EXACT = 1

  ! hm_conductivity_options (conductivity.h). Fill with hm_conductivity_options_default, then edit.
  type, bind(C) :: hm_conductivity_options
    integer(c_int) :: moments = 0                      ! M, even, >= 2
    integer(c_int) :: vectors = 0                      ! R, >= 1 (random trace)
    integer(c_int64_t) :: seed = 0                     ! uint64_t in C
    integer(c_int) :: trace = HM_TRACE_RANDOM
    integer(c_int) :: bounds = HM_BOUNDS_LANCZOS
    integer(c_int) :: lanczos_steps = 0
    real(c_double) :: bounds_margin = 0
    real(c_double) :: emin = 0, emax = 0               ! for HM_BOUNDS_GIVEN
    integer(c_int) :: chunk = 0                        ! Chebyshev vectors per chunk; 0: from free memory
    integer(c_int) :: checkpoint_every = 0             ! left chunks; 0 = off
    real(c_double) :: checkpoint_seconds = 0           ! 0 = off
    type(c_funptr) :: checkpoint = c_null_funptr       ! integer(c_int) function(c, user) bind(C)
    type(c_ptr) :: checkpoint_user = c_null_ptr
    type(c_funptr) :: stop = c_null_funptr             ! integer(c_int) function(user) bind(C); same on every rank
    type(c_ptr) :: stop_user = c_null_ptr
    integer(c_int) :: block = 0                        ! start vectors per block (1 to 16); 0: chosen
  end type hm_conductivity_options

  interface
    ! Not collective. block, velocity_block: (re, im) pairs of [nblocks][orbitals][orbitals] in C order;
    ! lattice(3, 3): column k = lattice vector k; positions(3, orbitals); direction 0, 1, 2 = x, y, z.
    function hm_velocity_blocks(orbitals, nblocks, shift, block, lattice, positions, direction, velocity_block) &
        result(status) bind(C, name="hm_velocity_blocks")
      import :: c_int, c_int32_t, c_double
      integer(c_int), value :: orbitals, nblocks, direction
      integer(c_int32_t), intent(in) :: shift(*)
      real(c_double), intent(in) :: block(*), lattice(*), positions(*)
      real(c_double), intent(out) :: velocity_block(*)
      integer(c_int) :: status
    end function

    ! Collective: V = i (r_j - r_i)_direction H_ij of an assembled H whose rows are (cell, orbital) of
    ! cells(3) (nearest images); V: a new complex hm_matrix handle.
    function hm_matrix_create_velocity(H, cells, orbitals, lattice, positions, direction, V) result(status) &
        bind(C, name="hm_matrix_create_velocity")
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: H
      integer(c_int64_t), intent(in) :: cells(3)
      integer(c_int), value :: orbitals, direction
      real(c_double), intent(in) :: lattice(*), positions(*)
      type(c_ptr), intent(out) :: V
      integer(c_int) :: status
    end function

    function hm_conductivity_options_default(opt) result(status) bind(C, name="hm_conductivity_options_default")
      import :: c_int, hm_conductivity_options
      type(hm_conductivity_options), intent(out) :: opt
      integer(c_int) :: status
    end function

    ! Collective. left(ncomp), right(ncomp): hm_matrix handles (v_a, v_b of each component).
    function hm_conductivity_create(H, ncomp, left, right, opt, c) result(status) bind(C, name="hm_conductivity_create")
      import :: c_int, c_ptr, hm_conductivity_options
      type(c_ptr), value :: H
      integer(c_int), value :: ncomp
      type(c_ptr), intent(in) :: left(*), right(*)
      type(hm_conductivity_options), intent(in) :: opt
      type(c_ptr), intent(out) :: c
      integer(c_int) :: status
    end function

    function hm_conductivity_destroy(c) result(status) bind(C, name="hm_conductivity_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: c
      integer(c_int) :: status
    end function

    function hm_conductivity_run(c) result(status) bind(C, name="hm_conductivity_run")
      import :: c_int, c_ptr
      type(c_ptr), value :: c
      integer(c_int) :: status
    end function

    function hm_conductivity_info(c, moments, components, starts, starts_done, chunk, scale, shift, n_global) &
        result(status) bind(C, name="hm_conductivity_info")
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: c
      integer(c_int), intent(out), optional :: moments, components, starts, starts_done, chunk
      real(c_double), intent(out), optional :: scale, shift
      integer(c_int64_t), intent(out), optional :: n_global
      integer(c_int) :: status
    end function

    ! Not collective: start vectors per block (their recursions advance together; part holds B of them).
    function hm_conductivity_block(c, block) result(status) bind(C, name="hm_conductivity_block")
      import :: c_int, c_ptr
      type(c_ptr), value :: c
      integer(c_int), intent(out) :: block
      integer(c_int) :: status
    end function

    ! Not collective: the interval of the moments (give it back as HM_BOUNDS_GIVEN to restore).
    function hm_conductivity_interval(c, emin, emax) result(status) bind(C, name="hm_conductivity_interval")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: c
      real(c_double), intent(out) :: emin, emax
      integer(c_int) :: status
    end function

    ! Collective. mu(M, M, C) complex; mu_vec(M, M, C, R) or absent.
    function hm_conductivity_moments(c, mu, mu_vec) result(status) bind(C, name="hm_conductivity_moments")
      import :: c_int, c_ptr, c_double_complex
      type(c_ptr), value :: c
      complex(c_double_complex), intent(out) :: mu(*)
      complex(c_double_complex), intent(out), optional :: mu_vec(*)
      integer(c_int) :: status
    end function

    function hm_conductivity_state(c, starts_done, chunks_done, sum, part, per) result(status) &
        bind(C, name="hm_conductivity_state")
      import :: c_int, c_ptr, c_double_complex
      type(c_ptr), value :: c
      integer(c_int), intent(out) :: starts_done, chunks_done
      complex(c_double_complex), intent(out) :: sum(*), part(*)
      complex(c_double_complex), intent(out), optional :: per(*)
      integer(c_int) :: status
    end function

    function hm_conductivity_restore(c, starts_done, chunks_done, sum, part, per) result(status) &
        bind(C, name="hm_conductivity_restore")
      import :: c_int, c_ptr, c_double_complex
      type(c_ptr), value :: c
      integer(c_int), value :: starts_done, chunks_done
      complex(c_double_complex), intent(in) :: sum(*), part(*)
      complex(c_double_complex), intent(in), optional :: per(*)
      integer(c_int) :: status
    end function

    ! Not collective. sigma(nenergy, ntemp, ncomp) in e^2/h (2D, density per cell area) or e^2/(h a).
    function hm_conductivity_sigma(moments, ncomp, mu, scale, shift, kernel, lorentz_lambda, density, nenergy, &
                                   energies, ntemp, temps, sigma) result(status) bind(C, name="hm_conductivity_sigma")
      import :: c_int, c_double, c_double_complex
      integer(c_int), value :: moments, ncomp, kernel, nenergy, ntemp
      complex(c_double_complex), intent(in) :: mu(*)
      real(c_double), value :: scale, shift, lorentz_lambda, density
      real(c_double), intent(in) :: energies(*), temps(*)
      real(c_double), intent(out) :: sigma(*)
      integer(c_int) :: status
    end function

    ! Not collective. Blocks of the current {S, v}/2 of S = diag(weight) per cell (spin_z: +1 up, -1 down):
    ! current_block = (weight_i + weight_j)/2 velocity_block, the layout of hm_velocity_blocks.
    function hm_current_blocks(orbitals, nblocks, velocity_block, weight, current_block) result(status) &
        bind(C, name="hm_current_blocks")
      import :: c_int, c_double
      integer(c_int), value :: orbitals, nblocks
      real(c_double), intent(in) :: velocity_block(*), weight(*)
      real(c_double), intent(out) :: current_block(*)
      integer(c_int) :: status
    end function

    ! Not collective. Blocks of {S, v}/2 for any Hermitian on-site S(orbitals, orbitals) (complex; C's S[i][j]
    ! is Fortran's S(j, i)): current_block(:, :, b) = (S V_b + V_b S)/2 in C's row-major block layout.
    function hm_current_blocks_operator(orbitals, nblocks, velocity_block, S, current_block) result(status) &
        bind(C, name="hm_current_blocks_operator")
      import :: c_int, c_double_complex
      integer(c_int), value :: orbitals, nblocks
      complex(c_double_complex), intent(in) :: velocity_block(*), S(*)
      complex(c_double_complex), intent(out) :: current_block(*)
      integer(c_int) :: status
    end function

    ! Not collective. The optical conductivity from the same moments: sigma(2, nfreq, nenergy, ntemp, ncomp),
    ! sigma(1, ...) = Re, sigma(2, ...) = Im, units of hm_conductivity_sigma; freqs > 0, eta >= 0 (energy units).
    function hm_conductivity_optical(moments, ncomp, mu, scale, shift, kernel, lorentz_lambda, density, eta, nfreq, &
                                     freqs, nenergy, energies, ntemp, temps, sigma) result(status) &
        bind(C, name="hm_conductivity_optical")
      import :: c_int, c_double, c_double_complex
      integer(c_int), value :: moments, ncomp, kernel, nfreq, nenergy, ntemp
      complex(c_double_complex), intent(in) :: mu(*)
      real(c_double), value :: scale, shift, lorentz_lambda, density, eta
      real(c_double), intent(in) :: freqs(*), energies(*), temps(*)
      real(c_double), intent(out) :: sigma(*)
      integer(c_int) :: status
    end function

    ! Collective: sigma_aa(E) at T = 0 by the single-shot Kubo-Greenwood expansion (no M x M moments);
    ! error and bounds (emin, emax) optional.
    function hm_conductivity_single_shot(H, V, opt, kernel, lorentz_lambda, density, nenergy, energies, sigma, error, &
                                         bounds) result(status) bind(C, name="hm_conductivity_single_shot")
      import :: c_int, c_ptr, c_double, hm_conductivity_options
      type(c_ptr), value :: H, V
      type(hm_conductivity_options), intent(in) :: opt
      integer(c_int), value :: kernel, nenergy
      real(c_double), value :: lorentz_lambda, density
      real(c_double), intent(in) :: energies(*)
      real(c_double), intent(out) :: sigma(*)
      real(c_double), intent(out), optional :: error(*), bounds(2)
      integer(c_int) :: status
    end function

    ! Collective: start vectors [first, last) of a single-shot run added to sums(2 nenergy); done, bounds out.
    function hm_conductivity_single_shot_part(H, V, opt, kernel, lorentz_lambda, nenergy, energies, first, last, sums, &
                                              done, bounds) result(status) bind(C, name="hm_conductivity_single_shot_part")
      import :: c_int, c_ptr, c_double, hm_conductivity_options
      type(c_ptr), value :: H, V
      type(hm_conductivity_options), intent(in) :: opt
      integer(c_int), value :: kernel, nenergy, first, last
      real(c_double), value :: lorentz_lambda
      real(c_double), intent(in) :: energies(*)
      real(c_double), intent(inout) :: sums(*)
      integer(c_int), intent(out) :: done
      real(c_double), intent(out) :: bounds(2)
      integer(c_int) :: status
    end function

    ! Not collective: sigma (and error, optional) from the sums of every start vector, n rows.
    function hm_conductivity_single_shot_sigma(opt, n, density, nenergy, sums, sigma, error) result(status) &
        bind(C, name="hm_conductivity_single_shot_sigma")
      import :: c_int, c_int64_t, c_double, hm_conductivity_options
      type(hm_conductivity_options), intent(in) :: opt
      integer(c_int64_t), value :: n
      real(c_double), value :: density
      integer(c_int), value :: nenergy
      real(c_double), intent(in) :: sums(*)
      real(c_double), intent(out) :: sigma(*)
      real(c_double), intent(out), optional :: error(*)
      integer(c_int) :: status
    end function
  end interface
end module hamlet_conductivity
