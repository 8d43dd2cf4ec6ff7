# LOBPCG, IDR(s), ChebFD (method = interior) and time-evolution runs killed with SIGKILL mid-way
# restart from their last checkpoint and reach the answer of an uninterrupted run (the converged
# eigenvalues, the solution, the spreads, the evolution's mean-square displacement and velocity
# auto-correlation; ChebFD's and the evolution's bit for bit on the same ranks), on the same and on another rank count.
. "$(dirname "$0")/common.sh"
need_h5py
cat > lobpcg.ini <<'INI'
[run]
output = lobpcg.h5
checkpoint = lobpcg_ckpt.h5
checkpoint_every = 2
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
nev = 4
tol = 1e-9
maxit = 400
INI
cat > idr.ini <<'INI'
[run]
output = idr.h5
checkpoint = idr_ckpt.h5
checkpoint_every = 1
[hamiltonian]
model = convdiff
n = 16
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
cat > interior.ini <<'INI'
[run]
output = interior.h5
checkpoint = interior_ckpt.h5
checkpoint_every = 1
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
tol = 1e-9
INI
cat > evolution.ini <<INI
[run]
output = evolution.h5
checkpoint = evolution_ckpt.h5
checkpoint_every = 1
[hamiltonian]
model = lattice
lattice_file = $SOURCE_DIR/inputs/lattices/square.lattice
nx = 101
ny = 1
nz = 1
boundary = open open open
[solver]
method = evolution
[evolution]
dt = 0.7
steps = 30
start = random
vectors = 3
seed = 4
msd = x
transport = both
energies = -1 1 3
moments = 64
INI
# kill_mid DECK CKPT DELAY_US: start slowed in its own process group, kill after the first checkpoint.
kill_mid() {
  rm -f "$2"
  HAMLET_TEST_STEP_DELAY_US=$3 setsid "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run "$1" -o killed.h5 --quiet >killed.log 2>&1 &
  local pid=$!
  for _ in $(seq 1 300); do [ -e "$2" ] && break; sleep 0.1; done
  sleep 0.3
  kill -KILL -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  [ -e "$2" ] || fail "$1: no checkpoint appeared before the kill"
  [ -e killed.h5 ] && fail "$1: the killed run finished before it was killed: slow it down more"
}
close() { # close A B DATASET RTOL: the datasets agree to RTOL (relative to the largest entry)
  "$PYTHON" -c "import h5py, numpy as np, sys
a, b = (h5py.File(x, 'r')[sys.argv[3]][()] for x in sys.argv[1:3])
d = np.abs(a - b).max() / np.abs(b).max(); print(sys.argv[3], 'differs by', d); sys.exit(int(not d <= float(sys.argv[4])))" "$@"
}
for m in lobpcg idr interior evolution; do
  run2 run $m.ini -o ${m}_full.h5 --quiet >${m}_full.log 2>&1 || fail "$m uninterrupted: $(cat ${m}_full.log)"
done
kill_mid lobpcg.ini lobpcg_ckpt.h5 100000
cp lobpcg_ckpt.h5 lobpcg_ckpt1.h5
run2 restart lobpcg_ckpt.h5 -o lobpcg_restarted.h5 --quiet >r.log 2>&1 || fail "lobpcg restart: $(cat r.log)"
close lobpcg_full.h5 lobpcg_restarted.h5 /eigen/values 1e-8 || fail "lobpcg: restarted eigenvalues differ"
"$MPIEXEC" -n 1 "$HAMLET" restart lobpcg_ckpt1.h5 -o lobpcg_restarted1.h5 --quiet >r1.log 2>&1 || fail "lobpcg restart on 1 rank: $(cat r1.log)"
close lobpcg_full.h5 lobpcg_restarted1.h5 /eigen/values 1e-8 || fail "lobpcg: 1-rank restarted eigenvalues differ"
kill_mid idr.ini idr_ckpt.h5 30000
cp idr_ckpt.h5 idr_ckpt1.h5
run2 restart idr_ckpt.h5 -o idr_restarted.h5 --quiet >r.log 2>&1 || fail "idr restart: $(cat r.log)"
close idr_full.h5 idr_restarted.h5 /solution/x 1e-8 || fail "idr: restarted solution differs"
close idr_full.h5 idr_restarted.h5 /solver/iterations 0 || fail "idr: restarted run took another number of iterations"
"$MPIEXEC" -n 1 "$HAMLET" restart idr_ckpt1.h5 -o idr_restarted1.h5 --quiet >r1.log 2>&1 || fail "idr restart on 1 rank: $(cat r1.log)"
close idr_full.h5 idr_restarted1.h5 /solution/x 1e-8 || fail "idr: 1-rank restarted solution differs"
kill_mid interior.ini interior_ckpt.h5 300000
cp interior_ckpt.h5 interior_ckpt1.h5
run2 restart interior_ckpt.h5 -o interior_restarted.h5 --quiet >r.log 2>&1 || fail "interior restart: $(cat r.log)"
close interior_full.h5 interior_restarted.h5 /eigen/values 0 || fail "interior: restarted eigenvalues differ"
close interior_full.h5 interior_restarted.h5 /eigen/residuals 0 || fail "interior: restarted residuals differ"
"$MPIEXEC" -n 1 "$HAMLET" restart interior_ckpt1.h5 -o interior_restarted1.h5 --quiet >r1.log 2>&1 ||
  fail "interior restart on 1 rank: $(cat r1.log)"
close interior_full.h5 interior_restarted1.h5 /eigen/values 1e-10 || fail "interior: 1-rank restarted eigenvalues differ"
kill_mid evolution.ini evolution_ckpt.h5 200000
cp evolution_ckpt.h5 evolution_ckpt1.h5
run2 restart evolution_ckpt.h5 -o evolution_restarted.h5 --quiet >r.log 2>&1 || fail "evolution restart: $(cat r.log)"
for k in spread norm position msd msd_error vac vac_moments vac_diffusivity_error; do
  close evolution_full.h5 evolution_restarted.h5 /evolution/$k 0 || fail "evolution: restarted $k differs"
done
"$MPIEXEC" -n 1 "$HAMLET" restart evolution_ckpt1.h5 -o evolution_restarted1.h5 --quiet >r1.log 2>&1 ||
  fail "evolution restart on 1 rank: $(cat r1.log)"
for k in spread msd vac; do
  close evolution_full.h5 evolution_restarted1.h5 /evolution/$k 1e-10 || fail "evolution: 1-rank restarted $k differs"
done
# A checkpoint that is not there is bad input.
"$MPIEXEC" -n 1 "$HAMLET" restart not_there.h5 >missing.log 2>&1; [ $? -eq 2 ] || fail "a missing checkpoint must exit 2"
finish
