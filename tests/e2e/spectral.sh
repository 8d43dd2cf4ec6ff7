# method = spectral end to end. (a) A clean periodic TI and a Haldane lattice (complex hoppings,
# orbitals off the cell origin, hexagonal names) and a twisted square lattice: the moments of every k
# equal sum_b T_n(E_b~) of the exact Bloch bands at the allowed k used (the TI's analytic bands,
# numpy's eigvalsh of the lattice's H(k)) to 1e-12; each A(k, E) integrates (Chebyshev-Gauss, exact
# for the kernel polynomial) to the orbitals per cell; 1 and 3 ranks agree; the point moved to the
# grid is reported. (b) A TI slab: the top layer has the surface Dirac cone in the bulk gap near
# Gamma (peak at |E| ~ v k), the central layer has no weight there; hamlet post and plot work on it.
# A run killed after a batch's checkpoint restarts to the uninterrupted result, bit for bit.
# (c) Bad decks exit 2 with their messages.
. "$(dirname "$0")/common.sh"
need_h5py
LATTICES="$SOURCE_DIR/inputs/lattices"
cat >ti.ini <<'INI'
[hamiltonian]
model = ti
nx = 6
ny = 6
nz = 6
t = 1
m = 2
[solver]
method = spectral
[kpm]
moments = 64
bounds = gershgorin   ; the same interval on 1 and 3 ranks (Lanczos' differs in the last bits)
[spectral]
k_path = G X M G R
points = 3
INI
"$MPIEXEC" -n 1 "$HAMLET" run ti.ini -o one.h5 >one.log 2>&1 || fail "ti 1 rank: $(cat one.log)"
"$MPIEXEC" -n 3 "$HAMLET" run ti.ini -o three.h5 --quiet >three.log 2>&1 || fail "ti 3 ranks: $(cat three.log)"
"$HAMLET" compare one.h5 three.h5 --rtol 0 --atol 1e-12 --only /spectral/moments >cmp.txt ||
  fail "spectral moments differ between 1 and 3 ranks: $(cat cmp.txt)"
"$HAMLET" compare one.h5 three.h5 --rtol 0 --atol 1e-10 --only /spectral/A >cmp.txt ||
  fail "A(k, E) differs between 1 and 3 ranks: $(cat cmp.txt)"
# X = (0.5 0 0) is on the 6-cell grid; the thirds of G-X (1/6, 1/3) are too: nothing moves
grep -q "moved to the nearest" one.log && fail "ti: a point on the grid was reported moved: $(cat one.log)"
cat >haldane.ini <<INI
[hamiltonian]
model = lattice
lattice_file = $LATTICES/haldane.lattice
nx = 6
ny = 6
nz = 1
[solver]
method = spectral
[kpm]
moments = 48
[spectral]
k_path = G K M G
points = 4
INI
"$MPIEXEC" -n 2 "$HAMLET" run haldane.ini -o haldane.h5 >haldane.log 2>&1 || fail "haldane: $(cat haldane.log)"
grep -q "moved to the nearest allowed point" haldane.log || fail "haldane: K/4 is off the 6-cell grid, not reported"
cat >twisted.ini <<INI
[hamiltonian]
model = lattice
lattice_file = $LATTICES/square.lattice
nx = 8
ny = 5
nz = 1
boundary = twisted periodic periodic
twist = 1.3 0 0
[solver]
method = spectral
[kpm]
moments = 40
[spectral]
k_path = 0 0 0, 0.5 0.5 0, 0.5 0 0
points = 5
INI
"$MPIEXEC" -n 2 "$HAMLET" run twisted.ini -o twisted.h5 --quiet >twisted.log 2>&1 || fail "twisted: $(cat twisted.log)"
"$PYTHON" - "$LATTICES" one.h5 haldane.h5 twisted.h5 "$SOURCE_DIR/tests/support" <<'PY' || fail "Bloch moments, sum rule"
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[5])
import lattice_model
lattices = sys.argv[1]

def cheb(M, x):
    T = np.zeros((M, len(x)))
    T[0] = 1
    T[1] = x
    for n in range(2, M):
        T[n] = 2 * x * T[n - 1] - T[n - 2]
    return T

