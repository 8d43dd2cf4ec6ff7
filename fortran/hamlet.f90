! module hamlet: the hamlet C API for Fortran. `use hamlet` gives the constants and structs
! (hamlet_types), every bind(C) interface (hamlet_c), and the string wrappers below, which take
! and return Fortran strings where the C functions take or return char *:
!   hm_error_message(), hm_status_string(status), hm_version()  -> character(:), allocatable
!   hm_output_create, hm_output_write_input, hm_output_write_scalar, hm_checkpoint_write,
!   hm_checkpoint_read_header, hm_checkpoint_restore, hm_output_write_array, hm_output_write_mvec,
!   hm_output_write_attribute, hm_output_write_attribute_double  -> take character(*) arguments
! Strings passed in lose trailing blanks (fixed-length Fortran variables pad with them) and get
! the terminating c_null_char appended.
module hamlet
  use, intrinsic :: iso_c_binding
  use hamlet_types
  use hamlet_c
  use hamlet_output
  use hamlet_fem
  use hamlet_mtx
  use hamlet_convdiff
  use hamlet_operator
  use hamlet_lobpcg
  use hamlet_interior
  use hamlet_idr
  use hamlet_dense
  use hamlet_ldos
  use hamlet_spectral
  use hamlet_stencil
  use hamlet_conductivity
  use hamlet_marker
  use hamlet_evolution
  implicit none
  private :: c_string, to_c
  public

contains

  ! A copy of the NUL-terminated C string at p ("" for a null pointer).
  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n, i
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = hm_c_strlen(p)
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function c_string

  pure function to_c(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s) // c_null_char
  end function to_c

  ! Whole text of the last error on this thread (message + traceback), "" if none.
  function hm_error_message() result(s)
    character(:), allocatable :: s
    s = c_string(hm_error_message_c())
  end function hm_error_message

  ! Short description of a status code ("invalid argument", ...).
  function hm_status_string(status) result(s)
    integer(c_int), intent(in) :: status
    character(:), allocatable :: s
    s = c_string(hm_status_string_c(status))
  end function hm_status_string

  ! "0.1.0 (git 1234abcd)"
  function hm_version() result(s)
    character(:), allocatable :: s
    s = c_string(hm_version_c())
  end function hm_version

  ! Collective. Opens "<path>.tmp"; hm_output_commit renames it to path.
  function hm_output_create(ctx, path, out) result(status)
    type(c_ptr), intent(in) :: ctx
    character(*), intent(in) :: path
    type(c_ptr), intent(out) :: out
    integer(c_int) :: status
    status = hm_output_create_c(ctx, to_c(path), out)
  end function hm_output_create

  function hm_output_write_input(out, deck_text) result(status)
    type(c_ptr), intent(in) :: out
    character(*), intent(in) :: deck_text
    integer(c_int) :: status
    status = hm_output_write_input_c(out, to_c(deck_text))
  end function hm_output_write_input

  ! A named scalar, e.g. ("/timing/moments", 1.5d0, "s").
  function hm_output_write_scalar(out, path, value, unit) result(status)
    type(c_ptr), intent(in) :: out
    character(*), intent(in) :: path, unit
    real(c_double), intent(in) :: value
    integer(c_int) :: status
    status = hm_output_write_scalar_c(out, to_c(path), value, to_c(unit))
  end function hm_output_write_scalar

  ! Collective: rank 0's data (real(c_double) or complex(c_double_complex), type HM_REAL or
  ! HM_COMPLEX) as a dataset of C-order dims at path; description optional.
  function hm_output_write_array(out, path, type, dims, data, unit, description) result(status)
    type(c_ptr), intent(in) :: out
    character(*), intent(in) :: path, unit
    integer(c_int), intent(in) :: type
    integer(c_int64_t), intent(in) :: dims(:)
    type(*), intent(in) :: data(*)
    character(*), intent(in), optional :: description
    integer(c_int) :: status
    if (present(description)) then
      status = hm_output_write_array_c(out, to_c(path), type, size(dims, kind=c_int), dims, data, to_c(unit), &
                                       to_c(description))
    else
      status = hm_output_write_array_c(out, to_c(path), type, size(dims, kind=c_int), dims, data, to_c(unit), to_c(""))
    end if
  end function hm_output_write_array

  ! Collective: a distributed block v as a dataset [N][k] (complex: [N][k][2]).
  function hm_output_write_mvec(out, path, v, unit, description) result(status)
    type(c_ptr), intent(in) :: out, v
    character(*), intent(in) :: path, unit
    character(*), intent(in), optional :: description
    integer(c_int) :: status
    if (present(description)) then
      status = hm_output_write_mvec_c(out, to_c(path), v, to_c(unit), to_c(description))
    else
      status = hm_output_write_mvec_c(out, to_c(path), v, to_c(unit), to_c(""))
    end if
  end function hm_output_write_mvec

  ! Collective: a string attribute on the group at path.
  function hm_output_write_attribute(out, path, name, value) result(status)
    type(c_ptr), intent(in) :: out
    character(*), intent(in) :: path, name, value
    integer(c_int) :: status
    status = hm_output_write_attribute_c(out, to_c(path), to_c(name), to_c(value))
  end function hm_output_write_attribute

  ! Collective: a number attribute on the group at path.
  function hm_output_write_attribute_double(out, path, name, value) result(status)
    type(c_ptr), intent(in) :: out
    character(*), intent(in) :: path, name
    real(c_double), intent(in) :: value
    integer(c_int) :: status
    status = hm_output_write_attribute_double_c(out, to_c(path), to_c(name), value)
  end function hm_output_write_attribute_double

  ! Collective. deck_text optional (stored as "" when absent).
  function hm_checkpoint_write(kpm, path, deck_text) result(status)
    type(c_ptr), intent(in) :: kpm
    character(*), intent(in) :: path
    character(*), intent(in), optional :: deck_text
    integer(c_int) :: status
    if (present(deck_text)) then
      status = hm_checkpoint_write_c(kpm, to_c(path), to_c(deck_text))
    else
      status = hm_checkpoint_write_c(kpm, to_c(path))
    end if
  end function hm_checkpoint_write

  ! Collective. The deck text stored in a checkpoint and its interval [emin, emax].
  function hm_checkpoint_read_header(ctx, path, deck_text, emin, emax) result(status)
    type(c_ptr), intent(in) :: ctx
    character(*), intent(in) :: path
    character(:), allocatable, intent(out) :: deck_text
    real(c_double), intent(out) :: emin, emax
    integer(c_int) :: status
    type(c_ptr) :: text
    text = c_null_ptr
    status = hm_checkpoint_read_header_c(ctx, to_c(path), text, emin, emax)
    deck_text = c_string(text)
    if (c_associated(text)) call hm_c_free(text)
  end function hm_checkpoint_read_header

  ! Collective. Load a checkpoint into a kpm made on the same matrix and options.
  function hm_checkpoint_restore(kpm, path) result(status)
    type(c_ptr), intent(in) :: kpm
    character(*), intent(in) :: path
    integer(c_int) :: status
    status = hm_checkpoint_restore_c(kpm, to_c(path))
  end function hm_checkpoint_restore
end module hamlet
