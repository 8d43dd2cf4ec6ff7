# model = structure and hamlet structure tbg:
# - the twisted bilayer cells at 21.79 (m = 1) and 13.17 degrees (m = 2) checked from their geometry
#   alone (atom count, both layers on graphene's lattice, the top one turned by theta, the cell a
#   lattice vector of both; tests/support/structure_reference.py);
# - the exported supercell H (2 x 1 cells of m = 1, Slater-Koster p_z, cutoff 6 A) equal entry by entry
#   to NumPy's from a brute-force search over the images (1e-12), from 1 and 2 ranks; method = dense's
#   eigenvalues equal NumPy's (1e-10); a hopping table (m = 2, open along y) the same way;
# - method = conductivity: the exact-trace moments against NumPy's with velocities from the bond vectors;
# - on-site (gaussian) and bond disorder: the same from 1 and 2 ranks, their statistics within sampling
#   error, the KPM moments equal to those of the exported matrix; impurities at a concentration;
# - method = evolution and spectral: graphene as a structure propagates as its lattice file does (msd,
#   sigma(E, t)) and has its A(k, E) along G K M G;
# - a structure that is not periodic along z with nz = 2, and bad files: exit 2 naming file and line.
. "$(dirname "$0")/common.sh"
need_h5py
need scipy "no scipy for $PYTHON" python_has scipy
export OMP_NUM_THREADS=1
"$HAMLET" structure tbg 1 1 -o tbg1.xyz >tbg1.log 2>&1 || fail "structure tbg 1 1: $(cat tbg1.log)"
"$HAMLET" structure tbg 2 1 -o tbg2.xyz --distance-aa 3.6 --distance-ab 3.35 >tbg2.log 2>&1 ||
  fail "structure tbg 2 1: $(cat tbg2.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "the twisted bilayer cells are wrong"
import numpy as np, structure_reference as sr
for path, m, want in (("tbg1.xyz", 1, 21.786789), ("tbg2.xyz", 2, 13.173551)):
    theta = sr.check_tbg(path, m, 1)
    print("%s: theta = %.6f degrees, geometry checked" % (path, theta))
    assert abs(theta - want) < 1e-6
cell, pbc, pos = sr.read_xyz("tbg2.xyz")
z = pos[pos[:, 2] > 10, 2] - pos[pos[:, 2] < 10, 2].mean()
gap = pos[pos[:, 2] > 10, 2] - 10
print("modulated distances of m = 2: %.4f .. %.4f A" % (2 * gap.min(), 2 * gap.max()))
assert 3.35 - 1e-9 <= 2 * gap.min() and 2 * gap.max() <= 3.6 + 1e-9 and 2 * gap.max() - 2 * gap.min() > 0.1
PY
deck() { # NAME FILE NX NY BOUNDARY METHOD [EXTRA LINES]
  cat >"$1.ini" <<INI
[hamiltonian]
model = structure
structure_file = $2
nx = $3
ny = $4
nz = 1
boundary = $5
cutoff = 6.0
$7
[solver]
method = $6
[run]
output = $1.h5
INI
}
deck sk tbg1.xyz 2 1 "periodic periodic open" dense "onsite = 0.1"
for np in 1 2; do
  "$MPIEXEC" -n "$np" "$HAMLET" export sk.ini -o "sk$np.mtx" >"sk_export$np.log" 2>&1 || fail "export on $np: $(cat "sk_export$np.log")"
done
cmp -s sk1.mtx sk2.mtx || fail "the structure exported from 1 and 2 ranks differs"
run2 run sk.ini --quiet >sk.log 2>&1 || fail "dense run of the structure: $(cat sk.log)"
printf '# distance hopping\n1.0 -3.0\n2.0 -0.5\n4.0 -0.1\n6.5 0.0\n' >table.dat
deck table tbg2.xyz 1 2 "periodic open open" dense "hopping = table
hopping_table = table.dat"
"$HAMLET" export table.ini -o table.mtx >table_export.log 2>&1 || fail "export of the table rule: $(cat table_export.log)"
run2 run table.ini --quiet >table.log 2>&1 || fail "dense run with a table: $(cat table.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "the structure's H differs from NumPy's"
import h5py, numpy as np, scipy.io, structure_reference as sr
cell, pbc, pos = sr.read_xyz("tbg1.xyz")
H, bonds = sr.supercell(cell, pbc, pos, (2, 1, 1), 6.0, sr.slater_koster_pz, onsite=0.1,
                        boundary=("periodic", "periodic", "open"))
