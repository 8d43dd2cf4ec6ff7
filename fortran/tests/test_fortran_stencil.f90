! hm_stencil from Fortran: a twisted ring of L cells with two orbitals,
!   on-site block [[e, d], [conj(d), -e]] and hopping t (identity) to both neighbours,
! has the eigenvalues 2 t cos(q) +- sqrt(e^2 + |d|^2), q = (2 pi k + theta) / L; vacancies empty
! the rows hm_stencil_vacancies counts; a non-Hermitian description is refused; the bind(C) type
! has the C layout.
program test_fortran_stencil
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  implicit none
  integer, parameter :: L = 5, nb = 3
  real(c_double), parameter :: pi = acos(-1.0d0), t = 0.8d0, e = 0.3d0, theta = 0.9d0
  complex(c_double_complex), parameter :: d = (0.2d0, -0.4d0)
  type(c_ptr) :: ctx, H
  type(hm_stencil), target :: s
  integer(c_int32_t), target :: shift(3, nb)
  complex(c_double_complex), target :: block(2, 2, nb)
  complex(c_double_complex), allocatable :: dense(:, :)
  real(c_double) :: w(2 * L), want(2 * L), q
  integer(c_int64_t) :: layout(19), mine(19), vacant
  integer :: ierr, k, zero_rows
  integer(c_int) :: is_complex, kernel
  character(kind=c_char, len=200) :: term
  interface
    subroutine hm_stencil_abi_layout(out) bind(C, name="hm_stencil_abi_layout")
      import :: c_int64_t
      integer(c_int64_t), intent(out) :: out(19)
    end subroutine
  end interface

  call MPI_Init(ierr)
  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  shift = reshape([0, 0, 0, 1, 0, 0, -1, 0, 0], [3, nb])
  block = 0
  ! C's block[b][i][j] is block(j+1, i+1, b+1) here.
  block(1, 1, 1) = e; block(2, 2, 1) = -e; block(2, 1, 1) = d; block(1, 2, 1) = conjg(d)
  block(1, 1, 2:3) = t; block(2, 2, 2:3) = t
  call test_ok(hm_stencil_init(s), "hm_stencil_init")
  s%cells(1) = L
  s%orbitals = 2
  s%nblocks = nb
  s%shift = c_loc(shift)
  s%block = c_loc(block)
  s%boundary(1) = HM_BC_TWISTED
  s%twist(1) = theta
  call test_ok(hm_matrix_create_stencil(ctx, s, HM_STENCIL_ASSEMBLED, H), "hm_matrix_create_stencil")
  call test_dense(ctx, H, dense)
  call test_eigh(dense, w)
  do k = 0, L - 1
    q = (2 * pi * k + theta) / L
    want(2 * k + 1) = 2 * t * cos(q) - sqrt(e**2 + abs(d)**2)
    want(2 * k + 2) = 2 * t * cos(q) + sqrt(e**2 + abs(d)**2)
  end do
  call sort(want)
  call test_assert(maxval(abs(w - want)) <= 1d-13, "twisted two-orbital ring: spectrum differs from 2t cos q +- r")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")

  ! The complex terms: the twist first, then the complex on-site entry d; none once both are real,
  ! and then the real-arithmetic matrix-free operator is made (refused while a term is complex).
  call test_ok(hm_stencil_complex_term(s, is_complex, term, int(len(term), c_size_t)), "hm_stencil_complex_term")
  call test_assert(is_complex == 1 .and. index(term, "twist") > 0, "the twist is not named as complex")
  s%twist(1) = 0
  call test_ok(hm_stencil_complex_term(s, is_complex, term, int(len(term), c_size_t)), "hm_stencil_complex_term d")
  call test_assert(is_complex == 1 .and. index(term, "imaginary part") > 0, "the complex d is not named")
  call test_fails(hm_matrix_create_stencil(ctx, s, HM_STENCIL_MATRIX_FREE_REAL, H), HM_ERR_ARGUMENT, "not real", &
                  "real arithmetic on a complex lattice")
  block(2, 1, 1) = abs(d); block(1, 2, 1) = abs(d)
  call test_ok(hm_stencil_complex_term(s, is_complex, term, int(len(term), c_size_t)), "hm_stencil_complex_term real")
  call test_assert(is_complex == 0, "a real description is called complex")
  call test_ok(hm_matrix_create_stencil(ctx, s, HM_STENCIL_MATRIX_FREE_REAL, H), "hm_matrix_create_stencil real")
  ! The GPU kernel: a word read, a value set on the matrix-free operator, an unknown one refused.
  call test_ok(hm_stencil_kernel_from_word("site" // c_null_char, kernel), "hm_stencil_kernel_from_word site")
  call test_assert(kernel == HM_STENCIL_KERNEL_SITE, "'site' is not HM_STENCIL_KERNEL_SITE")
  call test_fails(hm_stencil_kernel_from_word("quick" // c_null_char, kernel), HM_ERR_ARGUMENT, "allowed are auto", &
                  "an unknown kernel word")
  call test_ok(hm_matrix_set_stencil_kernel(H, kernel), "hm_matrix_set_stencil_kernel site")
  call test_fails(hm_matrix_set_stencil_kernel(H, 9_c_int), HM_ERR_ARGUMENT, "is unknown", "kernel 9")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy real")
  block(2, 1, 1) = d; block(1, 2, 1) = conjg(d)
  s%twist(1) = theta

  ! Vacancies: the rows and columns of vacant sites are zero.
  s%vacancy_p = 0.4d0
  s%vacancy_seed = 11
  call test_ok(hm_stencil_vacancies(s, vacant), "hm_stencil_vacancies")
  call test_ok(hm_matrix_create_stencil(ctx, s, HM_STENCIL_ASSEMBLED, H), "hm_matrix_create_stencil vacancies")
  call test_dense(ctx, H, dense)
  zero_rows = 0
  do k = 1, 2 * L
    if (all(dense(k, :) == 0)) zero_rows = zero_rows + 1
  end do
  call test_assert(vacant > 0 .and. zero_rows == 2 * vacant, "vacant sites and zero rows disagree")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy vacancies")

  ! Not Hermitian: the hop to the right differs from the conjugate of the hop to the left.
  block(1, 1, 2) = (0.0d0, 1.0d0) * t
  call test_fails(hm_matrix_create_stencil(ctx, s, HM_STENCIL_ASSEMBLED, H), HM_ERR_ARGUMENT, "not Hermitian", &
                  "non-Hermitian blocks")
  call test_assert(.not. c_associated(H), "a refused description must leave the handle null")

  call hm_stencil_abi_layout(layout)
  mine = [c_sizeof(s), off(c_loc(s%cells)), off(c_loc(s%orbitals)), off(c_loc(s%nblocks)), off(c_loc(s%shift)), &
          off(c_loc(s%block)), off(c_loc(s%boundary)), off(c_loc(s%twist)), off(c_loc(s%disorder_w)), &
          off(c_loc(s%disorder_seed)), off(c_loc(s%disorder_stream)), off(c_loc(s%disorder_per_site)), &
          off(c_loc(s%vacancy_p)), off(c_loc(s%vacancy_seed)), off(c_loc(s%vacancy_stream)), &
          off(c_loc(s%peierls)), off(c_loc(s%wrap_phase)), off(c_loc(s%antihermitian)), 0_c_int64_t]
  call test_assert(all(mine == layout), "hm_stencil: Fortran layout differs from C")

  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_stencil")

contains

  function off(field) result(o)
    type(c_ptr), intent(in) :: field
    integer(c_int64_t) :: o
    o = transfer(field, 0_c_intptr_t) - transfer(c_loc(s), 0_c_intptr_t)
  end function off

  subroutine sort(a)
    real(c_double), intent(inout) :: a(:)
    real(c_double) :: x
    integer :: i, j
    do i = 2, size(a)
      x = a(i)
      j = i - 1
      do while (j >= 1)
        if (a(j) <= x) exit
        a(j + 1) = a(j)
        j = j - 1
      end do
      a(j + 1) = x
    end do
  end subroutine sort
end program test_fortran_stencil
