# Batch jobs: progress lines in a log that is not a terminal, peak memory in the summary and in
# /memory, OpenMP threads from each rank's CPU set (taskset) with the binding printed.
. "$(dirname "$0")/common.sh"
need_h5py
cat > deck.ini <<'INI'
[run]
output = out.h5
progress_seconds = 0.05
backend = cpu
[hamiltonian]
model = ti
nx = 8
ny = 8
nz = 6
[kpm]
moments = 1024
vectors = 2
INI

# 1. stderr to a file: timestamped lines "moments done/total (percent%), rate moments/s, ETA s".
# Each of the 512 steps slowed by 1 ms (the test build), so the run lasts several intervals on any machine.
HAMLET_TEST_STEP_DELAY_US=1000 "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run deck.ini >run.log 2>progress.log ||
  fail "progress run: $(cat run.log progress.log)"
"$PYTHON" - progress.log <<'PY' || fail "progress lines: $(head -5 progress.log)"
import re, sys
line = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) hamlet: moments (\d+)/1024 \(([\d.]+)%\), "
                  r"([\d.e+]+) moments/s, ETA (\d+) s$")
rows = [l.rstrip("\n") for l in open(sys.argv[1])]
got = [line.match(r) for r in rows]
bad = [r for r, m in zip(rows, got) if not m]
assert not bad, f"lines not in the batch format: {bad[:3]}"
assert len(got) >= 2, f"{len(got)} progress lines; a run of several 0.05 s intervals gives more"
done = [int(m[2]) for m in got]
assert done == sorted(done) and len(set(done)) == len(done), f"done does not increase: {done}"
assert all(0 < d <= 1024 for d in done), done
for m in got:
    assert abs(float(m[3]) - 100.0 * int(m[2]) / 1024) <= 0.051, f"percent {m[3]} for {m[2]}/1024"
    assert float(m[4]) > 0, "rate must be positive"
print(f"{len(got)} progress lines, {done[0]} .. {done[-1]} moments")
PY
grep -q '\r' progress.log && fail "terminal redraws (carriage returns) in a batch log"

# 2. progress_seconds = 0, and --quiet: no progress lines.
# (the runs below need no length: 64 moments)
sed -e 's/^progress_seconds = 0.05$/progress_seconds = 0/' -e 's/^moments = 1024$/moments = 64/' deck.ini > off.ini
run2 run off.ini -o off.h5 >off.log 2>off.err || fail "progress_seconds = 0: $(cat off.err)"
[ -s off.err ] && fail "progress_seconds = 0 still wrote: $(head -3 off.err)"
run2 run deck.ini -o quiet.h5 --quiet >quiet.log 2>quiet.err || fail "--quiet: $(cat quiet.err)"
[ -s quiet.err ] && fail "--quiet still wrote: $(head -3 quiet.err)"

# 3. a bad value: exit 2 and a message naming the key and what is allowed.
sed 's/^progress_seconds = 0.05$/progress_seconds = -1/' deck.ini > bad.ini
run2 run bad.ini -o bad.h5 >bad.log 2>&1
code=$?
[ "$code" -eq 2 ] || fail "progress_seconds = -1 exits $code, expected 2"
grep -q "progress_seconds" bad.log || fail "the message does not name progress_seconds: $(cat bad.log)"
[ -e bad.h5 ] && fail "a rejected deck wrote its output"