table = np.loadtxt("table.dat")
cell2, pbc2, pos2 = sr.read_xyz("tbg2.xyz")
T, _ = sr.supercell(cell2, pbc2, pos2, (1, 2, 1), 6.0, lambda v: np.interp(np.linalg.norm(v), *table.T),
                    boundary=("periodic", "open", "open"))
for name, ref in (("sk", H), ("table", T)):
    A = scipy.io.mmread(name + ("1.mtx" if name == "sk" else ".mtx")).toarray()
    err = np.abs(A - ref).max()
    w = np.linalg.eigvalsh(ref)
    v = np.sort(h5py.File(name + ".h5", "r")["/eigen/values"][:])
    ew = np.abs(w - v).max()
    print("%s: N = %d, %d entries, exported H off NumPy's by %.2g, dense eigenvalues by %.2g (of %.3g .. %.3g)"
          % (name, len(ref), np.count_nonzero(ref), err, ew, w[0], w[-1]))
    assert A.shape == ref.shape and err < 1e-12 and len(v) == len(w) and ew < 1e-10
attrs = h5py.File("sk.h5", "r")["/hamiltonian"].attrs
assert attrs["atoms_per_cell"] == 28 and attrs["bonds_per_cell"] == bonds, (attrs["bonds_per_cell"], bonds)
PY
# method = conductivity: exact-trace moments Tr[v_a T_n v_b T_m] / N equal the dense reference with NumPy's
# velocities i d_a t from the brute-force bonds (2 x 1 cells of the 21.79 degree cell: every bond crosses images)
deck cond tbg1.xyz 2 1 "periodic periodic open" conductivity "onsite = 0.1"
printf '[kpm]\ntrace = exact\nbounds = gershgorin\n[conductivity]\ncomponents = xx xy\nenergies = -1 1 3\nmoments = 24\n' >>cond.ini
run2 run cond.ini --quiet >cond.log 2>&1 || fail "conductivity of the structure: $(cat cond.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "the structure's conductivity moments differ from NumPy's"
import h5py, numpy as np, structure_reference as sr, conductivity_reference as cr, lattice_model as lm
cell, pbc, pos = sr.read_xyz("tbg1.xyz")
args = (cell, pbc, pos, (2, 1, 1), 6.0, sr.slater_koster_pz)
H, _ = sr.supercell(*args, onsite=0.1)
vx, _ = sr.supercell(*args, axis=0)
vy, _ = sr.supercell(*args, axis=1)
g = h5py.File("cond.h5", "r")["/conductivity"]
mu = lm.complex_array(g["moments"][:])
for k, (va, vb) in enumerate([(vx, vx), (vx, vy)]):
    ref = cr.moments(H, va, vb, mu.shape[1], g.attrs["scale"], g.attrs["shift"])
    err = np.abs(ref - mu[k]).max() / np.abs(ref).max()
    print("structure conductivity moments", "xx xy".split()[k], "off NumPy's by %.2g" % err)
    assert err < 1e-12
assert "sheet" in h5py.File("cond.h5", "r")["/conductivity/sigma"].attrs["unit"].decode()
PY
# Disorder: gaussian on-site energies (W = 0.5) and bond disorder (B = 0.3) on 8 x 8 cells of the 21.79 degree
# cell, exported from 1 and 2 ranks alike; their statistics within their sampling error against the clean H
# (the same bonds), H symmetric; the KPM moments of the deck equal those of model = mtx on the exported H.
deck dis tbg1.xyz 8 8 "periodic periodic open" kpm "potential = disorder
disorder_w = 0.5
disorder_distribution = gaussian
disorder_seed = 4
bond_disorder = 0.3
bond_disorder_seed = 9"
printf '[kpm]\nbounds = gershgorin\nmoments = 64\nvectors = 3\nseed = 5\n' >>dis.ini
deck clean tbg1.xyz 8 8 "periodic periodic open" kpm ""
for np in 1 2; do run_np() { "$MPIEXEC" -n "$np" "$HAMLET" "$@"; }
  run_np export dis.ini -o "dis$np.mtx" >dis.log 2>&1 || fail "export of the disordered structure: $(cat dis.log)"
