#!/bin/bash
# shellcheck disable=SC2086,SC2206,SC2046,SC2031,SC1091 # option lists split on purpose; the peers' environment is sourced from computed paths
# CPU peers of hamlet's solvers on the same matrices, sizes and cores, in one run, ending with
# one table (bench/peers/peers_table.py):
#   LOBPCG (fixed iterations, no preconditioner, block = nev; 3D 7-point Laplacian L^3):
#     hamlet bench_lobpcg (1 rank x C threads) | SciPy lobpcg (C BLAS threads) | SLEPc LOBPCG (C ranks)
#   linear solves to tol from x = 0 (convection-diffusion n^3 of include/hamlet/convdiff.h, b = ones):
#     hamlet run, IDR(s) + smoothing (1 rank x C threads) | PETSc bcgs, gmres(30) (C ranks) |
#     Eigen BiCGSTAB, GMRES(30), IDRS(1), IDRS(s) (C threads) | SciPy gmres(30), bicgstab
# Missing peers (no PETSc prefix, no Eigen headers, no SciPy) are skipped with a note.
#
#   bash bench/peers/run_cpu_peers.sh BUILD_DIR [--cores 16] [--L 100] [--nev 16,32] [--iterations 100]
#        [--peer-iterations N (SciPy / SLEPc LOBPCG; default = --iterations)]
#        [--convdiff 100] [--tol 1e-8] [--s 4] [--maxit 10000 (matrix products)] [--parts lobpcg,idr]
#        [--skip scipy,eigen,petsc,slepc] [--timeout 120] [--budget 230] [--out DIR]
#        [--hamlet-ranks 1 (a list: hamlet as R MPI ranks x cores/R threads each)]
# --timeout caps each program, --budget the whole run (seconds): a program gets at most what is
# left, one started with under 5 s left is skipped, and what a stopped peer printed still counts.
# On the GPU machine's host (16 cores), second device call after the hamlet build (README.md):
#   bash bench/peers/run_cpu_peers.sh build-gpu --cores 16 --skip scipy --timeout 240 --budget 400 --out $OUT/peers
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/convdiff_deck.sh"
root=$(cd "$here/../.." && pwd)
build=${1:?usage: run_cpu_peers.sh BUILD_DIR [options]}; shift
build=$(cd "$build" && pwd)
cores=$(nproc); L=100; nevs=16,32; iterations=100; peer_its=""; cd_n=100; tol=1e-8; s=4; maxit=10000
parts=lobpcg,idr; skip=""; tool_timeout=120; budget=230; out=${OUT:-/tmp}/peers; hamlet_ranks=1
while [ $# -gt 0 ]; do
  case $1 in
    --cores) cores=$2 ;; --L) L=$2 ;; --nev) nevs=$2 ;; --iterations) iterations=$2 ;; --peer-iterations) peer_its=$2 ;;
    --convdiff) cd_n=$2 ;; --tol) tol=$2 ;; --s) s=$2 ;; --maxit) maxit=$2 ;; --parts) parts=$2 ;;
    --skip) skip=$2 ;; --timeout) tool_timeout=$2 ;; --budget) budget=$2 ;; --out) out=$2 ;;
    --hamlet-ranks) hamlet_ranks=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