def check(path, bands, orbitals, twist=(0, 0, 0), cells=None):
    f = h5py.File(path, "r")
    g = f["/spectral"]
    a = g.attrs
    mu, A, E, kred = g["moments"][:], g["A"][:], g["energy"][:], g["k"][:]
    M = mu.shape[-1]
    assert mu.shape[:2] == (kred.shape[0], 1), mu.shape
    worst = 0
    for i, k in enumerate(kred):
        if cells is not None:  # on the grid: (m + theta / 2 pi) / n
            m = k * cells - np.array(twist) / (2 * np.pi)
            assert np.abs(m - np.round(m)).max() < 1e-12, (path, k)
        x = a["scale"] * (bands(k) - a["shift"])
        ref = cheb(M, x).sum(axis=1)
        worst = max(worst, np.abs(mu[i, 0] - ref).max())
    assert worst < 1e-12, (path, worst)
    assert abs(a["orbitals"] - orbitals) < 1e-15
    # Chebyshev-Gauss quadrature on the 2M nodes: exact for the kernel polynomial, = g_0 mu_0
    x = a["scale"] * (E - a["shift"])
    total = (np.pi / len(E)) * (np.sqrt(1 - x * x) * A[:, 0, :]).sum(axis=1) / a["scale"]
    assert np.abs(total - orbitals).max() < 1e-10, (path, total)
    assert A.min() > -1e-8 * A.max()
    return f

t, m = 1.0, 2.0
def ti_bands(k):
    q = 2 * np.pi * k
    e = np.sqrt((m - t * np.cos(q).sum()) ** 2 + t * t * (np.sin(q) ** 2).sum())
    return np.array([e, e, -e, -e])
check(sys.argv[2], ti_bands, 4, cells=np.array([6, 6, 6]))

def lattice_bands(name):
    n, blocks = lattice_model.read_hamlet(lattices + "/" + name)
    def bands(k):
        Hk = sum(B * np.exp(2j * np.pi * np.dot(k, R)) for R, B in blocks.items())
        return np.linalg.eigvalsh(Hk)
    return n, bands
n, bands = lattice_bands("haldane.lattice")
f = check(sys.argv[3], bands, n, cells=np.array([6, 6, 1]))
kreq = f["/spectral/k_requested"][:]
assert np.abs(kreq[4] - [2 / 3, 1 / 3, 0]).max() < 1e-12, kreq[4]   # K = (2 b1 + b2) / 3 for a1, a2 at 60 degrees
assert f["/spectral"].attrs["moved_points"] > 0
n, bands = lattice_bands("square.lattice")
check(sys.argv[4], bands, n, twist=(1.3, 0, 0), cells=np.array([8, 5, 1]))
PY

# (b) the slab's surface Dirac cone
cat >slab.ini <<'INI'
[hamiltonian]
model = ti
nx = 20
ny = 20
nz = 12
boundary = periodic periodic open
t = 1
m = 2
[solver]
method = spectral
[kpm]
moments = 256
energies = 241
emin = -3
emax = 3
[spectral]
k_path = 0 0 0, 0.1 0 0
points = 2
layers = 12 6
INI
"$MPIEXEC" -n 2 "$HAMLET" run slab.ini -o slab.h5 --quiet >slab.log 2>&1 || fail "slab: $(cat slab.log)"
"$PYTHON" - slab.h5 <<'PY' || fail "slab surface cone"
import sys, h5py, numpy as np
trapz = getattr(np, "trapezoid", getattr(np, "trapz", None))
f = h5py.File(sys.argv[1], "r")
A, E, k = f["/spectral/A"][:], f["/spectral/energy"][:], f["/spectral/k_cartesian"][:]
assert list(f["/spectral/layers"][:]) == [12, 6]
gap = np.abs(E) < 0.8                     # inside the bulk gap (|m - 3t| = 1; confinement widens it)
for i in range(A.shape[0]):
    top, mid = A[i, 0], A[i, 1]
    wt, wm = trapz(top[gap], E[gap]), trapz(mid[gap], E[gap])
    assert wt > 1.5, (i, wt)             # the surface's two cone states lie in the gap
    assert wm < 0.05 * wt, (i, wm, wt)   # the centre has none there
    q = np.linalg.norm(k[i])
    peak = np.abs(E[gap][np.argmax(top[gap])])
    # the Dirac cone E = +-t sin q (Dirac point E = 0 at Gamma); energy grid step 0.025
    assert abs(peak - np.sin(q)) < 0.05, (i, q, peak)
PY

