# hamlet export DECK -o H.mtx writes the Hamiltonian the deck builds:
# - a disordered graphene sheet with vacancies, matrix-free in the deck: equal entry by entry (1e-14)
#   to the supercell NumPy builds from the same lattice file, disorder and vacancy seeds
#   (tests/support/lattice_model.py); the same file from 1 and 2 ranks;
# - the FEM box, a generalized problem: H.mtx and H_mass.mtx, whose generalized eigenvalues (SciPy)
#   equal those of method = dense on the same deck (1e-10 relative);
# - --velocity x,y: the velocities v_x, v_y of the sheet equal NumPy's (vel_vx.mtx, vel_vy.mtx);
# - -o H.h5: the same matrices in CSR with each row's cell, orbital and position (1 and 2 ranks alike);
# - refusals (exit 2, nothing written): -o neither .mtx nor .h5, a bad --velocity, --velocity without a
#   lattice, -o or the mass export on an input file.
. "$(dirname "$0")/common.sh"
need_h5py
need scipy "no scipy for $PYTHON" python_has scipy
export OMP_NUM_THREADS=1
cat >sheet.ini <<INI
[hamiltonian]
model = lattice
lattice_file = $SOURCE_DIR/inputs/lattices/graphene.lattice
nx = 7
ny = 5
nz = 1
boundary = periodic open open
storage = matrix_free
potential = disorder
disorder_w = 1.5
disorder_seed = 9
vacancies = 0.1
vacancy_seed = 4
[solver]
method = kpm
INI
for np in 1 2; do
  "$MPIEXEC" -n "$np" "$HAMLET" export sheet.ini -o "sheet$np.mtx" >"export$np.log" 2>&1 ||
    fail "export on $np ranks: exit $? $(cat "export$np.log")"
done
cmp -s sheet1.mtx sheet2.mtx || fail "the files exported from 1 and 2 ranks differ"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$SOURCE_DIR/inputs/lattices/graphene.lattice" <<'PY' ||
import sys, numpy as np, scipy.io
import lattice_model as lm
no, blocks = lm.read_hamlet(sys.argv[1])
H, _ = lm.supercell(no, blocks, (7, 5, 1), boundary=("periodic", "open", "open"), disorder_w=1.5, disorder_seed=9,
                    vacancies=0.1, vacancy_seed=4)
A = scipy.io.mmread("sheet1.mtx").toarray()
err = np.abs(A - H).max()
print("exported H against NumPy's supercell: max |difference| %.2g, %d entries" % (err, np.count_nonzero(A)))
assert A.shape == H.shape and err < 1e-14
PY
  fail "the exported lattice Hamiltonian differs from NumPy's"
# --velocity x,y: v_a = i[H, X_a] equal to NumPy's from the same supercell (nearest images, 1e-14)
"$MPIEXEC" -n 2 "$HAMLET" export sheet.ini -o vel.mtx --velocity x,y >vel.log 2>&1 || fail "export --velocity: $(cat vel.log)"
[ ! -e vel_vz.mtx ] || fail "--velocity x,y wrote v_z"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$SOURCE_DIR/inputs/lattices/graphene.lattice" <<'PY' ||
import sys, numpy as np, scipy.io
import lattice_model as lm, conductivity_reference as cr
no, blocks = lm.read_hamlet(sys.argv[1])
H, _ = lm.supercell(no, blocks, (7, 5, 1), boundary=("periodic", "open", "open"), disorder_w=1.5, disorder_seed=9,
                    vacancies=0.1, vacancy_seed=4)
cell = [[1, 0, 0], [0.5, 3**0.5 / 2, 0], [0, 0, 1]]
pos = [[0.5, 0.5 / 3**0.5, 0], [1.0, 1 / 3**0.5, 0]]
for a, name in enumerate("xy"):
    V = scipy.io.mmread("vel_v%s.mtx" % name).toarray()
    ref = cr.velocity(H, no, (7, 5, 1), cell, pos, a)
    err = np.abs(V - ref).max()
    print("exported v_%s against NumPy's: %.2g (largest entry %.2g)" % (name, err, np.abs(ref).max()))
    assert err < 1e-14 and np.abs(ref).max() > 0.1
