#!/bin/bash
# outer = krylov_schur (thick-restart Lanczos on (A - shift B)^-1 B) on matrices of hard SuiteSparse structure made
# by tests/support/shift_invert_matrices.py (condition 1e13 SPD, a wide pencil, a 1e15 penalty
# entry, complex Hermitian, indefinite with the shift inside the spectrum): the 4 eigenvalues nearest
# the shift to 1e-8 of SciPy's dense eigh with norm residuals <= 1e-8, on 1 and 2 ranks, and fewer
# column solves than outer = lobpcg on the same deck; with inner = iterative too; what outer = auto
# (the default) chooses; verify_copies = no; its bad inputs. Checkpoints and restarts: e2e_krylov_schur_restart.
. "$(dirname "$0")/common.sh"
need_h5py
need scipy "no scipy for $PYTHON" python_has scipy
"$PYTHON" "$SOURCE_DIR/tests/support/shift_invert_matrices.py" . || fail "could not write the matrices"
deck() { # name outer [extra solver lines]
  local mass=""
  [ -f "$1_M.mtx" ] && mass="mass = $1_M.mtx"
  printf '[hamiltonian]\nmodel = mtx\nmatrix = %s.mtx\n%s\n[solver]\nmethod = lobpcg\nnev = 4\ntol = 1e-8\nmaxit = 300\n' \
    "$1" "$mass" >"$1.$2.ini"
  printf 'transform = shift_invert\nshift = %s\nouter = %s\n%s\n' "$(cat "$1.shift")" "$2" "${3:-}" >>"$1.$2.ini"
}
cases="spd_cond13 pencil penalty hermitian indefinite"
for c in $cases; do
  for outer in krylov_schur lobpcg; do
    deck "$c" "$outer"
    for np in 1 2; do
      [ "$outer" = lobpcg ] && [ "$np" = 2 ] && continue # the comparison needs one rank count
      "$MPIEXEC" -n "$np" "$HAMLET" run "$c.$outer.ini" -o "$c.$outer.$np.h5" --quiet >"$c.$outer.$np.log" 2>&1 ||
        fail "$c ($outer) on $np ranks: exit $? $(cat "$c.$outer.$np.log")"
    done
  done
done
CASES="$cases" "$PYTHON" - <<'PY' || fail "krylov_schur results differ from SciPy's dense eigh or use more solves than lobpcg"
import h5py, numpy as np, os
ok = True
word = lambda v: v.decode() if isinstance(v, bytes) else str(v)
for c in os.environ["CASES"].split():
    ref = np.loadtxt(c + ".ref")
    lob = h5py.File("%s.lobpcg.1.h5" % c, "r")["/eigen"].attrs["inner_solves"]
    for np_ in (1, 2):
        f = h5py.File("%s.krylov_schur.%d.h5" % (c, np_), "r")
        w, e = f["/eigen/values"][:], f["/eigen"].attrs
        err = (np.abs(w - ref) / np.abs(ref)).max()
        res = f["/eigen/residuals_norm"][:].max()
        good = (err <= 1e-8 and res <= 1e-8 and word(e["outer"]) == "krylov_schur" and e["converged"] == 4
                and word(e["stopped"]) == "converged" and e["inner_solves"] < lob)
        print("%s %-11s %d ranks: max |lambda - eigh| / |eigh| = %.2g, norm residual %.2g, column solves %d "
              "(lobpcg %d)" % ("PASS" if good else "FAIL", c, np_, err, res, e["inner_solves"], lob))
        ok &= bool(good)
raise SystemExit(0 if ok else 1)
PY
# verify_copies = no: the same values from the solves before the verification (these spectra are simple)
deck spd_cond13 krylov_schur "verify_copies = no"
"$HAMLET" run spd_cond13.krylov_schur.ini -o trust.h5 --quiet >trust.log 2>&1 || fail "verify_copies = no: $(cat trust.log)"
"$PYTHON" - <<'PY' || fail "verify_copies = no: other values, or not the solves before the verification"
import h5py, numpy as np
word = lambda v: v.decode() if isinstance(v, bytes) else str(v)
a, b = h5py.File("spd_cond13.krylov_schur.1.h5", "r"), h5py.File("trust.h5", "r")
ea, eb = a["/eigen"].attrs, b["/eigen"].attrs
print("verified", word(ea["verified"]), ea["inner_solves"], "solves,", ea["verify_solves"], "verifying; unverified",
      word(eb["verified"]), eb["inner_solves"], "solves")
