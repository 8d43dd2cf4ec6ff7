! The bind(C) interfaces of every public function of the hamlet C API, one for one.
! Conventions (the C headers in include/hamlet/ are the reference for what each call does):
! - every function returns an integer(c_int) status: HM_SUCCESS (0) or an HM_ERR_* code;
! - handles (hm_context *, hm_matrix *, ...) are type(c_ptr); an "hm_x **" output is a
!   type(c_ptr) passed by reference; destroy calls set the handle to c_null_ptr;
! - data buffers (const void * / void *) are assumed-type arrays: pass real(c_double) or
!   complex(c_double_complex) arrays directly. Blocks of k vectors are row-major in C, so the
!   natural Fortran array is x(k, local_rows);
! - CSR row pointers and column indices are 0-based global indices, as in C;
! - arguments that C allows to be NULL are optional.
! Functions that take or return C strings are bound here under a name ending in _c; module hamlet
! wraps them with Fortran strings under the C name (hm_error_message, hm_output_create, ...).
module hamlet_c
  use, intrinsic :: iso_c_binding
  use hamlet_types
  implicit none
  public

  interface
    ! ---- error.h, hamlet.h ----
    function hm_error_message_c() result(text) bind(C, name="hm_error_message")
      import :: c_ptr
      type(c_ptr) :: text
    end function
    function hm_status_string_c(status) result(text) bind(C, name="hm_status_string")
      import :: c_ptr, c_int
      integer(c_int), value :: status
      type(c_ptr) :: text
    end function
    subroutine hm_error_clear() bind(C, name="hm_error_clear")
    end subroutine
    function hm_version_c() result(text) bind(C, name="hm_version")
      import :: c_ptr
      type(c_ptr) :: text
    end function

    ! ---- context.h ----
    ! Fortran passes its own communicator handle only (an integer from `use mpi`, or
    ! comm%MPI_VAL from `use mpi_f08`): both names bind to C's hm_context_create_f, which converts
    ! it with MPI_Comm_f2c (a C MPI_Comm is an opaque type that Fortran cannot hold portably).
    function hm_context_create(comm, backend, ctx) result(status) bind(C, name="hm_context_create_f")
      import :: c_int, c_ptr
      integer(c_int), value :: comm, backend
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: status
    end function
    ! comm: an integer Fortran handle (use mpi) or comm%MPI_VAL (use mpi_f08).
    function hm_context_create_f(comm, backend, ctx) result(status) bind(C, name="hm_context_create_f")
      import :: c_int, c_ptr
      integer(c_int), value :: comm, backend
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: status
    end function
    ! A CUDA context on one device of this node (0 .. visible count - 1); both names bind to C's
    ! hm_context_create_on_device_f (comm: the Fortran handle).
    function hm_context_create_on_device(comm, device, ctx) result(status) &
        bind(C, name="hm_context_create_on_device_f")
      import :: c_int, c_ptr
      integer(c_int), value :: comm, device
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: status
    end function
    function hm_context_create_on_device_f(comm, device, ctx) result(status) &
        bind(C, name="hm_context_create_on_device_f")
      import :: c_int, c_ptr
      integer(c_int), value :: comm, device
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: status
    end function
    function hm_context_destroy(ctx) result(status) bind(C, name="hm_context_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: ctx
      integer(c_int) :: status
    end function
    function hm_context_rank(ctx, rank, size) result(status) bind(C, name="hm_context_rank")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), intent(out), optional :: rank, size
      integer(c_int) :: status
    end function
    function hm_context_backend(ctx, backend) result(status) bind(C, name="hm_context_backend")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), intent(out) :: backend
      integer(c_int) :: status
    end function
    ! The context's communicator as a Fortran handle (C's hm_context_comm gives the C handle).
    function hm_context_comm_f(ctx, comm) result(status) bind(C, name="hm_context_comm_f")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), intent(out) :: comm
      integer(c_int) :: status
    end function
    function hm_context_set_weight(ctx, weight) result(status) bind(C, name="hm_context_set_weight")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ctx
      real(c_double), value :: weight
      integer(c_int) :: status
    end function
    function hm_context_weight(ctx, weight) result(status) bind(C, name="hm_context_weight")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ctx
      real(c_double), intent(out) :: weight
      integer(c_int) :: status
    end function

    ! ---- dist.h ----
    function hm_dist_create(ctx, n_global, block, weight, dist) result(status) bind(C, name="hm_dist_create")
      import :: c_int, c_ptr, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: n_global, block
      real(c_double), value :: weight
      type(c_ptr), intent(out) :: dist
      integer(c_int) :: status
    end function
    function hm_dist_destroy(dist) result(status) bind(C, name="hm_dist_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: dist
      integer(c_int) :: status
    end function
    ! first is 0-based, as every global row index of the C API.
    function hm_dist_range(dist, first, local, n_global) result(status) bind(C, name="hm_dist_range")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: dist
      integer(c_int64_t), intent(out), optional :: first, local, n_global
      integer(c_int) :: status
    end function

    ! ---- mvec.h ----
    function hm_mvec_create(ctx, dist, type, k, v) result(status) bind(C, name="hm_mvec_create")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx, dist
      integer(c_int), value :: type, k
      type(c_ptr), intent(out) :: v
      integer(c_int) :: status
    end function
    function hm_mvec_destroy(v) result(status) bind(C, name="hm_mvec_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: v
      integer(c_int) :: status
    end function
    function hm_mvec_size(v, local_rows, k) result(status) bind(C, name="hm_mvec_size")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: v
      integer(c_int64_t), intent(out), optional :: local_rows
      integer(c_int), intent(out), optional :: k
      integer(c_int) :: status
    end function
    ! values(k, local_rows), real(c_double) or complex(c_double_complex) as the block's type.
    function hm_mvec_set(v, values) result(status) bind(C, name="hm_mvec_set")
      import :: c_int, c_ptr
      type(c_ptr), value :: v
      type(*), intent(in) :: values(*)
      integer(c_int) :: status
    end function
    function hm_mvec_get(v, values) result(status) bind(C, name="hm_mvec_get")
      import :: c_int, c_ptr
      type(c_ptr), value :: v
      type(*), intent(inout) :: values(*)
      integer(c_int) :: status
    end function
    function hm_mvec_random_phase(v, seed) result(status) bind(C, name="hm_mvec_random_phase")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: v
      integer(c_int64_t), value :: seed   ! uint64_t in C
      integer(c_int) :: status
    end function
    ! dots(k) of the blocks' scalar type.
    function hm_mvec_dot(x, y, dots) result(status) bind(C, name="hm_mvec_dot")
      import :: c_int, c_ptr
      type(c_ptr), value :: x, y
      type(*), intent(inout) :: dots(*)
      integer(c_int) :: status
    end function

    ! ---- matrix.h ----
    ! This rank's rows: rowptr(0:local) with rowptr(0) = 0, cols(:) 0-based global columns,
    ! values(:) real(c_double) or complex(c_double_complex).
    function hm_matrix_create_csr(ctx, dist, type, rowptr, cols, values, A) result(status) &
        bind(C, name="hm_matrix_create_csr")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: ctx, dist
      integer(c_int), value :: type
      integer(c_int64_t), intent(in) :: rowptr(*), cols(*)
      type(*), intent(in) :: values(*)
      type(c_ptr), intent(out) :: A
      integer(c_int) :: status
    end function
    function hm_matrix_destroy(A) result(status) bind(C, name="hm_matrix_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: A
      integer(c_int) :: status
    end function
    function hm_matrix_info(A, n_global, nnz_global, type) result(status) bind(C, name="hm_matrix_info")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: A
      integer(c_int64_t), intent(out), optional :: n_global, nnz_global
      integer(c_int), intent(out), optional :: type
      integer(c_int) :: status
    end function
    ! Collective: this rank's rows with global column indices (0-based, C's numbering): local rows and nnz
    ! entries; with rowptr(local + 1), cols(nnz), values(nnz, or 2 nnz where complex) also the entries.
    function hm_matrix_local_csr(A, local, nnz, rowptr, cols, values) result(status) bind(C, name="hm_matrix_local_csr")
      import :: c_int, c_ptr, c_int64_t, c_double
      type(c_ptr), value :: A
      integer(c_int64_t), intent(out) :: local, nnz
      integer(c_int64_t), intent(out), optional :: rowptr(*), cols(*)
      real(c_double), intent(out), optional :: values(*)
      integer(c_int) :: status
    end function
    ! dist is owned by A (do not destroy it); valid while A lives.
    function hm_matrix_dist(A, dist) result(status) bind(C, name="hm_matrix_dist")
      import :: c_int, c_ptr
      type(c_ptr), value :: A
      type(c_ptr), intent(out) :: dist
      integer(c_int) :: status
    end function
    function hm_matrix_context(A, ctx) result(status) bind(C, name="hm_matrix_context")
      import :: c_int, c_ptr
      type(c_ptr), value :: A
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: status
    end function
    function hm_matrix_apply(A, x, y) result(status) bind(C, name="hm_matrix_apply")
      import :: c_int, c_ptr
      type(c_ptr), value :: A, x, y
      integer(c_int) :: status
    end function
    function hm_matrix_gershgorin(A, emin, emax) result(status) bind(C, name="hm_matrix_gershgorin")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: A
      real(c_double), intent(out) :: emin, emax
      integer(c_int) :: status
    end function
    ! format: HM_FORMAT_AUTO, HM_FORMAT_CSR or HM_FORMAT_SELL; sigma must be 0 unless SELL.
    function hm_matrix_set_format(A, format, sigma) result(status) bind(C, name="hm_matrix_set_format")
      import :: c_int, c_ptr
      type(c_ptr), value :: A
      integer(c_int), value :: format, sigma
      integer(c_int) :: status
    end function
    function hm_matrix_format_info(A, format, chunk, sigma, fill) result(status) bind(C, name="hm_matrix_format_info")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: A
      integer(c_int), intent(out), optional :: format, chunk, sigma
      real(c_double), intent(out), optional :: fill
      integer(c_int) :: status
    end function
    ! made = 1 where the KPM step has a 4 x 4 block copy on the tensor cores (see matrix.h).
    function hm_matrix_block_info(A, made, reads, distinct) result(status) bind(C, name="hm_matrix_block_info")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: A
      integer(c_int), intent(out), optional :: made
      real(c_double), intent(out), optional :: reads, distinct
      integer(c_int) :: status
    end function

    ! ---- kpm.h ----
    function hm_kpm_options_default(opt) result(status) bind(C, name="hm_kpm_options_default")
      import :: c_int, hm_kpm_options
      type(hm_kpm_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    function hm_kpm_create(H, opt, kpm) result(status) bind(C, name="hm_kpm_create")
      import :: c_int, c_ptr, hm_kpm_options
      type(c_ptr), value :: H
      type(hm_kpm_options), intent(in) :: opt
      type(c_ptr), intent(out) :: kpm
      integer(c_int) :: status
    end function
    function hm_kpm_destroy(kpm) result(status) bind(C, name="hm_kpm_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: kpm
      integer(c_int) :: status
    end function
    function hm_kpm_run(kpm) result(status) bind(C, name="hm_kpm_run")
      import :: c_int, c_ptr
      type(c_ptr), value :: kpm
      integer(c_int) :: status
    end function
    function hm_kpm_info(kpm, moments, vectors, moments_done, scale, shift, n_global) result(status) &
        bind(C, name="hm_kpm_info")
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: kpm
      integer(c_int), intent(out), optional :: moments, vectors, moments_done
      real(c_double), intent(out), optional :: scale, shift
      integer(c_int64_t), intent(out), optional :: n_global
      integer(c_int) :: status
    end function
    function hm_kpm_interval(kpm, emin, emax) result(status) bind(C, name="hm_kpm_interval")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: kpm
      real(c_double), intent(out) :: emin, emax
      integer(c_int) :: status
    end function
    ! mu(M) (mu(1) = mu_0 = 1); mu_vec(M, R): column r = the moments of vector r.
    function hm_kpm_moments(kpm, mu, mu_vec) result(status) bind(C, name="hm_kpm_moments")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: kpm
      real(c_double), intent(out) :: mu(*)
      real(c_double), intent(out), optional :: mu_vec(*)
      integer(c_int) :: status
    end function
    ! The options a kpm was made with (with its callbacks).
    function hm_kpm_options_get(kpm, opt) result(status) bind(C, name="hm_kpm_options_get")
      import :: c_int, c_ptr, hm_kpm_options
      type(c_ptr), value :: kpm
      type(hm_kpm_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    ! v_prev, v_curr are owned by kpm (do not destroy them).
    function hm_kpm_state_vectors(kpm, v_prev, v_curr) result(status) bind(C, name="hm_kpm_state_vectors")
      import :: c_int, c_ptr
      type(c_ptr), value :: kpm
      type(c_ptr), intent(out) :: v_prev, v_curr
      integer(c_int) :: status
    end function
    function hm_kpm_restore(kpm, moments_done, mu_vec) result(status) bind(C, name="hm_kpm_restore")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: kpm
      integer(c_int), value :: moments_done
      real(c_double), intent(in) :: mu_vec(*)
      integer(c_int) :: status
    end function

    ! ---- dos.h ----
    function hm_dos_options_default(opt) result(status) bind(C, name="hm_dos_options_default")
      import :: c_int, hm_dos_options
      type(hm_dos_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    ! mu_vec(moments, vectors) as from hm_kpm_moments.
    function hm_dos_create(moments, vectors, mu_vec, scale, shift, n_global, opt, dos) result(status) &
        bind(C, name="hm_dos_create")
      import :: c_int, c_ptr, c_double, c_int64_t, hm_dos_options
      integer(c_int), value :: moments, vectors
      real(c_double), intent(in) :: mu_vec(*)
      real(c_double), value :: scale, shift
      integer(c_int64_t), value :: n_global
      type(hm_dos_options), intent(in) :: opt
      type(c_ptr), intent(out) :: dos
      integer(c_int) :: status
    end function
    function hm_dos_destroy(dos) result(status) bind(C, name="hm_dos_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: dos
      integer(c_int) :: status
    end function
    function hm_dos_size(dos, points) result(status) bind(C, name="hm_dos_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: dos
      integer(c_int), intent(out) :: points
      integer(c_int) :: status
    end function
    function hm_dos_get(dos, energy, rho, error) result(status) bind(C, name="hm_dos_get")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: dos
      real(c_double), intent(out), optional :: energy(*), rho(*), error(*)
      integer(c_int) :: status
    end function
    function hm_kpm_kernel_factors(kernel, lorentz_lambda, moments, g) result(status) &
        bind(C, name="hm_kpm_kernel_factors")
      import :: c_int, c_double
      integer(c_int), value :: kernel
      real(c_double), value :: lorentz_lambda
      integer(c_int), value :: moments
      real(c_double), intent(out) :: g(*)
      integer(c_int) :: status
    end function

    ! ---- ti.h ----
    function hm_ti_params_default(p) result(status) bind(C, name="hm_ti_params_default")
      import :: c_int, hm_ti_params
      type(hm_ti_params), intent(out) :: p
      integer(c_int) :: status
    end function
    function hm_ti_build(ctx, p, H) result(status) bind(C, name="hm_ti_build")
      import :: c_int, c_ptr, hm_ti_params
      type(c_ptr), value :: ctx
      type(hm_ti_params), intent(in) :: p
      type(c_ptr), intent(out) :: H
      integer(c_int) :: status
    end function
    ! x, y, z are 0-based site coordinates.
    function hm_ti_potential(p, x, y, z, v) result(status) bind(C, name="hm_ti_potential")
      import :: c_int, c_int64_t, c_double, hm_ti_params
      type(hm_ti_params), intent(in) :: p
      integer(c_int64_t), value :: x, y, z
      real(c_double), intent(out) :: v
      integer(c_int) :: status
    end function

    ! ---- output.h ----
    function hm_output_create_c(ctx, path, out) result(status) bind(C, name="hm_output_create")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: status
    end function
    function hm_output_commit(out) result(status) bind(C, name="hm_output_commit")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: status
    end function
    function hm_output_destroy(out) result(status) bind(C, name="hm_output_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: out
      integer(c_int) :: status
    end function
    function hm_output_write_input_c(out, deck_text) result(status) bind(C, name="hm_output_write_input")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: out
      character(kind=c_char), intent(in) :: deck_text(*)
      integer(c_int) :: status
    end function
    function hm_output_write_provenance(out) result(status) bind(C, name="hm_output_write_provenance")
      import :: c_int, c_ptr
      type(c_ptr), value :: out
      integer(c_int) :: status
    end function
    function hm_output_write_ti(out, p, H) result(status) bind(C, name="hm_output_write_ti")
      import :: c_int, c_ptr, hm_ti_params
      type(c_ptr), value :: out
      type(hm_ti_params), intent(in) :: p
      type(c_ptr), value :: H
      integer(c_int) :: status
    end function
    function hm_output_write_kpm(out, kpm, dopt) result(status) bind(C, name="hm_output_write_kpm")
      import :: c_int, c_ptr, hm_dos_options
      type(c_ptr), value :: out, kpm
      type(hm_dos_options), intent(in) :: dopt
      integer(c_int) :: status
    end function
    function hm_output_write_dos(out, dos) result(status) bind(C, name="hm_output_write_dos")
      import :: c_int, c_ptr
      type(c_ptr), value :: out, dos
      integer(c_int) :: status
    end function
    function hm_output_write_scalar_c(out, path, value, unit) result(status) bind(C, name="hm_output_write_scalar")
      import :: c_int, c_ptr, c_char, c_double
      type(c_ptr), value :: out
      character(kind=c_char), intent(in) :: path(*)
      real(c_double), value :: value
      character(kind=c_char), intent(in) :: unit(*)
      integer(c_int) :: status
    end function

    ! ---- checkpoint.h ----
    ! deck_text absent = NULL (stored as "").
    function hm_checkpoint_write_c(kpm, path, deck_text) result(status) bind(C, name="hm_checkpoint_write")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: kpm
      character(kind=c_char), intent(in) :: path(*)
      character(kind=c_char), intent(in), optional :: deck_text(*)
      integer(c_int) :: status
    end function
    ! deck_text: a malloc'd C string; free it with hm_c_free (module hamlet does).
    function hm_checkpoint_read_header_c(ctx, path, deck_text, emin, emax) result(status) &
        bind(C, name="hm_checkpoint_read_header")
      import :: c_int, c_ptr, c_char, c_double
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), intent(out) :: deck_text
      real(c_double), intent(out) :: emin, emax
      integer(c_int) :: status
    end function
    function hm_checkpoint_restore_c(kpm, path) result(status) bind(C, name="hm_checkpoint_restore")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: kpm
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: status
    end function

    ! ---- the C library's own helpers the wrappers need ----
    subroutine hm_c_free(p) bind(C, name="free")
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine
    pure function hm_c_strlen(s) result(n) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value, intent(in) :: s
      integer(c_size_t) :: n
    end function
  end interface
end module hamlet_c
