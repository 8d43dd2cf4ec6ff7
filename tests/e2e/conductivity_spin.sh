# [conductivity] current = spin_z end to end on the Kane-Mele model (inputs/lattices/kane_mele.lattice):
# the exact-trace moments of {S_z, v_x} / 2 against v_y and v_x equal numpy's from the formula (S_z = +1
# on up, -1 on down orbitals; dense eigenpairs, 1e-10; against v_x the spins cancel), the same on 1 and 3
# ranks (a 4 x 4 lattice there: each of its thousands of halo exchanges waits for a time slice where 3
# ranks share 2 cores), the output names the current, and a lattice file without spin labels exits 2
# naming it. current = spin_x and spin_y (Pauli matrices on the up/down pairs) likewise against numpy,
# on the model with Rashba coupling (the spins mixed, so that their moments are not zero).
. "$(dirname "$0")/common.sh"
need_h5py
export OMP_NUM_THREADS=1
LAT=$SOURCE_DIR/inputs/lattices
deck() { # deck NAME LATTICE-FILE
  cat >"$1.ini" <<INI
[hamiltonian]
model = lattice
lattice_file = $2
nx = 6
ny = 6
nz = 1
boundary = periodic periodic open
[solver]
method = conductivity
[kpm]
trace = exact
bounds = gershgorin
[conductivity]
components = xy xx
current = spin_z
energies = 0 0 1
moments = 24
INI
}
deck km "$LAT/kane_mele.lattice"
"$MPIEXEC" -n 1 "$HAMLET" run km.ini -o km1.h5 --quiet >km.log 2>&1 || fail "1 rank: $(cat km.log)"
sed 's/^nx = 6$/nx = 4/; s/^ny = 6$/ny = 4/' km.ini >small.ini
"$MPIEXEC" -n 1 "$HAMLET" run small.ini -o small1.h5 --quiet >km.log 2>&1 || fail "1 rank, 4 x 4: $(cat km.log)"
"$MPIEXEC" -n 3 "$HAMLET" run small.ini -o small3.h5 --quiet >km.log 2>&1 || fail "3 ranks, 4 x 4: $(cat km.log)"
"$HAMLET" compare small1.h5 small3.h5 --rtol 1e-10 --atol 1e-12 --only /conductivity/moments >cmp.txt ||
  fail "spin-current moments differ between 1 and 3 ranks: $(cat cmp.txt)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - km1.h5 "$LAT/kane_mele.lattice" <<'PY' || fail "spin-current moments differ from numpy"
