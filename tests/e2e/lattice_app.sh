# model = lattice through the program: inputs/lattices/ti.lattice and the same TI written here as a
# Wannier90 _hr.dat give model = ti's KPM moments (1 and 3 ranks) and LOBPCG eigenvalues (1 and 2
# ranks: its thousands of reductions are slow on 3 ranks sharing 2 cores) to 1e-12 (hamlet compare); graphene's DOS moments equal those of its Bloch spectrum on the supercell's k-grid
# within the random-vector error, in complex arithmetic (assembled) and in real arithmetic (matrix-free,
# real random vectors, in passes of 16 of the 64 vectors on 2 ranks); the real run's moments with
# block = 1, 3 and all 4 vectors equal (1e-12), and a restart from a checkpoint inside the second pass
# reaches the uninterrupted moments; the LDOS in real and complex arithmetic equal; arithmetic = real on the Haldane model (complex
# second-neighbour hops) exits 2 naming the term and writes nothing; a Zeeman field B shifts a spin-degenerate band by +-|B|; bad
# lattice files and decks exit 2 naming file and line, and write nothing.
. "$(dirname "$0")/common.sh"
need_h5py
LAT=$SOURCE_DIR/inputs/lattices
TI_CELLS=$'nx = 5\nny = 4\nnz = 6\nboundary = periodic periodic open'
KPM=$'[solver]\nmethod = kpm\n[kpm]\nmoments = 64\nvectors = 4\nseed = 7'
LOBPCG=$'[solver]\nmethod = lobpcg\nnev = 4\ntol = 1e-11\nmaxit = 3000'
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$LAT/ti.lattice" ti_hr.dat <<'PY' || fail "could not write ti_hr.dat"
import sys, lattice_model as lm
no, blocks = lm.read_hamlet(sys.argv[1])
Rs = sorted(blocks)
with open(sys.argv[2], "w") as f:
    f.write(" written by tests/e2e/lattice_app.sh\n%12d\n%12d\n" % (no, len(Rs)))
    f.write("".join("%5d%s" % (1, "\n" if (b + 1) % 15 == 0 or b + 1 == len(Rs) else "") for b in range(len(Rs))))
    for R in Rs:
        for j in range(no):
            for i in range(no):
                v = blocks[R][i, j]
                f.write("%5d%5d%5d%5d%5d %.17g %.17g\n" % (R[0], R[1], R[2], i + 1, j + 1, v.real, v.imag))
PY
for method in KPM LOBPCG; do
  solver=$KPM
  [ "$method" = LOBPCG ] && solver=$LOBPCG
  printf '[hamiltonian]\nmodel = ti\n%s\n%s\n' "$TI_CELLS" "$solver" >"ti_$method.ini"
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s\n%s\n%s\n' "$LAT/ti.lattice" "$TI_CELLS" "$solver" >"file_$method.ini"
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = ti_hr.dat\n%s\n%s\n' "$TI_CELLS" "$solver" >"hr_$method.ini"
  only=/kpm/moments,/kpm/moments_per_vector,/dos/rho
  ranks="1 3"
  [ "$method" = LOBPCG ] && only=/eigen/values ranks="1 2"
  for np in $ranks; do
    for c in ti file hr; do
      "$MPIEXEC" -n "$np" "$HAMLET" run "${c}_$method.ini" -o "${c}_$method.$np.h5" --quiet >"$c.log" 2>&1 ||
        fail "${c}_$method on $np ranks: exit $? $(cat "$c.log")"
    done
    for c in file hr; do
      "$HAMLET" compare "ti_$method.$np.h5" "${c}_$method.$np.h5" --rtol 1e-12 --atol 1e-12 --only "$only" >cmp.log 2>&1 ||
        fail "model = ti and ${c} ($method, $np ranks) differ: $(cat cmp.log)"
    done
  done
done
# graphene: exact moments from the Bloch spectrum on the 12 x 12 k-grid
printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = 12\nny = 12\nnz = 1\nboundary = periodic periodic open\n%s\n' \
  "$LAT/graphene.lattice" $'[kpm]\nmoments = 48\nvectors = 64\nseed = 2' >graphene.ini