done
cmp -s dis1.mtx dis2.mtx || fail "the disorder differs between 1 and 2 ranks"
"$HAMLET" export clean.ini -o clean.mtx >clean.log 2>&1 || fail "export of the clean structure: $(cat clean.log)"
printf '[hamiltonian]\nmodel = mtx\nmatrix = dis1.mtx\n[solver]\nmethod = kpm\n[kpm]\nbounds = gershgorin\nmoments = 64\nvectors = 3\nseed = 5\n' >mtx.ini
run2 run dis.ini -o dis.h5 --quiet >dis_run.log 2>&1 || fail "KPM of the disordered structure: $(cat dis_run.log)"
run2 run mtx.ini -o mtx.h5 --quiet >mtx_run.log 2>&1 || fail "KPM of its export: $(cat mtx_run.log)"
"$HAMLET" compare dis.h5 mtx.h5 --rtol 1e-12 --atol 1e-14 --only /kpm/moments >cmp.txt 2>&1 ||
  fail "the KPM moments of the structure differ from those of its exported matrix: $(cat cmp.txt)"
"$PYTHON" - <<'PY' || fail "the structure's disorder statistics are off"
import numpy as np, scipy.io
D, C = scipy.io.mmread("dis1.mtx").toarray(), scipy.io.mmread("clean.mtx").toarray()
n = len(D)
assert np.array_equal(D, D.T), "H is not symmetric"
d = np.diag(D) - np.diag(C)
mask = C != 0
np.fill_diagonal(mask, False)
e = D[mask] / C[mask] - 1
e = e[np.triu(np.ones_like(C, dtype=bool), 1)[mask]]  # each bond once
print("on-site: %d energies, mean %.4f, std %.4f (want 0, 0.5); bonds: %d, e in [%.4f, %.4f], mean %.4f, var %.5f "
      "(want 0, %.5f)" % (n, d.mean(), d.std(), len(e), e.min(), e.max(), e.mean(), e.var(), 0.3**2 / 12))
assert abs(d.mean()) < 4 * 0.5 / n**0.5 and abs(d.std() - 0.5) < 4 * 0.5 / (2 * n)**0.5
assert e.min() >= -0.15 and e.max() <= 0.15 and abs(e.mean()) < 4 * 0.3 / 12**0.5 / len(e)**0.5
assert abs(e.var() - 0.3**2 / 12) < 4 * 0.3**2 / 12 * (0.8 / len(e))**0.5
PY
# Impurities at 5% (on-site +1.5 eV, their hoppings times 0.5) on the same 1792 atoms: their count within
# sampling error of 5%, every impurity's on-site energy and hoppings (0.25 between two), nothing else.
deck imp tbg1.xyz 8 8 "periodic periodic open" kpm "impurities = 0.05
impurity_onsite = 1.5
impurity_hopping = 0.5
impurity_seed = 2"
"$HAMLET" export imp.ini -o imp.mtx >imp.log 2>&1 || fail "export with impurities: $(cat imp.log)"
"$PYTHON" - <<'PY' || fail "the impurities are off"
import numpy as np, scipy.io
D, C = scipy.io.mmread("imp.mtx").toarray(), scipy.io.mmread("clean.mtx").toarray()
n = len(D)
imp = np.diag(D) == 1.5
assert np.all((np.diag(D) == 0) | imp), "an on-site energy other than 0 or 1.5"
k = imp.sum()
print("impurities: %d of %d atoms (%.2f%%, want 5%% +- %.2f%%)" % (k, n, 100 * k / n, 400 * (0.05 * 0.95 / n)**0.5))
assert abs(k / n - 0.05) < 4 * (0.05 * 0.95 / n)**0.5 and k > 0
factor = np.where(imp, 0.5, 1.0)
R = C * np.outer(factor, factor)
np.fill_diagonal(R, np.diag(D))
assert np.array_equal(D, D.T) and np.abs(D - R).max() < 1e-15
PY
# method = evolution: graphene written as a structure (two atoms, t = -1 from a table) propagates exactly as
# inputs/lattices/graphene.lattice does: the same mean-square displacement, sigma(E, t) and a site packet's spread.
printf '2\nLattice="1 0 0 0.5 0.8660254037844386 0 0 0 10" pbc="T T F"\nC 0.5 0.28867513459481287 0\nC 1.0 0.57735026918962573 0\n' \
  >graphene.xyz