PY
  fail "the exported velocities differ from NumPy's"
sed 's/^output = .*$/output = box.h5/' "$SOURCE_DIR/inputs/fem_box_dense.ini" | sed 's/^ex = 6$/ex = 4/; s/^ey = 6$/ey = 4/; s/^ez = 6$/ez = 4/' >box.ini
"$MPIEXEC" -n 2 "$HAMLET" export box.ini -o box.mtx >box_export.log 2>&1 || fail "export of the FEM box: $(cat box_export.log)"
[ -s box_mass.mtx ] || fail "no box_mass.mtx: $(cat box_export.log)"
"$MPIEXEC" -n 2 "$HAMLET" run box.ini --quiet >box.log 2>&1 || fail "the FEM box: $(cat box.log)"
"$PYTHON" - <<'PY' || fail "the exported FEM pencil differs from the dense solve's"
import h5py, numpy as np, scipy.io, scipy.linalg
K, M = (scipy.io.mmread(f).toarray().real for f in ("box.mtx", "box_mass.mtx"))
w = scipy.linalg.eigh(K, M, eigvals_only=True)
v = np.sort(h5py.File("box.h5", "r")["/eigen/values"][:])
err = np.abs(w - v).max() / np.abs(v).max()
print("generalized eigenvalues of the exported pencil against method = dense: %.2g relative, N = %d" % (err, len(w)))
assert len(w) == len(v) and err < 1e-10
PY
# -o H.h5: the same matrices in one HDF5 file (CSR) with every row's cell, orbital and position; the same
# file's datasets from 1 and 2 ranks; the FEM pencil's mass matrix; a structure's atoms and species.
for np in 1 2; do
  "$MPIEXEC" -n "$np" "$HAMLET" export sheet.ini -o "sheet$np.h5" --velocity x,y >"h5_$np.log" 2>&1 ||
    fail "export -o sheet$np.h5 on $np ranks: $(cat "h5_$np.log")"
done
"$MPIEXEC" -n 2 "$HAMLET" export box.ini -o box.h5 >box_h5.log 2>&1 || fail "export of the FEM box to HDF5: $(cat box_h5.log)"
"$HAMLET" structure tbg 1 1 -o tbg.xyz >/dev/null 2>&1 || fail "structure tbg 1 1"
printf '[hamiltonian]\nmodel = structure\nstructure_file = tbg.xyz\nnx = 2\nny = 1\nnz = 1\ncutoff = 5\n[solver]\nmethod = kpm\n' >tbg.ini
"$MPIEXEC" -n 2 "$HAMLET" export tbg.ini -o tbg.h5 --velocity x,y >tbg_h5.log 2>&1 ||
  fail "export of a structure to HDF5: $(cat tbg_h5.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "the HDF5 export differs from the Matrix Market one or from NumPy's geometry"
import h5py, numpy as np, scipy.io, scipy.sparse as sp
import structure_reference as sr
def csr(f, group):
    g = f[group]
    v = g["value"][:]
    v = v[:, 0] + 1j * v[:, 1] if v.ndim == 2 else v
    n = int(g.attrs["N"])
    assert g["row_start"][0] == 0 and g["row_start"][-1] == g.attrs["nnz"] == len(v)
    return sp.csr_matrix((v, g["column"][:], g["row_start"][:]), shape=(n, n)).toarray()
f1, f2 = h5py.File("sheet1.h5", "r"), h5py.File("sheet2.h5", "r")
def walk(a, b, path="/"):
    for k in a:
        if isinstance(a[k], h5py.Group):
            walk(a[k], b[k], path + k + "/")
        else:
            assert np.array_equal(a[k][()], b[k][()]), path + k
