! module hamlet_stencil: lattice Hamiltonians described by their cell's hopping blocks
! (include/hamlet/stencil.h) for Fortran. Arrays are passed by c_loc of Fortran arrays that stay
! alive during hm_matrix_create_stencil (it copies them):
!   shift(3, nblocks) integer(c_int32_t); block(orbitals, orbitals, nblocks) complex(c_double_complex)
!   holding block[b][i][j] = <i, c|H|j, c + R_b> at block(j+1, i+1, b+1) (C's row-major order);
!   peierls(3, orbitals, orbitals, nblocks) and wrap_phase(4, orbitals, nblocks, 3) likewise.
module hamlet_stencil
  use, intrinsic :: iso_c_binding
  implicit none
  public

  ! hm_stencil_storage
  integer(c_int), parameter :: HM_STENCIL_ASSEMBLED = 0
  integer(c_int), parameter :: HM_STENCIL_MATRIX_FREE = 1
  integer(c_int), parameter :: HM_STENCIL_MATRIX_FREE_REAL = 2   ! real description only
  ! hm_stencil_kernel: a matrix-free operator's GPU kernel (auto, or forced where it can serve)
  integer(c_int), parameter :: HM_STENCIL_KERNEL_AUTO = 0, HM_STENCIL_KERNEL_STAGED = 1, HM_STENCIL_KERNEL_BOX = 2, &
                               HM_STENCIL_KERNEL_MMA = 3, HM_STENCIL_KERNEL_SMALL = 4, HM_STENCIL_KERNEL_SITE = 5

  ! hm_stencil (stencil.h). Fill with hm_stencil_init, then set the fields.
  type, bind(C) :: hm_stencil
    integer(c_int64_t) :: cells(3) = 1
    integer(c_int) :: orbitals = 1, nblocks = 1
    type(c_ptr) :: shift = c_null_ptr, block = c_null_ptr
    integer(c_int) :: boundary(3) = 0                  ! HM_BC_PERIODIC, HM_BC_OPEN, HM_BC_TWISTED
    real(c_double) :: twist(3) = 0                     ! radians
    real(c_double) :: disorder_w = 0
    integer(c_int64_t) :: disorder_seed = 0, disorder_stream = 0   ! uint64_t in C
    integer(c_int) :: disorder_per_site = 0
    real(c_double) :: vacancy_p = 0
    integer(c_int64_t) :: vacancy_seed = 0, vacancy_stream = 0     ! uint64_t in C
    type(c_ptr) :: peierls = c_null_ptr, wrap_phase = c_null_ptr
    integer(c_int) :: antihermitian = 0                ! 1: H(-R) = -H(R)^dagger (A = -i v)
  end type hm_stencil

  interface
    function hm_stencil_init(s) result(status) bind(C, name="hm_stencil_init")
      import :: c_int, hm_stencil
      type(hm_stencil), intent(out) :: s
      integer(c_int) :: status
    end function
    ! Collective. storage: HM_STENCIL_ASSEMBLED or HM_STENCIL_MATRIX_FREE.
    function hm_matrix_create_stencil(ctx, s, storage, A) result(status) bind(C, name="hm_matrix_create_stencil")
      import :: c_int, c_ptr, hm_stencil
      type(c_ptr), value :: ctx
      type(hm_stencil), intent(in) :: s
      integer(c_int), value :: storage
      type(c_ptr), intent(out) :: A
      integer(c_int) :: status
    end function
    ! Not collective: the GPU kernel of a matrix-free operator's products (HM_STENCIL_KERNEL_*).
    function hm_matrix_set_stencil_kernel(A, kernel) result(status) bind(C, name="hm_matrix_set_stencil_kernel")
      import :: c_int, c_ptr
      type(c_ptr), value :: A
      integer(c_int), value :: kernel
      integer(c_int) :: status
    end function
    ! Not collective: the kernel a word names (auto, staged, box, mma, small, site; a C string).
    function hm_stencil_kernel_from_word(word, kernel) result(status) bind(C, name="hm_stencil_kernel_from_word")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: word(*)
      integer(c_int), intent(out) :: kernel
      integer(c_int) :: status
    end function
    ! Not collective: vacant sites of the whole box.
    function hm_stencil_vacancies(s, vacant_sites) result(status) bind(C, name="hm_stencil_vacancies")
      import :: c_int, c_int64_t, hm_stencil
      type(hm_stencil), intent(in) :: s
      integer(c_int64_t), intent(out) :: vacant_sites
      integer(c_int) :: status
    end function
    ! Not collective: is_complex = 1 and term (a C string of at most len bytes) naming a complex term
    ! (a block entry's imaginary part, a field, a twist), or is_complex = 0 for a real description.
    function hm_stencil_complex_term(s, is_complex, term, len) result(status) bind(C, name="hm_stencil_complex_term")
      import :: c_int, c_size_t, c_char, hm_stencil
      type(hm_stencil), intent(in) :: s
      integer(c_int), intent(out) :: is_complex
      character(kind=c_char), intent(out) :: term(*)
      integer(c_size_t), value :: len
      integer(c_int) :: status
    end function
  end interface
end module hamlet_stencil