# hamlet post: the run's own grid reproduces A exactly; a new grid and kernel give their shapes;
# temperatures are refused; hamlet plot draws the image
"$HAMLET" post slab.h5 -o same.h5 >post.log 2>&1 || fail "post: $(cat post.log)"
"$HAMLET" compare slab.h5 same.h5 --rtol 0 --atol 0 --only /spectral/A,/spectral/energy >cmp.txt ||
  fail "post with the run's grid differs from the run: $(cat cmp.txt)"
"$HAMLET" post slab.h5 --energies -1 1 11 --kernel lorentz --lambda 3 -o new.h5 >post.log 2>&1 ||
  fail "post with a new grid: $(cat post.log)"
"$PYTHON" - new.h5 <<'PY' || fail "post's new grid"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
assert f["/spectral/A"].shape == (3, 2, 11), f["/spectral/A"].shape
assert np.allclose(f["/spectral/energy"][:], np.linspace(-1, 1, 11), atol=1e-15)
k = f["/spectral"].attrs["kernel"]
assert (k.decode() if isinstance(k, bytes) else k) == "lorentz"
PY
"$HAMLET" post slab.h5 --temperatures 0.1 >bad.log 2>&1
code=$?
[ "$code" -eq 2 ] && grep -qF -- "--temperatures applies to conductivities only" bad.log ||
  fail "post --temperatures on a spectral result: exit $code, want 2 with its message: $(cat bad.log)"
if have matplotlib "no matplotlib for $PYTHON: hamlet plot of a spectral result" python_has matplotlib; then
  "$HAMLET" plot slab.h5 -o slab.png >plot.log 2>&1 && [ -s slab.png ] || fail "hamlet plot: $(cat plot.log)"
fi

# Checkpoints per batch: a run killed mid-way restarts from its last checkpoint and ends with the
# moments and A of an uninterrupted run, bit for bit (the same interval, the same batches)
cat >ckpt.ini <<'INI'
[run]
checkpoint = ckpt.h5
checkpoint_every = 1
[hamiltonian]
model = ti
nx = 6
ny = 6
nz = 6
boundary = periodic periodic open
[solver]
method = spectral
[kpm]
moments = 64
[spectral]
k_path = G X M G
points = 6
layers = all
INI
run2 run ckpt.ini -o full.h5 --quiet >full.log 2>&1 || fail "uninterrupted checkpointed run: $(cat full.log)"
rm -f ckpt.h5
HAMLET_TEST_STEP_DELAY_US=20000 setsid "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run ckpt.ini -o killed.h5 --quiet \
  >killed.log 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -e ckpt.h5 ] && break; sleep 0.1; done
sleep 0.3
kill -KILL -- -"$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -e ckpt.h5 ] || fail "no spectral checkpoint appeared before the kill"
[ -e killed.h5 ] && fail "the killed spectral run finished before it was killed: slow it down more"
run2 restart ckpt.h5 -o restarted.h5 --quiet >restart.log 2>&1 || fail "spectral restart: $(cat restart.log)"
"$HAMLET" compare full.h5 restarted.h5 --rtol 0 --atol 0 --only /spectral/moments,/spectral/A >cmp.txt ||
  fail "restarted spectral run differs: $(cat cmp.txt)"

# (c) bad decks
expect_bad() { # deck text on stdin; $1 = message
  cat >bad.ini
  "$HAMLET" run bad.ini -o bad.h5 >bad.log 2>&1
  local code=$?
  [ "$code" -eq 2 ] || fail "bad deck ($1): exit $code, want 2: $(cat bad.log)"
  grep -qF -- "$1" bad.log || fail "bad deck: message lacks '$1': $(cat bad.log)"
}
head='[hamiltonian]
model = ti
nx = 4
ny = 4
nz = 6
[solver]
method = spectral
[spectral]'
printf '%s\nk_path = G Q X\n' "$head" | expect_bad "'Q' is not a point name"
printf '%s\nk_path = G X\npoints = 0\n' "$head" | expect_bad "[spectral] points = 0"
printf '%s\nk_path = G X\nlayers = 1 7\n' "$head" | expect_bad "layer 7 is outside the slab"
printf '%s\nk_path = G\n' "$head" | expect_bad "k_path = G has 1 point: a path needs 2 to"
printf '%s\nk_path = G K\n' "$head" | expect_bad "point 'K' is not a high-symmetry point of this cubic"
printf '%s\nk_path = 0 0 0, 0.5 0\n' "$head" | expect_bad "is not 3 reduced coordinates"
printf '%s\n' "$head" | expect_bad "method = spectral needs key 'k_path' (text as described: the k path"
finish
