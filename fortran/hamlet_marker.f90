! module hamlet_marker: the Fermi projector and the local Chern marker by KPM for Fortran (marker.h).
! Handles are type(c_ptr); rows are 0-based global row numbers, as everywhere in the C API.
module hamlet_marker
  use, intrinsic :: iso_c_binding
  implicit none
  public

  interface
    ! Collective: PV = P V, P = theta(mu - H) as a Jackson-damped Chebyshev series of M moments on
    ! [emin, emax]; V, PV: blocks of H's type, distribution and width.
    function hm_fermi_projector_apply(H, emin, emax, mu, moments, V, PV) result(status) &
        bind(C, name="hm_fermi_projector_apply")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: H, V, PV
      real(c_double), value :: emin, emax, mu
      integer(c_int), value :: moments
      integer(c_int) :: status
    end function

    ! Collective: marker(j) = -4 pi Im <e|P X Q Y P|e> of row rows(j) (j = 1..nrows, the same on
    ! every rank); x, y: positions of this rank's local rows. H complex.
    function hm_marker_local(H, x, y, emin, emax, mu, moments, nrows, rows, marker) result(status) &
        bind(C, name="hm_marker_local")
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: H
      real(c_double), intent(in) :: x(*), y(*)
      real(c_double), value :: emin, emax, mu
      integer(c_int), value :: moments, nrows
      integer(c_int64_t), intent(in) :: rows(*)
      real(c_double), intent(out) :: marker(*)
      integer(c_int) :: status
    end function

    ! Collective: hm_fermi_projector_apply with P = 1 / (1 + exp((H - mu) / T)) as an undamped
    ! Chebyshev series for temperature T > 0 (T = 0: the Jackson-damped step, as above).
    function hm_fermi_projector_apply_temperature(H, emin, emax, mu, temperature, moments, V, PV) result(status) &
        bind(C, name="hm_fermi_projector_apply_temperature")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: H, V, PV
      real(c_double), value :: emin, emax, mu, temperature
      integer(c_int), value :: moments
      integer(c_int) :: status
    end function

    ! Collective: hm_marker_local with the projector at temperature T >= 0 (T = 0: the Jackson step).
    function hm_marker_local_temperature(H, x, y, emin, emax, mu, temperature, moments, nrows, rows, marker) &
        result(status) bind(C, name="hm_marker_local_temperature")
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: H
      real(c_double), intent(in) :: x(*), y(*)
      real(c_double), value :: emin, emax, mu, temperature
      integer(c_int), value :: moments, nrows
      integer(c_int64_t), intent(in) :: rows(*)
      real(c_double), intent(out) :: marker(*)
      integer(c_int) :: status
    end function
  end interface
end module hamlet_marker
