! Checkpoint callback for test_fortran_output: a bind(C) function hm_kpm_run calls through the
! c_funptr in hm_kpm_options. Its first call writes a checkpoint mid-run and keeps the moments of
! that moment, so the test can restart from it.
module output_test_callbacks
  use, intrinsic :: iso_c_binding
  use hamlet
  implicit none
  integer, parameter :: M = 24, R = 4
  type, bind(C) :: checkpoint_log
    integer(c_int) :: calls = 0, done_at_first = 0, status = 0
  end type checkpoint_log
  character(:), allocatable :: mid_path
  character(*), parameter :: DECK = "[ti]" // achar(10) // "nx = 3" // achar(10)
  real(c_double) :: mu_vec_mid(M, R) = 0
contains
  function on_checkpoint(kpm, user) result(status) bind(C)
    type(c_ptr), value :: kpm, user
    integer(c_int) :: status
    type(checkpoint_log), pointer :: log
    real(c_double) :: mu(M)
    call c_f_pointer(user, log)
    log%calls = log%calls + 1
    status = HM_SUCCESS
    if (log%calls > 1) return
    status = hm_kpm_info(kpm, moments_done=log%done_at_first)
    if (status == HM_SUCCESS) status = hm_kpm_moments(kpm, mu, mu_vec_mid)
    if (status == HM_SUCCESS) status = hm_checkpoint_write(kpm, mid_path, DECK)
    log%status = status
  end function on_checkpoint
end module output_test_callbacks

