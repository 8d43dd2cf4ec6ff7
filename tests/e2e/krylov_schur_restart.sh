#!/bin/bash
# outer = krylov_schur: checkpoints at its restart boundaries and `hamlet restart`, stop on SIGTERM,
# progress lines. The FEM pencil with the shift among degenerate eigenvalues needs 5 thick restarts.
# A run killed (SIGKILL) after its first checkpoint, restarted on the same 2 ranks, gives the
# uninterrupted run's eigenvalues bit for bit, and on 1 rank those of the 1- and 2-rank runs to 1e-10
# (the saved vectors carry the 2-rank reductions' rounding); a run stopped by
# SIGTERM (1 rank, and 2 ranks through mpiexec) exits 4 naming the restart and its checkpoint
# continues to the same eigenvalues; a batch log gets "restarts k/maxit ..., c/nev converged, largest
# estimate e" lines; a checkpoint whose state does not fit the deck is refused (exit 2); a LOBPCG
# checkpoint whose deck names no outer (written before auto was the default) restarts as LOBPCG.
. "$(dirname "$0")/common.sh"
need_h5py
# The cube's harmonic spectrum is degenerate (nev = 6 ends inside a multiplet above the shift): a
# single-vector Lanczos finds a multiplet's further copies only through rounding, which differs
# between rank counts; the verification from a fresh vector finds them on every rank count, checked
# against the block LOBPCG and across 1, 2 and 3 ranks and the restarts.
cat >ks.ini <<'INI'
[run]
checkpoint = ks_ckpt.h5
checkpoint_every = 1
[hamiltonian]
model = fem
ex = 10
ey = 10
ez = 10
potential = harmonic
lx = 8
ly = 8
lz = 8
[solver]
method = lobpcg
nev = 6
tol = 1e-10
maxit = 300
transform = shift_invert
shift = 20
INI
sed 's/ks_ckpt.h5/stop_ckpt.h5/' ks.ini >stop.ini
for np in 1 2 3; do
  "$MPIEXEC" -n "$np" "$HAMLET" run ks.ini -o "full$np.h5" --quiet >full.log 2>&1 || fail "uninterrupted on $np ranks: $(cat full.log)"
done
"$PYTHON" - <<'PY' || fail "the uninterrupted run is not a verified Krylov-Schur run of several restarts"
import h5py
e = h5py.File("full2.h5", "r")["/eigen"].attrs
word = lambda v: v.decode() if isinstance(v, bytes) else str(v)
print("outer", word(e["outer"]), "(asked", word(e["outer_requested"]) + "),", e["iterations"], "restarts, verified",
      word(e["verified"]), e["copies_found"], "copies found,", e["verify_solves"], "of", e["outer_solves"], "solves")
raise SystemExit(0 if word(e["outer"]) == "krylov_schur" and word(e["outer_requested"]) == "auto"
                 and e["iterations"] >= 3 and e["converged"] == 6 and word(e["verified"]) == "yes" else 1)
PY
same() { # A B RTOL: /eigen/values agree to RTOL
  "$HAMLET" compare "$1" "$2" --only /eigen/values --rtol "$3" --atol 0 >cmp.txt ||
    fail "$2 differs from $1 beyond $3: $(tail -2 cmp.txt)"
}
# the multiplets as the block LOBPCG finds them, on every rank count
sed 's/^shift = 20$/shift = 20\nouter = lobpcg/' ks.ini | grep -v "^checkpoint" >block.ini
"$MPIEXEC" -n 2 "$HAMLET" run block.ini -o block.h5 --quiet >block.log 2>&1 || fail "block LOBPCG: $(cat block.log)"
for np in 1 2 3; do same block.h5 "full$np.h5" 1e-8; done

