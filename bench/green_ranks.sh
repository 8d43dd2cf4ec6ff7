#!/bin/bash
# How far a Green's-function run moves with the rank count (the contract "1, 2 and 3 ranks equal to
# rounding"): DECK (default inputs/ti_green_ldos_scan.ini) on 1, 2 and 3 ranks, multi-shift IDR(s)
# (multishift = yes) and the per-energy batches (multishift = no), then per method
#   max |G_P - G_1| / max |G_1| over every energy and site orbital, for P = 2, 3,
#   the iterations summed over the systems and the most of one system, and the solve's seconds.
#   run: bash bench/green_ranks.sh [HAMLET] ; DECK, RANKS (default "1 2 3"), METHODS ("yes no"),
#        EXTRA (lines appended to the deck's [green] section, e.g. "energies = -3 3 41")
# The figures and why they differ: bench/README.md, multi-shift IDR(s).
set -uo pipefail
HAMLET=$(realpath "${1:-build/bin/hamlet}")
DECK=$(realpath "${DECK:-inputs/ti_green_ldos_scan.ini}")
MPIEXEC=${MPIEXEC:-mpiexec}
PYTHON=${HAMLET_TEST_PYTHON:-/usr/bin/python3}
RANKS=${RANKS:-1 2 3} METHODS=${METHODS:-yes no} EXTRA=${EXTRA:-}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hamlet-ranks.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
for m in $METHODS; do
  # the deck with its multishift and output replaced, EXTRA added at the end of [green]
  sed -E -e "s/^multishift *=.*/multishift = $m/" -e "s/^output *=.*/output = out.h5/" "$DECK" >"ms_$m.ini"
  [ -z "$EXTRA" ] || printf '%b\n' "$EXTRA" >>"ms_$m.ini"
  for p in $RANKS; do
    start=$SECONDS
    timeout 3600 "$MPIEXEC" -n "$p" "$HAMLET" run "ms_$m.ini" -o "g_${m}_$p.h5" --quiet >"log_${m}_$p.txt" 2>&1 ||
      { echo "multishift = $m on $p ranks failed:"; tail -5 "log_${m}_$p.txt"; exit 1; }
    echo "multishift = $m, $p ranks: $((SECONDS - start)) s"
  done
done
"$PYTHON" - "$RANKS" "$METHODS" <<'PY'
import sys
import h5py
import numpy as np
ranks, methods = sys.argv[1].split(), sys.argv[2].split()
for m in methods:
    ref = None
    for p in ranks:
        with h5py.File(f"g_{m}_{p}.h5", "r") as f:
            G = f["/green/G"][()]
            if G.dtype.kind == "f" and G.shape[-1] == 2:  # complex stored as (re, im) pairs
                G = G[..., 0] + 1j * G[..., 1]
            its = f["/solver/iterations"][()]
            secs = sum(float(f["/timing"][k][()]) for k in f["/timing"] if k.startswith("solve"))
        if ref is None:
            ref, ref_its = G, its
            line = "reference"
        else:
            d = np.abs(G - ref).max() / np.abs(ref).max()
            e = (np.abs(G - ref) / np.abs(ref)).max()
            line = (f"max |G_P - G_1| / max |G_1| = {d:.2e} (largest entrywise {e:.2e}); iterations differ in "
                    f"{int((its != ref_its).sum())} of {its.size} systems")
        print(f"multishift = {m}, {p} ranks: iterations summed {int(its.sum())}, most {int(its.max())}, "
              f"solve {secs:.2f} s; {line}")
PY