! Results and checkpoints from Fortran:
! - hm_output: while open only "<path>.tmp" exists; after hm_output_commit the path exists (an
!   HDF5 file: its first 8 bytes are the HDF5 signature), ".tmp" does not, the handle is null;
!   hm_output_destroy leaves neither; a repeated or relative scalar name and a missing directory
!   are refused with messages that say so;
! - checkpoints: written by a Fortran callback every 3 steps during hm_kpm_run (first call only),
!   and after the run; no ".tmp" left; hm_checkpoint_read_header returns the deck text and the
!   interval; a fresh kpm (bounds given at that interval) restored from the mid-run checkpoint has
!   its moments done and moments, and running it on reaches the uninterrupted run's moments
!   (1e-12: only the order of the rank sums differs); restored from the final one, its moments
!   equal; a kpm with other vectors, a missing file and a file that is no checkpoint are refused.
program test_fortran_output
  use, intrinsic :: iso_c_binding
  use mpi
  use hamlet
  use hamlet_testing
  use output_test_callbacks
  implicit none
  type(c_ptr) :: ctx, H, kpm, kpm2, out, dos
  type(hm_ti_params) :: p
  type(hm_kpm_options) :: opt
  type(hm_dos_options) :: dopt
  type(checkpoint_log), target :: log
  real(c_double) :: mu(M), mu_vec(M, R), mu2(M), mu_vec2(M, R), emin, emax, e1, e2
  integer(c_int) :: done
  integer :: ierr, rank, nranks
  character(64) :: tag
  character(:), allocatable :: result_path, final_path, discard_path, text

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  write(tag, '("_np", i0, ".h5")') nranks
  result_path = "fortran_result" // trim(tag)
  final_path = "fortran_ckpt_final" // trim(tag)
  discard_path = "fortran_discard" // trim(tag)
  mid_path = "fortran_ckpt_mid" // trim(tag)
  if (rank == 0) then  ! leftovers of an earlier run would hide a missing file
    call remove_file(result_path); call remove_file(final_path); call remove_file(mid_path)
    call remove_file(result_path // ".tmp")
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  call test_ok(hm_context_create_f(MPI_COMM_WORLD, HM_BACKEND_CPU, ctx), "hm_context_create_f")
  call test_ok(hm_ti_params_default(p), "hm_ti_params_default")
  p%nx = 3; p%ny = 3; p%nz = 2
  call test_ok(hm_ti_build(ctx, p, H), "hm_ti_build")

  ! The uninterrupted run, checkpointing through the Fortran callback.
  call test_ok(hm_kpm_options_default(opt), "hm_kpm_options_default")
  opt%moments = M
  opt%vectors = R
  opt%seed = 3
  opt%bounds = HM_BOUNDS_GERSHGORIN
  opt%checkpoint_every = 3
  opt%checkpoint = c_funloc(on_checkpoint)
  opt%checkpoint_user = c_loc(log)
  call test_ok(hm_kpm_create(H, opt, kpm), "hm_kpm_create")
  call test_ok(hm_kpm_run(kpm), "hm_kpm_run")
  call test_ok(log%status, "hm_checkpoint_write in the callback")
  ! Steps 1..(M-2)/2 = 11 take moments done from 4 to 24; steps 3, 6, 9 call back (done 8, 14, 20).
  call test_assert(log%calls == 3 .and. log%done_at_first == 8, "checkpoint callback: calls at steps 3, 6, 9")
  call test_ok(hm_kpm_moments(kpm, mu, mu_vec), "hm_kpm_moments")
  call test_ok(hm_kpm_interval(kpm, emin, emax), "hm_kpm_interval")
  call test_ok(hm_checkpoint_write(kpm, final_path), "hm_checkpoint_write final")
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call test_assert(exists(mid_path) .and. .not. exists(mid_path // ".tmp"), "mid-run checkpoint file, and no .tmp")
  call test_assert(exists(final_path) .and. .not. exists(final_path // ".tmp"), "final checkpoint file, and no .tmp")

  ! Header: deck text and interval.
  call test_ok(hm_checkpoint_read_header(ctx, mid_path, text, e1, e2), "hm_checkpoint_read_header")
  call test_assert(text == DECK, "checkpoint deck text differs: '" // text // "'")
  call test_assert(e1 == emin .and. e2 == emax, "checkpoint interval differs from the kpm's")
  call test_ok(hm_checkpoint_read_header(ctx, final_path, text, e1, e2), "hm_checkpoint_read_header final")
  call test_assert(len(text) == 0, "a checkpoint written without deck text stores ''")

  ! Restart from mid-run: moments so far, then the same end result.
  opt%bounds = HM_BOUNDS_GIVEN
  opt%emin = e1
  opt%emax = e2
  opt%checkpoint_every = 0
  opt%checkpoint = c_null_funptr
  call test_ok(hm_kpm_create(H, opt, kpm2), "hm_kpm_create for restart")
  call test_ok(hm_checkpoint_restore(kpm2, mid_path), "hm_checkpoint_restore mid")
  call test_ok(hm_kpm_info(kpm2, moments_done=done), "hm_kpm_info")
  call test_assert(done == 8, "restored moments done must be 8")
  call test_ok(hm_kpm_moments(kpm2, mu2, mu_vec2), "hm_kpm_moments restored")
  call test_assert(maxval(abs(mu_vec2 - mu_vec_mid)) < 1d-15 .and. all(mu_vec2(9:, :) == 0), &
                   "restored moments differ from those at the checkpoint")
  call test_ok(hm_kpm_run(kpm2), "hm_kpm_run restarted")
  call test_ok(hm_kpm_moments(kpm2, mu2, mu_vec2), "hm_kpm_moments restarted")
  call test_assert(maxval(abs(mu_vec2 - mu_vec)) < 1d-12, "restarted run differs from the uninterrupted one")
  call test_ok(hm_kpm_destroy(kpm2), "hm_kpm_destroy")

  ! Restore the final checkpoint: all moments, equal.
  call test_ok(hm_kpm_create(H, opt, kpm2), "hm_kpm_create for final restore")
  call test_ok(hm_checkpoint_restore(kpm2, final_path), "hm_checkpoint_restore final")
  call test_ok(hm_kpm_info(kpm2, moments_done=done), "hm_kpm_info")
  call test_ok(hm_kpm_moments(kpm2, mu2, mu_vec2), "hm_kpm_moments final restore")
  call test_assert(done == M .and. maxval(abs(mu_vec2 - mu_vec)) < 1d-15, "final checkpoint moments differ")
  call test_ok(hm_kpm_destroy(kpm2), "hm_kpm_destroy")

  ! Mismatch and bad files.
  opt%vectors = R + 1
  call test_ok(hm_kpm_create(H, opt, kpm2), "hm_kpm_create with other vectors")
  call test_fails(hm_checkpoint_restore(kpm2, final_path), HM_ERR_INPUT, "vectors", "restore with other vectors")
  call test_fails(hm_checkpoint_restore(kpm2, "no_such_checkpoint.h5"), HM_ERR_IO, "no_such_checkpoint.h5", &
                  "restore from a missing file")
  call test_ok(hm_kpm_destroy(kpm2), "hm_kpm_destroy")

  ! A result file.
  call test_ok(hm_output_create(ctx, result_path, out), "hm_output_create")
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call test_assert(exists(result_path // ".tmp") .and. .not. exists(result_path), "open output: only the .tmp exists")
  call test_ok(hm_output_write_input(out, DECK), "hm_output_write_input")
  call test_ok(hm_output_write_provenance(out), "hm_output_write_provenance")
  call test_ok(hm_output_write_ti(out, p, H), "hm_output_write_ti")
  call test_ok(hm_dos_options_default(dopt), "hm_dos_options_default")
  call test_ok(hm_output_write_kpm(out, kpm, dopt), "hm_output_write_kpm")
  call test_ok(hm_dos_create(int(M, c_int), int(R, c_int), mu_vec, 2 / (emax - emin), (emax + emin) / 2, &
                             4 * 3 * 3 * 2_c_int64_t, dopt, dos), "hm_dos_create")
  call test_ok(hm_output_write_dos(out, dos), "hm_output_write_dos")
  call test_ok(hm_output_write_scalar(out, "/timing/kpm", 1.5d0, "s"), "hm_output_write_scalar")
  call test_fails(hm_output_write_scalar(out, "/timing/kpm", 2.5d0, "s"), HM_ERR_ARGUMENT, "already in the output", &
                  "the same scalar twice")
  call test_fails(hm_output_write_scalar(out, "timing", 2.5d0, "s"), HM_ERR_ARGUMENT, "must be absolute", &
                  "a relative scalar name")
  call test_ok(hm_output_commit(out), "hm_output_commit")
  call test_assert(.not. c_associated(out), "hm_output_commit must null the handle")
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call test_assert(exists(result_path) .and. .not. exists(result_path // ".tmp"), "committed output: path, no .tmp")
  call test_assert(is_hdf5(result_path), "the committed output is not an HDF5 file")
  call test_fails(hm_checkpoint_read_header(ctx, result_path, text, e1, e2), HM_ERR_INPUT, "not a hamlet KPM checkpoint", &
                  "read a result file as a checkpoint")

  ! Discarded and impossible outputs.
  call test_ok(hm_output_create(ctx, discard_path, out), "hm_output_create discard")
  call test_ok(hm_output_destroy(out), "hm_output_destroy")
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call test_assert(.not. c_associated(out), "hm_output_destroy must null the handle")
  call test_assert(.not. exists(discard_path) .and. .not. exists(discard_path // ".tmp"), "destroyed output left a file")
  call test_fails(hm_output_create(ctx, "no_such_dir/out.h5", out), HM_ERR_IO, "no_such_dir/out.h5.tmp", &
                  "output in a missing directory")

  call test_ok(hm_dos_destroy(dos), "hm_dos_destroy")
  call test_ok(hm_kpm_destroy(kpm), "hm_kpm_destroy")
  call test_ok(hm_matrix_destroy(H), "hm_matrix_destroy")
  call test_ok(hm_context_destroy(ctx), "hm_context_destroy")
  call test_finish("test_fortran_output")

contains

  logical function exists(path)
    character(*), intent(in) :: path
    inquire(file=path, exist=exists)
  end function exists

  ! The 8-byte HDF5 signature at offset 0 (no user block).
  logical function is_hdf5(path)
    character(*), intent(in) :: path
    character(len=8) :: head
    integer :: unit, ios
    open(newunit=unit, file=path, access="stream", form="unformatted", status="old", action="read", iostat=ios)
    is_hdf5 = .false.
    if (ios /= 0) return
    read(unit, iostat=ios) head
    close(unit)
    is_hdf5 = ios == 0 .and. head == achar(137) // "HDF" // achar(13) // achar(10) // achar(26) // achar(10)
  end function is_hdf5

  subroutine remove_file(path)
    character(*), intent(in) :: path
    integer :: unit, ios
    if (.not. exists(path)) return
    open(newunit=unit, file=path, status="old", iostat=ios)
    if (ios == 0) close(unit, status="delete")
  end subroutine remove_file
end program test_fortran_output
