! module hamlet_operator: the block operations of include/hamlet/mvec.h (the solvers' building
! blocks), the matrix diagonal, and hm_operator (include/hamlet/operator.h) for Fortran.
! Small matrices are row-major in C: G(a*ky + b) = <X_a|Y_b>; in Fortran declare them as
! G(ky, kx) (G(b, a) = <X_a|Y_b>) and C(ky, kx) for hm_mvec_update. Scalars (beta, alpha, z, dots)
! are real(c_double) or complex(c_double_complex) as the blocks' type.
! A matrix-free operator is a bind(C) function with the interface hm_operator_fn below, passed as
! c_funloc(f) to hm_operator_create_shell; its user pointer comes back unchanged (c_loc of a
! target, or c_null_ptr). Inside, read and write the blocks with hm_mvec_get / hm_mvec_set.
module hamlet_operator
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  public

  abstract interface
    ! y = Op x for blocks x, y of equal width; return 0, or a nonzero status to stop the caller.
    function hm_operator_fn(x, y, user) result(status) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), value :: x, y, user
      integer(c_int) :: status
    end function
  end interface

  interface
    ! ---- mvec.h: distribution, type, block operations ----
    ! dist is owned by v.
    function hm_mvec_dist(v, dist) result(status) bind(C, name="hm_mvec_dist")
      import :: c_int, c_ptr
      type(c_ptr), value :: v
      type(c_ptr), intent(out) :: dist
      integer(c_int) :: status
    end function
    function hm_mvec_context(v, ctx) result(status) bind(C, name="hm_mvec_context")
      import :: c_int, c_ptr
      type(c_ptr), value :: v
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: status
    end function
    function hm_mvec_type(v, type) result(status) bind(C, name="hm_mvec_type")
      import :: c_int, c_ptr
      type(c_ptr), value :: v
      integer(c_int), intent(out) :: type
      integer(c_int) :: status
    end function
    ! Collective: G(ky, kx), G(b, a) = <X_a|Y_b>, one global reduction.
    function hm_mvec_gram(X, Y, G) result(status) bind(C, name="hm_mvec_gram")
      import :: c_int, c_ptr
      type(c_ptr), value :: X, Y
      type(*), intent(inout) :: G(*)
      integer(c_int) :: status
    end function
    ! Y = beta Y + X C with C(ky, kx) (C(b, a) multiplies column a of X into column b of Y).
    function hm_mvec_update(Y, beta, X, C) result(status) bind(C, name="hm_mvec_update")
      import :: c_int, c_ptr
      type(c_ptr), value :: Y
      type(*), intent(in) :: beta(*)
      type(c_ptr), value :: X
      type(*), intent(in) :: C(*)
      integer(c_int) :: status
    end function
    ! y_j = alpha(j) x_j + beta(j) y_j; x may be y.
    function hm_mvec_axpby(y, alpha, x, beta) result(status) bind(C, name="hm_mvec_axpby")
      import :: c_int, c_ptr
      type(c_ptr), value :: y
      type(*), intent(in) :: alpha(*)
      type(c_ptr), value :: x
      type(*), intent(in) :: beta(*)
      integer(c_int) :: status
    end function
    ! Collective: norms(k) = ||x_j||_2.
    function hm_mvec_norms(x, norms) result(status) bind(C, name="hm_mvec_norms")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: x
      real(c_double), intent(out) :: norms(*)
      integer(c_int) :: status
    end function
    ! Columns [d0, d0 + count) of dst = columns [s0, s0 + count) of src (0-based column numbers).
    function hm_mvec_copy_columns(src, s0, dst, d0, count) result(status) bind(C, name="hm_mvec_copy_columns")
      import :: c_int, c_ptr
      type(c_ptr), value :: src
      integer(c_int), value :: s0
      type(c_ptr), value :: dst
      integer(c_int), value :: d0, count
      integer(c_int) :: status
    end function
    ! y_ij = d_i x_ij, d a one-column block; y may be x.
    function hm_mvec_scale_rows(y, d, x) result(status) bind(C, name="hm_mvec_scale_rows")
      import :: c_int, c_ptr
      type(c_ptr), value :: y, d, x
      integer(c_int) :: status
    end function

    ! ---- matrix.h ----
    ! The diagonal of A into the one-column block d of A's type.
    function hm_matrix_diagonal(A, d) result(status) bind(C, name="hm_matrix_diagonal")
      import :: c_int, c_ptr
      type(c_ptr), value :: A, d
      integer(c_int) :: status
    end function

    ! ---- operator.h ----
    function hm_operator_create_matrix(A, op) result(status) bind(C, name="hm_operator_create_matrix")
      import :: c_int, c_ptr
      type(c_ptr), value :: A
      type(c_ptr), intent(out) :: op
      integer(c_int) :: status
    end function
    ! Op = z - A: nz = 1 or the block width; z(nz) of A's type.
    function hm_operator_create_shifted(A, nz, z, op) result(status) bind(C, name="hm_operator_create_shifted")
      import :: c_int, c_ptr
      type(c_ptr), value :: A
      integer(c_int), value :: nz
      type(*), intent(in) :: z(*)
      type(c_ptr), intent(out) :: op
      integer(c_int) :: status
    end function
    ! apply = c_funloc of a procedure(hm_operator_fn).
    function hm_operator_create_shell(ctx, dist, type, apply, user, op) result(status) &
        bind(C, name="hm_operator_create_shell")
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: ctx, dist
      integer(c_int), value :: type
      type(c_funptr), value :: apply
      type(c_ptr), value :: user
      type(c_ptr), intent(out) :: op
      integer(c_int) :: status
    end function
    function hm_operator_destroy(op) result(status) bind(C, name="hm_operator_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: op
      integer(c_int) :: status
    end function
    ! Collective: y = Op x.
    function hm_operator_apply(op, x, y) result(status) bind(C, name="hm_operator_apply")
      import :: c_int, c_ptr
      type(c_ptr), value :: op, x, y
      integer(c_int) :: status
    end function
    ! dist is owned by op.
    function hm_operator_info(op, dist, type) result(status) bind(C, name="hm_operator_info")
      import :: c_int, c_ptr
      type(c_ptr), value :: op
      type(c_ptr), intent(out), optional :: dist
      integer(c_int), intent(out), optional :: type
      integer(c_int) :: status
    end function
    function hm_operator_context(op, ctx) result(status) bind(C, name="hm_operator_context")
      import :: c_int, c_ptr
      type(c_ptr), value :: op
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: status
    end function
  end interface
end module hamlet_operator
