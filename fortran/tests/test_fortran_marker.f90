! The marker API from Fortran on an open 3 x 2 x 2 TI flake (complex H, 48 rows), against the dense
! formulas with LAPACK eigenpairs and the same Jackson-damped Chebyshev series of the step:
! hm_fermi_projector_apply of two unit vectors equals columns of P = V f(E) V^H, and hm_marker_local
! of every row equals -4 pi Im [P X Q Y P]_rr (1e-10); the _temperature variants with the Fermi function
! at T = 0.05 (undamped, MT = ln(1e13) / (pi T scale) moments) equal the dense formulas with the exact
! Fermi function 1 / (1 + exp((E - mu) / T)) (1e-9); bad arguments fail with their messages.
program test_fortran_marker
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  integer, parameter :: M = 64
  real(c_double), parameter :: pi = 3.141592653589793d0, mu = 0.3d0
  type(c_ptr) :: ctx, H, dist, V, PV
  type(hm_ti_params) :: tp
  complex(c_double_complex), allocatable :: dense(:, :), evec(:, :), Pd(:, :), Qd(:, :), Ad(:, :), unit(:, :), punit(:, :)
  real(c_double), allocatable :: w(:), f(:), x(:), y(:), xg(:), yg(:), marker(:), ref(:)
  integer(c_int64_t), allocatable :: rows(:)
  integer(c_int64_t) :: N, first, local
  real(c_double) :: emin, emax, scale, shift, phi, g(0:M - 1), c(0:M - 1), t
  real(c_double), parameter :: temp = 0.05d0
  integer(c_int) :: MT
  integer :: ierr, i, k, r

  call MPI_Init(ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  call test_ok(hm_ti_params_default(tp), "hm_ti_params_default")
  tp%nx = 3; tp%ny = 2; tp%nz = 2
  tp%boundary = HM_BC_OPEN
  call test_ok(hm_ti_build(ctx, tp, H), "hm_ti_build")
  call test_dense(ctx, H, dense)
  N = size(dense, 1)
  allocate(w(N), evec(N, N), f(N))
  call test_eigh(dense, w, evec)
  emin = w(1) - 0.1d0
  emax = w(N) + 0.1d0
  scale = 2 / (emax - emin)
  shift = (emax + emin) / 2

  ! f(E) = sum_n g_n c_n T_n: the Jackson-damped series of theta(mu - E) (include/hamlet/marker.h)
  t = pi / (M + 1)
  phi = acos(scale * (mu - shift))
  do k = 0, M - 1
    g(k) = ((M - k + 1) * cos(t * k) + sin(t * k) * cos(t) / sin(t)) / (M + 1)
    c(k) = 1 - phi / pi
    if (k > 0) c(k) = -2 * sin(k * phi) / (k * pi)
  end do
  do i = 1, int(N)
    f(i) = sum(g * c * cos([(k, k = 0, M - 1)] * acos(scale * (w(i) - shift))))
  end do
  Pd = matmul(evec, matmul(diag(f), conjg(transpose(evec))))

  ! positions: row = 4 (cx + 3 (cy + 2 cz)) + o, centred
  allocate(xg(N), yg(N))
  do r = 0, int(N) - 1
    xg(r + 1) = mod(r / 4, 3) - 1d0
    yg(r + 1) = mod(r / 12, 2) - 0.5d0
  end do
  Qd = -Pd
  do i = 1, int(N)
    Qd(i, i) = Qd(i, i) + 1
  end do
  Ad = matmul(Pd, matmul(diag(xg), matmul(Qd, matmul(diag(yg), Pd))))
  allocate(ref(N), marker(N), rows(N))
  do i = 1, int(N)
    ref(i) = -4 * pi * aimag(Ad(i, i))
    rows(i) = i - 1
  end do

  call test_ok(hm_matrix_dist(H, dist), "hm_matrix_dist")
  call test_ok(hm_dist_range(dist, first=first, local=local), "hm_dist_range")
  x = xg(first + 1:first + local)
  y = yg(first + 1:first + local)
  call test_ok(hm_marker_local(H, x, y, emin, emax, mu, M, int(N, c_int), rows, marker), "hm_marker_local")
  call test_assert(maxval(abs(marker - ref)) < 1d-10, "marker differs from the dense formula")
  call test_assert(maxval(abs(ref)) > 1d-3, "the reference marker is zero: the test compares nothing")

  ! the projector applied to unit vectors e_0 and e_5: columns 1 and 6 of P (local rows)
  allocate(unit(2, local), punit(2, local))
  unit = 0
  do i = 1, int(local)
    if (first + i == 1) unit(1, i) = 1
    if (first + i == 6) unit(2, i) = 1
  end do
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 2, V), "hm_mvec_create V")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, 2, PV), "hm_mvec_create PV")
  call test_ok(hm_mvec_set(V, unit), "hm_mvec_set")
  call test_ok(hm_fermi_projector_apply(H, emin, emax, mu, M, V, PV), "hm_fermi_projector_apply")
  call test_ok(hm_mvec_get(PV, punit), "hm_mvec_get")
  call test_assert(maxval(abs(punit(1, :) - Pd(first + 1:first + local, 1))) < 1d-12 .and. &
                   maxval(abs(punit(2, :) - Pd(first + 1:first + local, 6))) < 1d-12, "P e differs from the dense P")

  ! the Fermi projector at temperature temp: dense reference from the exact Fermi function
  MT = int(log(1d13) / (pi * temp * scale), c_int) + 2
  f = 1 / (1 + exp((w - mu) / temp))
  Pd = matmul(evec, matmul(diag(f), conjg(transpose(evec))))
  Qd = -Pd
  do i = 1, int(N)
    Qd(i, i) = Qd(i, i) + 1
  end do
  Ad = matmul(Pd, matmul(diag(xg), matmul(Qd, matmul(diag(yg), Pd))))
  do i = 1, int(N)
    ref(i) = -4 * pi * aimag(Ad(i, i))
  end do
  call test_ok(hm_marker_local_temperature(H, x, y, emin, emax, mu, temp, MT, int(N, c_int), rows, marker), &
               "hm_marker_local_temperature")
  call test_assert(maxval(abs(marker - ref)) < 1d-9, "Fermi marker differs from the dense formula")
  call test_ok(hm_fermi_projector_apply_temperature(H, emin, emax, mu, temp, MT, V, PV), &
               "hm_fermi_projector_apply_temperature")
  call test_ok(hm_mvec_get(PV, punit), "hm_mvec_get")
  call test_assert(maxval(abs(punit(1, :) - Pd(first + 1:first + local, 1))) < 1d-10 .and. &
                   maxval(abs(punit(2, :) - Pd(first + 1:first + local, 6))) < 1d-10, "Fermi P e differs from the dense P")
  call test_fails(hm_marker_local_temperature(H, x, y, emin, emax, mu, -1d0, MT, 1, rows, marker), HM_ERR_ARGUMENT, &
                  "must be finite and >= 0", "hm_marker_local_temperature T < 0")
  call test_fails(hm_fermi_projector_apply_temperature(H, emin, emax, mu, -1d0, MT, V, PV), HM_ERR_ARGUMENT, &
                  "must be finite and >= 0", "hm_fermi_projector_apply_temperature T < 0")

  call test_fails(hm_fermi_projector_apply(H, emin, emax, mu, 1, V, PV), HM_ERR_ARGUMENT, "at least 2 Chebyshev", &
                  "hm_fermi_projector_apply moments 1")
  call test_fails(hm_fermi_projector_apply(H, emax, emin, mu, M, V, PV), HM_ERR_ARGUMENT, "emin < emax", &
                  "hm_fermi_projector_apply emin > emax")
  rows(1) = N
  call test_fails(hm_marker_local(H, x, y, emin, emax, mu, M, 1, rows, marker), HM_ERR_ARGUMENT, "(H's rows)", &
                  "hm_marker_local row N")
  call test_ok(hm_mvec_destroy(V), "hm_mvec_destroy")
  call test_ok(hm_mvec_destroy(PV), "hm_mvec_destroy")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_marker")
contains
  function diag(d) result(D_)
    real(c_double), intent(in) :: d(:)
    complex(c_double_complex) :: D_(size(d), size(d))
    integer :: j
    D_ = 0
    do j = 1, size(d)
      D_(j, j) = d(j)
    end do
  end function diag
end program test_fortran_marker