printf '0.5 -1\n0.7 -1\n' >nn.dat
# same_as_lattice METHOD GROUP SECTIONS WHAT: the method on graphene as a structure and as its lattice file,
# on 2 ranks, compared dataset by dataset in GROUP.
same_as_lattice() {
  local m model
  for m in structure lattice; do
    model=$'model = structure\nstructure_file = graphene.xyz\ncutoff = 0.7\nhopping = table\nhopping_table = nn.dat'
    [ "$m" = lattice ] && model="model = lattice"$'\n'"lattice_file = $SOURCE_DIR/inputs/lattices/graphene.lattice"
    printf '[hamiltonian]\n%s\nnx = 12\nny = 12\nnz = 1\nboundary = periodic periodic open\n[solver]\nmethod = %s\n%s\n' \
      "$model" "$1" "$3" >"$1_$m.ini"
    run2 run "$1_$m.ini" -o "$1_$m.h5" --quiet >"$1_$m.log" 2>&1 || fail "$1 of the $m: $(cat "$1_$m.log")"
  done
  "$HAMLET" compare "$1_lattice.h5" "$1_structure.h5" --rtol 1e-10 --atol 1e-12 --only "$2" >cmp.txt 2>&1 ||
    fail "graphene's $4 as a structure differs from the lattice file's: $(cat cmp.txt)"
}
same_as_lattice evolution /evolution \
  $'[evolution]\ndt = 1\nsteps = 6\nvectors = 2\nseed = 3\nmsd = x y\nenergies = -1 1 3\nmoments = 64' evolution
# method = spectral: A(k, E) of the same graphene along G K M G equals the lattice file's.
same_as_lattice spectral /spectral \
  $'[kpm]\nmoments = 64\nenergies = 31\nemin = -3\nemax = 3\n[spectral]\nk_path = G K M G\npoints = 4' "A(k, E)"
refused() { # DECK EXPECTED_MESSAGE
  "$HAMLET" run "$1" --quiet >refused.log 2>&1
  code=$?
  [ "$code" -eq 2 ] && grep -qF -- "$2" refused.log || fail "run $1: exit $code, want 2 with '$2': $(cat refused.log)"
}
deck thick tbg1.xyz 1 1 "periodic periodic open" kpm ""
sed -i 's/^nz = 1$/nz = 2/' thick.ini
refused thick.ini "2 cells along a3 (nz), but the structure is not periodic along it (pbc F): want 1"
printf '3\nProperties=species:S:1:pos:R:3\nC 0 0 0\nC 1 0 0\nC 2 0 0\n' >nocell.xyz
deck nocell nocell.xyz 1 1 "periodic periodic periodic" kpm ""
refused nocell.ini "nocell.xyz:2: no Lattice="
printf '3\nLattice="3 0 0 0 3 0 0 0 3"\nC 0 0 0\nC 1 0 0\n' >short.xyz
deck short short.xyz 1 1 "periodic periodic periodic" kpm ""
refused short.ini "short.xyz: ends after 2 atom lines; its first line announces 3"
printf '2\nLattice="3 0 0 0 3 0 0 0 3"\nC 0 0 0\nC 1 0 x\n' >bad.xyz
deck bad bad.xyz 1 1 "periodic periodic periodic" kpm ""
refused bad.ini "bad.xyz:4: z 'x' is not a number"
printf '2\nLattice="3 0 0 0 3 0 0 0 3"\nC 0 0 0\nC 3 0 0\n' >same.xyz
deck same same.xyz 1 1 "periodic periodic periodic" kpm ""
refused same.ini "atoms 1 and 2 (counted from 1) are 0 A apart"
printf '1.0 -3.0\n0.5 -1\n' >down.dat
deck down tbg1.xyz 1 1 "periodic periodic open" kpm "hopping = table
hopping_table = down.dat"
refused down.ini "down.dat:2: distance 0.5: the distances must be >= 0 and increase"
printf '1.0 -3.0\n2.0 -1\n' >short.dat
deck reach tbg1.xyz 1 1 "periodic periodic open" kpm "hopping = table
hopping_table = short.dat"
refused reach.ini "is outside the table's distances [1, 2]: extend the table or lower cutoff"
deck twist tbg1.xyz 1 1 "twisted periodic open" kpm ""
refused twist.ini "boundary along a1 (nx) must be periodic or open"
deck over tbg1.xyz 1 1 "periodic periodic open" kpm ""
sed -i 's/^output = .*$/output = tbg1.xyz/' over.ini
cp tbg1.xyz keep.xyz
refused over.ini "structure_file"
cmp -s tbg1.xyz keep.xyz || fail "a run whose output is its structure file changed the file"
"$HAMLET" structure tbg 0 1 -o x.xyz >gen.log 2>&1
[ $? -eq 2 ] && grep -qF "M = 0: want an integer from 1 to 2000" gen.log || fail "structure tbg 0 1: $(cat gen.log)"
"$HAMLET" structure tbg 1 1 >gen.log 2>&1
[ $? -eq 2 ] && grep -qF -- "-o FILE.xyz is required" gen.log || fail "structure tbg without -o: $(cat gen.log)"
finish
