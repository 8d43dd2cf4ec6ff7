# Wannier90 models as Wannier90 interpolates them (physics/tests/wannier90: silicon and copper made by
# wannier90.x 3.1 with its default use_ws_distance = true; README there says how). On a 3 x 3 x 3
# supercell, not commensurate with the 4 x 4 x 4 mesh the models were made on: the matrix-free
# operator's LOBPCG eigenvalues and exact LDOS moments equal those of NumPy's supercell of the spread
# hoppings (on the GPU too: HAMLET_TEST_BACKEND=cuda runs only that part); method = dense gives the
# Wigner-Seitz-corrected Bloch spectra NumPy builds from the _hr.dat and _wsvec.dat to 1e-8 eV, and
# wsvec = none (or no file beside the model) the uncorrected ones, as before (0.67 eV apart here); one
# cell with twisted boundaries (twist = 2 pi k) gives Wannier90's own bands along its band.kpt path
# (band.dat) within the rounding of the _hr.dat's printed hoppings; the conductivity's velocities see
# the images' bonds (its moments equal those of the spread model written out in hamlet's format); the
# summary and /hamiltonian name the wsvec file used or say why none was; malformed wsvec files, files
# of another model and a wsvec key on hamlet's format exit 2 naming file and line, and write nothing.
. "$(dirname "$0")/common.sh"
need_h5py
REF=$SOURCE_DIR/physics/tests/wannier90
for f in silicon_hr.dat silicon_wsvec.dat silicon_band.kpt silicon_band.dat copper_hr.dat copper_wsvec.dat; do
  gzip -dc "$REF/$f.gz" >"$f" || fail "cannot unpack $f"
done
CELLS=$'nx = 3\nny = 3\nnz = 3'
deck() { # name, extra lines
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = silicon_hr.dat\n%s\n%s\n[solver]\nmethod = dense\n' "$CELLS" \
    "${2:-}" >"$1.ini"
}
run_ok() { # name: run the deck, exit 0 expected
  "$MPIEXEC" -n "${NP:-1}" "$HAMLET" run "$1.ini" -o "$1.h5" >"$1.log" 2>&1 || fail "$1: exit $? $(cat "$1.log")"
}
BACKEND=${HAMLET_TEST_BACKEND:-cpu}
# the matrix-free operator (on the GPU where HAMLET_TEST_BACKEND=cuda): LOBPCG's lowest eigenvalues and
# the exact LDOS moments of two cells' 16 orbitals against NumPy's supercell of the spread hoppings
printf '[run]\nbackend = %s\n[hamiltonian]\nmodel = lattice\nlattice_file = silicon_hr.dat\n%s\nstorage = matrix_free\n[solver]\nmethod = lobpcg\nnev = 6\ntol = 1e-11\nmaxit = 3000\n' \
  "$BACKEND" "$CELLS" >free.ini
printf '[run]\nbackend = %s\n[hamiltonian]\nmodel = lattice\nlattice_file = silicon_hr.dat\n%s\nstorage = matrix_free\n[solver]\nmethod = kpm\n[kpm]\nmoments = 48\nldos_sites = 0 0 0; 2 1 2\n' \
  "$BACKEND" "$CELLS" >ldos.ini
NP=2 run_ok free
NP=2 run_ok ldos
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "the matrix-free operator differs from NumPy's spread model"
import h5py, numpy as np
import lattice_model as lm, wannier90_files as w
nw, R, deg, H = w.read_hr("silicon_hr.dat")
images, header = w.read_wsvec("silicon_wsvec.dat")
blocks = {}
for m, n, v, a in zip(*w.terms(nw, R, deg, H, images)):
    blocks.setdefault(tuple(int(x) for x in v), np.zeros((nw, nw), complex))[m, n] += a