import sys, h5py, numpy as np
import lattice_model as lm, conductivity_reference as cr
g = h5py.File(sys.argv[1], "r")["/conductivity"]
current = g.attrs["current"]
assert (current.decode() if isinstance(current, bytes) else current).startswith("spin_z"), current
mu = lm.complex_array(g["moments"][:])
cells = (6, 6, 1)
no, blocks = lm.read_hamlet(sys.argv[2])
H, _ = lm.supercell(no, blocks, cells, boundary=("periodic", "periodic", "open"))
cell = [[1, 0, 0], [0.5, 3**0.5 / 2, 0], [0, 0, 1]]
pos = [[0.5, 0.5 / 3**0.5, 0]] * 2 + [[1.0, 1 / 3**0.5, 0]] * 2
v = [cr.velocity(H, no, cells, cell, pos, a) for a in (0, 1)]
S = np.diag(np.tile([1.0, -1.0, 1.0, -1.0], len(H) // 4))
J = (S @ v[0] + v[0] @ S) / 2
scale = None
for k, vb in enumerate([v[1], v[0]]):  # xx: the two spins' traces cancel (S_z conserved): zero moments
    ref = cr.moments(H, J, vb, mu.shape[1], g.attrs["scale"], g.attrs["shift"])
    scale = scale or np.abs(ref).max()
    err = np.abs(ref - mu[k]).max() / scale
    print("component", "xy xx".split()[k], "spin-current moments differ from numpy by", err, "of xy's largest")
    assert err < 1e-10 and scale > 0.01, (k, err)
PY
# spin_x and spin_y: {S, v_x} / 2 with S the Pauli matrix on the (A up, A down) and (B up, B down) pairs,
# on the Kane-Mele model with Rashba coupling i lambda_R (s x d)_z (lambda_R = 0.05), an in-plane field
# (0.3, 0.2, 0) and Anderson disorder: no symmetry left to make their moments vanish
cp "$LAT/kane_mele.lattice" rashba.lattice
printf 'hop 0 0 0  0 1  0.3 -0.2\nhop 0 0 0  2 3  0.3 -0.2\n' >>rashba.lattice
for hop in "0 0 0 0.5 0.28867513459481287" "-1 0 0 -0.5 0.28867513459481287" "0 -1 0 0 -0.57735026918962573"; do
  read -r r1 r2 r3 dx dy <<<"$hop"
  awk -v r="$r1 $r2 $r3" -v dx="$dx" -v dy="$dy" 'BEGIN { l = 0.05
    printf "hop %s  0 3  %.17g %.17g\n", r, -l * dx, l * dy   # A up -> B down: i l (d_y + i d_x)
    printf "hop %s  1 2  %.17g %.17g\n", r, l * dx, l * dy }' >>rashba.lattice   # A down -> B up: i l (d_y - i d_x)
done
for spin in spin_x spin_y; do
  sed "s/^current = spin_z\$/current = $spin/; s|^lattice_file = .*\$|lattice_file = rashba.lattice|" km.ini |
    sed 's/^boundary = \(.*\)$/boundary = \1\npotential = disorder\ndisorder_w = 1\ndisorder_seed = 3/' >"$spin.ini"
  "$MPIEXEC" -n 1 "$HAMLET" run "$spin.ini" -o "$spin.h5" --quiet >"$spin.log" 2>&1 || fail "$spin: $(cat "$spin.log")"
done
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - rashba.lattice <<'PY' || fail "spin_x / spin_y moments differ from numpy"
import sys, h5py, numpy as np
import lattice_model as lm, conductivity_reference as cr
cells = (6, 6, 1)
no, blocks = lm.read_hamlet(sys.argv[1])
H, _ = lm.supercell(no, blocks, cells, boundary=("periodic", "periodic", "open"), disorder_w=1, disorder_seed=3)
cell = [[1, 0, 0], [0.5, 3**0.5 / 2, 0], [0, 0, 1]]
pos = [[0.5, 0.5 / 3**0.5, 0]] * 2 + [[1.0, 1 / 3**0.5, 0]] * 2
v = [cr.velocity(H, no, cells, cell, pos, a) for a in (0, 1)]
pauli = {"spin_x": np.array([[0, 1], [1, 0]]), "spin_y": np.array([[0, -1j], [1j, 0]])}
for name, p in pauli.items():
    g = h5py.File(name + ".h5", "r")["/conductivity"]
    current = g.attrs["current"]
    assert (current.decode() if isinstance(current, bytes) else current).startswith(name), current
    mu = lm.complex_array(g["moments"][:])
    S = np.kron(np.eye(len(H) // 2), p)  # (up, down) pairs are neighbours in this file's order
    J = (S @ v[0] + v[0] @ S) / 2
    refs = [cr.moments(H, J, vb, mu.shape[1], g.attrs["scale"], g.attrs["shift"]) for vb in (v[1], v[0])]
    scale = max(np.abs(r).max() for r in refs)  # one of xy, xx may vanish by symmetry; not both
    for k, ref in enumerate(refs):
        err = np.abs(ref - mu[k]).max() / scale
        print(name, "component", "xy xx".split()[k], "moments differ from numpy by", err, "of", scale)
        assert err < 1e-10 and scale > 1e-3, (name, k, err, scale)
PY
deck graphene "$LAT/graphene.lattice"
"$MPIEXEC" -n 1 "$HAMLET" run graphene.ini -o graphene.h5 --quiet >bad.log 2>&1
code=$?
[ "$code" -eq 2 ] && grep -qF "labels no orbital up or down" bad.log && grep -qF "graphene.lattice" bad.log ||
  fail "spin_z on a lattice without spin labels: exit $code, $(cat bad.log)"
finish
