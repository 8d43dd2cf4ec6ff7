# model = structure with several orbitals per species (orbitals, species_onsite, the s-p Slater-Koster rule):
# - a slanted 3D cell of two species (Si: s px py pz; B: pz s, rows in the listed order), 2 x 1 x 1 cells:
#   the exported H and velocities v_x, v_z equal entry by entry NumPy's from the textbook two-centre table
#   (tests/support/structure_reference.py, brute force over the images; 1e-12), from 1 and 2 ranks alike;
#   method = dense's eigenvalues equal NumPy's (1e-10); the HDF5 export labels each row 'species:orbital' at its atom;
# - the same structure turned by an arbitrary rotation (cell and atoms; B with s only, so every species' set
#   of orbitals turns into itself) has the same eigenvalues (1e-10): the direction cosines enter as they must;
# - impurities are atoms: all orbitals of an impurity atom carry its energy, no other row does;
# - bad orbitals, a species left out, species_onsite of an unlisted species, a table with several orbitals:
#   exit 2 naming the key and what is allowed.
. "$(dirname "$0")/common.sh"
need_h5py
need scipy "no scipy for $PYTHON" python_has scipy
export OMP_NUM_THREADS=1
printf '3\nLattice="3.1 0 0 0.9 2.8 0 0.4 0.3 3.3"\nSi 0 0 0\nB 1.2 0.9 1.1\nSi 2.2 1.4 2.3\n' >sp.xyz
deck() { # NAME ORBITALS [EXTRA LINES]
  cat >"$1.ini" <<INI
[hamiltonian]
model = structure
structure_file = sp.xyz
nx = 2
ny = 1
nz = 1
boundary = periodic periodic periodic
cutoff = 4.0
orbitals = $2
onsite = 0.1
vss_sigma = -1.9
vsp_sigma = 1.7
vpp_sigma = 2.1
vpp_pi = -0.7
a0 = 2.3
d0 = 2.5
delta0 = 0.5
$3
[solver]
method = dense
[run]
output = $1.h5
INI
}
deck sp "Si:s,px,py,pz B:pz,s" "species_onsite = Si.s:-2 Si.p:1.5 B:0.3 B.s:-0.2"
for np in 1 2; do
  "$MPIEXEC" -n "$np" "$HAMLET" export sp.ini -o "sp$np.mtx" --velocity x,z >"export$np.log" 2>&1 ||
    fail "export on $np ranks: $(cat "export$np.log")"
done
for f in "" _vx _vz; do cmp -s "sp1$f.mtx" "sp2$f.mtx" || fail "sp$f exported from 1 and 2 ranks differs"; done
run2 run sp.ini --quiet >sp.log 2>&1 || fail "dense run: $(cat sp.log)"
"$HAMLET" export sp.ini -o sp.h5x.h5 >export_h5.log 2>&1 || fail "export to HDF5: $(cat export_h5.log)"
"$PYTHON" - <<'PY' || fail "the HDF5 export's orbital labels or positions are wrong"
import h5py, numpy as np
f = h5py.File("sp.h5x.h5", "r")
labels = f["/lattice/labels"][()].decode().split()
print("labels:", " ".join(labels))
assert labels == "Si:s Si:px Si:py Si:pz B:pz B:s Si:s Si:px Si:py Si:pz".split()
atoms = np.array([[0, 0, 0]] * 4 + [[1.2, 0.9, 1.1]] * 2 + [[2.2, 1.4, 2.3]] * 4)
assert np.abs(f["/lattice/positions"][:] - atoms).max() < 1e-15
PY
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "the s-p structure differs from NumPy's"
import functools, h5py, numpy as np, scipy.io, structure_reference as sr
cell, pbc, pos = sr.read_xyz("sp.xyz")
si = [("s", -2.0), ("px", 1.5), ("py", 1.5), ("pz", 1.5)]
orbitals = [si, [("pz", 0.3), ("s", 0.1)], si]
rule = functools.partial(sr.slater_koster, vss=-1.9, vsp=1.7, vpp_sigma=2.1, vpp_pi=-0.7, a0=2.3, d0=2.5, delta0=0.5)
args = (cell, pbc, pos, (2, 1, 1), 4.0, rule)
H, bonds = sr.supercell(*args, onsite=0.1, orbitals=orbitals)
for name, ref in (("", H), ("_vx", sr.supercell(*args, axis=0, orbitals=orbitals)[0]),
                  ("_vz", sr.supercell(*args, axis=2, orbitals=orbitals)[0])):
    A = scipy.io.mmread("sp1%s.mtx" % name).toarray()
    err = np.abs(A - ref).max()
    print("H%s: %d rows, off NumPy's by %.2g (largest entry %.3g)" % (name, len(A), err, np.abs(ref).max()))
    assert A.shape == ref.shape and err < 1e-12