"$HAMLET" run graphene.ini -o graphene.h5 --quiet >graphene.log 2>&1 || fail "graphene: exit $? $(cat graphene.log)"
sed 's/^nz = 1$/nz = 1\nstorage = matrix_free\narithmetic = real/; s/^seed = 2$/seed = 2\nblock = 16/' graphene.ini >graphene_real.ini
"$MPIEXEC" -n 2 "$HAMLET" run graphene_real.ini -o graphene_real.h5 >graphene_real.log 2>&1 ||
  fail "graphene real: exit $? $(cat graphene_real.log)"
grep -q "48 x 64 real random vectors" graphene_real.log && grep -q "passes       4 of at most 16 vectors" graphene_real.log ||
  fail "graphene real: the summary does not say real vectors in 4 passes: $(cat graphene_real.log)"
# passes of 1, 3 and all 4 vectors: the same moments
for b in 1 3 4; do
  sed 's/^vectors = 64$/vectors = 4/; s/^block = 16$/block = '"$b"'/' graphene_real.ini >"graphene_b$b.ini"
  "$MPIEXEC" -n 2 "$HAMLET" run "graphene_b$b.ini" -o "graphene_b$b.h5" --quiet >gb.log 2>&1 ||
    fail "graphene block = $b: exit $? $(cat gb.log)"
done
for b in 1 3; do
  "$HAMLET" compare graphene_b4.h5 "graphene_b$b.h5" --rtol 1e-12 --atol 1e-12 --only /kpm/moments,/kpm/moments_per_vector \
    >cmp.log 2>&1 || fail "graphene real: block = $b and one pass differ: $(cat cmp.log)"
done
# a checkpoint inside the second pass (block = 1: 31 steps a pass; every 25 steps: the last at step
# 50, moment 40 of pass 2) restarts there and reaches the uninterrupted moments
sed 's/^\[hamiltonian\]$/[run]\ncheckpoint = b1_ckpt.h5\ncheckpoint_every = 25\n[hamiltonian]/' graphene_b1.ini |
  sed 's/^vectors = 4$/vectors = 2/; s/^moments = 48$/moments = 64/' >b1_ckpt.ini
"$MPIEXEC" -n 2 "$HAMLET" run b1_ckpt.ini -o b1_full.h5 --quiet >b1.log 2>&1 || fail "block = 1 with checkpoints: $(cat b1.log)"
where=$("$PYTHON" -c "import h5py; f = h5py.File('b1_ckpt.h5', 'r'); print(int(f.attrs['pass']), int(f.attrs['moments_done']), int(f.attrs['block']))")
[ "$where" = "1 40 1" ] || fail "the last checkpoint is at pass, moment, block = $where, not 1 40 1"
"$MPIEXEC" -n 1 "$HAMLET" restart b1_ckpt.h5 -o b1_restarted.h5 --quiet >b1r.log 2>&1 || fail "restart in pass 2: $(cat b1r.log)"
"$HAMLET" compare b1_full.h5 b1_restarted.h5 --rtol 1e-12 --atol 1e-12 --only /kpm/moments,/kpm/moments_per_vector >cmp.log 2>&1 ||
  fail "the run restarted inside pass 2 differs from the uninterrupted one: $(cat cmp.log)"
# the LDOS (unit start vectors, no randomness): real and complex arithmetic agree to rounding
for a in real complex; do
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = 6\nny = 5\nnz = 1\nstorage = matrix_free\narithmetic = %s\n[solver]\nmethod = kpm\n[kpm]\nmoments = 64\nldos_sites = 0 0 0; 3 2 0\n' \
    "$LAT/graphene.lattice" "$a" >"ldos_$a.ini"
  "$MPIEXEC" -n 2 "$HAMLET" run "ldos_$a.ini" -o "ldos_$a.h5" --quiet >ldos.log 2>&1 || fail "LDOS $a: exit $? $(cat ldos.log)"
done
"$HAMLET" compare ldos_complex.h5 ldos_real.h5 --rtol 1e-12 --atol 1e-12 --only /ldos/rho,/kpm/moments_per_vector >cmp.log 2>&1 ||
  fail "the LDOS in real and complex arithmetic differ: $(cat cmp.log)"
