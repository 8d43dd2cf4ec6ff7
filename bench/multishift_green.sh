#!/bin/bash
# The TI LDOS at NE energies over the gap and the bands (eta 0.05, tol 1e-8, two sites) three ways,
# each timed on the same machine in the same run: multi-shift IDR(s) ([solver] multishift = yes),
# the per-energy batches (multishift = no) and KPM's LDOS with the Lorentz kernel at the matching
# resolution (lambda a / M = eta, a the half bandwidth); each with its error against the exact
# spectral sum on a lattice small enough to diagonalize (SMALL, NumPy eigh), and the traffic bound of
# one multi-shift step (see bench/README.md, "Multi-shift IDR(s)"):
#   bytes per seed step = 16 n [ K k (s + 3) + k (s + 12) ] + matrix bytes,
# K energies, k = 4 x sites right-hand sides, s the shadow dimension: every shift reads its s
# directions and its iterate and writes its newest direction and iterate (s + 3 values per entry);
# the seed's v = r - dR c, t = H v, the new difference and r, P^H dR and ||r|| stream about s + 12
# k-wide vectors. Achieved fraction = bound time (bytes / BW) / measured time per step.
#   run: bash bench/multishift_green.sh [HAMLET] ; NX NY NZ (default 16 16 10), NE (101), RANKS (2),
#   BW (GB/s used for the bound; default 2985 = the H100's measured copy), SMALL (6 6 4),
#   LARGE_METHODS (which run on the large lattice; default "ms per kpm"), RHS ([green] rhs_per_solve).
set -uo pipefail
HAMLET=${1:-build/bin/hamlet}
MPIEXEC=${MPIEXEC:-mpiexec}
PYTHON=${HAMLET_TEST_PYTHON:-/usr/bin/python3}
NX=${NX:-16} NY=${NY:-16} NZ=${NZ:-10} NE=${NE:-101} RANKS=${RANKS:-2} BW=${BW:-2985} S=${S:-4} BACKEND=${BACKEND:-auto}
read -r SX SY SZ <<<"${SMALL:-6 6 4}"
LARGE_METHODS=${LARGE_METHODS:-ms per kpm} RHS=${RHS:-0}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hamlet-msbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
deck() { # deck NAME NX NY NZ SOLVER-LINES
  printf '[run]\noutput = %s.h5\nbackend = %s\n[hamiltonian]\nmodel = ti\nnx = %s\nny = %s\nnz = %s\nboundary = periodic periodic open\n%b' \
    "$1" "$BACKEND" "$2" "$3" "$4" "$5" >"$WORK/$1.ini"
}
# shellcheck disable=SC2028 # the escapes are expanded by printf %b in deck()
green() { echo "[solver]\nmethod = idr\nproblem = green\ns = $S\ntol = 1e-8\nmaxit = 20000\nmultishift = $1\n[green]\nrhs_per_solve = $RHS\nenergies = -3 3 $NE\neta = 0.05\nsites = 1 1 0; 2 2 1\n"; }
# shellcheck disable=SC2028
kpm() { echo "[solver]\nmethod = kpm\n[kpm]\nmoments = $1\nkernel = lorentz\nlambda = 4\nenergies = $NE\nemin = -3\nemax = 3\nldos_sites = 1 1 0; 2 2 1\n"; }
# KPM's resolution: Lorentz broadening lambda a / M with a ~ 7.5 (the TI at t = 1, m = 2 spans about [-7, 7])
M=$(awk 'BEGIN { m = int(4 * 7.5 / 0.05); if (m % 2) m++; print m }')
for size in small large; do
  if [ $size = small ]; then dims="$SX $SY $SZ"; else dims="$NX $NY $NZ"; fi
  # shellcheck disable=SC2086 # dims splits into three arguments on purpose
  { deck "ms_$size" $dims "$(green yes)"; deck "per_$size" $dims "$(green no)"; deck "kpm_$size" $dims "$(kpm "$M")"; }
  for m in ms per kpm; do
    [ $size = small ] || case " $LARGE_METHODS " in *" $m "*) ;; *) continue ;; esac
    t0=$(date +%s.%N)
    (cd "$WORK" && "$MPIEXEC" -n "$RANKS" "$OLDPWD/$HAMLET" run "${m}_$size.ini" --quiet >"${m}_$size.log" 2>&1) ||
      { echo "$m $size failed:"; tail -5 "$WORK/${m}_$size.log"; }
    t1=$(date +%s.%N)
    echo "$m $size $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" >>"$WORK/times.txt"
  done
