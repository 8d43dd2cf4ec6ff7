#!/bin/bash
# shellcheck disable=SC2086 # the option lists split into words on purpose
# LOBPCG, IDR(s) and the dense eigensolvers on every GPU of a lent multi-GPU machine (issue 30;
# `.debs` carried), one MPI rank per GPU, the halo device to device:
#   lobpcg  the FEM pencil (Q1, harmonic trap, Jacobi) with about 10^7 unknowns per GPU, nev = 4,
#           a fixed 30 iterations: weak (ez grows with P) and strong (10^7 in all) scaling of the
#           time per iteration;
#   idr     IDR(4) on convection-diffusion 300^3 (2.7·10^7 unknowns) and on the shifted TI
#           z - H (300 x 150 x 150 sites, 2.7·10^7 orbitals, the 4 orbitals of one site as 4
#           right-hand sides), a fixed 60 iterations: strong scaling of the time per iteration;
#   dense   ScaLAPACK dsyevd on all host cores (one rank per core) next to one GPU's cuSOLVER at
#           n = 8192 and 16384 (and cuSOLVER alone at 32768).
#   run: bash scripts/device_solver_scaling.sh [lobpcg] [idr] [dense]   (none: all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
parts=" ${*:-lobpcg idr dense} "
want() { [[ $parts == *" $1 "* ]]; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
GPUS=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
CORES=$(nproc)
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
APP=$PWD/build-gpu/bin/hamlet
W=/tmp/solvers; mkdir -p $W
counts() { local p=1; while [ $p -le "$GPUS" ]; do echo $p; p=$((p * 2)); done; }
per_iteration() { # per_iteration LOG: solve seconds / iterations of the run summary, in ms
  awk '/iterations/ && it == "" {for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^iteration/) it = $i}
       /^  timing/ {for (i = 1; i <= NF; i++) if ($i == "solve") s = $(i + 1)}
       END {if (it > 0) printf "%.2f ms per iteration (%s iterations, solve %s s)", 1000 * s / it, it, s; else print "no figure"}' "$1"
}
run_deck() { # run_deck TAG P: runs $W/TAG.ini on P ranks
  HAMLET_HALO_PEER=1 OMP_NUM_THREADS=4 timeout 200 $MPIEXEC -n "$2" "$APP" run "$W/$1.ini" -o "$W/$1.h5" > "$W/$1.txt" 2>&1
  local code=$?
  [ $code = 0 ] || [ $code = 3 ] || { echo "FAILED ($code): $1"; tail -4 "$W/$1.txt"; }
}
if want lobpcg; then
  fem() { # fem FILE EZ
    cat > "$1" <<INI
[run]
backend = cuda
[hamiltonian]
model = fem
ex = 216
ey = 216
ez = $2
lx = 10
ly = 10
lz = $((10 * $2 / 216))
potential = harmonic
[solver]
method = lobpcg
nev = 4
which = smallest
tol = 1e-14
maxit = 30
precond = jacobi
INI
  }
  for P in $(counts); do
    fem "$W/lw$P.ini" $((216 * P)); run_deck "lw$P" $P
    echo "lobpcg weak: $P GPU(s), 216 x 216 x $((216 * P)) elements: $(per_iteration "$W/lw$P.txt")" | tee -a "$OUT/lobpcg.txt"
    [ $P = 1 ] && continue # the strong case's one-GPU run is the weak one's
    fem "$W/ls$P.ini" 216; run_deck "ls$P" $P
    echo "lobpcg strong: $P GPU(s), 216^3 elements: $(per_iteration "$W/ls$P.txt")" | tee -a "$OUT/lobpcg.txt"
  done
  grep -h "hamiltonian\|timing" "$W"/lw1.txt | head -2
fi
if want idr; then
  cat > "$W/idr.ini" <<INI
[run]
backend = cuda
[hamiltonian]
model = convdiff
n = 300
eps = 1
beta_x = 0
beta_y = 50
beta_z = 100
r = 0
[solver]
method = idr
problem = linear
s = 4
tol = 1e-30
maxit = 60
[rhs]
kind = ones
INI
  cat > "$W/green.ini" <<INI
[run]
backend = cuda
[hamiltonian]
model = ti
nx = 300
ny = 150
nz = 150
boundary = periodic periodic periodic
[solver]
method = idr
problem = green
multishift = no
s = 4
tol = 1e-30
maxit = 60
[green]
energies = 0.1 0.1 1
eta = 0.05
sites = 1 1 1
INI
  for P in $(counts); do
    cp "$W/idr.ini" "$W/idr$P.ini"; run_deck "idr$P" $P
    echo "idr strong: $P GPU(s), convdiff 300^3: $(per_iteration "$W/idr$P.txt")" | tee -a "$OUT/idr.txt"
    cp "$W/green.ini" "$W/green$P.ini"; run_deck "green$P" $P
    echo "idr strong: $P GPU(s), shifted TI 300 x 150 x 150, 4 right-hand sides: $(per_iteration "$W/green$P.txt")" | tee -a "$OUT/idr.txt"
  done
fi
if want dense; then
  exe=$PWD/build-gpu/bench/bench_dense
  for n in 8192 16384; do
    OMP_NUM_THREADS=1 timeout 150 $MPIEXEC -n "$CORES" "$exe" --real $n 2>&1 | grep -v '^#' | tee -a "$OUT/dense.txt"
  done
  OMP_NUM_THREADS=$CORES timeout 200 $MPIEXEC -n 1 "$exe" --gpu-only --real 8192 16384 32768 2>&1 | grep -v '^#' | tee -a "$OUT/dense.txt"
fi
echo "done at $SECONDS s"
