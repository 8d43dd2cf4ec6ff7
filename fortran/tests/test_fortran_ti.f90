! The TI lattice through the Fortran struct hm_ti_params: a clean periodic lattice has the
! analytic Bloch spectrum E = +-sqrt((m - t sum_j cos k_j)^2 + t^2 sum_j sin^2 k_j) (each twice),
! k_j = 2 pi n_j / L_j, which LAPACK zheev of the gathered dense H must reproduce; with dots and
! disorder the diagonal of H at site s, orbital o is V_s + m (+1, +1, -1, -1) with V_s from
! hm_ti_potential, and H stays Hermitian; a block width leaves H as it is; bad parameters fail with
! messages that name them.
program test_fortran_ti
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  real(c_double), parameter :: pi = acos(-1.0d0)
  type(c_ptr) :: ctx, H
  type(hm_ti_params) :: p
  complex(c_double_complex), allocatable :: dense(:, :), tiled(:, :)
  real(c_double), allocatable :: w(:), bloch(:)
  integer(c_int64_t) :: n, x, y, z, s
  integer :: ierr, ix, iy, iz, o, c
  real(c_double) :: d1, d2, v, worst
  real(c_double), parameter :: tau_z(4) = [1, 1, -1, -1]
  logical :: potential_seen

  call MPI_Init(ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")

  ! Clean periodic 4 x 3 x 3 lattice, non-default t and m.
  call test_ok(hm_ti_params_default(p), "hm_ti_params_default")
  p%nx = 4; p%ny = 3; p%nz = 3
  p%t = 0.9d0; p%m = 1.5d0
  call test_ok(hm_ti_build(ctx, p, H), "hm_ti_build")
  call test_ok(hm_matrix_info(H, n_global=n), "hm_matrix_info")
  call test_assert(n == 4 * 4 * 3 * 3, "TI matrix size must be 4 nx ny nz")
  call test_dense(ctx, H, dense)
  call test_assert(maxval(abs(dense - conjg(transpose(dense)))) < 1d-14, "TI Hamiltonian is not Hermitian")
  allocate(w(n), bloch(n))
  call test_eigh(dense, w)
  c = 0
  do iz = 0, 2
    do iy = 0, 2
      do ix = 0, 3
        d1 = p%m - p%t * (cos(2 * pi * ix / 4) + cos(2 * pi * iy / 3) + cos(2 * pi * iz / 3))
        d2 = p%t**2 * (sin(2 * pi * ix / 4)**2 + sin(2 * pi * iy / 3)**2 + sin(2 * pi * iz / 3)**2)
        bloch(c + 1:c + 4) = sqrt(d1**2 + d2) * [-1, -1, 1, 1]
        c = c + 4
      end do
    end do
  end do
  call sort(bloch)
  worst = maxval(abs(w - bloch))
  call test_assert(worst < 1d-12, "TI spectrum differs from the Bloch formula")
  if (worst >= 1d-12) write(*, '("  max |E - E_bloch| = ", es10.3)') worst
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")

  ! A block width changes the rows' traversal (tiles of 2 x 3 sites here), not the matrix.
  p%block_width = 4096
  call test_ok(hm_ti_build(ctx, p, H), "hm_ti_build with block_width")
  call test_dense(ctx, H, tiled)
  call test_assert(all(tiled == dense), "the TI matrix with block_width = 4096 differs")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  p%block_width = 0

  ! Dots and disorder: the diagonal carries V_s + m tau_z.
  p%nx = 3; p%ny = 3; p%nz = 3
  p%dot_period_x = 3; p%dot_period_y = 3; p%dot_radius = 1.2d0; p%dot_v0 = 0.8d0; p%dot_depth = 2
  p%disorder_w = 0.5d0; p%disorder_seed = 5
  call test_ok(hm_ti_build(ctx, p, H), "hm_ti_build with potential")
  call test_dense(ctx, H, dense)
  call test_assert(maxval(abs(dense - conjg(transpose(dense)))) < 1d-14, "TI Hamiltonian with potential is not Hermitian")
  worst = 0
  potential_seen = .false.
  do z = 0, 2
    do y = 0, 2
      do x = 0, 2
        call test_ok(hm_ti_potential(p, x, y, z, v), "hm_ti_potential")
        potential_seen = potential_seen .or. abs(v) > 0.5d0   ! only inside a dot (disorder alone < 0.25)
        s = x + p%nx * (y + p%ny * z)
        do o = 1, 4
          worst = max(worst, abs(dense(4 * s + o, 4 * s + o) - (v + p%m * tau_z(o))))
        end do
      end do
    end do
  end do
  call test_assert(worst < 1d-14, "TI diagonal differs from V_s + m tau_z")
  call test_assert(potential_seen, "no site has the dot potential")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")

  ! Bad parameters.
  call test_fails(hm_ti_potential(p, 3_c_int64_t, 0_c_int64_t, 0_c_int64_t, v), HM_ERR_ARGUMENT, "outside", &
                  "potential outside the lattice")
  p%ny = 0
  call test_fails(hm_ti_build(ctx, p, H), HM_ERR_ARGUMENT, "must be >= 1", "lattice with ny = 0")
  call test_assert(.not. c_associated(H), "a failed build must leave the handle null")
  p%ny = 3
  p%boundary(3) = 5
  call test_fails(hm_ti_build(ctx, p, H), HM_ERR_ARGUMENT, "boundary in z", "boundary 5 in z")
  p%boundary(3) = HM_BC_PERIODIC
  p%block_width = -2
  call test_fails(hm_ti_build(ctx, p, H), HM_ERR_ARGUMENT, "block_width = -2", "block_width = -2")

  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_ti")

contains

  subroutine sort(a)
    real(c_double), intent(inout) :: a(:)
    integer :: i, j
    real(c_double) :: t
    do i = 2, size(a)
      t = a(i)
      j = i - 1
      do while (j >= 1)
        if (a(j) <= t) exit
        a(j + 1) = a(j)
        j = j - 1
      end do
      a(j + 1) = t
    end do
  end subroutine sort
end program test_fortran_ti
