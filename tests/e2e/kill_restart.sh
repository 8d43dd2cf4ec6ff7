# A run killed with SIGKILL mid-way restarts from its last checkpoint and reaches the same
# moments and DOS as an uninterrupted run (to rounding, on the same and on another rank count).
. "$(dirname "$0")/common.sh"
need_h5py
cat > deck.ini <<'INI'
[run]
output = run.h5
checkpoint = ckpt.h5
checkpoint_every = 10
[hamiltonian]
model = ti
nx = 10
ny = 10
nz = 6
boundary = periodic periodic open
potential = disorder
disorder_w = 1.0
[kpm]
moments = 400
vectors = 4
INI
run2 run deck.ini -o full.h5 --quiet >full.log 2>&1 || fail "uninterrupted run: $(cat full.log)"
rm -f ckpt.h5
# Slow each step down so the kill lands between checkpoints, in its own process group.
HAMLET_TEST_STEP_DELAY_US=20000 setsid "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run deck.ini --quiet >killed.log 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -e ckpt.h5 ] && break; sleep 0.1; done
sleep 0.5
kill -KILL -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
[ -e ckpt.h5 ] || fail "no checkpoint appeared before the kill"
[ -e run.h5 ] && fail "the killed run finished before it was killed: slow it down more"
done_at=$("$PYTHON" -c "import h5py; f=h5py.File('ckpt.h5','r'); print(int(f.attrs['moments_done'] if 'moments_done' in f.attrs else f['moments_done'][()]))" 2>/dev/null)
echo "checkpoint at moment $done_at of 400"
[ -n "$done_at" ] && [ "$done_at" -lt 400 ] || fail "checkpoint is not mid-way ($done_at)"
cp ckpt.h5 ckpt1.h5
run2 restart ckpt.h5 -o restarted.h5 --quiet >restart.log 2>&1 || fail "restart: $(cat restart.log)"
# The restored sums sit on rank 0, so moments agree to rounding (~1e-17 absolute); the DOS
# multiplies them by N and sums M terms, hence the looser tolerance on the whole file.
moments_close() { # moments_close A B ATOL
  "$PYTHON" -c "import h5py, numpy as np, sys
a, b = (h5py.File(x, 'r')['/kpm/moments_per_vector'][:] for x in sys.argv[1:3])
d = np.abs(a - b).max(); print('moments differ by at most', d); sys.exit(int(d > float(sys.argv[3])))" "$@"
}
moments_close full.h5 restarted.h5 1e-15 || fail "restarted moments differ beyond rounding"
"$HAMLET" compare full.h5 restarted.h5 --rtol 1e-9 --atol 1e-11 >cmp.txt || fail "restart differs: $(cat cmp.txt)"
"$MPIEXEC" -n 1 "$HAMLET" restart ckpt1.h5 -o restarted1.h5 --quiet >restart1.log 2>&1 || fail "restart on 1 rank: $(cat restart1.log)"
moments_close full.h5 restarted1.h5 1e-13 || fail "1-rank restarted moments differ beyond rounding"
"$HAMLET" compare full.h5 restarted1.h5 --rtol 1e-6 --atol 1e-8 >cmp1.txt || fail "1-rank restart differs: $(cat cmp1.txt)"
# Time-based checkpoints: every 0.25 s of a run slowed to about 1 s.
sed -e 's/^checkpoint_every = 10$/checkpoint_seconds = 0.25/' -e 's/^checkpoint = ckpt.h5$/checkpoint = timed.h5/' deck.ini > timed.ini
HAMLET_TEST_STEP_DELAY_US=5000 "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run timed.ini -o timed_run.h5 >timed.log 2>&1 || fail "timed run: $(cat timed.log)"
written=$(sed -n 's/.*checkpoints *\([0-9]*\) written.*/\1/p' timed.log)
[ -n "$written" ] && [ "$written" -ge 2 ] && [ -e timed.h5 ] || fail "time-based checkpoints: '$written' written: $(cat timed.log)"
finish
