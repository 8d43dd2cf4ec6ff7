# Scheduler signals and the walltime: SIGTERM sent to mpiexec only (Hydra forwards it) or to every
# process stops KPM, LOBPCG, IDR(s), Green's-function and ChebFD (interior) runs at a step boundary
# with exit 4 and a checkpoint; `hamlet restart` then reaches the uninterrupted result (bitwise where
# the method restarts bitwise: Green's functions, interior on the same ranks; else the restart tolerance of kill_restart*.sh). A walltime
# shorter than the run stops it the same way; dense refuses checkpoint keys (exit 2).
. "$(dirname "$0")/common.sh"
need_h5py
cat > kpm.ini <<'INI'
[run]
checkpoint = kpm_ckpt.h5
[hamiltonian]
model = ti
nx = 12
ny = 12
nz = 8
boundary = periodic periodic open
[kpm]
moments = 200
vectors = 4
INI
cat > lobpcg.ini <<'INI'
[run]
checkpoint = lobpcg_ckpt.h5
[hamiltonian]
model = fem
ex = 8
ey = 8
ez = 8
potential = harmonic
lx = 8
ly = 8
lz = 8
[solver]
method = lobpcg
nev = 3
tol = 1e-9
maxit = 400
INI
cat > idr.ini <<'INI'
[run]
checkpoint = idr_ckpt.h5
checkpoint_every = 1
[hamiltonian]
model = convdiff
n = 12
beta_x = 20
beta_y = 40
beta_z = 80
[solver]
method = idr
s = 2
tol = 1e-10
maxit = 3000
vectors = yes
INI
cat > green.ini <<'INI'
[run]
checkpoint = green_ckpt.h5
[hamiltonian]
model = ti
nx = 6
ny = 6
nz = 6
boundary = periodic periodic open
[solver]
method = idr
problem = green
s = 4
tol = 1e-8
maxit = 4000
[green]
energies = -0.5 0.5 12
eta = 0.1
sites = 3 3 0
INI
cat > interior.ini <<'INI'
[run]
checkpoint = interior_ckpt.h5
[hamiltonian]
model = ti
nx = 6
ny = 6
nz = 6
boundary = periodic periodic open
[solver]
method = interior
[interior]
window = 0.3 1.2
INI
# ranks_of PID: the hamlet processes started as PID (itself alone, or mpiexec's proxies' children).
ranks_of() {
  local proxy children
  children=$(pgrep -P "$1")
  [ -z "$children" ] && { echo "$1"; return; }
  for proxy in $children; do pgrep -P "$proxy"; done
}
# stop_mid NAME RANKS TARGET DELAY_US: run slowed, SIGTERM once a step is done to the launched process
# (TARGET = mpiexec: mpiexec on 2 ranks) or to every process (TARGET = all); expect exit 4, the
# message and the checkpoint.
stop_mid() {
  rm -f "$1_ckpt.h5" stopped.h5 step.done
  # On 1 rank the program runs alone (an MPI singleton): Hydra's mpiexec -n 1 reports exit 0 for a
  # child that exited 4 after a forwarded SIGTERM (seen with MPICH 4.0), which would hide the code.
  local launch=("$MPIEXEC" -n "$2")
  [ "$2" -eq 1 ] && launch=()
  HAMLET_TEST_STEP_FILE=step.done HAMLET_TEST_STEP_DELAY_US=$4 setsid "${launch[@]}" "$HAMLET_TESTHOOKS" run "$1.ini" -o stopped.h5 --quiet \
    >"$1.log" 2>&1 &
  local pid=$! code=0
  wait_step step.done "$pid"
  # all: every rank gets it (not mpiexec), as srun signals its tasks.
  # shellcheck disable=SC2046 # one pid per word
  if [ "$3" = all ]; then kill -TERM $(ranks_of "$pid"); else kill -TERM "$pid"; fi
  wait "$pid" || code=$?
  # Hydra 4.0's mpiexec, signalled itself, reports 0 now and then although its ranks exit 4 (the
  # message below is still checked); where only the ranks get the signal, 4 is required.
  [ "$code" -eq 4 ] || { [ "$3" = mpiexec ] && [ "$code" -eq 0 ]; } || fail "$1 ($2 ranks, SIGTERM to $3): exit $code, want 4: $(cat "$1.log")"
  grep -q "stopped by SIGTERM .*; continue with: hamlet restart $1_ckpt.h5" "$1.log" ||
    fail "$1: no 'stopped by SIGTERM ... continue with' message: $(cat "$1.log")"
  [ -e "$1_ckpt.h5" ] || fail "$1: no checkpoint after the stop"
  [ -e stopped.h5 ] && fail "$1: the run finished before the signal: slow it down more"
}
# restart_same NAME RANKS COMPARE-ARGS...: the restart equals the uninterrupted run.
restart_same() {
  local name=$1 ranks=$2
  shift 2
  "$MPIEXEC" -n "$ranks" "$HAMLET" restart "${name}_ckpt.h5" -o "${name}_restarted.h5" --quiet >restart.log 2>&1 ||
    fail "$name: restart: $(cat restart.log)"
  "$HAMLET" compare "${name}_full.h5" "${name}_restarted.h5" "$@" >cmp.txt ||
    fail "$name: the restart differs from the uninterrupted run: $(tail -3 cmp.txt)"
}
for m in kpm lobpcg idr green interior; do
  "$MPIEXEC" -n 2 "$HAMLET" run "$m.ini" -o "${m}_full.h5" --quiet >full.log 2>&1 || fail "$m uninterrupted: $(cat full.log)"
  [ "$m" = kpm ] || "$MPIEXEC" -n 1 "$HAMLET" run "$m.ini" -o "${m}_full1.h5" --quiet >full.log 2>&1 ||
    fail "$m uninterrupted on 1 rank: $(cat full.log)"
