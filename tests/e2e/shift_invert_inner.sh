# transform = shift_invert with the iterative inner solve (inner = iterative: Jacobi CG where
# A - shift B is definite, MINRES where not), distributed over 1 and 2 ranks: the 4 eigenvalues
# nearest the shift equal the dense references to 1e-8 (SciPy's eigh for the matrices of
# tests/support/shift_invert_matrices.py; hamlet's LAPACK dense solver for the FEM pencil K x = E M x),
# inner = direct and inner = iterative agree, auto picks iterative past the gather limit, and an
# inner solve that cannot converge in inner_maxit stops the run (exit 3) with a message naming it;
# bad inner keys (exit 2).
. "$(dirname "$0")/common.sh"
need_h5py
need scipy "no scipy for $PYTHON" python_has scipy
"$PYTHON" "$SOURCE_DIR/tests/support/shift_invert_matrices.py" . >/dev/null || fail "could not write the matrices"
backend="[run]
backend = ${HAMLET_TEST_BACKEND:-cpu}"
fem="[hamiltonian]
model = fem
ex = 7
ey = 6
ez = 6
lx = 3
ly = 2.5
lz = 2
potential = harmonic"
deck() { # file hamiltonian-section solver-lines...
  local out=$1 ham=$2
  shift 2
  printf '%s\n%s\n[solver]\n' "$backend" "$ham" >"$out"
  printf '%s\n' "$@" >>"$out"
}
mtx() { # name: the [hamiltonian] section of a generated matrix
  local mass=""
  [ -f "$1_M.mtx" ] && mass="mass = $1_M.mtx"
  printf '[hamiltonian]\nmodel = mtx\nmatrix = %s.mtx\n%s\n' "$1" "$mass"
}
lobpcg=("method = lobpcg" "nev = 4" "tol = 1e-8" "maxit = 300" "transform = shift_invert")
# the FEM pencil's reference: all eigenvalues from the dense generalized solver
deck fem_dense.ini "$fem" "method = dense"
"$MPIEXEC" -n 1 "$HAMLET" run fem_dense.ini -o fem_dense.h5 --quiet >fem_dense.log 2>&1 ||
  fail "fem dense: $(cat fem_dense.log)"
"$PYTHON" -c "import h5py, numpy as np; np.savetxt('fem.ref', h5py.File('fem_dense.h5', 'r')['/eigen/values'][:4])" ||
  fail "no fem reference"
echo 0 >fem.shift
cases="spd_cond13 penalty hermitian indefinite fem"
for c in $cases; do
  ham=$(mtx "$c")
  [ "$c" = fem ] && ham=$fem
  for inner in iterative direct; do
    deck "$c-$inner.ini" "$ham" "${lobpcg[@]}" "shift = $(cat "$c.shift")" "inner = $inner"
    for np in 1 2; do
      [ "$inner" = direct ] && [ "$np" = 2 ] && continue
      "$MPIEXEC" -n "$np" "$HAMLET" run "$c-$inner.ini" -o "$c-$inner.$np.h5" --quiet >"$c-$inner.$np.log" 2>&1 ||
        fail "$c inner = $inner on $np ranks: exit $? $(cat "$c-$inner.$np.log")"
    done
  done
done
CASES="$cases" "$PYTHON" - <<'PY' || fail "iterative inner solves differ from the dense references or from the direct ones"
import os, h5py, numpy as np
ok = True
word = lambda v: v.decode() if isinstance(v, bytes) else str(v)
for c in os.environ["CASES"].split():
    ref = np.loadtxt(c + ".ref")
    direct = h5py.File(c + "-direct.1.h5", "r")["/eigen/values"][:]
    for np_ in (1, 2):
        f = h5py.File("%s-iterative.%d.h5" % (c, np_), "r")
        w, e = f["/eigen/values"][:], f["/eigen"].attrs
        err = (np.abs(w - ref) / np.abs(ref)).max()
        agree = (np.abs(w - direct) / np.abs(direct)).max()
        method = word(e["factorization"])
        good = err <= 1e-8 and agree <= 1e-8 and e["converged"] == 4 and word(e["inner"]) == "iterative"
        good &= method == ("minres" if c == "indefinite" else "cg-jacobi") and e["inner_iterations"] > 0
        good &= word(e["outer"]) == "krylov_schur"  # outer = auto
        # LOBPCG's tol applies to T; the original pencil's backward error stays near it (FEM: 2e-8)
        good &= f["/eigen/residuals_norm"][:].max() <= 1e-7
        print("%s %-11s %d ranks: %s, %d inner iterations, max |lambda - dense| / |dense| = %.2g, vs direct %.2g" %
              ("PASS" if good else "FAIL", c, np_, method, e["inner_iterations"], err, agree))
        ok &= bool(good)
raise SystemExit(0 if ok else 1)
PY
# auto: direct within the gather limit, iterative past it (2 ranks)
deck auto.ini "$(mtx spd_cond13)" "${lobpcg[@]}" "shift = 0"
"$MPIEXEC" -n 2 "$HAMLET" run auto.ini -o auto_direct.h5 --quiet >auto.log 2>&1 || fail "auto: $(cat auto.log)"
HAMLET_SHIFT_INVERT_MAX_ENTRIES=100 "$MPIEXEC" -n 2 "$HAMLET" run auto.ini -o auto_iter.h5 --quiet >auto.log 2>&1 ||
  fail "auto past the limit: $(cat auto.log)"
"$PYTHON" - <<'PY' || fail "inner = auto did not choose by the gather limit"
import h5py
inner = [h5py.File(p, "r")["/eigen"].attrs["inner"] for p in ("auto_direct.h5", "auto_iter.h5")]
inner = [v.decode() if isinstance(v, bytes) else str(v) for v in inner]
print("auto chose", inner)
raise SystemExit(0 if inner == ["direct", "iterative"] else 1)
PY
# an inner solve that cannot converge stops the run as not converged (exit 3) with a message naming it
expect() { # code pattern deck [ranks]
  local rc=0
  "$MPIEXEC" -n "${4:-1}" "$HAMLET" run "$3" -o bad.h5 --quiet >bad.log 2>&1 || rc=$?
  [ "$rc" -eq "$1" ] || fail "$3: exit $rc, expected $1: $(cat bad.log)"
  grep -q "$2" bad.log || fail "$3: no '$2' in: $(cat bad.log)"
}
deck stall.ini "$(mtx spd_cond13)" "${lobpcg[@]}" "shift = 0" "inner = iterative" "inner_maxit = 3"
expect 3 "inner CG solve of (A - shift B) y = b did not converge" stall.ini 2
deck stall_minres.ini "$(mtx indefinite)" "${lobpcg[@]}" "shift = $(cat indefinite.shift)" "inner = iterative" "inner_maxit = 3"
expect 3 "inner MINRES solve of (A - shift B) y = b did not converge" stall_minres.ini 1
deck bad.ini "$(mtx spd_cond13)" "${lobpcg[@]}" "shift = 0" "inner = cg"
expect 2 "inner.*one of: auto, direct, iterative" bad.ini
deck bad.ini "$(mtx spd_cond13)" "${lobpcg[@]}" "shift = 0" "inner_maxit = 0"
expect 2 "inner_maxit" bad.ini
deck bad.ini "$(mtx spd_cond13)" "method = lobpcg" "inner = iterative"
expect 2 "inner" bad.ini
finish