Hs, _ = lm.supercell(nw, blocks, (3, 3, 3))
ev = np.linalg.eigvalsh(Hs)
ok = True
e = h5py.File("free.h5", "r")["/eigen/values"][:]
err = np.abs(np.sort(e) - ev[:len(e)]).max()
print("%s matrix-free LOBPCG: the %d lowest within %.2g eV of NumPy's" % ("PASS" if err < 1e-8 else "FAIL", len(e), err))
ok &= bool(err < 1e-8)
k = h5py.File("ldos.h5", "r")["/kpm"]
rows = list(range(nw)) + list(range(nw * (2 + 3 * (1 + 3 * 2)), nw * (3 + 3 * (1 + 3 * 2))))
ref = lm.orbital_moments(Hs, rows, 48, k.attrs["scale"], k.attrs["shift"])
err = np.abs(k["moments_per_vector"][:] - ref).max()
print("%s matrix-free KPM: LDOS moments of 16 orbitals within %.2g of NumPy's" % ("PASS" if err < 1e-10 else "FAIL", err))
ok &= bool(err < 1e-10)
raise SystemExit(0 if ok else 1)
PY
[ "$BACKEND" = cpu ] || finish # the rest is the CPU's reading of the files
deck auto
deck none "wsvec = none"
deck named "wsvec = silicon_wsvec.dat"
run_ok auto
run_ok none
NP=2 run_ok named
sed 's/silicon_hr.dat/copper_hr.dat/' auto.ini >copper.ini
run_ok copper
grep -q "hoppings spread over the images R + T of silicon_wsvec.dat" auto.log ||
  fail "the summary does not name the wsvec file used: $(cat auto.log)"
grep -q "wsvec = none: hoppings at R as the file gives them" none.log ||
  fail "the summary does not say that wsvec = none reads no wsvec file: $(cat none.log)"
# a model without a wsvec file beside it: auto says so and runs as before
mkdir -p alone && cp silicon_hr.dat alone/ && printf '[hamiltonian]\nmodel = lattice\nlattice_file = alone/silicon_hr.dat\n%s\n[solver]\nmethod = dense\n' "$CELLS" >alone.ini
run_ok alone
grep -q "no alone/silicon_wsvec.dat (wsvec = auto)" alone.log || fail "auto without the file does not say so: $(cat alone.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "hamlet's spectra differ from Wannier90's interpolation"
import h5py, numpy as np
import wannier90_files as w
nw, R, deg, H = w.read_hr("silicon_hr.dat")
images, header = w.read_wsvec("silicon_wsvec.dat")
ws, plain = w.terms(nw, R, deg, H, images), w.terms(nw, R, deg, H)
ks = [(a / 3, b / 3, c / 3) for a in range(3) for b in range(3) for c in range(3)]
ref = {t: np.sort(np.concatenate([np.linalg.eigvalsh(w.bloch(k, nw, terms)) for k in ks])) for t, terms in
       (("ws", ws), ("plain", plain))}
ok = True
def attr(f, name):
    a = f["/hamiltonian"].attrs[name]
    return a.decode() if isinstance(a, bytes) else str(a)
for name, want, used in (("auto", "ws", "silicon_wsvec.dat"), ("named", "ws", "silicon_wsvec.dat"),
                         ("none", "plain", "none"), ("alone", "plain", "none")):
    f = h5py.File(name + ".h5", "r")
    e = f["/eigen/values"][:]
    err = np.abs(e - ref[want]).max() if len(e) == len(ref[want]) else np.inf
    good = err < 1e-8 and attr(f, "wsvec").endswith(used)
    print("%s %s: max |E - NumPy (%s)| = %.2g eV, /hamiltonian wsvec = %s" % ("PASS" if good else "FAIL", name, want,
          err, attr(f, "wsvec")))
    ok &= bool(good)
nw, R, deg, H = w.read_hr("copper_hr.dat")
images, header = w.read_wsvec("copper_wsvec.dat")
cu = np.sort(np.concatenate([np.linalg.eigvalsh(w.bloch(k, nw, w.terms(nw, R, deg, H, images))) for k in ks]))
e = h5py.File("copper.h5", "r")["/eigen/values"][:]
err = np.abs(e - cu).max() if len(e) == len(cu) else np.inf
print("%s copper: max |E - NumPy (ws)| = %.2g eV" % ("PASS" if err < 1e-8 else "FAIL", err))
ok &= bool(err < 1e-8)
gap = np.abs(ref["ws"] - ref["plain"]).max()
print("%s the images matter on this supercell: max |E_ws - E_plain| = %.2f eV" % ("PASS" if gap > 0.1 else "FAIL", gap))
ok &= bool(gap > 0.1)
raise SystemExit(0 if ok else 1)
PY
# Wannier90's band path: one cell, twisted boundaries, twist = 2 pi k (every 24th point and the last)
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" -c "
import numpy as np, wannier90_files as w
K = w.read_band_kpt('silicon_band.kpt')
for i in list(range(0, len(K), 24)) + [len(K) - 1]:
    print(i, *('%.17g' % (2 * np.pi * x) for x in K[i]))" >points.txt || fail "cannot read silicon_band.kpt"
