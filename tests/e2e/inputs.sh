# Every deck in inputs/ runs on 2 ranks and writes a result that passes its method's checks (a DOS
# that integrates to N, converged eigenpairs, a converged solve, a surface LDOS above the bulk one in
# the gap, a finite conductivity with sigma_xx >= 0, a surface spectral function above the centre's in
# the gap); the default deck is also plotted (and the twisted bilayer's DOS in a --window), and a run compared with itself passes while a different deck's result fails.
. "$(dirname "$0")/common.sh"
need_h5py
for deck in "$SOURCE_DIR"/inputs/*.ini; do
  name=$(basename "$deck" .ini)
  run2 run "$deck" -o "$name.h5" --quiet >"$name.log" 2>&1 || { fail "$name: $(cat "$name.log")"; continue; }
  [ -e "$name.h5" ] && [ ! -e "$name.h5.tmp" ] || fail "$name: output missing or temporary file left"
  "$PYTHON" - "$name.h5" "$SOURCE_DIR/tests/support" <<'PY' || fail "$name: result checks"
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[2])
import hamiltonians
f = h5py.File(sys.argv[1], "r")
for g in ("/input", "/provenance", "/timing", "/energy", "/hamiltonian"):
    assert g in f, g
assert "meters" in f["/energy"].attrs, "/energy must say which meters it read (or none)"
N = f["/hamiltonian"].attrs["N"]
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
if "/dos" in f:  # KPM: moments bounded, the DOS holds all states
    E, rho = f["/dos/energy"][:], f["/dos/rho"][:]
    mu = f["/kpm/moments"][:]
    assert abs(mu[0] - 1) < 1e-12, mu[0]
    assert np.all(np.abs(mu) <= 1 + 1e-9)
    assert np.all(np.diff(E) > 0)
    norm = text(f["/dos"].attrs.get("normalization", b"states"))
    assert np.all(np.isfinite(rho)) and rho.min() > -1e-6 * rho.max(), rho.min()
    # Where the grid spans the whole interval the DOS must hold all states (the Chebyshev nodes leave
    # a sliver at the ends: 3% is generous); a window grid holds a part.
    kpm = f["/kpm"].attrs
    total = getattr(np, "trapezoid", getattr(np, "trapz", None))(rho, E)
    target = N if norm == "states" else 1.0
    if E[0] <= kpm["emin"] + 1e-3 * (kpm["emax"] - kpm["emin"]) and E[-1] >= kpm["emax"] - 1e-3 * (kpm["emax"] - kpm["emin"]):
        assert abs(total - target) < 0.03 * target, (total, target)
    else:
        assert 0 < total < 1.03 * target, (total, target)
    assert "/dos/error" in f
elif "/eigen" in f:  # eigensolvers: sorted values; LOBPCG converged to its tolerance
    e = f["/eigen"].attrs
    w = f["/eigen/values"][:]
    assert np.all(np.isfinite(w))
    if text(e["method"]) == "lobpcg":
        assert e["converged"] == len(w), ("converged", e["converged"], len(w))
        assert np.all(f["/eigen/residuals"][:] <= e["tol"]), f["/eigen/residuals"][:]
        assert np.all(np.diff(w) >= -1e-12) if text(e["which"]) == "smallest" else np.all(np.diff(w) <= 1e-12)
    elif text(e["method"]) == "interior":  # every value in the window, ascending, residuals at tol
        assert text(e["stopped"]) == "converged" and e["found"] == len(w) > 0, (e["stopped"], e["found"], len(w))
        assert np.all((w >= e["window_min"]) & (w <= e["window_max"])) and np.all(np.diff(w) >= 0), w
        assert np.all(f["/eigen/residuals"][:] <= e["tol"]), f["/eigen/residuals"][:]
    else:
        assert len(w) == N and np.all(np.diff(w) >= 0)
elif "/ldos" in f:  # Green's functions or KPM: LDOS >= 0; the first site (surface) above the second (bulk) in the gap
    rho, E = f["/ldos/rho"][:], f["/ldos/energy"][:]
    if text(f["/ldos"].attrs["method"]) == "kpm":  # no solver; a positive kernel keeps the LDOS >= 0 (to rounding)
        assert "/kpm/moments_per_vector" in f
        assert np.all(np.isfinite(rho)) and rho.min() > -1e-9 * rho.max(), rho.min()
    else:
        assert f["/solver"].attrs["converged"] == 1
        assert np.all(rho > 0), rho
    gap = np.abs(E) < 0.6
    assert np.all(rho[gap, 0] > 1.5 * rho[gap, 1]), rho
elif "/solver" in f:  # a linear solve: converged, true residual at the tolerance, smoothed history monotone
    s = f["/solver"].attrs
    assert s["converged"] == 1
    assert f["/solver/true_residual"][0] <= 10 * s["tol"], f["/solver/true_residual"][:]
    if "/solution/x" in f:  # recomputed from the written x and a matrix built without hamlet
        A = hamiltonians.build(hamiltonians.read_deck(text(f["/input"][()])))
        x = f["/solution/x"][:].reshape(A.n)
        r = np.linalg.norm(np.ones(A.n) - A.apply(x)) / np.sqrt(A.n)
        assert r <= 10 * s["tol"], ("||b - A x|| / ||b||", r)
    h = f["/solver/history"][:]
    if text(s["smoothing"]) == "yes":
        assert np.all(np.diff(h) <= 1e-14 * h[0]), "smoothed residuals must not increase"
elif "/conductivity" in f:  # Kubo-Bastin: finite sigma; sigma_xx >= 0 within its error; mu_00 of xx = Tr[v_x^2]/N > 0
    c = f["/conductivity"]
    comps = text(c.attrs["components"]).split()
    mu, sig, err = c["moments"][:], c["sigma"][:], c["error"][:]
    M = mu.shape[1]
    assert mu.shape == (len(comps), M, M, 2) and sig.shape == err.shape
    assert sig.shape == (len(comps), len(c["temperature"]), len(c["energy"]))
    assert np.all(np.isfinite(sig)) and np.all(err >= 0)
    assert text(c.attrs["unit"]) in ("e^2/h (per layer)", "e^2/h (whole slab)", "e^2/(h a)")
    for i, name in enumerate(comps):
        if name[0] == name[1]:
            assert mu[i, 0, 0, 0] > 0, mu[i, 0, 0]
            assert np.all(sig[i] > -4 * err[i] - 0.05 * np.abs(sig[i]).max()), (name, sig[i].min())
elif "/marker" in f:  # local Chern marker: finite, one per cell; the flake's centre is a Chern insulator
    C, s = f["/marker/C"][:], f["/marker/sites"][:].astype(int)
    assert s.shape == (len(C), 3) and np.all(np.isfinite(C))
    h = f["/hamiltonian"].attrs
    centre = (s[:, 0] == int(h["nx"]) // 2) & (s[:, 1] == int(h["ny"]) // 2)
    assert np.all(np.abs(np.abs(C[centre]) - 1) < 0.05), C[centre]
elif "/spectral" in f:  # A(k, E): finite, >= 0; mu_0 = orbitals per point; a surface layer above the centre in the gap
    g = f["/spectral"]
    mu, A, E = g["moments"][:], g["A"][:], g["energy"][:]
    assert np.abs(mu[:, :, 0] - g.attrs["orbitals"]).max() < 1e-12
    assert A.shape == mu.shape[:2] + E.shape and np.all(np.isfinite(A)) and A.min() > -1e-6 * A.max()
    if A.shape[1] > 1:
        gap = np.abs(E) < 0.5
        assert A[:, 0, gap].sum() > 3 * A[:, 1, gap].sum(), (A[:, 0, gap].sum(), A[:, 1, gap].sum())
elif "/evolution" in f:  # time evolution: norms 1; msd finite, >= 0 (to its error), 0 at t = 0; sigma's error >= 0
    g = f["/evolution"]
    assert np.abs(g["norm"][:] - 1).max() < 1e-10
    if "msd" in g:
        m, e = g["msd"][:], g["msd_error"][:]
        assert np.all(np.isfinite(m)) and np.all(m[:, 0] == 0) and np.all(m > -4 * e - 1e-12), m.min()
        assert np.all(np.isfinite(g["sigma"][:])) and np.all(g["sigma_error"][:] >= 0)
        assert np.all(g["velocity_squared"][:] > 0) and np.all(g["mean_free_path"][:] > 0)
else:
    raise AssertionError("no result group")
PY
done
"$HAMLET" plot ti_dos.h5 -o ti_dos.png >/dev/null 2>&1 && [ -s ti_dos.png ] || fail "hamlet plot wrote no PNG"
"$HAMLET" plot ti_green_ldos_scan.h5 -o ldos_scan.png >/dev/null 2>&1 && [ -s ldos_scan.png ] || fail "hamlet plot wrote no PNG of the LDOS scan"
"$HAMLET" plot tbg_dos.h5 -o tbg.png --window 0.3 1.3 >plot.log 2>&1 && [ -s tbg.png ] || fail "plot --window: $(cat plot.log)"
"$HAMLET" plot tbg_dos.h5 -o bad.png --window 1.3 0.3 >plot.log 2>&1
[ $? -eq 1 ] && grep -qF "want EMIN < EMAX" plot.log && [ ! -e bad.png ] || fail "plot --window 1.3 0.3: $(cat plot.log)"
"$HAMLET" plot ti_green_ldos_scan.h5 -o bad.png --window 0 1 >plot.log 2>&1
[ $? -eq 1 ] && grep -qF "applies to a density of states" plot.log || fail "plot --window of an LDOS: $(cat plot.log)"
"$HAMLET" compare ti_dos.h5 ti_dos.h5 >cmp.txt || fail "a file differs from itself: $(cat cmp.txt)"
other=$(find . -maxdepth 1 -name "*.h5" ! -name ti_dos.h5 | sort | head -1)
"$HAMLET" compare ti_dos.h5 "$other" >cmp.txt
[ $? -eq 1 ] || fail "different results compared equal ($other): $(cat cmp.txt)"
finish
