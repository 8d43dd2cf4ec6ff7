! module hamlet_spectral: the spectral function A(k, E) for Fortran (include/hamlet/spectral.h): the
! reciprocal vectors, the allowed k nearest to a wanted one on a supercell's grid, the plane-wave
! start block for hm_kpm_set_start (module hamlet_ldos), and A from the orbital-summed moments.
! Fortran layouts: lattice(3, 3) and recip(3, 3) with column i = a_i and b_i (cartesian);
! positions(3, orbitals); k(3, count) cartesian; layer(count) (c3 index from 0, or -1 = every cell);
! mu(moments, count) = hm_kpm_moments' mu_vec(moments, count*orbitals) summed over each point's
! orbitals (columns j*orbitals + o + 1, o from 0); A(points, count), energy(points).
module hamlet_spectral
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  public

  interface
    ! b_i . a_j = 2 pi delta_ij. Fails on a singular cell.
    function hm_spectral_reciprocal(lattice, recip) result(status) bind(C, name="hm_spectral_reciprocal")
      import :: c_int, c_double
      real(c_double), intent(in) :: lattice(3, 3)
      real(c_double), intent(out) :: recip(3, 3)
      integer(c_int) :: status
    end function

    ! frac, allowed: reduced coordinates (k = sum_i frac(i) b_i). boundary(i): HM_BC_PERIODIC,
    ! HM_BC_OPEN (frac(i) kept) or HM_BC_TWISTED (twist(i) radians).
    function hm_spectral_nearest_allowed(cells, boundary, twist, frac, allowed) result(status) &
        bind(C, name="hm_spectral_nearest_allowed")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), intent(in) :: cells(3)
      integer(c_int), intent(in) :: boundary(3)
      real(c_double), intent(in) :: twist(3), frac(3)
      real(c_double), intent(out) :: allowed(3)
      integer(c_int) :: status
    end function

    ! Collective. V: complex hm_mvec of width count*orbitals on H's distribution; column
    ! j*orbitals + o + 1 becomes |k_j, o> (norm 1) on layer(j) or on every cell.
    function hm_spectral_start_fill(V, cells, orbitals, lattice, positions, count, k, layer) result(status) &
        bind(C, name="hm_spectral_start_fill")
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: V
      integer(c_int64_t), intent(in) :: cells(3)
      integer(c_int), value :: orbitals
      real(c_double), intent(in) :: lattice(3, 3), positions(3, *)
      integer(c_int), value :: count
      real(c_double), intent(in) :: k(3, *)
      integer(c_int), intent(in) :: layer(*)
      integer(c_int) :: status
    end function

    ! Not collective. Each point's A integrates to `orbitals`; points from hm_ldos_points.
    function hm_spectral_reconstruct(moments, count, orbitals, mu, scale, shift, opt, energy, A) result(status) &
        bind(C, name="hm_spectral_reconstruct")
      import :: c_int, c_double, hm_dos_options
      integer(c_int), value :: moments, count, orbitals
      real(c_double), intent(in) :: mu(*)
      real(c_double), value :: scale, shift
      type(hm_dos_options), intent(in) :: opt
      real(c_double), intent(out) :: energy(*), A(*)
      integer(c_int) :: status
    end function
  end interface
end module hamlet_spectral
