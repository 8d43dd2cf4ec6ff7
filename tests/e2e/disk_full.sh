# shellcheck shell=bash
# A write beyond the file size limit ends the run on every rank with exit 1, a message naming the
# file and the system's reason, no .tmp left, and the previous checkpoint and output intact; no rank
# is left waiting in a collective (each run has a time limit). The size limit (ulimit -f, SIGXFSZ
# ignored) needs no root. With the argument "tmpfs" (e2e_disk_full_tmpfs), a full disk instead: a
# small tmpfs, which needs root and a machine that lets it mount one: skipped (77, said in the log)
# where it cannot, failed then where HAMLET_TEST_REQUIRE names tmpfs.
# shellcheck disable=SC1091 # common.sh is checked on its own
. "$(dirname "$0")/common.sh"
limited() { # limited KIB command...: the run under a file size limit, ended after 120 s
  local kib=$1; shift
  (trap '' XFSZ; ulimit -f "$kib"; timeout 120 "$@")
}
checks_failed_write() { # LOG FILE REASON
  grep -qF "cannot write '$2': $3" "$1" || fail "the message lacks \"cannot write '$2': $3\": $(cat "$1")"
  if ! grep -qF "rank 0 failed" "$1" || ! grep -qF "rank 1 failed" "$1"; then fail "not every rank said it failed: $(cat "$1")"; fi
  [ -e "$2" ] && fail "$2 was left behind"
}
# A checkpoint of about 16 MiB (two complex blocks of 131072 x 4), written every 8 moment pairs.
cat > big.ini <<'INI'
[run]
output = run.h5
checkpoint = ckpt.h5
checkpoint_every = 8
[hamiltonian]
model = ti
nx = 32
ny = 32
nz = 32
[kpm]
moments = 64
vectors = 4
bounds = gershgorin
INI
if [ "${1:-}" = tmpfs ]; then
  # A full disk: 30 MiB hold the first checkpoint (16 MiB) but not its successor's .tmp beside it.
  need_h5py
  mkdir fs
  need tmpfs "no tmpfs could be mounted here" mount -t tmpfs -o size=30m hamlet-e2e "$WORK/fs"
  trap 'umount "$WORK/fs"; rm -rf "$WORK"' EXIT
  run2 run big.ini --quiet >first.log 2>&1 || fail "the run without a limit: $(cat first.log)"
  sed -e 's/^output = run.h5$/output = fs\/run.h5/' -e 's/^checkpoint = ckpt.h5$/checkpoint = fs\/ckpt.h5/' \
      -e 's/^checkpoint_every = 8$/checkpoint_every = 4/' big.ini > full.ini
  timeout 120 "$MPIEXEC" -n 2 "$HAMLET" run full.ini --quiet >full.log 2>&1
  code=$?
  [ "$code" -eq 1 ] || fail "a checkpoint on a full disk exited $code, expected 1: $(cat full.log)"
  checks_failed_write full.log fs/ckpt.h5.tmp "No space left on device"
  [ -s fs/ckpt.h5 ] || fail "no previous checkpoint on the full disk: the disk did not fill where expected"
  # Whole means readable to the last byte: every dataset read back through its checksum.
  "$PYTHON" -c "import h5py, sys
f = h5py.File(sys.argv[1], 'r')
f.visititems(lambda n, o: o[()] if isinstance(o, h5py.Dataset) else None)
assert 'v_curr' in f" fs/ckpt.h5 >ls.log 2>&1 || fail "the previous checkpoint is not whole: $(cat ls.log)"
  finish
fi
run2 run big.ini --quiet >first.log 2>&1 || fail "the run without a limit: $(cat first.log)"
sums=$(md5sum run.h5 ckpt.h5)
# 8000 KiB: MPI's shared memory still fits, the first checkpoint vector does not.
limited 8000 "$MPIEXEC" -n 2 "$HAMLET" run big.ini --quiet >limit.log 2>&1
code=$?
[ "$code" -eq 1 ] || fail "a checkpoint beyond the file size limit exited $code, expected 1: $(cat limit.log)"
checks_failed_write limit.log ckpt.h5.tmp "File too large"
[ "$(md5sum run.h5 ckpt.h5)" = "$sums" ] || fail "the previous checkpoint or output changed"
# The result file itself: 1.5 million DOS energies (12 MiB) beyond the limit; the old result stays.
printf '[run]\noutput = dos.h5\n[hamiltonian]\nmodel = ti\nnx = 4\nny = 4\nnz = 4\n[kpm]\nmoments = 16\nvectors = 1\nenergies = 1500000\nemin = -5\nemax = 5\n' > dos.ini
echo previous > dos.h5
limited 8000 "$MPIEXEC" -n 2 "$HAMLET" run dos.ini --quiet >dos.log 2>&1
code=$?
[ "$code" -eq 1 ] || fail "an output beyond the file size limit exited $code, expected 1: $(cat dos.log)"
checks_failed_write dos.log dos.h5.tmp "File too large"
[ "$(cat dos.h5)" = previous ] || fail "the previous output was replaced"
finish
