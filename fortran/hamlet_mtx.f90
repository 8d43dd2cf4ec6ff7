! module hamlet_mtx: Matrix Market files (include/hamlet/mtx.h) for Fortran. The C functions take
! char * paths; they are bound under names ending in _c, and wrapped here under the C names with
! Fortran strings (trailing blanks dropped, c_null_char appended).
!   hm_mtx_read(ctx, path, A)                                   collective
!   hm_mtx_info(ctx, path [, rows, cols, entries, type, symmetry])  not collective
!   hm_mtx_read_vector(ctx, path, dist, b)                      collective, b has k = 1 column
!   hm_mtx_write(A, path)                                       collective, every entry of a stored matrix
module hamlet_mtx
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  private
  public :: hm_mtx_read, hm_mtx_info, hm_mtx_read_vector, hm_mtx_write
  public :: HM_MTX_GENERAL, HM_MTX_SYMMETRIC, HM_MTX_SKEW_SYMMETRIC, HM_MTX_HERMITIAN

  ! hm_mtx_symmetry
  integer(c_int), parameter :: HM_MTX_GENERAL = 0, HM_MTX_SYMMETRIC = 1, HM_MTX_SKEW_SYMMETRIC = 2, &
                               HM_MTX_HERMITIAN = 3

  interface
    function hm_mtx_read_c(ctx, path, A) result(status) bind(C, name="hm_mtx_read")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: A
      integer(c_int) :: status
    end function
    function hm_mtx_info_c(ctx, path, rows, cols, entries, type, symmetry) result(status) &
        bind(C, name="hm_mtx_info")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int64_t), intent(out), optional :: rows, cols, entries
      integer(c_int), intent(out), optional :: type, symmetry
      integer(c_int) :: status
    end function
    function hm_mtx_read_vector_c(ctx, path, dist, b) result(status) bind(C, name="hm_mtx_read_vector")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: ctx, dist
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: b
      integer(c_int) :: status
    end function
    function hm_mtx_write_c(A, path) result(status) bind(C, name="hm_mtx_write")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: A
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: status
    end function
  end interface

contains

  pure function to_c(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s) // c_null_char
  end function to_c

  ! Collective. A square coordinate file into a distributed matrix (rows split evenly).
  function hm_mtx_read(ctx, path, A) result(status)
    type(c_ptr), intent(in) :: ctx
    character(*), intent(in) :: path
    type(c_ptr), intent(out) :: A
    integer(c_int) :: status
    status = hm_mtx_read_c(ctx, to_c(path), A)
  end function hm_mtx_read

  ! The header: rows, cols, stored entries, type (HM_REAL / HM_COMPLEX), symmetry (HM_MTX_*).
  function hm_mtx_info(ctx, path, rows, cols, entries, type, symmetry) result(status)
    type(c_ptr), intent(in) :: ctx
    character(*), intent(in) :: path
    integer(c_int64_t), intent(out), optional :: rows, cols, entries
    integer(c_int), intent(out), optional :: type, symmetry
    integer(c_int) :: status
    status = hm_mtx_info_c(ctx, to_c(path), rows, cols, entries, type, symmetry)
  end function hm_mtx_info

  ! Collective. An array file with one column over dist (lengths must agree).
  function hm_mtx_read_vector(ctx, path, dist, b) result(status)
    type(c_ptr), intent(in) :: ctx, dist
    character(*), intent(in) :: path
    type(c_ptr), intent(out) :: b
    integer(c_int) :: status
    status = hm_mtx_read_vector_c(ctx, to_c(path), dist, b)
  end function hm_mtx_read_vector

  ! Collective. Every entry of a stored matrix as a coordinate file (general, 1-based, 17 digits).
  function hm_mtx_write(A, path) result(status)
    type(c_ptr), intent(in) :: A
    character(*), intent(in) :: path
    integer(c_int) :: status
    status = hm_mtx_write_c(A, to_c(path))
  end function hm_mtx_write
end module hamlet_mtx
