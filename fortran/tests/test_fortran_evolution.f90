! Time evolution from Fortran: a state on the middle site of a clean chain (hopping 1, 101 sites)
! has amplitudes i^n J_n(2t) at distance n until its front reaches the ends; checked against
! Fortran's own bessel_jn to 1e-10 after 20 steps of 0.5, with the norm 1 to 1e-12, the info and
! interval accessors, bad options refused, and hm_evolution_options laid out as in C. With the
! commutator [X, U] carried along (given V = i[H, X]), ||[X, U(t)] psi||^2 = 2 t^2, and its state set and read back.
! The velocity auto-correlation's cross moment Re <U psi|V U V psi> = <psi|V^2|psi> = 2 (V commutes with H
! while the front is far from the ends), and blocks of different widths refused.
program test_fortran_evolution
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  integer, parameter :: L = 101, CENTRE = 50, STEPS = 20
  interface
    subroutine hm_evolution_abi_layout(out) bind(C, name="hm_evolution_abi_layout")
      import :: c_int64_t
      integer(c_int64_t), intent(out) :: out(9)
    end subroutine
  end interface
  type(c_ptr) :: ctx, d, H, psi, ev, C, chi, left, wide
  type(hm_evolution_options), target :: opt
  integer(c_int64_t) :: first, local, i, g, m
  integer(c_int64_t), allocatable :: rowptr(:), cols(:)
  real(c_double), allocatable :: vals(:)
  complex(c_double_complex), allocatable :: vvals(:)
  complex(c_double_complex), allocatable :: amp(:, :), camp(:, :)
  complex(c_double_complex) :: ref
  real(c_double) :: t, worst, norms(1), emin, emax, time, mu(4)
  integer(c_int) :: vectors, steps_done, order
  integer(c_int64_t) :: layout(9)
  integer :: ierr, n

  call MPI_Init(ierr)
  call hm_evolution_abi_layout(layout)
  call test_assert(layout(1) == c_sizeof(opt), "hm_evolution_options: Fortran and C sizes differ")
  call test_assert(all(layout(2:9) == [offset(c_loc(opt%dt)), offset(c_loc(opt%accuracy)), offset(c_loc(opt%bounds)), &
                   offset(c_loc(opt%lanczos_steps)), offset(c_loc(opt%bounds_margin)), offset(c_loc(opt%emin)), &
                   offset(c_loc(opt%emax)), offset(c_loc(opt%seed))]), "hm_evolution_options: Fortran and C offsets differ")
  call test_ok(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create")
  call test_ok(hm_dist_create(ctx, int(L, c_int64_t), 1_c_int64_t, 1.0_c_double, d), "hm_dist_create")
  call test_ok(hm_dist_range(d, first, local), "hm_dist_range")
  allocate(rowptr(0:local), cols(2 * local), vals(2 * local), vvals(2 * local), amp(1, local), camp(1, local))
  m = 0
  rowptr(0) = 0
  do i = 0, local - 1
    g = first + i
    if (g > 0) then
      m = m + 1; cols(m) = g - 1; vals(m) = -1; vvals(m) = (0, 1) ! V = i[H, X]: V_ij = -i (i - j) H_ij
    end if
    if (g < L - 1) then
      m = m + 1; cols(m) = g + 1; vals(m) = -1; vvals(m) = (0, -1)
    end if
    rowptr(i + 1) = m
  end do
  call test_ok(hm_matrix_create_csr(ctx, d, HM_REAL, rowptr, cols, vals, H), "hm_matrix_create_csr")
  call test_ok(hm_mvec_create(ctx, d, HM_COMPLEX, 1_c_int, psi), "hm_mvec_create")
  amp = 0
  if (CENTRE >= first .and. CENTRE < first + local) amp(1, CENTRE - first + 1) = 1
  call test_ok(hm_mvec_set(psi, amp), "hm_mvec_set")

  call test_ok(hm_evolution_options_default(opt), "hm_evolution_options_default")
  call test_assert(abs(opt%accuracy - 1e-12_c_double) < 1e-20_c_double, "default accuracy is not 1e-12")
  opt%dt = 0
  call test_fails(hm_evolution_create(H, 1_c_int, opt, ev), HM_ERR_ARGUMENT, "dt = 0", "hm_evolution_create dt = 0")
  opt%dt = 0.5_c_double
  call test_ok(hm_evolution_create(H, 1_c_int, opt, ev), "hm_evolution_create")
  call test_ok(hm_evolution_set_state(ev, psi), "hm_evolution_set_state")
  call test_ok(hm_evolution_step(ev, int(STEPS, c_int)), "hm_evolution_step")
  call test_ok(hm_evolution_get_state(ev, psi), "hm_evolution_get_state")
  call test_ok(hm_mvec_get(psi, amp), "hm_mvec_get")
  call test_ok(hm_evolution_info(ev, vectors, steps_done, time, order), "hm_evolution_info")
  call test_assert(vectors == 1 .and. steps_done == STEPS .and. abs(time - STEPS * 0.5_c_double) < 1e-14_c_double, &
                   "hm_evolution_info: wrong vectors, steps or time")
  call test_assert(order > 2, "hm_evolution_info: order <= 2")
  call test_ok(hm_evolution_interval(ev, emin, emax), "hm_evolution_interval")
  call test_assert(emin <= -2 * cos(acos(-1.0_c_double) / (L + 1)) .and. emax >= 2 * cos(acos(-1.0_c_double) / (L + 1)), &
                   "hm_evolution_interval misses the chain's spectrum")
  call test_ok(hm_evolution_norms(ev, norms), "hm_evolution_norms")
  call test_assert(abs(norms(1) - 1) < 1e-12_c_double, "norm not conserved")
  t = STEPS * 0.5_c_double
  worst = 0
  do i = 1, local
    n = int(first + i - 1 - CENTRE)
    ref = (0.0_c_double, 1.0_c_double)**abs(n) * bessel_jn(abs(n), 2 * t)
    worst = max(worst, abs(amp(1, i) - ref))
  end do
  call MPI_Allreduce(MPI_IN_PLACE, worst, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call test_assert(worst < 1e-10_c_double, "amplitudes off i^n J_n(2t)")

  call test_ok(hm_evolution_destroy(ev), "hm_evolution_destroy")

  ! the commutator: ||[X, U(t)] psi||^2 = sum_n n^2 J_n(2t)^2 = 2 t^2 for one site of the chain
  call test_ok(hm_matrix_create_csr(ctx, d, HM_COMPLEX, rowptr, cols, vvals, C), "hm_matrix_create_csr V")
  call test_ok(hm_mvec_create(ctx, d, HM_COMPLEX, 1_c_int, chi), "hm_mvec_create chi")
  amp = 0
  if (CENTRE >= first .and. CENTRE < first + local) amp(1, CENTRE - first + 1) = 1
  call test_ok(hm_mvec_set(psi, amp), "hm_mvec_set")
  call test_ok(hm_evolution_create(H, 1_c_int, opt, ev), "hm_evolution_create")
  call test_fails(hm_evolution_get_commutator_state(ev, chi), HM_ERR_ARGUMENT, "no commutator", &
                  "hm_evolution_get_commutator_state without a commutator")
  call test_ok(hm_evolution_set_commutator(ev, C), "hm_evolution_set_commutator")
  call test_ok(hm_evolution_set_state(ev, psi), "hm_evolution_set_state")
  call test_ok(hm_evolution_step(ev, int(STEPS, c_int)), "hm_evolution_step")
  call test_ok(hm_evolution_get_commutator_state(ev, chi), "hm_evolution_get_commutator_state")
  call test_ok(hm_mvec_norms(chi, norms), "hm_mvec_norms")
  call test_assert(abs(norms(1)**2 / (2 * t * t) - 1) < 1e-10_c_double, "||[X, U(t)] psi||^2 is not 2 t^2")
  call test_ok(hm_mvec_get(chi, camp), "hm_mvec_get chi")
  call test_ok(hm_evolution_set_commutator_state(ev, psi), "hm_evolution_set_commutator_state")
  call test_ok(hm_evolution_get_commutator_state(ev, chi), "hm_evolution_get_commutator_state")
  call test_ok(hm_mvec_get(chi, camp), "hm_mvec_get chi")
  worst = maxval(abs(camp - amp))
  call MPI_Allreduce(MPI_IN_PLACE, worst, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call test_assert(worst == 0, "the commutator state read back differs from the one set")
  call test_ok(hm_evolution_destroy(ev), "hm_evolution_destroy")

  ! the velocity auto-correlation: right = U psi, left = V U V psi (chi as scratch), the centre site
  call test_ok(hm_mvec_create(ctx, d, HM_COMPLEX, 1_c_int, left), "hm_mvec_create left")
  call test_ok(hm_mvec_set(psi, amp), "hm_mvec_set")
  call test_ok(hm_matrix_apply(C, psi, chi), "hm_matrix_apply V")
  call test_ok(hm_evolution_create(H, 1_c_int, opt, ev), "hm_evolution_create")
  call test_ok(hm_evolution_set_state(ev, chi), "hm_evolution_set_state V psi")
  call test_ok(hm_evolution_step(ev, int(STEPS, c_int)), "hm_evolution_step")
  call test_ok(hm_evolution_get_state(ev, chi), "hm_evolution_get_state")
  call test_ok(hm_matrix_apply(C, chi, left), "hm_matrix_apply V")
  call test_ok(hm_evolution_set_state(ev, psi), "hm_evolution_set_state psi")
  call test_ok(hm_evolution_step(ev, int(STEPS, c_int)), "hm_evolution_step")
  call test_ok(hm_evolution_get_state(ev, psi), "hm_evolution_get_state")
  call test_ok(hm_evolution_interval(ev, emin, emax), "hm_evolution_interval")
  call test_ok(hm_evolution_cross_moments(H, emin, emax, 4_c_int, psi, left, mu), "hm_evolution_cross_moments")
  call test_assert(abs(mu(1) - 2) < 1e-10_c_double, "Re <U psi|V U V psi> is not <psi|V^2|psi> = 2")
  call test_ok(hm_mvec_create(ctx, d, HM_COMPLEX, 2_c_int, wide), "hm_mvec_create wide")
  call test_fails(hm_evolution_cross_moments(H, emin, emax, 4_c_int, psi, wide, mu), HM_ERR_ARGUMENT, "columns", &
                  "hm_evolution_cross_moments of blocks of 1 and 2 columns")
  call test_ok(hm_mvec_destroy(wide), "hm_mvec_destroy wide")
  call test_ok(hm_mvec_destroy(left), "hm_mvec_destroy left")
  call test_ok(hm_evolution_destroy(ev), "hm_evolution_destroy")
  call test_ok(hm_mvec_destroy(chi), "hm_mvec_destroy chi")
  call test_ok(hm_matrix_destroy(C), "hm_matrix_destroy C")
  call test_ok(hm_mvec_destroy(psi), "hm_mvec_destroy")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  call test_ok(hm_dist_destroy(d), "hm_dist_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_evolution")
contains
  ! The byte offset of a field of opt.
  function offset(p) result(off)
    type(c_ptr), intent(in) :: p
    integer(c_int64_t) :: off
    off = int(transfer(p, 0_c_intptr_t) - transfer(c_loc(opt), 0_c_intptr_t), c_int64_t)
  end function offset
end program test_fortran_evolution
