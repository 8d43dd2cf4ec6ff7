# The results are checked against matrices built without hamlet (tests/support/hamiltonians.py) on
# cases drawn at random for each run (seed printed; HAMLET_TEST_SEED replays it), not only the decks
# of the repository: LOBPCG (TI, FEM, a Matrix Market file read here) and dense eigenpairs by ||H x - lambda x|| recomputed from the written
# vectors and by NumPy's eigenvalues; IDR(s) by ||b - A x|| of the written solution; KPM moments by
# the moments of the exact spectrum within the stochastic bound of R random vectors.
. "$(dirname "$0")/common.sh"
need_h5py
seed=${HAMLET_TEST_SEED:-$(( $(date +%s) % 100000 ))}
echo "HAMLET_TEST_SEED=$seed"
"$PYTHON" - "$seed" <<'PY' || fail "could not write the decks"
import sys, numpy as np
rng = np.random.default_rng(int(sys.argv[1]))
bc = lambda: " ".join(rng.choice(["periodic", "open"], 3))
def ti():
    pot = rng.choice(["none", "dots", "disorder", "dots disorder"])
    text = "[hamiltonian]\nmodel = ti\nnx = %d\nny = %d\nnz = %d\nboundary = %s\nt = %.3f\nm = %.3f\npotential = %s\n" % (
        rng.integers(2, 5), rng.integers(2, 5), rng.integers(2, 5), bc(), rng.uniform(0.5, 1.5), rng.uniform(0.5, 2.5), pot)
    if "dots" in pot:
        text += "dot_period_x = 2\ndot_period_y = 2\ndot_radius = 0.8\ndot_v0 = %.3f\n" % rng.uniform(-1, 1)
    if "disorder" in pot:
        text += "disorder_w = %.3f\ndisorder_seed = %d\n" % (rng.uniform(0.1, 2), rng.integers(1, 1000))
    return text
open("lobpcg.ini", "w").write(ti() + "[solver]\nmethod = lobpcg\nnev = %d\ntol = 1e-9\nmaxit = 3000\nvectors = yes\n" % rng.integers(2, 6))
open("dense.ini", "w").write(ti() + "[solver]\nmethod = dense\nvectors = yes\ndense_solver = %s\n" %
    rng.choice(["auto", "scalapack", "distributed"]))
open("kpm.ini", "w").write(ti() + "[kpm]\nmoments = 200\nvectors = %d\nseed = %d\n" % (rng.integers(2, 9), rng.integers(1, 1000)))
pot = rng.choice(["harmonic", "well"])
fem = "[hamiltonian]\nmodel = fem\nex = %d\ney = %d\nez = %d\nlx = %.3f\nly = %.3f\nlz = %.3f\npotential = %s\n" % (
    *rng.integers(4, 8, 3), *rng.uniform(1, 4, 3), pot)
shape = rng.choice(["sphere", "box"])
fem += "omega_x = %.3f\nomega_y = %.3f\nomega_z = %.3f\n" % tuple(rng.uniform(0.5, 3, 3)) if pot == "harmonic" else (
    "well_shape = %s\nwell_depth = %.3f\n%s\n" % (shape, rng.uniform(1, 30),
    "well_radius = 0.6" if shape == "sphere" else "well_size_x = 1\nwell_size_y = 0.8\nwell_size_z = 1.2"))
open("fem.ini", "w").write(fem + "[solver]\nmethod = lobpcg\nnev = 3\ntol = 1e-9\nmaxit = 3000\nvectors = yes\n")
# a Hermitian Matrix Market file (lower triangle, random pattern and values)
n = int(rng.integers(30, 80))
lower = [(i, j) for i in range(n) for j in range(i + 1) if i == j or rng.random() < 0.1]
with open("random.mtx", "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate complex hermitian\n%d %d %d\n" % (n, n, len(lower)))
    for i, j in lower:
        f.write("%d %d %.17g %.17g\n" % (i + 1, j + 1, rng.normal(), 0.0 if i == j else rng.normal()))
open("mtx.ini", "w").write("[hamiltonian]\nmodel = mtx\nmatrix = random.mtx\n[solver]\nmethod = lobpcg\nnev = 3\ntol = 1e-9\nmaxit = 3000\nvectors = yes\n")
b = rng.uniform(-30, 30, 3)
open("idr.ini", "w").write("[hamiltonian]\nmodel = convdiff\nn = %d\neps = %.3f\nbeta_x = %.3f\nbeta_y = %.3f\nbeta_z = %.3f\nr = %.3f\n"
    "[solver]\nmethod = idr\ns = %d\ntol = 1e-10\nmaxit = 3000\nvectors = yes\n[rhs]\nkind = ones\n"
    % (rng.integers(4, 10), rng.uniform(0.5, 2), b[0], b[1], b[2], rng.uniform(0, 5), rng.integers(1, 5)))