walk(f1, f2)
checks = [("/matrix", "sheet1.mtx"), ("/velocity_x", "vel_vx.mtx"), ("/velocity_y", "vel_vy.mtx")]
for group, mtx in checks:
    err = np.abs(csr(f1, group) - scipy.io.mmread(mtx).toarray()).max()
    assert err == 0, (group, err)
assert "/velocity_z" not in f1
cell = [[1, 0, 0], [0.5, 3**0.5 / 2, 0], [0, 0, 1]]
pos = np.array([[0.5, 0.5 / 3**0.5, 0], [1.0, 1 / 3**0.5, 0]])
rows = f1["/rows"]
c, o = rows["cell"][:], rows["orbital"][:]
ref = pos[o] + c @ np.array(cell)
assert len(o) == 70 and np.array_equal(o, np.arange(70) % 2) and np.array_equal(c[:, 0], (np.arange(70) // 2) % 7)
assert np.abs(rows["position"][:] - ref).max() < 1e-14
assert np.array_equal(f1["/lattice/cells"][:], [7, 5, 1])
box = h5py.File("box.h5", "r")
for group, mtx in (("/matrix", "box.mtx"), ("/mass", "box_mass.mtx")):
    assert np.abs(csr(box, group) - scipy.io.mmread(mtx).toarray()).max() == 0, group
assert "/rows" not in box
t = h5py.File("tbg.h5", "r")
lat, pbc, p = sr.read_xyz("tbg.xyz")
H, _ = sr.supercell(lat, pbc, p, (2, 1, 1), 5.0, sr.slater_koster_pz)
assert np.abs(csr(t, "/matrix") - H).max() < 1e-12
for a, name in enumerate("xy"):  # i d_a t on each bond, from the bond vectors (not nearest images)
    V, _ = sr.supercell(lat, pbc, p, (2, 1, 1), 5.0, sr.slater_koster_pz, axis=a)
    assert np.abs(csr(t, "/velocity_" + name) - V).max() < 1e-12 and np.abs(V).max() > 0.1
r = t["/rows"]
ref = p[r["orbital"][:]] + r["cell"][:] @ lat
assert np.abs(r["position"][:] - ref).max() < 1e-12
labels = t["/lattice/labels"][()].decode().split()
assert labels == ["C"] * 28, labels
print("HDF5 exports: the sheet (1 and 2 ranks, H, v_x, v_y), the FEM pencil and the structure as expected")
PY
refused() { # EXPECTED_MESSAGE -- ARGS...
  local want=$1
  shift 2
  "$HAMLET" export "$@" >refused.log 2>&1
  code=$?
  [ "$code" -eq 2 ] && grep -qF -- "$want" refused.log || fail "hamlet export $*: exit $code, want 2 with '$want': $(cat refused.log)"
}
refused "name ends in .mtx: Matrix Market files; in .h5: one HDF5 file" -- sheet.ini -o sheet.txt
refused "name ends in .mtx" -- sheet.ini
refused "--velocity w: a list of x, y, z" -- sheet.ini -o w.mtx --velocity w
refused "--velocity needs lattice cells and positions: model = ti, lattice or structure" -- box.ini -o boxv.mtx --velocity x
cp box.mtx K.mtx
cp box_mass.mtx M_mass.mtx
printf '[hamiltonian]\nmodel = mtx\nmatrix = K.mtx\nmass = M_mass.mtx\n[solver]\nmethod = dense\n' >pencil.ini
cp K.mtx K.orig
refused "the input [hamiltonian] matrix (pencil.ini:3) and the output (-o) are the same file" -- pencil.ini -o K.mtx
refused "and the mass matrix's export (-o's name with _mass) are the same file" -- pencil.ini -o M.mtx
cmp -s K.mtx K.orig && cmp -s M_mass.mtx box_mass.mtx || fail "a refused export changed an input"
finish