done
stop_mid kpm 2 mpiexec 30000
restart_same kpm 2 --rtol 1e-9 --atol 1e-11
stop_mid kpm 1 all 30000
restart_same kpm 1 --rtol 1e-6 --atol 1e-8
stop_mid lobpcg 2 all 100000
restart_same lobpcg 2 --only /eigen/values --rtol 1e-10 --atol 0
stop_mid lobpcg 1 mpiexec 100000
restart_same lobpcg 1 --only /eigen/values --rtol 1e-10 --atol 0
stop_mid idr 2 mpiexec 100000
restart_same idr 2 --only /solution/x --rtol 1e-7 --atol 1e-12
stop_mid idr 1 all 100000
restart_same idr 1 --only /solution/x --rtol 1e-7 --atol 1e-12
stop_mid green 2 all 1000000
restart_same green 2 --only /green,/ldos --rtol 0 --atol 0
stop_mid green 1 mpiexec 1000000
mv green_full1.h5 green_full.h5
restart_same green 1 --only /green,/ldos --rtol 0 --atol 0
stop_mid interior 2 all 1000000
restart_same interior 2 --only /eigen/values,/eigen/residuals --rtol 0 --atol 0

# The walltime: 2 s for a run slowed to about 20 s stops with exit 4 and a checkpoint.
sed 's/^checkpoint = kpm_ckpt.h5$/checkpoint = kpm_ckpt.h5\nwalltime = 00:00:03/' kpm.ini >wall.ini
rm -f kpm_ckpt.h5
code=0
HAMLET_TEST_STEP_DELAY_US=100000 "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run wall.ini -o wall.h5 --quiet >wall.log 2>&1 ||
  code=$?
if ! { [ "$code" -eq 4 ] && grep -q "stopped by the walltime" wall.log && [ -e kpm_ckpt.h5 ] && [ ! -e wall.h5 ]; }; then
  fail "walltime: exit $code, want 4 with a checkpoint and no output: $(cat wall.log)"
fi
# SLURM_JOB_END_TIME 3 s ahead does the same.
rm -f kpm_ckpt.h5
code=0
SLURM_JOB_END_TIME=$(($(date +%s) + 3)) HAMLET_TEST_STEP_DELAY_US=100000 "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run \
  kpm.ini -o wall.h5 --quiet >slurm.log 2>&1 || code=$?
if ! { [ "$code" -eq 4 ] && grep -q "stopped by the walltime" slurm.log && [ -e kpm_ckpt.h5 ]; }; then
  fail "SLURM_JOB_END_TIME: exit $code, want 4 with a checkpoint: $(cat slurm.log)"
fi

# Bad walltimes and checkpoint keys for dense: exit 2 with the key named.
bad_deck() { # bad_deck TEXT-TO-ADD-TO-[run] BASE NEEDLE
  sed "s/^\\[run\\]\$/[run]\\n$1/" "$2" >bad.ini
  local code=0
  "$MPIEXEC" -n 2 "$HAMLET" run bad.ini -o bad.h5 >bad.log 2>&1 || code=$?
  if ! { [ "$code" -eq 2 ] && grep -q "$3" bad.log; }; then fail "'$1' in $2: exit $code, want 2 and '$3': $(cat bad.log)"; fi
}
printf '[run]\n[hamiltonian]\nmodel = fem\nex = 3\ney = 3\nez = 3\npotential = none\n[solver]\nmethod = dense\n' >dense.ini
bad_deck "checkpoint_every = 5" dense.ini "checkpoint_every = 5: method = dense has no steps to checkpoint"
bad_deck "checkpoint_seconds = 60" dense.ini "checkpoint_seconds = 60: method = dense has no steps to checkpoint"
bad_deck "walltime = 1:00" kpm.ini "walltime = 1:00: must be seconds > 0"
bad_deck "walltime = -5" kpm.ini "walltime = -5: must be seconds > 0"
bad_deck "walltime = 01:61:00" kpm.ini "walltime = 01:61:00: must be seconds > 0"
"$MPIEXEC" -n 2 "$HAMLET" run dense.ini -o dense.h5 --quiet >dense.log 2>&1 || fail "dense without checkpoint keys: $(cat dense.log)"
finish
