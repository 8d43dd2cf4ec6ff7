#!/usr/bin/env bash
# The Hofstadter butterfly: KPM DOS of the square lattice (inputs/lattices/square.lattice) on an
# L x L supercell at every commensurate flux p / L per plaquette, plotted as DOS(E, flux).
# Usage: tools/hofstadter.sh [HAMLET] [L] [RANKS]   (defaults: build/bin/hamlet, 32, 2)
# Writes hofstadter/flux_<p>.h5 and hofstadter.png in the working directory.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
hamlet=${1:-$here/build/bin/hamlet}
size=${2:-32}
ranks=${3:-2}
mkdir -p hofstadter
for ((p = 0; p <= size; p++)); do
  flux=$(awk -v p="$p" -v n="$size" 'BEGIN { printf "%.17g", p / n }')
  cat >"hofstadter/flux_$p.ini" <<DECK
[run]
output = hofstadter/flux_$p.h5
[hamiltonian]
model = lattice
lattice_file = $here/inputs/lattices/square.lattice
nx = $size
ny = $size
nz = 1
boundary = periodic periodic open
field = 0 0 $flux
[kpm]
moments = 256
vectors = 4
energies = 400
emin = -4.2
emax = 4.2
bounds = gershgorin
DECK
  mpiexec -n "$ranks" "$hamlet" run "hofstadter/flux_$p.ini" --quiet
done
/usr/bin/python3 - "$size" <<'PY'
import sys, h5py, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
n = int(sys.argv[1])
rows = []
for p in range(n + 1):
    with h5py.File(f"hofstadter/flux_{p}.h5", "r") as f:
        energy, rho = f["/dos/energy"][:], f["/dos/rho"][:]
    rows.append(rho / rho.max())
plt.imshow(np.array(rows).T, origin="lower", aspect="auto", cmap="magma",
           extent=[0, 1, energy[0], energy[-1]])
plt.xlabel("flux per plaquette (quanta)")
plt.ylabel("E / t")
plt.title(f"Hofstadter butterfly, KPM DOS on {n} x {n}")
plt.savefig("hofstadter.png", dpi=150)
print("wrote hofstadter.png")
PY