# killed after the first checkpoint (each restart slowed by 0.5 s), restarted on 2 and on 1 rank
rm -f ks_ckpt.h5
HAMLET_TEST_STEP_DELAY_US=500000 setsid "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run ks.ini -o killed.h5 --quiet >killed.log 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -e ks_ckpt.h5 ] && break; sleep 0.1; done
sleep 0.2
kill -KILL -- -"$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -e ks_ckpt.h5 ] || fail "no checkpoint appeared before the kill: $(cat killed.log)"
[ -e killed.h5 ] && fail "the killed run finished before it was killed: slow it down more"
cp ks_ckpt.h5 ks_ckpt1.h5
cp ks_ckpt.h5 ks_ckpt_bad.h5
"$MPIEXEC" -n 2 "$HAMLET" restart ks_ckpt.h5 -o restarted2.h5 --quiet >r.log 2>&1 || fail "restart on 2 ranks: $(cat r.log)"
same full2.h5 restarted2.h5 0
"$PYTHON" -c "import h5py, sys
a, b = (h5py.File(x, 'r')['/eigen'].attrs for x in ('full2.h5', 'restarted2.h5'))
print('outer_solves', a['outer_solves'], b['outer_solves'], 'inner_solves', a['inner_solves'], b['inner_solves'])
sys.exit(int(not (a['outer_solves'] == b['outer_solves'] and b['inner_solves'] < a['inner_solves'])))" ||
  fail "the restarted run's outer_solves differ from the uninterrupted run's, or inner_solves counts the saved ones"
"$MPIEXEC" -n 1 "$HAMLET" restart ks_ckpt1.h5 -o restarted1.h5 --quiet >r.log 2>&1 || fail "restart on 1 rank: $(cat r.log)"
same full1.h5 restarted1.h5 1e-10
same full2.h5 restarted1.h5 1e-10

# SIGTERM: exit 4, the restart named, a checkpoint that continues to the same eigenvalues
stop_mid() { # RANKS: SIGTERM to the program (1 rank) or to mpiexec (2 ranks) once it checkpointed restart 1
  rm -f stop_ckpt.h5 stopped.h5 stop_restarted.h5
  local launch=("$MPIEXEC" -n "$1") code=0
  [ "$1" -eq 1 ] && launch=() # a singleton: Hydra's mpiexec -n 1 may report 0 for a child that exited 4
  HAMLET_TEST_STEP_DELAY_US=500000 setsid "${launch[@]}" "$HAMLET_TESTHOOKS" run stop.ini -o stopped.h5 --quiet \
    >stop.log 2>&1 &
  local pid=$!
  # a fixed delay raced the start of 2 ranks on a loaded machine (mpiexec killed before its ranks
  # ran: exit 15); the first checkpoint shows the solve running with its handlers in place
  for _ in $(seq 1 600); do [ -e stop_ckpt.h5 ] && break; sleep 0.1; done
  sleep 0.2
  kill -TERM "$pid"
  wait "$pid" || code=$?
  # Hydra's mpiexec, signalled itself, reports 0 now and then although its ranks exit 4
  [ "$code" -eq 4 ] || { [ "$1" -eq 2 ] && [ "$code" -eq 0 ]; } || fail "SIGTERM on $1 ranks: exit $code: $(cat stop.log)"
  grep -q "stopped by SIGTERM at restart [0-9]* of at most 300; continue with: hamlet restart stop_ckpt.h5" stop.log ||
    fail "SIGTERM on $1 ranks: no 'stopped by SIGTERM at restart' message: $(cat stop.log)"
  [ -e stop_ckpt.h5 ] || fail "SIGTERM on $1 ranks: no checkpoint"
  [ -e stopped.h5 ] && fail "SIGTERM on $1 ranks: the run finished before the signal: slow it down more"
  "$MPIEXEC" -n "$1" "$HAMLET" restart stop_ckpt.h5 -o stop_restarted.h5 --quiet >r.log 2>&1 ||
    fail "restart after SIGTERM on $1 ranks: $(cat r.log)"
  same "full$1.h5" stop_restarted.h5 0
}
stop_mid 1
stop_mid 2

# progress in a batch log: one line per restart (progress_seconds below a restart's duration)
sed 's/^\[run\]$/[run]\nprogress_seconds = 0.01/' stop.ini >progress.ini
HAMLET_TEST_STEP_DELAY_US=50000 "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run progress.ini -o progress.h5 >progress_out.log \
  2>progress.log || fail "progress run: $(cat progress_out.log progress.log)"
"$PYTHON" - progress.log <<'PY' || fail "progress lines: $(cat progress.log)"
import re, sys
pat = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ hamlet: restarts (\d+)/300 \([\d.]+%\), [\d.e+-]+ restarts/s, "
                 r"ETA \d+ s, (\d)/6 converged, largest estimate ([\d.e+-]+)$")
