# model = lattice through every method, against numpy on the same Hamiltonian built independently
# from the .lattice file (tests/support/lattice_model.py): dense (all eigenvalues), LOBPCG (the
# lowest), the KPM LDOS (moments of unit vectors, exact), the KPM DOS (random vectors, within their
# stochastic error), IDR Green's functions (a direct solve), on 1 and 2 ranks; vacancies (the DOS
# moments are those of the remaining sites); a twisted ring (2t cos((2 pi k + theta) / L)).
. "$(dirname "$0")/common.sh"
need_h5py
LAT=$SOURCE_DIR/inputs/lattices
# deck NAME MODEL_LINES SOLVER_LINES
deck() { printf '[hamiltonian]\nmodel = lattice\n%s\n%s\n' "$2" "$3" >"$1.ini"; }
QWZ="lattice_file = $LAT/qwz.lattice
nx = 4
ny = 3
nz = 1
boundary = periodic periodic open
potential = disorder
disorder_w = 0.8
disorder_seed = 5"
deck dense "$QWZ" $'[solver]\nmethod = dense'
deck lobpcg "$QWZ" $'[solver]\nmethod = lobpcg\nnev = 3\ntol = 1e-10\nmaxit = 2000'
deck ldos "$QWZ" $'[solver]\nmethod = kpm\n[kpm]\nmoments = 64\nldos_sites = 1 1 0; 3 2 0'
deck dos "$QWZ" $'[solver]\nmethod = kpm\n[kpm]\nmoments = 32\nvectors = 256\nseed = 3'
deck green "$QWZ" $'[solver]\nmethod = idr\nproblem = green\ntol = 1e-12\n[green]\neta = 0.1\nenergy_list = -0.5 0.7\nsites = 1 1 0; 2 0 0'
deck vacancies "lattice_file = $LAT/square.lattice
nx = 8
ny = 8
nz = 1
boundary = periodic periodic open
vacancies = 0.2
vacancy_seed = 3" $'[kpm]\nmoments = 24\nvectors = 512\nseed = 9'
deck ring "lattice_file = $LAT/square.lattice
nx = 12
ny = 1
nz = 1
boundary = twisted open open
twist = 0.7 0 0" $'[solver]\nmethod = dense'
for c in dense lobpcg ldos dos green vacancies ring; do
  for np in 1 2; do
    "$MPIEXEC" -n "$np" "$HAMLET" run "$c.ini" -o "$c.$np.h5" >"$c.$np.log" 2>&1 ||
      fail "$c on $np ranks: exit $? $(cat "$c.$np.log")"
  done
done
grep -q "vacancies .* orbitals of vacant sites" vacancies.1.log || fail "the summary does not mention the vacancies: $(cat vacancies.1.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$LAT" <<'PY' || fail "lattice results differ from numpy"
import sys, h5py, numpy as np
import lattice_model as lm
lat = sys.argv[1]
ok = True
def check(name, good, what):
    global ok
    print("%s %s: %s" % ("PASS" if good else "FAIL", name, what))
    ok &= bool(good)
no, blocks = lm.read_hamlet(lat + "/qwz.lattice")
H, _ = lm.supercell(no, blocks, (4, 3, 1), ("periodic", "periodic", "open"), disorder_w=0.8, disorder_seed=5)
w = np.linalg.eigvalsh(H)
for np_ in (1, 2):
    f = lambda c: h5py.File("%s.%d.h5" % (c, np_), "r")
    e = f("dense")["/eigen/values"][:]
    check("dense %d ranks" % np_, len(e) == len(w) and np.abs(e - w).max() < 1e-10, "max |E - eigh| = %.2g" % np.abs(e - w).max())
    e = f("lobpcg")["/eigen/values"][:]
    check("lobpcg %d ranks" % np_, np.abs(e - w[:3]).max() < 1e-8, "%s vs %s" % (e, w[:3]))
    k = f("ldos")["/kpm"]
    cells = [(1, 1, 0), (3, 2, 0)]
    rows = [no * (x + 4 * (y + 3 * z)) + o for (x, y, z) in cells for o in range(no)]
    mu = k["moments_per_vector"][:]
    ref = lm.orbital_moments(H, rows, mu.shape[1], k.attrs["scale"], k.attrs["shift"])
    check("kpm ldos %d ranks" % np_, mu.shape == ref.shape and np.abs(mu - ref).max() < 1e-10,
          "%d orbitals, max |mu - exact| = %.2g" % (mu.shape[0], np.abs(mu - ref).max()))
    k = f("dos")["/kpm"]
    mu, muv = k["moments"][:], k["moments_per_vector"][:]
    ref = lm.chebyshev_moments(w, len(mu), k.attrs["scale"], k.attrs["shift"])
    sigma = muv.std(axis=0) / np.sqrt(muv.shape[0]) + 1e-14
    check("kpm dos %d ranks" % np_, np.all(np.abs(mu - ref) < 6 * sigma),
          "max |mu - exact| / sigma = %.2f" % (np.abs(mu - ref) / sigma).max())
    g = f("green")
    G, z = lm.complex_array(g["/green/G"][:]), lm.complex_array(g["/green/z"][:])
    cells = [(1, 1, 0), (2, 0, 0)]
    rows = [no * (x + 4 * (y + 3 * z_)) + o for (x, y, z_) in cells for o in range(no)]
    ref = np.array([lm.green_diagonal(H, rows, zz).reshape(len(cells), no) for zz in z])
    check("idr green %d ranks" % np_, G.shape == ref.shape and np.abs(G - ref).max() < 1e-8,
          "G %s, max |G - direct| = %.2g" % (G.shape, np.abs(G - ref).max()))
    # vacancies: the moments of the remaining sites' Hamiltonian
    no1, b1 = lm.read_hamlet(lat + "/square.lattice")
    Hv, vacant = lm.supercell(no1, b1, (8, 8, 1), ("periodic", "periodic", "open"), vacancies=0.2, vacancy_seed=3)
    keep = [r for r in range(64) if r // no1 not in vacant]
    k = f("vacancies")["/kpm"]
    mu, muv = k["moments"][:], k["moments_per_vector"][:]
    exact = lm.chebyshev_moments(np.linalg.eigvalsh(Hv[np.ix_(keep, keep)]), len(mu), k.attrs["scale"], k.attrs["shift"])
    polluted = lm.chebyshev_moments(np.linalg.eigvalsh(Hv), len(mu), k.attrs["scale"], k.attrs["shift"])
    sigma = muv.std(axis=0) / np.sqrt(muv.shape[0]) + 1e-14
    check("vacancies %d ranks" % np_, len(vacant) > 0 and k.attrs["N"] == len(keep) and
          k.attrs["vacant_orbitals"] == 64 - len(keep) and np.all(np.abs(mu - exact) < 6 * sigma) and
          np.abs(polluted - exact).max() > 20 * sigma.max(),
          "%d vacant sites, N = %d, max |mu - exact| / sigma = %.2f (the zero modes would move them by %.0f sigma)" %
          (len(vacant), k.attrs["N"], (np.abs(mu - exact) / sigma).max(), (np.abs(polluted - exact) / sigma).max()))
    e = f("ring")["/eigen/values"][:]
    ref = np.sort(-2 * np.cos((2 * np.pi * np.arange(12) + 0.7) / 12))
    check("twisted ring %d ranks" % np_, np.abs(e - ref).max() < 1e-12, "max |E - 2t cos((2 pi k + theta)/L)| = %.2g" % np.abs(e - ref).max())
raise SystemExit(0 if ok else 1)
PY
finish