peer_its=${peer_its:-$iterations}
mkdir -p "$out" "$build/peers"
rm -f "$out"/*.log "$out/notes.txt"
want() { [[ ",$parts," == *",$1,"* ]]; }
skipped() { [[ ",$skip," == *",$1,"* ]]; }
note() { echo "# $*" | tee -a "$out/notes.txt"; }
# run LOG CONFIG CMD...: the command's output into LOG (first line: the configuration), time-limited
run() {
  local name=$1 log=$out/$1.log cfg=$2; shift 2
  local left=$((deadline - SECONDS)) limit=$tool_timeout
  [ $left -lt $limit ] && limit=$left
  if [ $limit -lt 5 ]; then note "$name: skipped, the --budget is spent"; return; fi
  echo "# config: $cfg" >"$log"
  echo "== $name ($cfg, at most $limit s)"
  timeout "$limit" "$@" >>"$log" 2>&1
  local st=$?
  grep -v '^# config' "$log" | tail -n 12
  [ $st -eq 0 ] || note "$name: exit $st$([ $st -eq 124 ] && echo " (stopped at its $limit s limit)")"
}

# hamlet's environment: the carried MPICH / HDF5 / OpenBLAS under /opt/deps on the GPU machine
hamlet_env=(env OMP_NUM_THREADS=$cores OMP_PROC_BIND=close)
dl=/opt/deps/usr/lib/x86_64-linux-gnu
# hamlet as R MPI ranks (MPICH) x cores/R threads (--hamlet-ranks 1,16: both layouts of the same cores)
suffix() { [ "$1" = 1 ] || echo "_r$1"; }
layout() { [ "$1" = 1 ] && echo "1 rank x $cores threads" || echo "$1 ranks x $((cores / $1)) thread(s)"; }
launcher() { [ "$1" = 1 ] || echo "${HAMLET_MPIEXEC:-$(command -v mpiexec.hydra || echo /opt/deps/usr/bin/mpiexec.hydra)} -n $1 -bind-to core"; }
[ -d $dl ] || note "no $dl: hamlet and the PETSc peers need the carried libraries there (scripts/gpu_host_env.sh with .debs)"
[ -d $dl ] && hamlet_env+=(LD_LIBRARY_PATH=$dl:$dl/hdf5/mpich:$dl/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH})
# Python with SciPy: python3 on the GPU machine; Debian's /usr/bin/python3 here
py=python3
python3 -c "import scipy" 2>/dev/null || py=/usr/bin/python3
$py -c "import scipy" 2>/dev/null || { note "no SciPy: SciPy peers skipped"; skip=$skip,scipy; }
# PETSc / SLEPc under a prefix (bench/peers/unpack_peers.sh), unpacked from .debs-peers when needed
PEERS_PREFIX=${PEERS_PREFIX:-/opt/peers}
if [ ! -d "$PEERS_PREFIX/usr/lib/petscdir" ] && ls "$root/.debs-peers"/*.deb >/dev/null 2>&1; then
  (cd "$root" && source bench/peers/unpack_peers.sh .debs-peers "$PEERS_PREFIX")
fi
if [ -d "$PEERS_PREFIX/usr/lib/petscdir" ]; then
  source "$here/unpack_peers.sh" /nonexistent "$PEERS_PREFIX" # environment only (nothing to unpack)
  if bash "$here/build_petsc_peers.sh" "$build/peers" "$PEERS_PREFIX" >"$out/build_petsc.txt" 2>&1; then
    # a tiny real solve on C ranks (launch, core binding, shared-memory transport); where the
    # machine refuses one, fall back to unbound ranks, then to TCP between them. Time-limited:
    # a launcher that hangs in a sandbox must not eat the device call.
    probe() { timeout 60 $PEERS_MPIEXEC -n "$cores" "$build/peers/petsc_ksp" -n 8 >>"$out/mpi_probe.txt" 2>&1; }
    rm -f "$out/mpi_probe.txt"
    if ! probe; then
      export PEERS_BIND=none; source "$here/unpack_peers.sh" /nonexistent "$PEERS_PREFIX"
      if probe; then note "Open MPI: --bind-to core failed, ranks unbound"
      else
        export PEERS_BTL=self,tcp; source "$here/unpack_peers.sh" /nonexistent "$PEERS_PREFIX"
        if probe; then note "Open MPI: shared memory failed, ranks unbound and over TCP"
        else note "Open MPI runs failed (see mpi_probe.txt): PETSc/SLEPc peers skipped"; skip=$skip,petsc,slepc; fi
      fi
    fi
  else
    note "PETSc/SLEPc peers did not build (see build_petsc.txt)"; skip=$skip,petsc,slepc
  fi
else
  note "no PETSc/SLEPc under $PEERS_PREFIX (bench/peers/fetch_debs.sh, then .debs-peers carried): skipped"
  skip=$skip,petsc,slepc
fi
# C ranks of one thread each (PEERS_MPIEXEC: Open MPI from the prefix, see unpack_peers.sh)
peer_mpi=(env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ${PEERS_MPIEXEC:-false} -n "$cores")
# Eigen (headers from libeigen3-dev, carried in .debs): compiled before the clock starts
if ! skipped eigen; then
  inc=""
  for d in /opt/deps/usr/include/eigen3 "$PEERS_PREFIX/usr/include/eigen3" /usr/include/eigen3; do [ -d "$d" ] && { inc=$d; break; }; done
  if [ -z "$inc" ]; then
    note "no Eigen headers (libeigen3-dev in .debs): Eigen peers skipped"; skip=$skip,eigen
  elif ! { [ "$build/peers/eigen_idrs" -nt "$here/eigen_idrs.cpp" ] ||
           g++ -O3 -march=native -fopenmp -DNDEBUG -I"$inc" "$here/eigen_idrs.cpp" -o "$build/peers/eigen_idrs" 2>"$out/build_eigen.txt"; }; then
    note "eigen_idrs did not build (see build_eigen.txt)"; skip=$skip,eigen
  fi
fi
deadline=$((SECONDS + budget))
echo "CPU peers: $cores cores, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -n), git $(cd "$root" && git rev-parse --short HEAD 2>/dev/null)" | tee "$out/header.txt"

if want lobpcg; then
  for R in ${hamlet_ranks//,/ }; do
    run lobpcg_hamlet$(suffix $R) "$(layout $R)" "${hamlet_env[@]}" OMP_NUM_THREADS=$((cores / R)) $(launcher $R) \
      "$build/bench/bench_lobpcg" --L "$L" --iterations "$iterations" --nev "$nevs"
  done
  skipped scipy || run lobpcg_scipy "1 process, $cores BLAS threads" env OMP_NUM_THREADS=$cores OPENBLAS_NUM_THREADS=$cores \
    $py "$here/lobpcg_peers.py" --L "$L" --iterations "$peer_its" --nev "$nevs" --solvers scipy
  skipped slepc || run lobpcg_slepc "$cores ranks x 1 thread" "${peer_mpi[@]}" "$build/peers/slepc_lobpcg" -L "$L" -iterations "$peer_its" -nevs "$nevs"
fi

if want idr; then
  for si in ${s//,/ }; do
    convdiff_deck "$out/convdiff_s$si.ini" "$out/convdiff_s$si.h5" cpu "$cd_n" "$si" "$tol" "$maxit"
    for R in ${hamlet_ranks//,/ }; do
      run idr_hamlet$(suffix $R)_s$si "$(layout $R)" "${hamlet_env[@]}" OMP_NUM_THREADS=$((cores / R)) $(launcher $R) \
        "$build/bin/hamlet" run "$out/convdiff_s$si.ini"
    done
  done
  skipped petsc || run idr_petsc "$cores ranks x 1 thread" "${peer_mpi[@]}" "$build/peers/petsc_ksp" -n "$cd_n" -rtol "$tol" -maxit "$maxit" -types bcgs,gmres
  # Eigen's IDRS smoothing gives NaN in 3.4.0 (see README.md): without it
  skipped eigen || run idr_eigen "1 process x $cores threads (SpMV)" env OMP_NUM_THREADS=$cores "$build/peers/eigen_idrs" \
    --n "$cd_n" --tol "$tol" --maxit "$maxit" --s "$(echo "1,$s" | tr , '\n' | sort -nu | paste -sd,)" --smoothing 0
  skipped scipy || run idr_scipy "1 process (SpMV on one core)" env OMP_NUM_THREADS=$cores OPENBLAS_NUM_THREADS=$cores \
    $py "$here/idr_peers.py" --convdiff "$cd_n" --ti 0 --tol "$tol" --maxit "$maxit" --solvers scipy-gmres,scipy-bicgstab
fi

echo
cat "$out/header.txt"
$py "$here/peers_table.py" "$out" | tee "$out/table.txt"
[ -f "$out/notes.txt" ] && cat "$out/notes.txt"
exit 0