got = [pat.match(line) for line in open(sys.argv[1])]
got = [(int(m[1]), int(m[2]), float(m[3])) for m in got if m]
print(got)
assert len(got) >= 3, "a line per restart after the first"
assert [g[0] for g in got] == sorted(set(g[0] for g in got)), "restart counts must rise"
assert got[-1][1] == 6 and got[-1][2] <= 1e-10, "the last line: all 6 converged, estimate within tol"
assert got[0][2] > 1e-10, "the first line: an estimate above tol"
PY

# a checkpoint whose state does not fit its deck (the deck text edited to nev = 5): refused, exit 2
"$PYTHON" - <<'PY' || fail "could not alter the checkpoint"
import h5py, numpy as np
with h5py.File("ks_ckpt_bad.h5", "r+") as f:
    text = f["input"][()]
    text = text.decode() if isinstance(text, bytes) else str(text)
    assert "nev = 6" in text
    del f["input"]
    f["input"] = np.bytes_(text.replace("nev = 6", "nev = 5").encode())
PY
rc=0
"$MPIEXEC" -n 2 "$HAMLET" restart ks_ckpt_bad.h5 -o bad.h5 --quiet >bad.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "a checkpoint of another nev: exit $rc, want 2: $(cat bad.log)"
grep -q "refused.*Krylov-Schur state has n = 729, nev = 6, ncv = 21, keep = 13; this run has n = 729, nev = 5" bad.log ||
  fail "a checkpoint of another nev: no message naming both states: $(cat bad.log)"
[ -e bad.h5 ] && fail "a refused restart wrote a result"

# a LOBPCG shift-and-invert checkpoint of a deck without `outer` (as written before outer = auto): the
# restart continues LOBPCG (outer = lobpcg, outer_requested = auto) to the uninterrupted LOBPCG values
cat >lob3.ini <<'INI'
[run]
checkpoint = lob_ckpt.h5
checkpoint_every = 1
[hamiltonian]
model = fem
ex = 8
ey = 8
ez = 8
potential = harmonic
lx = 8
ly = 7
lz = 6
[solver]
method = lobpcg
nev = 4
tol = 1e-9
maxit = 3
transform = shift_invert
shift = 0
outer = lobpcg
INI
sed 's/^maxit = 3$/maxit = 300/' lob3.ini >lob.ini
"$MPIEXEC" -n 2 "$HAMLET" run lob.ini -o lob_full.h5 --quiet >lob.log 2>&1 || fail "lobpcg uninterrupted: $(cat lob.log)"
rc=0
"$MPIEXEC" -n 2 "$HAMLET" run lob3.ini -o lob3.h5 --quiet >lob3.log 2>&1 || rc=$?
[ "$rc" -eq 3 ] && [ -e lob_ckpt.h5 ] || fail "lobpcg, maxit 3: exit $rc, checkpoint? $(cat lob3.log)"
"$PYTHON" - <<'PY' || fail "could not make the old-style checkpoint"
import h5py, numpy as np
with h5py.File("lob_ckpt.h5", "r+") as f:
    text = f["input"][()]
    text = text.decode() if isinstance(text, bytes) else str(text)
    text = text.replace("outer = lobpcg\n", "").replace("maxit = 3\n", "maxit = 300\n")
    del f["input"]
    f["input"] = np.bytes_(text.encode())
PY
"$MPIEXEC" -n 2 "$HAMLET" restart lob_ckpt.h5 -o lob_restarted.h5 --quiet >r.log 2>&1 || fail "lobpcg restart: $(cat r.log)"
same lob_full.h5 lob_restarted.h5 1e-10
"$PYTHON" - <<'PY' || fail "the old LOBPCG checkpoint did not restart as LOBPCG"
import h5py
e = h5py.File("lob_restarted.h5", "r")["/eigen"].attrs
word = lambda v: v.decode() if isinstance(v, bytes) else str(v)
print("restarted:", word(e["outer"]), "asked", word(e["outer_requested"]))
raise SystemExit(0 if (word(e["outer"]), word(e["outer_requested"])) == ("lobpcg", "auto") else 1)
PY
finish