while read -r i tx ty tz; do
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = silicon_hr.dat\nnx = 1\nny = 1\nnz = 1\nboundary = twisted twisted twisted\ntwist = %s %s %s\n[solver]\nmethod = dense\n' \
    "$tx" "$ty" "$tz" >"k$i.ini"
  "$HAMLET" run "k$i.ini" -o "k$i.h5" --quiet >"k$i.log" 2>&1 || fail "band point $i: exit $? $(cat "k$i.log")"
done <points.txt
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "hamlet's bands differ from Wannier90's band.dat"
import h5py, numpy as np
import wannier90_files as w
nw, R, deg, H = w.read_hr("silicon_hr.dat")
E = w.read_band_dat("silicon_band.dat")
# Wannier90 interpolates with its unrounded hoppings; the _hr.dat prints them to 1e-6 (F12.6): each
# H_mn(k) may differ by sum_R 0.5e-6 / deg(R), and ||dH||_2 <= num_wann times that.
bound = nw * 0.5e-6 * np.sum(1.0 / deg) + 1e-7
worst, ok = 0.0, True
for line in open("points.txt"):
    i = int(line.split()[0])
    e = h5py.File("k%d.h5" % i, "r")["/eigen/values"][:]
    worst = max(worst, np.abs(np.sort(e) - E[:, i]).max())
ok = worst < bound
print("%s band path: max |E_hamlet - E_wannier90| = %.2g eV (bound from the printed hoppings %.2g eV)" %
      ("PASS" if ok else "FAIL", worst, bound))
raise SystemExit(0 if ok else 1)
PY
# the velocity operators of the conductivity see the images' bonds R + T: the moments with wsvec equal
# those of the spread model written out by NumPy in hamlet's format (1e-10), and differ without it
SI_CELL=$'a1 = -2.6988 0.0000 2.6988\na2 = 0.0000 2.6988 2.6988\na3 = -2.6988 2.6988 0.0000'
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "cannot write the spread model in hamlet's format"
import wannier90_files as w
nw, R, deg, H = w.read_hr("silicon_hr.dat")
images, header = w.read_wsvec("silicon_wsvec.dat")
M, N, V, A = w.terms(nw, R, deg, H, images)
hops = {}
for m, n, v, a in zip(M, N, V, A):
    hops[(tuple(v), m, n)] = hops.get((tuple(v), m, n), 0) + a
with open("silicon_spread.lattice", "w") as f:
    f.write("a1 -2.6988 0.0000 2.6988\na2 0.0000 2.6988 2.6988\na3 -2.6988 2.6988 0.0000\n")
    f.write("orbital 0 0 0\n" * nw)
    for (v, m, n), a in sorted(hops.items()):
        f.write("hop %d %d %d %d %d %.17g %.17g\n" % (v + (m, n, a.real, a.imag)))
PY
for c in wsvec:silicon_hr.dat spread:silicon_spread.lattice plain:silicon_hr.dat; do
  name=${c%%:*}
  cell=$SI_CELL
  [ "$name" = spread ] && cell=
  [ "$name" = plain ] && cell=$SI_CELL$'\nwsvec = none'
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = 2\nny = 2\nnz = 2\n%s\n[solver]\nmethod = conductivity\n[kpm]\ntrace = exact\nbounds = gershgorin\n[conductivity]\ncomponents = xx xy\nenergies = 5 7 3\nmoments = 16\n' \
    "${c#*:}" "$cell" >"sigma_$name.ini"
  "$MPIEXEC" -n 2 "$HAMLET" run "sigma_$name.ini" -o "sigma_$name.h5" --quiet >"sigma_$name.log" 2>&1 ||
    fail "conductivity $name: exit $? $(cat "sigma_$name.log")"
done
"$HAMLET" compare sigma_spread.h5 sigma_wsvec.h5 --rtol 1e-10 --atol 1e-10 --only /conductivity/moments >cmp.txt 2>&1 ||
  fail "the conductivity with wsvec differs from that of the spread model written out: $(tail -3 cmp.txt)"
"$HAMLET" compare sigma_spread.h5 sigma_plain.h5 --rtol 1e-6 --atol 1e-6 --only /conductivity/moments >cmp.txt 2>&1 &&
  fail "the conductivity without the images equals that with them: the test cannot tell them apart"
