# Conductivity checkpoints and `hamlet restart` (chunk granularity): the restart from the last
# checkpoint of an uninterrupted run (mid start vector) ends bitwise equal to that run, exact and
# random trace, 1 and 2 ranks; SIGTERM stops a slowed run with exit 4 and a checkpoint whose
# restart is bitwise equal too; a checkpoint of another Hamiltonian (edited /input) or of other
# moment sizes is refused with exit 2.
. "$(dirname "$0")/common.sh"
need_h5py
cat >exact.ini <<'INI'
[run]
checkpoint = exact_ckpt.h5
checkpoint_every = 10
[hamiltonian]
model = ti
nx = 4
ny = 4
nz = 2
boundary = periodic periodic open
potential = disorder
disorder_w = 1.0
[solver]
method = conductivity
[kpm]
trace = exact
[conductivity]
components = xx xy
energies = -2 2 9
moments = 16
chunk = 4
INI
# 3 vectors x 8 chunks: the last checkpoint (chunk 21 in blocks of 1 on the CPU, 6 in one block of 3
# on a GPU) is inside a start vector
cat >random.ini <<'INI'
[run]
checkpoint = random_ckpt.h5
checkpoint_every = 3
[hamiltonian]
model = ti
nx = 6
ny = 6
nz = 3
boundary = periodic periodic open
potential = disorder
disorder_w = 1.0
[solver]
method = conductivity
[conductivity]
components = xx xy yx
energies = -2 2 9
temperatures = 0 0.1
moments = 32
vectors = 3
chunk = 4
INI
# bitwise CASE NPROCS: run, restart from the run's last checkpoint, compare with zero tolerance.
bitwise() {
  local c=$1 n=$2
  rm -f "${c}_ckpt.h5"
  "$MPIEXEC" -n "$n" "$HAMLET" run "$c.ini" -o "${c}_full$n.h5" --quiet >"$c.log" 2>&1 || fail "$c on $n: $(cat "$c.log")"
  [ -e "${c}_ckpt.h5" ] || { fail "$c on $n ranks wrote no checkpoint"; return; }
  cp "${c}_ckpt.h5" "${c}_saved$n.h5"
  "$MPIEXEC" -n "$n" "$HAMLET" restart "${c}_saved$n.h5" -o "${c}_re$n.h5" --quiet >"$c.log" 2>&1 ||
    fail "$c restart on $n: $(cat "$c.log")"
  "$HAMLET" compare "${c}_full$n.h5" "${c}_re$n.h5" --rtol 0 --atol 0 --only /conductivity >cmp.txt 2>&1 ||
    fail "$c on $n ranks: the restart is not bitwise: $(cat cmp.txt)"
}
for c in exact random; do for n in 1 2; do bitwise "$c" "$n"; done; done
"$PYTHON" - random_saved2.h5 <<'PY' || fail "the random checkpoint is not inside a start vector"
import sys, h5py
v = h5py.File(sys.argv[1], "r")["scalars"][:]
# start vectors done, chunks done, block, chunk: blocks of 1 (host backend) or 3 (a GPU: all 3 vectors)
assert tuple(v[6:10]) in ((2, 5, 1, 4), (0, 6, 3, 4)), v[6:10]
PY

# SIGTERM to every rank of a slowed 2-rank run: exit 4, the message, a checkpoint; the restart is bitwise.
ranks_of() {
  local proxy
  for proxy in $(pgrep -P "$1"); do pgrep -P "$proxy"; done
}
rm -f random_ckpt.h5 step.done
HAMLET_TEST_STEP_FILE=step.done HAMLET_TEST_STEP_DELAY_US=500000 setsid "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run random.ini -o stopped.h5 --quiet \
  >stop.log 2>&1 &
pid=$!
code=0
wait_step step.done "$pid"
# shellcheck disable=SC2046 # one pid per word
kill -TERM $(ranks_of "$pid")
wait "$pid" || code=$?
[ "$code" -eq 4 ] || fail "SIGTERM: exit $code, want 4: $(cat stop.log)"
grep -q "stopped by SIGTERM after .* start vectors; continue with: hamlet restart random_ckpt.h5" stop.log ||
  fail "no 'stopped by SIGTERM ... continue with' message: $(cat stop.log)"
[ -e stopped.h5 ] && fail "the run finished before the signal: slow it down more"
"$MPIEXEC" -n 2 "$HAMLET" restart random_ckpt.h5 -o stop_re.h5 --quiet >restart.log 2>&1 ||
  fail "restart after SIGTERM: $(cat restart.log)"
"$HAMLET" compare random_full2.h5 stop_re.h5 --rtol 0 --atol 0 --only /conductivity >cmp.txt 2>&1 ||
  fail "the restart after SIGTERM is not bitwise: $(cat cmp.txt)"

# refused CKPT PATTERN: a restart of CKPT exits 2 naming PATTERN and writes nothing.
refused() {
  local code=0
  "$MPIEXEC" -n 2 "$HAMLET" restart "$1" -o refused.h5 --quiet >refused.log 2>&1 || code=$?
  [ "$code" -eq 2 ] || fail "$1: exit $code, want 2 naming '$2': $(cat refused.log)"
  grep -q "$2" refused.log || fail "$1: the refusal does not name '$2': $(cat refused.log)"
  [ -e refused.h5 ] && fail "$1: a refused restart wrote its output"
  rm -f refused.h5
}
edit() { # edit FILE OLD NEW: the deck text stored in the checkpoint
  "$PYTHON" -c "import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], 'r+'); t = f['input'][()].decode()
assert sys.argv[2] in t, 'no ' + sys.argv[2]
del f['input']; f['input'] = np.bytes_(t.replace(sys.argv[2], sys.argv[3]))" "$@"
}
cp random_saved2.h5 other_ham.h5 && edit other_ham.h5 "disorder_w = 1.0" "disorder_w = 1.5"
refused other_ham.h5 "belongs to another Hamiltonian"
cp random_saved2.h5 other_m.h5 && edit other_m.h5 "moments = 32" "moments = 16"
refused other_m.h5 "not the 16 x 16 moments"
cp random_saved2.h5 other_r.h5 && edit other_r.h5 "vectors = 3" "vectors = 4"
refused other_r.h5 "and 4 start vectors"
finish
