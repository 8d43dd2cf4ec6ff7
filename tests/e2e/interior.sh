#!/bin/bash
# method = interior (Chebyshev filter diagonalization): the surface Dirac states of a disordered TI
# slab in the bulk gap against NumPy's eigvalsh of the same matrix (built by
# tests/support/hamiltonians.py from the deck alone): every eigenvalue of the window to 1e-9 of the
# spectral scale, none outside, on 1 and 2 ranks, orthonormal vectors with residuals below tol; a
# window beside the spectrum finds none and says so; a malformed window is a usage error naming the
# deck's line; hamlet plot draws the levels and puts the surface states' weight on the outer layers.
. "$(dirname "$0")/common.sh"
need_h5py
cat >slab.ini <<'INI'
[hamiltonian]
model = ti
nx = 6
ny = 6
nz = 6
boundary = periodic periodic open
potential = disorder
disorder_w = 0.5
[solver]
method = interior
[interior]
window = -0.45 0.45
vectors = yes
INI
for np_ in 1 2; do
  "$MPIEXEC" -n "$np_" "$HAMLET" run slab.ini -o "slab.$np_.h5" --quiet >"slab.$np_.log" 2>&1 ||
    fail "slab on $np_ ranks: exit $? $(cat "slab.$np_.log")"
done
"$PYTHON" - "$SOURCE_DIR/tests/support" <<'PY' || fail "interior eigenpairs differ from NumPy's eigvalsh"
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[1])
import hamiltonians as hm
H = hm.build(hm.read_deck("slab.ini")).dense()
w = np.linalg.eigvalsh(H)
scale = np.abs(w).max()
ref = w[(w >= -0.45) & (w <= 0.45)]
ok = len(ref) >= 4
for np_ in (1, 2):
    f = h5py.File("slab.%d.h5" % np_, "r")
    e, v = f["/eigen"].attrs, f["/eigen/values"][:]
    word = lambda x: x.decode() if isinstance(x, bytes) else str(x)
    good = len(v) == len(ref) and word(e["method"]) == "interior" and word(e["stopped"]) == "converged"
    err = np.abs(v - ref).max() / scale if good else np.inf
    good = good and err <= 1e-9 and np.all(f["/eigen/residuals"][:] <= 1e-9)
    good = good and e["window_min"] == -0.45 and e["window_max"] == 0.45 and e["found"] == len(ref)
    good = good and e["degree"] > 0 and e["search"] >= len(ref) and e["passes"] >= 2 and e["count_estimate"] > 0
    X = f["/eigen/vectors"][:]
    X = X[..., 0] + 1j * X[..., 1] if X.shape[-1] == 2 and X.ndim == 3 else X
    X = X.T if X.shape[0] != H.shape[0] else X
    if good:
        good = np.abs(X.conj().T @ X - np.eye(len(v))).max() < 1e-9
        good = good and np.abs(H @ X - X * v).max() < 1e-8 * scale
    print("%s %d ranks: %d eigenvalues in the window (NumPy %d), max error %.2g of the scale %.3g, estimate %.1f, "
          "degree %d, search %d, passes %d" % ("PASS" if good else "FAIL", np_, len(v), len(ref), err, scale,
          e["count_estimate"], e["degree"], e["search"], e["passes"]))
    ok &= bool(good)
raise SystemExit(0 if ok else 1)
PY
# Beside the spectrum: none, said clearly, success.
sed 's/^window = .*/window = 50 60/' slab.ini >beside.ini
"$HAMLET" run beside.ini -o beside.h5 --quiet >beside.log 2>&1 || fail "empty window: exit $? $(cat beside.log)"
"$HAMLET" run beside.ini -o beside2.h5 >beside2.log 2>&1
grep -q "none: the window holds no eigenvalue" beside2.log || fail "empty window not reported: $(cat beside2.log)"
"$PYTHON" -c "import h5py; f = h5py.File('beside.h5', 'r'); assert len(f['/eigen/values'][:]) == 0 and f['/eigen'].attrs['found'] == 0" ||
  fail "empty window: values written"
# hamlet plot: the levels, and the density per layer of the level nearest the window's centre: the
# slab's surface Dirac states keep most of their weight on the two outer layers (z = 0 and 5)
"$HAMLET" plot slab.1.h5 -o slab.png >plot.log 2>&1 && [ -s slab.png ] || fail "hamlet plot of the pairs: $(cat plot.log)"
share=$(sed -n 's/.* has \([0-9.]*\)% of its weight on layers 0 and 5$/\1/p' plot.log)
"$PYTHON" -c "import sys; sys.exit(0 if float('${share:-0}') > 50 else 1)" ||
  fail "the level nearest 0 is not on the surfaces: $(cat plot.log)"
"$HAMLET" plot beside.h5 -o beside.png >plot.log 2>&1 && [ -s beside.png ] || fail "hamlet plot of no pairs: $(cat plot.log)"
# A malformed window: exit 2 naming the deck's file and line, before any work.
for bad in "0.5 -0.5" "0.5" "a b"; do
  sed "s/^window = .*/window = $bad/" slab.ini >bad.ini
  "$HAMLET" run bad.ini -o bad.h5 >bad.log 2>&1
  rc=$?
  [ "$rc" = 2 ] && grep -q "bad.ini" bad.log && grep -q "bad.ini:12:" bad.log && grep -q "window" bad.log ||
    fail "window = $bad: exit $rc, $(cat bad.log)"
  [ -e bad.h5 ] && fail "window = $bad: an output was written"
done
finish
