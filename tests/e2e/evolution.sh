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
# D = Delta X^2 / (2 t); 1 and 2 ranks alike. With Anderson disorder W = 6 (localization length of a
# few sites) it saturates: from t = 20 to 80 it grows less than 2.5x (16x ballistic, 4x diffusive).
ring() { printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s/square.lattice\nnx = 600\nny = 1\nnz = 1\nboundary = periodic open open\n%s\n[solver]\nmethod = evolution\n[evolution]\nvectors = 4\nseed = 3\nmsd = x y\nmoments = 384\n%s\n' "$LAT" "$2" "$3" >"$1.ini"; }
ring clean '' $'dt = 10\nsteps = 3\nenergies = -1.5 1.5 4'
ring dirty $'potential = disorder\ndisorder_w = 6' $'dt = 20\nsteps = 4\nenergies = -0.6 0.6 4'
run_ranks clean dirty
"$PYTHON" - <<'PY' || fail "the mean-square displacements are wrong"
import h5py, numpy as np
ok = True
for np_ in (1, 2):
    f = h5py.File("clean.%d.h5" % np_, "r")
    t, E, m, e, D = (f["/evolution/" + k][:] for k in ("time", "energy", "msd", "msd_error", "diffusivity"))
    ballistic = (4 - E ** 2) * t[1:, None] ** 2
    dev = np.abs(m[0, 1:] - ballistic)
    good = m.shape == (2, 4, 4) and (dev <= 0.02 * ballistic).all() and (dev <= 4 * e[0, 1:] + 1e-3 * ballistic).all() \
        and (m[:, 0] == 0).all() and (m[1] == 0).all() and np.allclose(D[:, 1:], m[:, 1:] / (2 * t[1:, None]), rtol=1e-14)
    print("%s clean ring, %d ranks: Delta X^2 / (v^2 t^2) in [%.4f, %.4f], errors %.2g to %.2g relative" % (
        "PASS" if good else "FAIL", np_, (m[0, 1:] / ballistic).min(), (m[0, 1:] / ballistic).max(),
        (e[0, 1:] / m[0, 1:]).min(), (e[0, 1:] / m[0, 1:]).max()))
    ok &= good
    d = h5py.File("dirty.%d.h5" % np_, "r")["/evolution/msd"][0]
    good = d[4].sum() < 2.5 * d[1].sum()
    print("%s disordered ring, %d ranks: sum over E of Delta X^2 = %.4g at t = 20, %.4g at t = 80" % (
        "PASS" if good else "FAIL", np_, d[1].sum(), d[4].sum()))
    ok &= good
for c in ("clean", "dirty"):
    a, b = (h5py.File("%s.%d.h5" % (c, n), "r")["/evolution/msd"][:] for n in (1, 2))
    good = np.abs(a - b).max() <= 1e-9 * np.abs(a).max()
    print("%s %s: 1 and 2 ranks agree to %.2g" % ("PASS" if good else "FAIL", c, np.abs(a - b).max() / np.abs(a).max()))
    ok &= good
raise SystemExit(0 if ok else 1)
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
bad words $'start = somewhere' "[evolution] start = somewhere: must be random or site X Y Z [ORBITAL]"
bad dt $'dt = -1' "dt"
bad vectors $'start = site 3 0 0\nvectors = 2' "vectors is given with start = site 3 0 0"
bad msd_words $'msd = x w' "[evolution] msd = x w"
bad msd_grid $'msd = x\nenergies = 0 1' "[evolution] energies = 0 1: must be 'Emin Emax count'"
finish