# bad wsvec files and keys: exit 2, file and line named, nothing written
HEAD='## written on  6Dec2026 at 14:05:05  with use_ws_distance=.true.'
bad() { # name, pattern, wsvec text (written to NAME_wsvec.dat beside a copy of the model), [deck lines]
  mkdir -p "$1" && cp silicon_hr.dat "$1/silicon_hr.dat" && printf '%s\n' "$3" >"$1/silicon_wsvec.dat"
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s/silicon_hr.dat\n%s\n%s\n[solver]\nmethod = dense\n' "$1" \
    "$CELLS" "${4:-}" >"$1.ini"
  local rc=0
  "$MPIEXEC" -n 2 "$HAMLET" run "$1.ini" -o "$1.h5" >"$1.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2: $(cat "$1.log")"
  grep -q -- "$2" "$1.log" || fail "$1: no '$2' in: $(cat "$1.log")"
  [ ! -e "$1.h5" ] && [ ! -e "$1.h5.tmp" ] || fail "$1: a result file was written"
}
GOOD=$(tail -n +2 silicon_wsvec.dat)
bad no_header "no_header/silicon_wsvec.dat:1: expected Wannier90's header line" "$GOOD"
bad zero_count "zero_count/silicon_wsvec.dat:3: image count '0' is not an integer in 1..64" \
  "$HEAD"$'\n   -3    1    1    1    1\n    0\n'"$(sed -n '8,$p' silicon_wsvec.dat)"
bad long_count "long_count/silicon_wsvec.dat:8: expected 'T1 T2 T3', image 5 of the 5 of the entry on line 2, found 5 fields: the count on line 3 does not match" \
  "$HEAD"$'\n   -3    1    1    1    1\n    5\n'"$(sed -n '4,$p' silicon_wsvec.dat)"
bad short_count "short_count/silicon_wsvec.dat:7: expected 'R1 R2 R3 m n' heading an entry, found 3 fields (a count that does not match" \
  "$HEAD"$'\n   -3    1    1    1    1\n    3\n'"$(sed -n '4,$p' silicon_wsvec.dat)"
bad not_integer "not_integer/silicon_wsvec.dat:4: T2 '0.5' is not an integer" \
  "$HEAD"$'\n   -3    1    1    1    1\n    1\n    0  0.5    0\n'"$(sed -n '8,$p' silicon_wsvec.dat)"
bad missing_entry "missing_entry/silicon_wsvec.dat:[0-9]*: the file ends without an entry for R = (-3, 1, 1), m = 1, n = 1 of the lattice file" \
  "$HEAD"$'\n'"$(sed -n '8,$p' silicon_wsvec.dat)"
bad twice "twice/silicon_wsvec.dat:8: the entry R = (-3, 1, 1), m = 1, n = 1 is given twice (first on line 2)" \
  "$HEAD"$'\n'"$(sed -n 2,7p silicon_wsvec.dat)"$'\n'"$(sed -n '2,$p' silicon_wsvec.dat)"
bad other_num_wann "other_num_wann/silicon_wsvec.dat:2: m = 9 is not in 1..8: the lattice file .* has num_wann = 8" \
  "$HEAD"$'\n   -3    1    1    9    1\n    1\n    0    0    0'
bad other_R "other_R/silicon_wsvec.dat:2: R = (7, 7, 7) is not one of the 93 R vectors of the lattice file" \
  "$HEAD"$'\n    7    7    7    1    1\n    1\n    0    0    0'
bad asymmetric "asymmetric/silicon_wsvec.dat:[0-9]*: the images of R = .* are not the negatives of those of its partner" \
  "$HEAD"$'\n   -3    1    1    1    1\n    1\n    0    0    0\n'"$(sed -n '8,$p' silicon_wsvec.dat)"
grep -q "asymmetric.ini:3: \[hamiltonian\] lattice_file = asymmetric/silicon_hr.dat: its asymmetric/silicon_wsvec.dat (wsvec = auto) is refused" asymmetric.log ||
  fail "an auto wsvec file refused does not name the deck's line: $(cat asymmetric.log)"
bad absent_named "absent_named.ini:7: \[hamiltonian\] wsvec = nowhere_wsvec.dat: refused" "$GOOD" "wsvec = nowhere_wsvec.dat"
grep -q "nowhere_wsvec.dat: cannot open the wsvec file" absent_named.log || fail "absent wsvec file: $(cat absent_named.log)"
printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s/inputs/lattices/square.lattice\nnx = 2\nny = 2\nnz = 1\nwsvec = silicon_wsvec.dat\n' \
  "$SOURCE_DIR" >hamlet_format.ini
rc=0
"$HAMLET" run hamlet_format.ini -o hamlet_format.h5 >hamlet_format.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "hamlet_format.ini:7: \[hamiltonian\] wsvec = silicon_wsvec.dat: refused: a seedname_wsvec.dat applies to Wannier90 files" hamlet_format.log &&
  [ ! -e hamlet_format.h5 ] || fail "wsvec with hamlet's format: exit $rc: $(cat hamlet_format.log)"
finish