# arithmetic = real on a complex lattice: exit 2, the term named, nothing written
printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = 6\nny = 6\nnz = 1\narithmetic = real\n' "$LAT/haldane.lattice" >haldane_real.ini
rc=0
"$MPIEXEC" -n 2 "$HAMLET" run haldane_real.ini -o haldane_real.h5 >haldane_real.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "haldane_real.ini:7: \[hamiltonian\] arithmetic = real: refused: the lattice is complex: the hopping of R = .* has imaginary part" haldane_real.log &&
  [ ! -e haldane_real.h5 ] || fail "arithmetic = real on the Haldane model: exit $rc: $(cat haldane_real.log)"
# arithmetic = real where it cannot serve: another method, assembled storage
for case in "lobpcg:storage = auto:only method = kpm and method = conductivity with expansion = single_shot" \
  "kpm:storage = assembled:real arithmetic is the matrix-free operator's; use storage = matrix_free"; do
  IFS=: read -r method storage want <<<"$case"
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = 6\nny = 6\nnz = 1\n%s\narithmetic = real\n[solver]\nmethod = %s\n' \
    "$LAT/graphene.lattice" "$storage" "$method" >real_refused.ini
  rc=0
  "$HAMLET" run real_refused.ini -o real_refused.h5 >real_refused.log 2>&1 || rc=$?
  [ "$rc" -eq 2 ] && grep -qF "real_refused.ini:8: [hamiltonian] arithmetic = real: refused: $want" real_refused.log &&
    [ ! -e real_refused.h5 ] || fail "arithmetic = real with $method, $storage: exit $rc: $(cat real_refused.log)"
done
# Zeeman: two spin-labelled copies of the square lattice; B splits every band by +-|B|
cat >spin_square.lattice <<'LAT'
# square lattice with spin: the same hopping t = -1 for both spins
orbital 0 0 0 up
orbital 0 0 0 down
hop 1 0 0  0 0 -1
hop 1 0 0  1 1 -1
hop 0 1 0  0 0 -1
hop 0 1 0  1 1 -1
LAT
printf '[hamiltonian]\nmodel = lattice\nlattice_file = spin_square.lattice\nnx = 6\nny = 5\nnz = 1\nboundary = periodic periodic open\nzeeman = 0.3 -0.4 0.12\n[solver]\nmethod = dense\n' >zeeman.ini
"$MPIEXEC" -n 2 "$HAMLET" run zeeman.ini -o zeeman.h5 --quiet >zeeman.log 2>&1 || fail "zeeman: exit $? $(cat zeeman.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$LAT" <<'PY' || fail "graphene or Zeeman spectra differ from the analytic ones"
import sys, h5py, numpy as np
import lattice_model as lm
ok = True
no, blocks = lm.read_hamlet(sys.argv[1] + "/graphene.lattice")
w = []
for m1 in range(12):
    for m2 in range(12):
        Hk = sum(b * np.exp(2j * np.pi * (m1 * R[0] + m2 * R[1]) / 12) for R, b in blocks.items())
        w.extend(np.linalg.eigvalsh(Hk))
for name in ("graphene", "graphene_real"):
    f = h5py.File(name + ".h5", "r")
    k = f["/kpm"]
    mu, muv = k["moments"][:], k["moments_per_vector"][:]
    exact = lm.chebyshev_moments(w, len(mu), k.attrs["scale"], k.attrs["shift"])
    sigma = muv.std(axis=0) / np.sqrt(muv.shape[0]) + 1e-14
    good = np.all(np.abs(mu - exact) < 6 * sigma)
    arith = f["/hamiltonian"].attrs["arithmetic"]
    arith = arith.decode() if isinstance(arith, bytes) else str(arith)
    good &= arith == ("real" if name == "graphene_real" else "complex")
    print("%s %s (%s): max |mu - Bloch| / sigma = %.2f over %d moments" % ("PASS" if good else "FAIL", name, arith,
          (np.abs(mu - exact) / sigma).max(), len(mu)))
    ok &= bool(good)
