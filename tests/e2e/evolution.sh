# method = evolution from a deck: a state on the middle site of a clean chain (hopping 1, open ends)
# spreads as <x^2> - <x>^2 = 2 t^2 exactly until its front reaches the ends, with its norm 1, on 1
# and 2 ranks (the propagated site amplitudes, written per step as /evolution/spread); random-phase
# starts keep their norms; bad [evolution] keys exit 2 naming the deck's file and line.
. "$(dirname "$0")/common.sh"
need_h5py
LAT=$SOURCE_DIR/inputs/lattices
chain() { printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s/square.lattice\nnx = 301\nny = 1\nnz = 1\nboundary = open open open\n[solver]\nmethod = evolution\n[evolution]\n%s\n' "$LAT" "$2" >"$1.ini"; }
chain site $'dt = 0.5\nsteps = 120\nstart = site 150 0 0'
chain random $'dt = 0.7\nsteps = 20\nstart = random\nvectors = 3\nseed = 4'
# run_ranks NAME...: each deck on 1 and 2 ranks, into NAME.1.h5 and NAME.2.h5
run_ranks() {
  local c np
  for c in "$@"; do
    for np in 1 2; do
      "$MPIEXEC" -n "$np" "$HAMLET" run "$c.ini" -o "$c.$np.h5" >"$c.$np.log" 2>&1 ||
        fail "$c on $np ranks: exit $? $(cat "$c.$np.log")"
    done
  done
}
run_ranks site random
"$PYTHON" - <<'PY' || fail "the evolution results are wrong"
import h5py, numpy as np
ok = True
for np_ in (1, 2):
    f = h5py.File("site.%d.h5" % np_, "r")
    t, s, x, n = (f["/evolution/" + k][:] for k in ("time", "spread", "position", "norm"))
    err = np.abs(s[1:, 0] - 2 * t[1:] ** 2).max() / (2 * t[-1] ** 2)
    good = len(t) == 121 and abs(t[-1] - 60) < 1e-12 and err < 1e-11 and np.abs(x[:, 0] - 150).max() < 1e-9 \
        and np.abs(s[:, 1:]).max() == 0 and np.abs(n - 1).max() < 1e-11
    print("%s site %d ranks: max |spread - 2 t^2| / 2 t_max^2 = %.2g, |norm - 1| <= %.2g" %
          ("PASS" if good else "FAIL", np_, err, np.abs(n - 1).max()))
    ok &= good
    r = h5py.File("random.%d.h5" % np_, "r")["/evolution/norm"][:]
    good = r.shape == (21, 3) and np.abs(r - 1).max() < 1e-11
    print("%s random %d ranks: |norm - 1| <= %.2g" % ("PASS" if good else "FAIL", np_, np.abs(r - 1).max()))
    ok &= good
a = h5py.File("site.1.h5", "r")["/evolution/spread"][:]
b = h5py.File("site.2.h5", "r")["/evolution/spread"][:]
good = np.abs(a - b).max() <= 1e-9 * np.abs(a).max()
print("%s 1 and 2 ranks agree: %.2g" % ("PASS" if good else "FAIL", np.abs(a - b).max()))
ok &= good
raise SystemExit(0 if ok else 1)
PY
# [evolution] msd on a clean ring of 600 sites (hopping -1: v(E) = sqrt(4 - E^2)): ballistic,
# Delta X^2 = (4 - E^2) t^2 within 2% and 4 of its stated errors; none along y (no bonds there);
# D = Delta X^2 / (2 t); <v_x^2>(E) = 4 - E^2 within 1%; sigma = 2 pi (N / Omega) dos D (e^2/h) and the
# semiclassical sigma its maximum over t; 1 and 2 ranks alike. With Anderson disorder W = 6 (localization
# length of a few sites) it saturates: from t = 20 to 80 it grows less than 2.5x (16x ballistic, 4x
# diffusive), D falls below half its maximum and the localization length is 1 to 10 sites; the clean
# ring has none.
ring() { printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s/square.lattice\nnx = 600\nny = 1\nnz = 1\nboundary = periodic open open\n%s\n[solver]\nmethod = evolution\n[evolution]\nvectors = 4\nseed = 3\nmsd = x y\nmoments = 384\n%s\n' "$LAT" "$2" "$3" >"$1.ini"; }
ring clean '' $'dt = 10\nsteps = 3\nenergies = -1.5 1.5 4'
ring dirty $'potential = disorder\ndisorder_w = 6' $'dt = 20\nsteps = 4\nenergies = -0.6 0.6 4'
run_ranks clean dirty
"$PYTHON" - <<'PY' || fail "the mean-square displacements are wrong"
import h5py, numpy as np
ok = True
for np_ in (1, 2):
    f = h5py.File("clean.%d.h5" % np_, "r")
    t, E, m, e, D, v2, dos, sigma, sc, xi = (f["/evolution/" + k][:] for k in (
        "time", "energy", "msd", "msd_error", "diffusivity", "velocity_squared", "dos", "sigma", "sigma_sc",
        "localization_length"))
    ballistic = (4 - E ** 2) * t[1:, None] ** 2
    dev = np.abs(m[0, 1:] - ballistic)
    good = m.shape == (2, 4, 4) and (dev <= 0.02 * ballistic).all() and (dev <= 4 * e[0, 1:] + 1e-3 * ballistic).all() \
        and (m[:, 0] == 0).all() and (m[1] == 0).all() and np.allclose(D[:, 1:], m[:, 1:] / (2 * t[1:, None]), rtol=1e-14) \
        and np.allclose(v2[0], 4 - E ** 2, rtol=0.01) and (v2[1] == 0).all() \
        and np.allclose(sigma, 2 * np.pi * f["/evolution"].attrs["density"] * dos * D, rtol=1e-12) \
        and np.allclose(sc, sigma.max(axis=1), rtol=1e-12) and (xi == 0).all()
    print("%s clean ring, %d ranks: Delta X^2 / (v^2 t^2) in [%.4f, %.4f], errors %.2g to %.2g relative" % (
        "PASS" if good else "FAIL", np_, (m[0, 1:] / ballistic).min(), (m[0, 1:] / ballistic).max(),
        (e[0, 1:] / m[0, 1:]).min(), (e[0, 1:] / m[0, 1:]).max()))
    ok &= good
    g = h5py.File("dirty.%d.h5" % np_, "r")
    d, xi = g["/evolution/msd"][0], g["/evolution/localization_length"][0]
    good = d[4].sum() < 2.5 * d[1].sum() and (xi > 1).all() and (xi < 10).all()
    print("%s disordered ring, %d ranks: sum over E of Delta X^2 = %.4g at t = 20, %.4g at t = 80; xi %s" % (
        "PASS" if good else "FAIL", np_, d[1].sum(), d[4].sum(), xi))
    ok &= good
for c in ("clean", "dirty"):
    a, b = (h5py.File("%s.%d.h5" % (c, n), "r")["/evolution/msd"][:] for n in (1, 2))
    good = np.abs(a - b).max() <= 1e-9 * np.abs(a).max()
    print("%s %s: 1 and 2 ranks agree to %.2g" % ("PASS" if good else "FAIL", c, np.abs(a - b).max() / np.abs(a).max()))
    ok &= good
raise SystemExit(0 if ok else 1)
PY
# start = gaussian on the clean chain (hopping -1: v(k) = 2 sin k), width w = 10, k = pi/2, centre 100:
# <x>(t) = 100 + t <v>, <v> = 2 sin(k) exp(-1 / (4 w^2)), and <x^2> - <x>^2 = w^2 / 2 + t^2 Var(v),
# <v^2> = 2 (1 - cos(2k) exp(-1 / w^2)) (x(t) = x(0) + v t, v conserved), to 1e-9 while the packet is
# 6 widths from the ends (t <= 70). The same packet made by NumPy (complex, orbital amplitude i:
# spinor = 0 1; scaled by 3, start = file normalises it) and read by start = file evolves alike.
chain packet $'dt = 2\nsteps = 35\nstart = gaussian 100 0 0 10 1.5707963267948966 0 0\nspinor = 0 1'
"$PYTHON" - <<'PY'
import numpy as np
x = np.arange(301.0)
psi = 1j * np.exp(-(x - 100) ** 2 / 200 + 1j * np.pi / 2 * (x - 100))
with open("packet.mtx", "w") as f:
    f.write("%%MatrixMarket matrix array complex general\n301 1\n")
    f.writelines("%.17g %.17g\n" % (z.real * 3, z.imag * 3) for z in psi)
PY
chain file $'dt = 2\nsteps = 35\nstart = file packet.mtx\nsnapshots = 5'
run_ranks packet file
"$PYTHON" - <<'PY' || fail "the Gaussian wave packet is wrong"
import h5py, numpy as np
w, k = 10.0, np.pi / 2
v = 2 * np.sin(k) * np.exp(-1 / (4 * w * w))
var_v = 2 * (1 - np.cos(2 * k) * np.exp(-1 / (w * w))) - v * v
ok = True
for np_ in (1, 2):
    f = h5py.File("packet.%d.h5" % np_, "r")
    t, x, s, n = (f["/evolution/" + q][:] for q in ("time", "position", "spread", "norm"))
    ex, es = np.abs(x[:, 0] - 100 - v * t).max(), np.abs(s[:, 0] - w * w / 2 - var_v * t * t).max()
    g = h5py.File("file.%d.h5" % np_, "r")
    same = max(np.abs(g["/evolution/" + q][:] - f["/evolution/" + q][:]).max() for q in ("position", "spread", "norm"))
    # the density snapshots (every 5 steps) hold the norm and the spread of the packet at their times
    rho, ts = g["/evolution/density"][:, 0, :], g["/evolution/snapshot_time"][:]
    xs, p = np.arange(rho.shape[1]), rho / rho.sum(1)[:, None]  # the spread is of the normalised state
    mean = (p * xs).sum(1)
    var = (p * xs ** 2).sum(1) - mean ** 2
    snaps = rho.shape == (8, 301) and np.allclose(ts, t[::5]) and np.abs(rho.sum(1) - 1).max() < 1e-11 \
        and np.abs(var - g["/evolution/spread"][::5, 0]).max() < 1e-8 and "spin_z" not in g["/evolution"]
    good = ex < 1e-9 * t[-1] and es < 1e-9 * w * w and np.abs(n - 1).max() < 1e-11 and same < 1e-9 and snaps
    print("%s packet, %d ranks: |<x> - x0 - <v> t| %.2g, |spread - (w^2/2 + Var(v) t^2)| %.2g, file start %.2g, "
          "snapshots %s" % ("PASS" if good else "FAIL", np_, ex, es, same, snaps))
    ok &= good
raise SystemExit(0 if ok else 1)
PY
if have matplotlib "no matplotlib for $PYTHON: hamlet plot of a wave packet" python_has matplotlib; then
  "$HAMLET" plot packet.1.h5 -o packet.png >plot.log 2>&1 && [ -s packet.png ] || fail "hamlet plot: $(cat plot.log)"
fi
# A packet on periodic graphene (8 x 8 cells) centred near a corner: its nearest periodic images and
# two orbitals' positions and spinor (1, i) as NumPy makes them, read by start = file, evolve alike.
graphene() { printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s/graphene.lattice\nnx = 8\nny = 8\nnz = 1\nboundary = periodic periodic open\n[solver]\nmethod = evolution\n[evolution]\ndt = 0.5\nsteps = 4\n%s\n' "$LAT" "$2" >"$1.ini"; }
graphene corner $'start = gaussian 0.3 -0.2 0 1.5 0.7 -1.1 0\nspinor = 1 0 0 1'
"$PYTHON" - <<'PY'
import numpy as np
A = np.array([[1, 0, 0], [0.5, 0.8660254037844386, 0], [0, 0, 1]])
pos = np.array([[0.5, 0.28867513459481287, 0], [1.0, 0.57735026918962573, 0]])
rows = np.arange(2 * 64)
cell, o = rows // 2, rows % 2
c = np.stack([cell % 8, cell // 8 % 8, 0 * cell], axis=1)
dr = c @ A + pos[o] - np.array([0.3, -0.2, 0])
f = np.linalg.solve(A.T, dr.T).T
f[:, :2] -= 8 * np.rint(f[:, :2] / 8)
dr = f @ A
psi = np.where(o == 0, 1, 1j) * np.exp(-(dr ** 2).sum(1) / (2 * 1.5 ** 2) + 1j * dr @ np.array([0.7, -1.1, 0]))
with open("corner.mtx", "w") as out:
    out.write("%%MatrixMarket matrix array complex general\n128 1\n")
    out.writelines("%.17g %.17g\n" % (z.real, z.imag) for z in psi)
PY
graphene corner_file $'start = file corner.mtx'
"$HAMLET" run corner.ini -o corner.h5 >corner.log 2>&1 || fail "corner: $(cat corner.log)"
"$HAMLET" run corner_file.ini -o corner_file.h5 >corner_file.log 2>&1 || fail "corner_file: $(cat corner_file.log)"
"$PYTHON" - <<'PY' || fail "the Gaussian packet across periodic boundaries differs from NumPy's"
import h5py, numpy as np
a, b = h5py.File("corner.h5", "r"), h5py.File("corner_file.h5", "r")
d = max(np.abs(a["/evolution/" + q][:] - b["/evolution/" + q][:]).max() for q in ("position", "spread", "norm"))
print("%s graphene corner packet against NumPy's: %.2g" % ("PASS" if d < 1e-10 else "FAIL", d))
raise SystemExit(0 if d < 1e-10 else 1)
PY
# <S_z> of a spin-up electron on a chain of spin pairs in a transverse field B_x = 0.3: the Zeeman term
# commutes with the hopping, so <sigma_z>(t) = cos(2 B t) exactly (to the propagator's accuracy).
printf 'a1 1 0 0\na2 0 1 0\na3 0 0 1\norbital 0 0 0 up\norbital 0 0 0 down\nhop 1 0 0  0 0  -1\nhop 1 0 0  1 1  -1\n' >spin.lattice
printf '[hamiltonian]\nmodel = lattice\nlattice_file = spin.lattice\nnx = 40\nny = 1\nnz = 1\nzeeman = 0.3 0 0\n[solver]\nmethod = evolution\n[evolution]\ndt = 0.25\nsteps = 40\nstart = site 20 0 0 0\n' >spin.ini
"$HAMLET" run spin.ini -o spin.h5 >spin.log 2>&1 || fail "spin: $(cat spin.log)"
"$PYTHON" - <<'PY' || fail "<S_z> of a spin in a transverse field is wrong"
import h5py, numpy as np
g = h5py.File("spin.h5", "r")["/evolution"]
t, sz = g["time"][:], g["spin_z"][:]
err = np.abs(sz - np.cos(2 * 0.3 * t)).max()
print("%s <S_z>(t) against cos(2 B t): %.2g" % ("PASS" if err < 1e-10 else "FAIL", err))
raise SystemExit(0 if err < 1e-10 else 1)
PY
bad() { # NAME EVOLUTION_LINES EXPECTED_MESSAGE
  chain "$1" "$2"
  "$HAMLET" run "$1.ini" -o "$1.h5" >"$1.log" 2>&1
  code=$?
  [ "$code" -eq 2 ] && grep -qF -- "$3" "$1.log" || fail "bad deck $1: exit $code, want 2 with '$3': $(cat "$1.log")"
  [ ! -e "$1.h5" ] || fail "bad deck $1 wrote $1.h5"
}
bad outside $'start = site 301 0 0' "outside.ini:11: [evolution] start = site 301 0 0: x 301 is outside 0 .. 300"
bad orbital $'start = site 3 0 0 1' "[evolution] start = site 3 0 0 1: orbital 1, but the model has 1 orbital per cell"
bad words $'start = somewhere' "[evolution] start = somewhere: must be random, site X Y Z [ORBITAL], gaussian X Y Z WIDTH [KX KY KZ] or file PATH"
bad width $'start = gaussian 150 0 0 0' "width.ini:11: [evolution] start = gaussian 150 0 0 0: the width 0 must be > 0"
bad gauss_args $'start = gaussian 150 0 0 5 1' "[evolution] start = gaussian 150 0 0 5 1: gaussian takes X Y Z WIDTH [KX KY KZ]"
bad spinor_site $'start = site 3 0 0\nspinor = 1' "[evolution] spinor is given with start = site 3 0 0: it applies to start = gaussian only"
bad spinor_count $'start = gaussian 150 0 0 5\nspinor = 1 0 1' "[evolution] spinor = 1 0 1: 3 numbers, but the model has 1 orbital per cell: give 1 real amplitudes or 2 (re im pairs)"
bad no_file $'start = file missing.mtx' "[evolution] start = file missing.mtx: not a readable Matrix Market file"
printf '%%%%MatrixMarket matrix array real general\n5 1\n1\n2\n3\n4\n5\n' >short.mtx
bad short_file $'start = file short.mtx' "[evolution] start = file short.mtx: want one column of the model's rows"
bad far $'start = gaussian 150 0 0 1e-3\nspinor = 0' "[evolution] start = gaussian 150 0 0 1e-3: the start state is zero"
bad dt $'dt = -1' "dt"
bad vectors $'start = site 3 0 0\nvectors = 2' "vectors is given with start = site 3 0 0"
bad msd_words $'msd = x w' "[evolution] msd = x w"
bad layer $'snapshots = 2\nsnapshot_layer = 1' "layer.ini:12: [evolution] snapshot_layer = 1 is outside the lattice's layers 0 .. 0"
bad msd_grid $'msd = x\nenergies = 0 1' "[evolution] energies = 0 1: must be 'Emin Emax count'"
finish