# 4. peak memory: the summary line and /memory (bytes; min <= max; 0 device bytes on CPU ranks).
grep -Eq '^  memory       host peak [0-9.]+ to [0-9.]+ MiB per rank$' run.log || fail "no memory line: $(cat run.log)"
"$PYTHON" - out.h5 run.log <<'PY' || fail "/memory"
import h5py, re, sys
g = h5py.File(sys.argv[1], "r")["memory"]
v = {k: float(g[k][()]) for k in ("host_peak_min", "host_peak_max", "device_peak_min", "device_peak_max")}
assert all(g[k].attrs["unit"] in (b"bytes", "bytes") for k in v), "unit must be bytes"
assert 4 * 2**20 < v["host_peak_min"] <= v["host_peak_max"] < 64 * 2**30, v
assert v["device_peak_min"] == 0 and v["device_peak_max"] == 0, f"CPU ranks allocate no device memory: {v}"
lo, hi = map(float, re.search(r"host peak ([\d.]+) to ([\d.]+) MiB", open(sys.argv[2]).read()).groups())
assert abs(lo - v["host_peak_min"] / 2**20) < 0.051 and abs(hi - v["host_peak_max"] / 2**20) < 0.051, (lo, hi, v)
PY
# The same figure from outside: GNU time's maximum resident set of a one-rank run bounds it.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o time.txt "$HAMLET" run off.ini -o one.h5 --quiet >one.log 2>&1 || fail "one rank: $(cat one.log)"
  "$PYTHON" - one.h5 time.txt <<'PY' || fail "/memory against GNU time: $(cat time.txt)"
import h5py, sys
mine = float(h5py.File(sys.argv[1], "r")["memory/host_peak_max"][()])
outside = float(open(sys.argv[2]).read().split()[-1]) * 1024
# the kernel counts resident pages per thread and adds them up lazily (up to 64 pages a thread), so
# the two readings of one high-water mark differ by a few hundred kB either way
assert 0.5 * outside <= mine <= outside * 1.001 + 2**20, f"hamlet says {mine:.0f} B, GNU time {outside:.0f} B"
PY
fi

# 5. threads per rank from the CPU set, without OMP_NUM_THREADS.
cpus=$(nproc --all)
binding() { grep "binding      rank $1 " "$2" | head -1; }
env -u OMP_NUM_THREADS taskset -c 0 "$MPIEXEC" -n 1 "$HAMLET" run off.ini -o t1.h5 >t1.log 2>&1 || fail "taskset 0: $(cat t1.log)"
binding 0 t1.log | grep -q 'cpus 0 (1), 1 thread$' || fail "one CPU: $(binding 0 t1.log)"
env OMP_NUM_THREADS=3 "$MPIEXEC" -n 1 "$HAMLET" run off.ini -o t3.h5 >t3.log 2>&1 || fail "OMP_NUM_THREADS=3: $(cat t3.log)"
binding 0 t3.log | grep -q ', 3 threads$' || fail "OMP_NUM_THREADS=3 is not kept: $(binding 0 t3.log)"
if [ "$cpus" -ge 2 ]; then
  # rank 0 bound to CPUs 0-1, rank 1 to CPU 1: rank 0 has a set of its own and takes 2 threads
  # (the old rule divided its 2 CPUs by the 2 ranks of the node).
  # shellcheck disable=SC2016 # expanded by the rank's shell
  env -u OMP_NUM_THREADS "$MPIEXEC" -n 2 sh -c 'if [ "$PMI_RANK" = 0 ]; then exec taskset -c 0,1 "$@"; else exec taskset -c 1 "$@"; fi' \
    rank "$HAMLET" run off.ini -o t2.h5 >t2.log 2>&1 || fail "bound ranks: $(cat t2.log)"
  binding 0 t2.log | grep -q 'cpus 0-1 (2), 2 threads$' || fail "rank 0 bound to 0-1: $(binding 0 t2.log)"
  binding 1 t2.log | grep -q 'cpus 1 (1), 1 thread$' || fail "rank 1 bound to 1: $(binding 1 t2.log)"
  # both ranks on the same two CPUs (no binding): they share them, one thread each.
  env -u OMP_NUM_THREADS taskset -c 0,1 "$MPIEXEC" -n 2 "$HAMLET" run off.ini -o ts.h5 >ts.log 2>&1 || fail "shared: $(cat ts.log)"
  for r in 0 1; do
    binding $r ts.log | grep -q 'cpus 0-1 (2), 1 thread, set shared by ranks$' || fail "shared set, rank $r: $(binding $r ts.log)"
  done
  "$PYTHON" -c "import h5py,sys; t=int(h5py.File('t2.h5','r')['provenance'].attrs['threads']); sys.exit(0 if t == 2 else 1)" ||
    fail "/provenance threads is not rank 0's 2"
fi
finish