kx, ky = np.meshgrid(2 * np.pi * np.arange(6) / 6, 2 * np.pi * np.arange(5) / 5)
eps = (-2 * np.cos(kx) - 2 * np.cos(ky)).ravel()
B = np.linalg.norm([0.3, -0.4, 0.12])
ref = np.sort(np.concatenate([eps - B, eps + B]))
e = h5py.File("zeeman.h5", "r")["/eigen/values"][:]
good = len(e) == len(ref) and np.abs(e - ref).max() < 1e-12
print("%s zeeman: max |E - (eps_k +- |B|)| = %.2g" % ("PASS" if good else "FAIL", np.abs(e - ref).max()))
ok &= bool(good)
raise SystemExit(0 if ok else 1)
PY
# bad lattice files and decks: exit 2, the file and line named, nothing written
bad() { # name pattern lattice_text [deck lines]
  printf '%s\n' "$3" >"$1.lattice"
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s.lattice\nnx = 4\nny = 4\nnz = 1\n%s\n' "$1" "${4:-}" >"$1.ini"
  local rc=0
  "$MPIEXEC" -n 2 "$HAMLET" run "$1.ini" -o "$1.h5" >"$1.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2: $(cat "$1.log")"
  grep -q -- "$2" "$1.log" || fail "$1: no '$2' in: $(cat "$1.log")"
  [ ! -e "$1.h5" ] && [ ! -e "$1.h5.tmp" ] || fail "$1: a result file was written"
}
ONE=$'orbital 0 0 0'
bad orbital_out_of_range "orbital_out_of_range.lattice:2: .*orbital index j" "$ONE"$'\nhop 1 0 0 0 1 -1'
bad missing_field "missing_field.lattice:2: expected 'hop R1 R2 R3 i j re \[im\]'" "$ONE"$'\nhop 1 0 0 0 -1'
bad extra_field "extra_field.lattice:3: expected 'hop R1 R2 R3 i j re \[im\]'" "$ONE"$'\nhop 1 0 0 0 0 -1\nhop 0 1 0 0 0 -1 0 5'
bad unknown_statement "unknown_statement.lattice:2: unknown statement 'hopping'" "$ONE"$'\nhopping 1 0 0 0 0 -1'
bad non_hermitian "non_hermitian.lattice:[34]:.*Herm" $'orbital 0 0 0\norbital 0 0 0\nhop 0 0 0 0 1 1\nhop 0 0 0 1 0 2'
bad no_orbital "no_orbital.lattice:.*no 'orbital' line" '# nothing'
bad incommensurate_field "incommensurate_field.ini:7: \[hamiltonian\] field" "$ONE"$'\nhop 1 0 0 0 0 -1\nhop 0 1 0 0 0 -1' "field = 0 0 0.1"
grep -q "nearest allowed fields are field = 0 0 0.0625 (1 quanta) and field = 0 0 0.125" incommensurate_field.log ||
  fail "the incommensurate field's message does not name the nearest allowed fields: $(cat incommensurate_field.log)"
bad zeeman_without_spins "zeeman_without_spins.ini:7: \[hamiltonian\] zeeman" "$ONE"$'\nhop 1 0 0 0 0 -1' "zeeman = 0 0 1"
bad twist_periodic "twist_periodic.ini:7: .*needs boundary twisted" "$ONE"$'\nhop 1 0 0 0 0 -1' "twist = 0.5 0 0"
# vacancies that remove every site (both sites of 2 x 1 x 1 draw u = 0.35, 0.11 < 0.9 with seed 1)
printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = 2\nny = 1\nnz = 1\nvacancies = 0.9\n' "$LAT/square.lattice" >all_vacant.ini
rc=0
"$MPIEXEC" -n 2 "$HAMLET" run all_vacant.ini -o all_vacant.h5 >all_vacant.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "all_vacant.ini: \[hamiltonian\] vacancies = 0.9 with vacancy_seed = 1 removes all 2 sites" all_vacant.log &&
  [ ! -e all_vacant.h5 ] || fail "vacancies removing every site: exit $rc: $(cat all_vacant.log)"
printf ' header\n1\n2\n1\n 0 0 0 1 1 1 0\n' >wrong_degeneracy_hr.dat
printf '[hamiltonian]\nmodel = lattice\nlattice_file = wrong_degeneracy_hr.dat\nnx = 2\nny = 2\nnz = 2\n' >hr.ini
rc=0
"$HAMLET" run hr.ini -o hr.h5 >hr.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "wrong_degeneracy_hr.dat:[0-9]" hr.log && [ ! -e hr.h5 ] ||
  fail "a degeneracy count that does not match nrpts: exit $rc: $(cat hr.log)"
finish
