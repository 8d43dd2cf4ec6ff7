# Every deck in inputs/ runs on 2 ranks and writes a DOS that integrates to N; the default deck
# is also plotted, and a run compared with itself passes while a different deck's result fails.
. "$(dirname "$0")/common.sh"
need_h5py
for deck in "$SOURCE_DIR"/inputs/*.ini; do
  name=$(basename "$deck" .ini)
  run2 run "$deck" -o "$name.h5" --quiet >"$name.log" 2>&1 || { fail "$name: $(cat "$name.log")"; continue; }
  [ -e "$name.h5" ] && [ ! -e "$name.h5.tmp" ] || fail "$name: output missing or temporary file left"
  /usr/bin/python3 - "$name.h5" <<'PY' || fail "$name: DOS checks"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
E, rho = f["/dos/energy"][:], f["/dos/rho"][:]
N = f["/hamiltonian"].attrs["N"] if "N" in f["/hamiltonian"].attrs else f["/hamiltonian/N"][()]
mu = f["/kpm/moments"][:]
assert abs(mu[0] - 1) < 1e-12, mu[0]
assert np.all(np.abs(mu) <= 1 + 1e-9)
assert np.all(np.diff(E) > 0)
norm = f["/dos"].attrs.get("normalization", b"states")
norm = norm.decode() if isinstance(norm, bytes) else str(norm)
assert np.all(np.isfinite(rho)) and rho.min() > -1e-6 * rho.max(), rho.min()
# Where the grid spans the whole interval the DOS must hold all states (the Chebyshev nodes leave
# a sliver at the ends: 3% is generous); a window grid holds a part.
kpm = f["/kpm"].attrs
total = np.trapz(rho, E)
target = N if norm == "states" else 1.0
if E[0] <= kpm["emin"] + 1e-3 * (kpm["emax"] - kpm["emin"]) and E[-1] >= kpm["emax"] - 1e-3 * (kpm["emax"] - kpm["emin"]):
    assert abs(total - target) < 0.03 * target, (total, target)
else:
    assert 0 < total < 1.03 * target, (total, target)
assert "meters" in f["/energy"].attrs, "/energy must say which meters it read (or none)"
for g in ("/input", "/provenance", "/timing", "/dos/error", "/energy"):
    assert g in f, g
PY
done
"$HAMLET" plot ti_dos.h5 -o ti_dos.png >/dev/null 2>&1 && [ -s ti_dos.png ] || fail "hamlet plot wrote no PNG"
"$HAMLET" compare ti_dos.h5 ti_dos.h5 >cmp.txt || fail "a file differs from itself: $(cat cmp.txt)"
ls *.h5 | grep -v ti_dos.h5 | head -1 | while read other; do
  "$HAMLET" compare ti_dos.h5 "$other" >cmp.txt; [ $? -eq 1 ] || echo "FAIL: different results compared equal"
done | grep -q FAIL && fail "different results compared equal"
finish
