#!/bin/bash
# shellcheck disable=SC2086,SC2206,SC2207 # the size and option lists split into words on purpose
# GPU peers of hamlet's solvers from the same run, ending with one table (peers_table.py):
#   LOBPCG (100 iterations, no preconditioner, 7-point Laplacian n = L^3):
#     hamlet bench_lobpcg --backend cuda | CuPy's cupyx.scipy.sparse.linalg.lobpcg
#   LOBPCG on the FEM pencil K x = lambda M x (Q1, E^3 elements, V = 0, n = (E-1)^3; B = M): the same pair
#   linear solves to tol from x = 0, time to solution:
#     convection-diffusion n^3 (b = ones): hamlet run, IDR(s) + smoothing, backend cuda | CuPy gmres(30), cgs
#     shifted TI z - H, z = 0.2 + 0.05 i, the 4 orbitals of the central site: hamlet run problem = green
#     (the 4 systems batched) | CuPy gmres(30), cgs (one system after another)
#   bash bench/peers/run_gpu_peers.sh BUILD_DIR [--L 100] [--fem 101] [--nev 16,32] [--iterations 100]
#        [--convdiff 172] [--ti 200 100 40] [--tol 1e-8] [--s 4] [--maxit 10000] [--timeout 300] [--out DIR]
#        [--parts lobpcg,fem,idr] [--backend cuda (cpu: only to try the script where there is no GPU)]
# (convdiff 172: 5.09 million rows, at least 5 million; TI 200 x 100 x 40: N = 3.2 million)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/convdiff_deck.sh"
build=${1:?usage: run_gpu_peers.sh BUILD_DIR [options]}; shift
build=$(cd "$build" && pwd)
backend=cuda; L=100; fem=101; parts=lobpcg,fem,idr; nevs=16,32; iterations=100; cd_n=172; ti=(200 100 40); tol=1e-8; s=4; maxit=10000; tool_timeout=300
out=${OUT:-/tmp}/gpu_peers
while [ $# -gt 0 ]; do
  case $1 in
    --L) L=$2 ;; --fem) fem=$2 ;; --parts) parts=$2 ;; --nev) nevs=$2 ;; --iterations) iterations=$2 ;; --convdiff) cd_n=$2 ;;
    --ti) ti=($2 $3 $4); shift 2 ;; --tol) tol=$2 ;; --s) s=$2 ;; --maxit) maxit=$2 ;;
    --timeout) tool_timeout=$2 ;; --out) out=$2 ;; --backend) backend=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
mkdir -p "$out"; rm -f "$out"/*.log
py=python3
python3 -c "import scipy" 2>/dev/null || py=/usr/bin/python3
dl=/opt/deps/usr/lib/x86_64-linux-gnu
hamlet_env=(env OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close)
[ -d $dl ] && hamlet_env+=(LD_LIBRARY_PATH=$dl:$dl/hdf5/mpich:$dl/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH})
run() { # run NAME CONFIG CMD...
  local name=$1 log=$out/$1.log; echo "# config: $2" >"$log"; shift 2
  echo "== $name"
  timeout "$tool_timeout" "$@" >>"$log" 2>&1 || echo "# $name: exit $?" | tee -a "$out/notes.txt"
  grep -v '^# config' "$log" | tail -n 8
}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "GPU peers: ${gpu:-no GPU seen}, $(date -u +%Y-%m-%dT%H:%MZ)" | tee "$out/header.txt"

want() { [[ ",$parts," == *",$1,"* ]]; }
if want lobpcg; then
  run lobpcg_hamlet "hamlet $backend" "${hamlet_env[@]}" "$build/bench/bench_lobpcg" --backend "$backend" --L "$L" --iterations "$iterations" --nev "$nevs"
  run lobpcg_cupy "CuPy" env PYTHONUNBUFFERED=1 $py "$here/lobpcg_peers.py" --L "$L" --iterations "$iterations" --nev "$nevs" --solvers cupy
fi
# lobpcg_fem_*: peers_table.py puts these logs in a table of their own (the FEM pencil)
if want fem; then
  run lobpcg_fem_hamlet "hamlet $backend" "${hamlet_env[@]}" "$build/bench/bench_lobpcg" --backend "$backend" --fem "$fem" --iterations "$iterations" --nev "$nevs"
  run lobpcg_fem_cupy "CuPy" env PYTHONUNBUFFERED=1 $py "$here/lobpcg_peers.py" --fem "$fem" --iterations "$iterations" --nev "$nevs" --solvers cupy
fi

convdiff_deck "$out/convdiff.ini" "$out/convdiff.h5" "$backend" "$cd_n" "$s" "$tol" "$maxit"
half_sites="$((ti[0] / 2)) $((ti[1] / 2)) $((ti[2] / 2))" # the middle site
cat >"$out/ti.ini" <<EOF
[run]
output = $out/ti.h5
backend = $backend
[hamiltonian]
model = ti
nx = ${ti[0]}
ny = ${ti[1]}
nz = ${ti[2]}
boundary = periodic periodic periodic
t = 1
m = 2
[solver]
method = idr
problem = green
s = $s
smoothing = yes
tol = $tol
maxit = $maxit
[green]
energy_list = 0.2
eta = 0.05
sites = $half_sites
EOF
if want idr; then
run idr_hamlet_s$s "hamlet $backend" "${hamlet_env[@]}" "$build/bin/hamlet" run "$out/convdiff.ini"
run idr_hamlet_ti_s$s "hamlet $backend" "${hamlet_env[@]}" "$build/bin/hamlet" run "$out/ti.ini"
run idr_cupy "CuPy" env PYTHONUNBUFFERED=1 $py "$here/idr_peers.py" --convdiff "$cd_n" --ti "${ti[@]}" --tol "$tol" \
  --maxit "$maxit" --solvers cupy-gmres,cupy-cgs
fi

echo
cat "$out/header.txt"
$py "$here/peers_table.py" "$out" | tee "$out/table.txt"
[ -f "$out/notes.txt" ] && cat "$out/notes.txt"
exit 0