done
(cd "$WORK" && "$PYTHON" - "$OLDPWD/tests/support" "$S" "$BW" "$M" <<'PY')
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[1])
import hamiltonians as hm
s, bw, M = int(sys.argv[2]), float(sys.argv[3]) * 1e9, int(sys.argv[4])
times = {}
for line in open("times.txt"):
    m, size, t = line.split()
    times[(m, size)] = float(t)
def rho_exact(size):
    d = hm.read_deck("ms_%s.ini" % size)
    w, V = np.linalg.eigh(hm.build(d).dense())
    nx, ny = d["hamiltonian"].getint("nx"), d["hamiltonian"].getint("ny")
    z = np.array(h5py.File("ms_%s.h5" % size, "r")["/green/z"][:])
    z = z[..., 0] + 1j * z[..., 1] if z.ndim == 2 else z
    rho = []
    for (x, y, zz) in ((1, 1, 0), (2, 2, 1)):
        rows = [4 * (x + nx * (y + ny * zz)) + o for o in range(4)]
        wt = np.sum(np.abs(V[rows]) ** 2, axis=0)
        rho.append([-np.imag(np.sum(wt / (ze - w))) / np.pi for ze in z])
    return np.array(rho).T
def rho_of(m, size):
    f = h5py.File("%s_%s.h5" % (m, size), "r")
    return np.array(f["/ldos/rho"][:])
exact = rho_exact("small")
print("TI LDOS at %d energies, eta 0.05, tol 1e-8, two sites; KPM Lorentz M = %d" % (exact.shape[0], M))
print("%-28s %12s %12s %14s" % ("method", "small (s)", "large (s)", "error (small)"))
for m, name in (("ms", "multi-shift IDR(%d)" % s), ("per", "per-energy IDR(%d)" % s), ("kpm", "KPM LDOS (Lorentz)")):
    try:
        err = np.max(np.abs(rho_of(m, "small") - exact)) / np.max(np.abs(exact))
    except Exception as e:  # a failed run is reported, not hidden
        err = float("nan")
    print("%-28s %12.3f %12.3f %14.2e" % (name, times.get((m, "small"), float("nan")), times.get((m, "large"), float("nan")), err))
import os
if not os.path.exists("ms_large.h5"):
    sys.exit(0)  # the large lattice's multi-shift run was not asked for (LARGE_METHODS)
f = h5py.File("ms_large.h5", "r")
n, nnz = int(f["/hamiltonian"].attrs["N"]), int(f["/hamiltonian"].attrs["nnz"])
K = f["/green/z"].shape[0]
k = f["/green/G"].shape[1] * 4
its = np.array(f["/solver/iterations"][:])
steps = int(its.min())  # the seed's steps (a polished shift adds its own iterations on top)
step_bytes = 16.0 * n * (K * k * (s + 3) + k * (s + 12)) + nnz * 20.0 + 8.0 * n
bound = steps * step_bytes / bw
print("bound: %d seed steps x %.3g GB per step at %.0f GB/s = %.3f s; measured %.3f s (whole run): %.0f%% of the bound"
      % (steps, step_bytes / 1e9, bw / 1e9, bound, times[("ms", "large")], 100 * bound / times[("ms", "large")]))
per_step = 16.0 * n * k * (3 * s + 14) + nnz * 20.0
if not os.path.exists("per_large.h5"):
    sys.exit(0)
its_per = np.array(h5py.File("per_large.h5", "r")["/solver/iterations"][:])
print("per-energy batches: %d system-iterations; their bound %.3f s: ratio of the bounds %.2f"
      % (its_per.sum(), its_per.max(axis=1).sum() * per_step / bw, its_per.max(axis=1).sum() * per_step / (steps * step_bytes)))
PY