PY
for m in lobpcg dense kpm idr fem mtx; do
  echo "== $m.ini"; cat "$m.ini"
  run2 run "$m.ini" -o "$m.h5" --quiet >"$m.log" 2>&1 || fail "$m: $(cat "$m.log")"
done
"$PYTHON" - "$SOURCE_DIR/tests/support" <<'PY' || fail "results differ from the independent checks (seed $seed)"
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[1])
import hamiltonians as hm
ok = True
def check(cond, what):
    global ok
    print(("PASS  " if cond else "FAIL  ") + what)
    ok &= bool(cond)
def vectors(f):
    V = f["/eigen/vectors"][:]
    return V[..., 0] + 1j * V[..., 1] if V.ndim == 3 else V
for name in ("lobpcg", "dense", "mtx"):
    H = hm.build(hm.read_deck(name + ".ini"))
    f = h5py.File(name + ".h5", "r")
    w, X = f["/eigen/values"][:], vectors(f)
    exact = np.linalg.eigvalsh(H.dense())
    scale = np.abs(exact).max()
    check(f["/hamiltonian"].attrs["N"] == H.n and f["/hamiltonian"].attrs["nnz"] == H.nnz(), name + ": N and nnz")
    res = np.linalg.norm(H.apply(X) - X * w, axis=0) / np.linalg.norm(X, axis=0)
    tol = 1e-12 if name == "dense" else 1e-9
    check(np.all(res <= 10 * tol * scale), "%s: ||H x - lambda x|| <= %g ||H||: worst %.3g" % (name, 10 * tol, res.max() / scale))
    check(np.abs(X.conj().T @ X - np.eye(X.shape[1])).max() < 1e-8, name + ": vectors orthonormal")
    ref = exact[: len(w)]
    check(np.abs(w - ref).max() <= 1e-8 * scale, "%s: eigenvalues vs NumPy: %.3g" % (name, np.abs(w - ref).max()))
# FEM: H x = lambda M x with H and M built in NumPy; the vectors M-orthonormal
H, M = hm.fem(hm.read_deck("fem.ini"))
f = h5py.File("fem.h5", "r")
w, X = f["/eigen/values"][:], vectors(f)
exact = hm.generalized_eigvalsh(H, M)
scale = np.abs(exact).max()
res = np.linalg.norm(H @ X - (M @ X) * w, axis=0)
check(np.all(res <= 1e-8 * scale), "fem: ||H x - lambda M x|| <= 1e-8 max|lambda|: worst %.3g" % (res.max() / scale))
check(np.abs(X.T @ M @ X - np.eye(X.shape[1])).max() < 1e-8, "fem: vectors M-orthonormal")
check(np.abs(w - exact[: len(w)]).max() <= 1e-8 * scale, "fem: eigenvalues vs NumPy: %.3g" % np.abs(w - exact[: len(w)]).max())
check(f["/hamiltonian"].attrs["N"] == H.shape[0], "fem: N")
# IDR(s): the true residual of the written solution
A = hm.build(hm.read_deck("idr.ini"))
f = h5py.File("idr.h5", "r")
x = f["/solution/x"][:].reshape(A.n)
r = np.linalg.norm(np.ones(A.n) - A.apply(x)) / np.sqrt(A.n)
check(r <= 10 * f["/solver"].attrs["tol"], "idr: ||b - A x|| / ||b|| = %.3g" % r)
check(f["/solver"].attrs["converged"] == 1, "idr: converged")
# KPM: exact moments (1/N) sum_k T_n(scale (E_k - shift)) on the run's interval; one random-phase vector
# estimates them with a standard deviation of at most ||T_n||_F / N, R vectors divide it by sqrt(R).
H = hm.build(hm.read_deck("kpm.ini"))
f = h5py.File("kpm.h5", "r")
k = f["/kpm"].attrs
mu = f["/kpm/moments"][:]
E = np.linalg.eigvalsh(H.dense())
xs = k["scale"] * (E - k["shift"])
check(np.all(np.abs(xs) <= 1), "kpm: the interval holds the exact spectrum")
T = np.cos(np.outer(np.arange(len(mu)), np.arccos(np.clip(xs, -1, 1))))
exact = T.mean(axis=1)
sigma = np.sqrt((T**2).sum(axis=1)) / H.n / np.sqrt(k["vectors"])
dev = np.abs(mu - exact)
check(np.all(dev <= 6 * sigma + 1e-12), "kpm: moments within 6 sigma of the exact ones (worst %.2f sigma)" % (dev / sigma).max())
check(abs(mu[0] - 1) < 1e-12, "kpm: mu_0 = 1")
sys.exit(0 if ok else 1)
PY
finish
