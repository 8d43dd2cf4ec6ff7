! Callbacks for test_fortran_kpm: bind(C) procedures the C library calls through the c_funptrs
! stored in hm_kpm_options (progress with a Fortran struct as its user pointer; a checkpoint that
! saves the state for the restart check).
module kpm_test_callbacks
  use, intrinsic :: iso_c_binding
  use hamlet
  implicit none
  type, bind(C) :: progress_log
    integer(c_int) :: calls = 0, last_done = 0, last_total = 0, increasing = 1
  end type progress_log
  ! State of on_stop: it asks to stop exactly once, at its stop_at-th call.
  type, bind(C) :: stop_request
    integer(c_int) :: calls = 0, stop_at = 0
  end type stop_request
  ! The state on_checkpoint saved (saved_done = 0: none yet).
  integer(c_int) :: saved_done = 0
  complex(c_double_complex), allocatable :: saved_prev(:, :), saved_curr(:, :)
  real(c_double), allocatable :: saved_mu(:), saved_mu_vec(:, :)
contains
  subroutine on_progress(moments_done, moments, user) bind(C)
    integer(c_int), value :: moments_done, moments
    type(c_ptr), value :: user
    type(progress_log), pointer :: log
    call c_f_pointer(user, log)
    if (moments_done <= log%last_done) log%increasing = 0
    log%calls = log%calls + 1
    log%last_done = moments_done
    log%last_total = moments
  end subroutine on_progress

  ! Stop callback: 1 (stop) at the stop_at-th call only, so the same kpm can then run to the end.
  function on_stop(user) result(stop) bind(C)
    type(c_ptr), value :: user
    integer(c_int) :: stop
    type(stop_request), pointer :: req
    call c_f_pointer(user, req)
    req%calls = req%calls + 1
    stop = merge(1_c_int, 0_c_int, req%calls == req%stop_at)
  end function on_stop

  ! Checkpoint callback: keeps the first state it sees (moments done, per-vector moments, the two
  ! block vectors as this rank's rows) for the restart check; later calls leave it alone.
  function on_checkpoint(kpm, user) result(status) bind(C)
    type(c_ptr), value :: kpm, user
    integer(c_int) :: status
    type(c_ptr) :: v_prev, v_curr
    integer(c_int64_t) :: local
    integer(c_int) :: moments, vectors
    status = 0
    if (saved_done > 0) return
    status = hm_kpm_info(kpm, moments, vectors, saved_done)
    if (status == 0) status = hm_kpm_state_vectors(kpm, v_prev, v_curr)
    if (status == 0) status = hm_mvec_size(v_prev, local_rows=local)
    if (status /= 0) return
    allocate(saved_prev(vectors, local), saved_curr(vectors, local), saved_mu(moments), saved_mu_vec(moments, vectors))
    status = hm_mvec_get(v_prev, saved_prev)
    if (status == 0) status = hm_mvec_get(v_curr, saved_curr)
    if (status == 0) status = hm_kpm_moments(kpm, saved_mu, saved_mu_vec)
  end function on_checkpoint
end module kpm_test_callbacks

! KPM and DOS from Fortran on a small TI lattice (N = 144), against the dense Hamiltonian's
! eigen-decomposition H = U diag(E) U^H from LAPACK zheev, with x_k = scale (E_k - shift):
! - per vector r: mu_{r,n} = sum_k T_n(x_k) |(U^H v_r)_k|^2 / N exactly (1e-10), v_r the
!   random-phase start vectors, regenerated with hm_mvec_random_phase(seed);
! - the average against the exact trace moments Tr T_n / N: for R independent random-phase
!   vectors the estimate has standard deviation sigma_n = sqrt(sum_{i/=j} |T_n,ij|^2 / R) / N,
!   with sum_{i/=j} |T_ij|^2 = sum_k T_n(x_k)^2 - sum_i (sum_k T_n(x_k) |U_ik|^2)^2; tolerance
!   6 sigma_n (+1e-12; sigma_0 = 0);
! - mu_0 = 1, |mu_{r,n}| <= 1, the interval contains the spectrum, scale and shift map it;
! - DOS on the 2M Chebyshev nodes equals the damped Chebyshev series summed directly in Fortran
!   (energies, mean, standard error), and integrates to N by Gauss-Chebyshev quadrature (exact
!   for this polynomial, 1e-12); on a uniform grid (Lorentz) it matches the direct series
!   (cubic interpolation: 1e-4 of the peak), HM_NORM_STATES = N * HM_NORM_UNIT;
! - the kernel factors equal the Jackson and Lorentz formulas; progress callbacks arrive;
! - a run stopped at a checkpoint (Fortran callback) and restored into a fresh kpm
!   (hm_kpm_state_vectors + hm_mvec_set + hm_kpm_restore) continues to the uninterrupted moments;
! - a run stopped by the stop callback (Fortran, k = 5 calls) returns HM_ERR_STOPPED after 2k + 2
!   moments, and the same kpm run again reaches the uninterrupted moments bitwise;
! - bad options, bad hm_kpm_restore input and a too narrow interval fail with the right status
!   and message.
program test_fortran_kpm
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  use kpm_test_callbacks
  implicit none
  real(c_double), parameter :: pi = acos(-1.0d0)
  integer, parameter :: M = 32, R = 6
  integer(c_int64_t), parameter :: SEED = 11
  type(c_ptr) :: ctx, H, kpm, dist, v, ctx_of_h
  type(hm_ti_params) :: p
  type(hm_kpm_options) :: opt, got
  type(progress_log), target :: log
  complex(c_double_complex), allocatable :: dense(:, :), U(:, :), vl(:, :), part(:, :), vg(:, :)
  real(c_double), allocatable :: E(:), x(:), Tn(:, :), c(:, :), exact_vec(:, :), exact(:), sigma(:)
  real(c_double) :: mu(M), mu_vec(M, R), emin, emax, scale, shift, worst
  integer(c_int64_t) :: N, first, local, nk
  integer(c_int) :: moments, vectors, done
  integer :: ierr, nn

  call MPI_Init(ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  call test_ok(hm_ti_params_default(p), "hm_ti_params_default")
  p%nx = 4; p%ny = 3; p%nz = 3
  call test_ok(hm_ti_build(ctx, p, H), "hm_ti_build")
  call test_dense(ctx, H, dense)
  N = size(dense, 1)
  allocate(E(N), U(N, N))
  call test_eigh(dense, E, U)

  ! KPM with Gershgorin bounds and a progress callback.
  call test_ok(hm_kpm_options_default(opt), "hm_kpm_options_default")
  opt%moments = M
  opt%vectors = R
  opt%seed = SEED
  opt%bounds = HM_BOUNDS_GERSHGORIN
  opt%progress = c_funloc(on_progress)
  opt%progress_user = c_loc(log)
  call test_ok(hm_kpm_create(H, opt, kpm), "hm_kpm_create")
  call test_ok(hm_kpm_run(kpm), "hm_kpm_run")
  call test_ok(hm_kpm_info(kpm, moments, vectors, done, scale, shift, nk), "hm_kpm_info")
  call test_assert(moments == M .and. vectors == R .and. done == M .and. nk == N, "hm_kpm_info sizes")
  call test_ok(hm_kpm_interval(kpm, emin, emax), "hm_kpm_interval")
  call test_assert(emin < E(1) .and. emax > E(N), "KPM interval does not contain the spectrum")
  call test_assert(abs(scale - 2 / (emax - emin)) < 1d-14 * scale .and. &
                   abs(shift - (emax + emin) / 2) < 1d-14 * (emax - emin), "scale/shift do not map the interval")
  call test_ok(hm_kpm_options_get(kpm, got), "hm_kpm_options_get")
  call test_assert(got%moments == M .and. got%vectors == R .and. got%seed == SEED .and. &
                   got%bounds == HM_BOUNDS_GERSHGORIN .and. c_associated(got%progress, opt%progress) .and. &
                   c_associated(got%progress_user, c_loc(log)), "hm_kpm_options_get differs from the options given")
  call test_assert(log%calls == (M - 2) / 2 .and. log%last_done == M .and. log%last_total == M .and. &
                   log%increasing == 1, "progress callback: one call per step, moments done increasing to M")

  call test_ok(hm_kpm_moments(kpm, mu, mu_vec), "hm_kpm_moments")
  call test_assert(abs(mu(1) - 1) < 1d-12 .and. all(abs(mu_vec(1, :) - 1) < 1d-12), "mu_0 must be 1")
  call test_assert(all(abs(mu_vec) <= 1 + 1d-12), "|mu_{r,n}| must be <= 1")
  call test_assert(maxval(abs(sum(mu_vec, dim=2) / R - mu)) < 1d-14, "mu must be the mean of mu_vec")

  ! Exact per-vector moments from the start vectors (same seed, same global rows).
  call test_ok(hm_matrix_dist(H, dist), "hm_matrix_dist")
  call test_ok(hm_matrix_context(H, ctx_of_h), "hm_matrix_context")
  call test_assert(c_associated(ctx_of_h, ctx), "hm_matrix_context: not the context H was made in")
  call test_ok(hm_dist_range(dist, first, local), "hm_dist_range")
  call test_ok(hm_mvec_create(ctx, dist, HM_COMPLEX, int(R, c_int), v), "hm_mvec_create")
  call test_ok(hm_mvec_random_phase(v, SEED), "hm_mvec_random_phase")
  allocate(vl(R, local), part(R, N), vg(R, N))
  call test_ok(hm_mvec_get(v, vl), "hm_mvec_get")
  part = 0
  part(:, first + 1:first + local) = vl
  call MPI_Allreduce(part, vg, int(R * N), MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call test_ok(hm_mvec_destroy(v), "hm_mvec_destroy")
  x = scale * (E - shift)
  allocate(Tn(N, M))
  do nn = 1, M
    Tn(:, nn) = cos((nn - 1) * acos(x))
  end do
  c = abs(matmul(conjg(transpose(U)), transpose(vg)))**2     ! c(k, r) = |(U^H v_r)_k|^2
  exact_vec = matmul(transpose(Tn), c) / N
  worst = maxval(abs(mu_vec - exact_vec))
  call test_assert(worst < 1d-10, "per-vector moments differ from the exact ones")
  if (worst >= 1d-10) write(*, '("  max |mu_vec - exact| = ", es10.3)') worst

  ! The average against the trace, within 6 standard deviations of the stochastic estimate.
  exact = sum(Tn, dim=1) / N
  sigma = sqrt(max(0.0d0, sum(Tn**2, dim=1) - sum(matmul(abs(U)**2, Tn)**2, dim=1)) / R) / N
  call test_assert(all(abs(mu - exact) <= 6 * sigma + 1d-12), "moments differ from Tr T_n / N beyond 6 sigma")
  if (maxval(sigma) > 0) then
    if (maxval(abs(mu - exact) / (sigma + 1d-300), mask=sigma > 0) > 6) &
      write(*, '("  worst |mu - exact| / sigma = ", f8.2)') maxval(abs(mu - exact) / (sigma + 1d-300), mask=sigma > 0)
  end if

  call check_kernels()
  call check_dos_nodes()
  call check_dos_uniform()
  call check_restart()
  call check_stop()
  call test_ok(hm_kpm_destroy(kpm), "hm_kpm_destroy")
  call test_assert(.not. c_associated(kpm), "hm_kpm_destroy must null the handle")

  ! Lanczos bounds contain the spectrum too.
  opt%bounds = HM_BOUNDS_LANCZOS
  call test_ok(hm_kpm_create(H, opt, kpm), "hm_kpm_create lanczos")
  call test_ok(hm_kpm_interval(kpm, emin, emax), "hm_kpm_interval lanczos")
  call test_assert(emin < E(1) .and. emax > E(N), "Lanczos interval does not contain the spectrum")
  call test_ok(hm_kpm_destroy(kpm), "hm_kpm_destroy")

  ! Bad options; an interval narrower than the spectrum makes the moments grow: refused.
  opt%moments = 31
  call test_fails(hm_kpm_create(H, opt, kpm), HM_ERR_ARGUMENT, "even", "31 moments")
  opt%moments = M
  opt%vectors = 0
  call test_fails(hm_kpm_create(H, opt, kpm), HM_ERR_ARGUMENT, "vectors", "0 vectors")
  opt%vectors = R
  opt%bounds = HM_BOUNDS_GIVEN
  opt%emin = E(N) / 4
  opt%emax = E(N) / 2
  opt%progress = c_null_funptr
  call test_ok(hm_kpm_create(H, opt, kpm), "hm_kpm_create narrow")
  call test_ok(hm_kpm_interval(kpm, emin, emax), "hm_kpm_interval given")
  call test_assert(emin == opt%emin .and. emax == opt%emax, "given bounds must be used as they are")
  call test_fails(hm_kpm_run(kpm), HM_ERR_NUMERIC, "does not contain the spectrum", "run on a too narrow interval")
  call test_ok(hm_kpm_destroy(kpm), "hm_kpm_destroy")

  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_kpm")

contains

  ! Options on the fixed interval [emin, emax] (what a restart needs) and the moments of one
  ! uninterrupted run with them: the reference of check_restart and check_stop.
  subroutine uninterrupted(o, mu, vec)
    type(hm_kpm_options), intent(out) :: o
    real(c_double), intent(out) :: mu(M), vec(M, R)
    type(c_ptr) :: one
    call test_ok(hm_kpm_options_default(o), "hm_kpm_options_default (fixed interval)")
    o%moments = M
    o%vectors = R
    o%seed = SEED
    o%bounds = HM_BOUNDS_GIVEN
    o%emin = emin
    o%emax = emax
    call test_ok(hm_kpm_create(H, o, one), "hm_kpm_create (uninterrupted)")
    call test_ok(hm_kpm_run(one), "hm_kpm_run (uninterrupted)")
    call test_ok(hm_kpm_moments(one, mu, vec), "hm_kpm_moments (uninterrupted)")
    call test_ok(hm_kpm_destroy(one), "hm_kpm_destroy (uninterrupted)")
  end subroutine uninterrupted

  ! A run stopped at a checkpoint and continued in a fresh kpm (hm_kpm_state_vectors, hm_mvec_set,
  ! hm_kpm_restore) must reach the moments of one uninterrupted run on the same interval (1e-12,
  ! mu_0 = 1: only the order of the rank sums differs); bad moments_done are refused.
  subroutine check_restart()
    type(hm_kpm_options) :: o
    type(c_ptr) :: part, fresh, v_prev, v_curr
    real(c_double) :: one_mu(M), one_vec(M, R), got_mu(M), got_vec(M, R)
    integer(c_int) :: got_done
    call uninterrupted(o, one_mu, one_vec)

    ! The checkpoint after 5 moment pairs (moments 0..11) keeps the state to restart from.
    o%checkpoint_every = 5
    o%checkpoint = c_funloc(on_checkpoint)
    call test_ok(hm_kpm_create(H, o, part), "hm_kpm_create (checkpointed)")
    call test_ok(hm_kpm_run(part), "hm_kpm_run (checkpointed)")
    call test_ok(hm_kpm_destroy(part), "hm_kpm_destroy (checkpointed)")
    call test_assert(saved_done == 2 + 2 * 5, "the first checkpoint must come after 5 moment pairs")
    if (saved_done /= 2 + 2 * 5) return
    call test_assert(all(saved_mu_vec(saved_done + 1:, :) == 0), "moments not yet done must be 0 at a checkpoint")

    o%checkpoint_every = 0
    o%checkpoint = c_null_funptr
    call test_ok(hm_kpm_create(H, o, fresh), "hm_kpm_create (restart)")
    call test_fails(hm_kpm_restore(fresh, -2_c_int, saved_mu_vec), HM_ERR_ARGUMENT, "moments_done = -2", &
                    "restore with moments_done = -2")
    call test_fails(hm_kpm_restore(fresh, int(M + 2, c_int), saved_mu_vec), HM_ERR_ARGUMENT, "in [2, 32]", &
                    "restore with moments_done = M + 2")
    call test_fails(hm_kpm_restore(fresh, 11_c_int, saved_mu_vec), HM_ERR_ARGUMENT, "must be even", &
                    "restore with odd moments_done")
    call test_ok(hm_kpm_state_vectors(fresh, v_prev, v_curr), "hm_kpm_state_vectors")
    call test_ok(hm_mvec_set(v_prev, saved_prev), "hm_mvec_set v_prev")
    call test_ok(hm_mvec_set(v_curr, saved_curr), "hm_mvec_set v_curr")
    call test_ok(hm_kpm_restore(fresh, saved_done, saved_mu_vec), "hm_kpm_restore")
    call test_ok(hm_kpm_info(fresh, moments_done=got_done), "hm_kpm_info (restored)")
    call test_assert(got_done == saved_done, "hm_kpm_restore must set moments_done")
    call test_ok(hm_kpm_moments(fresh, got_mu, got_vec), "hm_kpm_moments (restored)")
    call test_assert(maxval(abs(got_vec - saved_mu_vec)) < 1d-14, "restored moments differ from the saved ones")
    call test_ok(hm_kpm_run(fresh), "hm_kpm_run (restored)")
    call test_ok(hm_kpm_moments(fresh, got_mu, got_vec), "hm_kpm_moments (continued)")
    call test_assert(maxval(abs(got_vec - one_vec)) < 1d-12 .and. maxval(abs(got_mu - one_mu)) < 1d-12, &
                     "continued run differs from the uninterrupted one")
    if (maxval(abs(got_vec - one_vec)) >= 1d-12) &
      write(*, '("  max |continued - one go| = ", es10.3)') maxval(abs(got_vec - one_vec))
    call test_ok(hm_kpm_destroy(fresh), "hm_kpm_destroy (restart)")
  end subroutine check_restart

  ! The stop callback (Fortran, bind(C)) asks to stop at its 5th call, that is after the 5th step:
  ! hm_kpm_run returns HM_ERR_STOPPED with 2 + 2 x 5 moments done, and the same kpm, run again
  ! (the callback now returns 0), ends with the moments of an uninterrupted run, bitwise (same
  ! ranks, same order of operations).
  subroutine check_stop()
    integer, parameter :: K = 5
    type(hm_kpm_options) :: o
    type(c_ptr) :: stopped
    type(stop_request), target :: req
    real(c_double) :: one_mu(M), one_vec(M, R), got_mu(M), got_vec(M, R)
    integer(c_int) :: got_done
    call uninterrupted(o, one_mu, one_vec)

    req%stop_at = K
    o%stop = c_funloc(on_stop)
    o%stop_user = c_loc(req)
    call test_ok(hm_kpm_create(H, o, stopped), "hm_kpm_create (stop)")
    call test_fails(hm_kpm_run(stopped), HM_ERR_STOPPED, "stopped on request after moment 12 of 32", &
                    "hm_kpm_run stopped by the callback")
    call test_ok(hm_kpm_info(stopped, moments_done=got_done), "hm_kpm_info (stopped)")
    call test_assert(got_done == 2 * K + 2 .and. req%calls == K, "stop at the 5th call must leave 12 moments done")
    if (got_done /= 2 * K + 2 .or. req%calls /= K) &
      write(*, '("  moments done ", i0, " after ", i0, " calls (want 12, 5)")') got_done, req%calls
    call test_ok(hm_kpm_moments(stopped, got_mu, got_vec), "hm_kpm_moments (stopped)")
    call test_assert(all(got_vec(:got_done, :) == one_vec(:got_done, :)) .and. all(got_vec(got_done + 1:, :) == 0), &
                     "stopped run: moments done must be the uninterrupted ones, the rest 0")

    call test_ok(hm_kpm_run(stopped), "hm_kpm_run (continued after the stop)")
    call test_ok(hm_kpm_info(stopped, moments_done=got_done), "hm_kpm_info (continued)")
    call test_assert(got_done == M, "continued run must finish all moments")
    call test_assert(req%calls == (M - 2) / 2 - 1, "the stop callback must be called after every step but the last")
    call test_ok(hm_kpm_moments(stopped, got_mu, got_vec), "hm_kpm_moments (continued)")
    call test_assert(all(got_vec == one_vec) .and. all(got_mu == one_mu), &
                     "run continued after the stop differs from the uninterrupted one")
    if (any(got_vec /= one_vec)) write(*, '("  max |continued - uninterrupted| = ", es10.3)') maxval(abs(got_vec - one_vec))
    call test_ok(hm_kpm_destroy(stopped), "hm_kpm_destroy (stop)")
  end subroutine check_stop

  ! Damping factors against Weisse et al.'s formulas.
  subroutine check_kernels()
    real(c_double) :: g(M), ref(M)
    integer :: j
    call test_ok(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 0.0d0, int(M, c_int), g), "kernel factors jackson")
    ref = [(((M - j + 1) * cos(pi * j / (M + 1)) + sin(pi * j / (M + 1)) / tan(pi / (M + 1))) / (M + 1), j = 0, M - 1)]
    call test_assert(maxval(abs(g - ref)) < 1d-14, "Jackson factors differ from the formula")
    call test_ok(hm_kpm_kernel_factors(HM_KERNEL_LORENTZ, 4.0d0, int(M, c_int), g), "kernel factors lorentz")
    ref = [(sinh(4.0d0 * (1 - real(j, c_double) / M)) / sinh(4.0d0), j = 0, M - 1)]
    call test_assert(maxval(abs(g - ref)) < 1d-14, "Lorentz factors differ from the formula")
    call test_fails(hm_kpm_kernel_factors(5_c_int, 4.0d0, int(M, c_int), g), HM_ERR_ARGUMENT, "allowed are", &
                    "kernel 5")
  end subroutine check_kernels

  ! rho(x) per vector from the damped series summed directly; mean and standard error over r.
  subroutine series(kernel, theta, factor, mean, stderr)
    integer(c_int), intent(in) :: kernel
    real(c_double), intent(in) :: theta(:), factor
    real(c_double), intent(out) :: mean(:), stderr(:)
    real(c_double) :: g(M), rho(size(theta), R)
    integer :: j, rr, q
    call test_ok(hm_kpm_kernel_factors(kernel, 4.0d0, int(M, c_int), g), "kernel factors")
    do rr = 1, R
      do j = 1, size(theta)
        rho(j, rr) = g(1) * mu_vec(1, rr) + 2 * sum([(g(q + 1) * mu_vec(q + 1, rr) * cos(q * theta(j)), q = 1, M - 1)])
        rho(j, rr) = factor * rho(j, rr) / (pi * sin(theta(j)))
      end do
    end do
    mean = sum(rho, dim=2) / R
    do j = 1, size(theta)
      stderr(j) = sqrt(sum((rho(j, :) - mean(j))**2) / (R - 1) / R)
    end do
  end subroutine series

  subroutine check_dos_nodes()
    type(hm_dos_options) :: dopt
    type(c_ptr) :: dos
    integer(c_int) :: points
    integer, parameter :: K = 2 * M
    real(c_double) :: energy(K), rho(K), err(K), theta(K), ref(K), ref_err(K), rho2(K), integral, top
    real(c_double) :: bad(M, R)
    integer :: j
    call test_ok(hm_dos_options_default(dopt), "hm_dos_options_default")
    call test_ok(hm_dos_create(int(M, c_int), int(R, c_int), mu_vec, scale, shift, N, dopt, dos), "hm_dos_create")
    call test_ok(hm_dos_size(dos, points), "hm_dos_size")
    call test_assert(points == K, "DOS on the Chebyshev nodes must have 2M points")
    if (points /= K) return
    call test_ok(hm_dos_get(dos, energy, rho, err), "hm_dos_get")
    ! Ascending energies: node k = K - j, theta_k = pi (k + 1/2) / K.
    theta = [(pi * (K - j + 0.5d0) / K, j = 1, K)]
    call test_assert(maxval(abs(energy - (shift + cos(theta) / scale))) < 1d-12, "DOS energies are not the Chebyshev nodes")
    call series(HM_KERNEL_JACKSON, theta, scale * N, ref, ref_err)
    top = maxval(abs(ref))
    call test_assert(maxval(abs(rho - ref)) < 1d-10 * top, "DOS differs from the directly summed series")
    call test_assert(maxval(abs(err - ref_err)) < 1d-6 * top, "DOS error bars differ from the standard error")
    call test_assert(all(err >= 0) .and. any(err > 0), "DOS error bars must be >= 0 and not all 0 for R > 1")
    ! Gauss-Chebyshev: integral of rho dE = sum_k rho_k pi sin(theta_k) / (K scale), exact here.
    integral = sum(rho * pi * sin(theta)) / (K * scale)
    call test_assert(abs(integral - N) < 1d-12 * N, "DOS does not integrate to N")
    if (abs(integral - N) >= 1d-12 * N) write(*, '("  integral = ", f20.12, ", N = ", i0)') integral, N
    call test_ok(hm_dos_get(dos, rho=rho2), "hm_dos_get rho only")
    call test_assert(all(rho2 == rho), "hm_dos_get with only rho")
    call test_ok(hm_dos_destroy(dos), "hm_dos_destroy")
    call test_assert(.not. c_associated(dos), "hm_dos_destroy must null the handle")
    ! Bad input.
    bad = mu_vec
    bad(1, 2) = 2
    call test_fails(hm_dos_create(int(M, c_int), int(R, c_int), bad, scale, shift, N, dopt, dos), HM_ERR_ARGUMENT, &
                    "normalised", "moments with mu_0 = 2")
    dopt%kernel = 5
    call test_fails(hm_dos_create(int(M, c_int), int(R, c_int), mu_vec, scale, shift, N, dopt, dos), HM_ERR_ARGUMENT, &
                    "HM_KERNEL_JACKSON (0)", "DOS with kernel 5")
  end subroutine check_dos_nodes

  subroutine check_dos_uniform()
    integer, parameter :: P = 101
    type(hm_dos_options) :: dopt
    type(c_ptr) :: dos
    real(c_double) :: energy(P), rho(P), states(P), theta(P), ref(P), ref_err(P), top
    integer :: j
    call test_ok(hm_dos_options_default(dopt), "hm_dos_options_default")
    dopt%kernel = HM_KERNEL_LORENTZ
    dopt%points = P
    dopt%emin = max(E(1) - 0.5d0, shift - 0.99d0 / scale)   ! inside the interval of the moments
    dopt%emax = min(E(N) + 0.5d0, shift + 0.99d0 / scale)
    dopt%norm = HM_NORM_UNIT
    call test_ok(hm_dos_create(int(M, c_int), int(R, c_int), mu_vec, scale, shift, N, dopt, dos), "hm_dos_create uniform")
    call test_ok(hm_dos_get(dos, energy, rho), "hm_dos_get uniform")
    call test_ok(hm_dos_destroy(dos), "hm_dos_destroy")
    call test_assert(energy(1) == dopt%emin .and. energy(P) == dopt%emax, "uniform grid must end on emin, emax")
    call test_assert(maxval(abs(energy - [(dopt%emin + (dopt%emax - dopt%emin) * j / (P - 1), j = 0, P - 1)])) &
                     < 1d-13, "uniform grid is not uniform")
    theta = acos(scale * (energy - shift))
    call series(HM_KERNEL_LORENTZ, theta, scale, ref, ref_err)
    top = maxval(abs(ref))
    call test_assert(maxval(abs(rho - ref)) < 1d-4 * top, "uniform-grid DOS differs from the direct series")
    dopt%norm = HM_NORM_STATES
    call test_ok(hm_dos_create(int(M, c_int), int(R, c_int), mu_vec, scale, shift, N, dopt, dos), "hm_dos_create states")
    call test_ok(hm_dos_get(dos, rho=states), "hm_dos_get states")
    call test_ok(hm_dos_destroy(dos), "hm_dos_destroy")
    call test_assert(maxval(abs(states - N * rho)) < 1d-12 * N * top, "HM_NORM_STATES must be N times HM_NORM_UNIT")
  end subroutine check_dos_uniform
end program test_fortran_kpm