raise SystemExit(0 if (np.array_equal(a["/eigen/values"][:], b["/eigen/values"][:]) and word(ea["verified"]) == "yes"
                       and word(eb["verified"]) == "no" and ea["verify_solves"] > 0 and eb["verify_solves"] == 0
                       and eb["inner_solves"] == ea["inner_solves"] - ea["verify_solves"]) else 1)
PY
# inner = iterative (CG, distributed) on the definite cases, 2 ranks: the same values, and fewer inner
# iterations than outer = lobpcg with the same inner solver
for c in spd_cond13 pencil penalty hermitian; do
  for outer in krylov_schur lobpcg; do
    deck "$c" "$outer" "inner = iterative"
    "$MPIEXEC" -n 2 "$HAMLET" run "$c.$outer.ini" -o "$c.$outer.it.h5" --quiet >"$c.$outer.it.log" 2>&1 ||
      fail "$c ($outer, inner = iterative): exit $? $(cat "$c.$outer.it.log")"
  done
done
"$PYTHON" - <<'PY' || fail "krylov_schur with iterative inner solves: wrong values or more inner iterations than lobpcg"
import h5py, numpy as np
ok = True
for c in ["spd_cond13", "pencil", "penalty", "hermitian"]:
    ref = np.loadtxt(c + ".ref")
    f = h5py.File(c + ".krylov_schur.it.h5", "r")
    e, lob = f["/eigen"].attrs, h5py.File(c + ".lobpcg.it.h5", "r")["/eigen"].attrs
    err = (np.abs(f["/eigen/values"][:] - ref) / np.abs(ref)).max()
    res = f["/eigen/residuals_norm"][:].max()
    good = err <= 1e-8 and res <= 1e-8 and e["converged"] == 4 and e["inner_iterations"] < lob["inner_iterations"]
    print("%s %-11s iterative: max |lambda - eigh| / |eigh| = %.2g, norm residual %.2g, inner iterations %d "
          "(lobpcg %d)" % ("PASS" if good else "FAIL", c, err, res, e["inner_iterations"], lob["inner_iterations"]))
    ok &= bool(good)
raise SystemExit(0 if ok else 1)
PY
# bad inputs: exit 2 with a message naming the key
expect() { # code pattern deck
  local rc=0
  "$MPIEXEC" -n 1 "$HAMLET" run "$3" -o bad.h5 --quiet >bad.log 2>&1 || rc=$?
  [ "$rc" -eq "$1" ] || fail "$3: exit $rc, expected $1: $(cat bad.log)"
  grep -q "$2" bad.log || fail "$3: no '$2' in: $(cat bad.log)"
}
deck spd_cond13 lanczos
expect 2 "outer.*one of: auto, lobpcg, krylov_schur" spd_cond13.lanczos.ini
printf '[hamiltonian]\nmodel = mtx\nmatrix = spd_cond13.mtx\n[solver]\nmethod = lobpcg\nnev = 4\nouter = krylov_schur\n' \
  >no_transform.ini
expect 2 "outer is given but transform = none; outer applies only when transform = shift_invert" no_transform.ini
# outer = auto (the default) runs krylov_schur with the direct inner solve, on a definite iterative
# one (CG) and on an indefinite iterative one (MINRES); /eigen says which ran
deck spd_cond13 auto
sed -i '/^outer = auto$/d' spd_cond13.auto.ini
deck pencil auto "inner = iterative"
deck indefinite auto "inner = iterative"
for c in spd_cond13 pencil indefinite; do
  "$MPIEXEC" -n 2 "$HAMLET" run "$c.auto.ini" -o "$c.auto.h5" --quiet >"$c.auto.log" 2>&1 ||
    fail "$c (outer = auto): exit $? $(cat "$c.auto.log")"
done
"$PYTHON" - <<'PY' || fail "outer = auto ran the wrong method, or /eigen does not say which"
import h5py, numpy as np
ok = True
word = lambda v: v.decode() if isinstance(v, bytes) else str(v)
for c, want in [("spd_cond13", "krylov_schur"), ("pencil", "krylov_schur"), ("indefinite", "krylov_schur")]:
    f = h5py.File(c + ".auto.h5", "r")
    e = f["/eigen"].attrs
    err = (np.abs(f["/eigen/values"][:] - np.loadtxt(c + ".ref")) / np.abs(np.loadtxt(c + ".ref"))).max()
    good = word(e["outer"]) == want and word(e["outer_requested"]) == "auto" and err <= 1e-8
    print("%s %-11s auto: outer %s (want %s), max |lambda - eigh| / |eigh| = %.2g" %
          ("PASS" if good else "FAIL", c, word(e["outer"]), want, err))
    ok &= good
raise SystemExit(0 if ok else 1)
PY
finish
