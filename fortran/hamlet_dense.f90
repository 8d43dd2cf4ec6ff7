! module hamlet_dense: the dense Hermitian eigensolvers (include/hamlet/dense.h) for Fortran.
! hm_dense_eigh takes column-major Fortran arrays as they are (real(c_double) or
! complex(c_double_complex), A(lda, n)); leave B out for a standard problem. hm_dense_eigh_matrix
! takes hm_matrix / hm_mvec handles; B and Z may be c_null_ptr (Z only with vectors = 0).
! hm_dense_eigh_distributed takes a ScaLAPACK caller's local arrays and descriptors as they are; leave b
! and descb out for a standard problem, z and descz for eigenvalues only.
! HAMLET_DENSE_MEMORY_LIMIT (environment, bytes) caps the memory the solvers count as available.
module hamlet_dense
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  public

  ! hm_dense_method
  integer(c_int), parameter :: HM_DENSE_AUTO = 0, HM_DENSE_LAPACK = 1, HM_DENSE_CUSOLVER = 2, HM_DENSE_SCALAPACK = 3, &
    HM_DENSE_DISTRIBUTED = 4
  ! Below this order AUTO never uses a GPU in hm_dense_eigh.
  integer(c_int64_t), parameter :: HM_DENSE_GPU_MIN_N = 2048

  interface
    ! Local, not collective. A overwritten by the eigenvectors (vectors = 1), B (optional) by its
    ! Cholesky factor; w(n) ascending.
    function hm_dense_eigh(type, n, A, lda, B, ldb, vectors, method, w) result(status) bind(C, name="hm_dense_eigh")
      import :: c_int, c_int64_t, c_double
      integer(c_int), value :: type
      integer(c_int64_t), value :: n, lda
      type(*), intent(inout) :: A(*)
      type(*), intent(inout), optional :: B(*)
      integer(c_int64_t), value :: ldb
      integer(c_int), value :: vectors, method
      real(c_double), intent(out) :: w(*)
      integer(c_int) :: status
    end function

    ! Collective. w(n_global) on every rank; Z: this rank's rows of the eigenvectors.
    function hm_dense_eigh_matrix(A, B, vectors, method, w, Z) result(status) bind(C, name="hm_dense_eigh_matrix")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: A, B
      integer(c_int), value :: vectors, method
      real(c_double), intent(out) :: w(*)
      type(c_ptr), value :: Z
      integer(c_int) :: status
    end function

    ! Collective over ctx. hamlet's distributed solver on ScaLAPACK-distributed arrays (any process grid
    ! and blocking; the BLACS context over exactly the context's processes); lower triangles read.
    function hm_dense_eigh_distributed(ctx, type, a, desca, b, descb, vectors, w, z, descz) result(status) &
        bind(C, name="hm_dense_eigh_distributed")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ctx
      integer(c_int), value :: type
      type(*), intent(in) :: a(*)
      integer(c_int), intent(in) :: desca(9)
      type(*), intent(in), optional :: b(*)
      integer(c_int), intent(in), optional :: descb(9)
      integer(c_int), value :: vectors
      real(c_double), intent(out) :: w(*)
      type(*), intent(inout), optional :: z(*)
      integer(c_int), intent(in), optional :: descz(9)
      integer(c_int) :: status
    end function
  end interface
end module hamlet_dense