w = np.linalg.eigvalsh(H)
v = np.sort(h5py.File("sp.h5", "r")["/eigen/values"][:])
print("dense eigenvalues off NumPy's by %.2g" % np.abs(w - v).max())
assert len(v) == len(w) and np.abs(w - v).max() < 1e-10
attrs = h5py.File("sp.h5", "r")["/hamiltonian"].attrs
assert attrs["atoms_per_cell"] == 3 and attrs["orbitals_per_cell"] == 10 and attrs["bonds_per_cell"] == bonds
PY
# The rotated copy: every position and lattice vector turned by one rotation matrix.
"$PYTHON" - <<'PY' || fail "could not write the rotated structure"
import numpy as np
from scipy.spatial.transform import Rotation
R = Rotation.from_rotvec([0.4, -1.1, 0.7]).as_matrix()
lines = open("sp.xyz").read().splitlines()
cell = np.array([float(x) for x in lines[1].split('"')[1].split()]).reshape(3, 3) @ R.T
with open("turned.xyz", "w") as f:
    f.write("3\nLattice=\"%s\"\n" % " ".join("%.17g" % x for x in cell.ravel()))
    for line in lines[2:]:
        w = line.split()
        f.write("%s %s\n" % (w[0], " ".join("%.17g" % x for x in R @ np.array([float(x) for x in w[1:]]))))
PY
deck plain "Si:s,px,py,pz B:s" ""
deck turned "Si:s,px,py,pz B:s" ""
sed -i 's/^structure_file = sp.xyz$/structure_file = turned.xyz/' turned.ini
for name in plain turned; do
  "$HAMLET" run "$name.ini" --quiet >"$name.log" 2>&1 || fail "dense run of $name: $(cat "$name.log")"
done
"$HAMLET" compare plain.h5 turned.h5 --rtol 1e-10 --atol 1e-10 --only /eigen/values >turn.txt 2>&1 ||
  fail "the turned structure's eigenvalues differ: $(cat turn.txt)"
# Impurities (30%, +1.5 eV) on 3 x 3 x 2 cells: atoms, not orbitals.
deck imp "Si:s,px,py,pz B:pz,s" "impurities = 0.3
impurity_onsite = 1.5
impurity_seed = 4"
sed -i 's/^nx = 2$/nx = 3/; s/^ny = 1$/ny = 3/; s/^nz = 1$/nz = 2/' imp.ini
deck clean "Si:s,px,py,pz B:pz,s" ""
sed -i 's/^nx = 2$/nx = 3/; s/^ny = 1$/ny = 3/; s/^nz = 1$/nz = 2/' clean.ini
for name in imp clean; do
  "$HAMLET" export "$name.ini" -o "$name.mtx" >"$name.log" 2>&1 || fail "export of $name: $(cat "$name.log")"
done
"$PYTHON" - <<'PY' || fail "the impurities are not atoms"
import numpy as np, scipy.io
d = np.diag(scipy.io.mmread("imp.mtx").toarray()) - np.diag(scipy.io.mmread("clean.mtx").toarray())
atoms = np.repeat(np.arange(3 * 18), np.tile([4, 2, 4], 18))  # each row's atom, atom by atom
hit = [set(np.round(d[atoms == a], 12)) for a in range(3 * 18)]
alike = all(len(h) == 1 for h in hit)
print("impurity atoms: %d of 54; each atom's rows alike: %s" % (sum(h == {1.5} for h in hit), alike))
assert all(h in ({0.0}, {1.5}) for h in hit) and 0 < sum(h == {1.5} for h in hit) < 54
PY
refused() { # NAME EXPECTED_MESSAGE
  "$HAMLET" run "$1.ini" --quiet >refused.log 2>&1
  code=$?
  [ "$code" -eq 2 ] && grep -qF -- "$2" refused.log || fail "run $1: exit $code, want 2 with '$2': $(cat refused.log)"
}
deck orb "Si:s,dxy B:s" ""
refused orb "orbitals: Si's orbital 'dxy': want one of s px py pz"
grep -qF "[hamiltonian] orbitals" refused.log || fail "the bad orbitals' deck line is not named: $(cat refused.log)"
deck missing "Si:s" ""
refused missing "atom 2 (counted from 1) is of species 'B', which orbitals does not list"
deck unlisted "Si:s B:s" "species_onsite = C:1"
refused unlisted "species_onsite: species 'C' has no orbitals"
grep -qF "[hamiltonian] species_onsite" refused.log || fail "species_onsite's deck line is not named"
printf '0.5 -1\n4.5 0\n' >radial.dat
deck table "Si:s,pz B:s" "hopping = table
hopping_table = radial.dat"
sed -i '/^vs\|^vp\|^a0\|^d0\|^delta0/d' table.ini
refused table "orbitals: Si has 2 orbitals, but hopping = table gives one radial t(|d|)"
finish
