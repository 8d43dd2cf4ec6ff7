#!/bin/bash
# Check slepc_shift_invert[_complex] before trusting its figures (not in ctest: it needs the
# unpacked PETSc / SLEPc, see README.md): on the five issue-32 structures at N = 196 the 4
# eigenvalues nearest the shift must match the dense references of
# tests/support/shift_invert_matrices.py to 1e-8 relative (Krylov-Schur; LOBPCG where it converges),
# and bad input must exit 2 with a message.
#   source bench/peers/unpack_peers.sh .debs-peers PREFIX   (exports PEERS_MPIEXEC)
#   bash bench/peers/check_slepc_shift_invert.sh build-peers/peers
set -euo pipefail
bin=$(cd "${1:?folder of slepc_shift_invert}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${PEERS_MPIEXEC:?source bench/peers/unpack_peers.sh first}"
read -r -a mpiexec <<<"$PEERS_MPIEXEC"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/tests/support/shift_invert_matrices.py" "$work" 7 14 >/dev/null
cd "$work"
failures=0

# $1 case, $2 method: the line's values against NAME.ref (1e-8 relative), or "not converged"
check_case() {
  local c=$1 method=$2 prog=slepc_shift_invert factor=cholesky mass=()
  [ "$c" = hermitian ] && prog=slepc_shift_invert_complex
  case $c in hermitian | indefinite) factor=lu ;; esac
  [ -f "${c}_M.mtx" ] && mass=(-B "${c}_M.mtx")
  local line
  line=$("${mpiexec[@]}" -n 1 "$bin/$prog" -A "$c.mtx" "${mass[@]}" -sigma "$(cat "$c.shift")" \
         -method "$method" -factor "$factor" | grep '^slepc_shift_invert ')
  /usr/bin/python3 - "$c" "$method" "$line" <<'EOF'
import shlex, sys
import numpy as np
c, method, line = sys.argv[1:4]
d = dict(kv.split("=", 1) for kv in shlex.split(line)[1:])
ref = np.loadtxt(c + ".ref")
if int(d["nconv"]) < 4:
    print("%-10s %-11s not converged (%s)" % (c, method, d["error"]))
    sys.exit(0 if method == "lobpcg" else 1)  # LOBPCG's breakdowns are results, Krylov-Schur's are not
v = np.array([float(x) for x in d["values"].split(",")])
err = np.max(np.abs(v - ref) / np.abs(ref))
print("%-10s %-11s max rel. diff from dense %.1e" % (c, method, err))
sys.exit(0 if err <= 1e-8 else 1)
EOF
}

for c in spd_cond13 pencil penalty hermitian indefinite; do
  check_case "$c" krylovschur || failures=$((failures + 1))
  [ "$c" != indefinite ] && { check_case "$c" lobpcg || failures=$((failures + 1)); }
done

# $1 expected message part, then the arguments: must exit 2 and print the message
check_bad() {
  local want=$1 rc=0
  shift
  "${mpiexec[@]}" -n 1 "$bin/slepc_shift_invert" "$@" >out.txt 2>&1 || rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$want" out.txt; then
    echo "bad input exits 2: $want"
  else
    echo "FAILED: $* gave exit $rc without '$want'"; failures=$((failures + 1))
  fi
}
check_bad "-A FILE.mtx is required"
check_bad "cannot open" -A missing.mtx
check_bad "use the complex build" -A hermitian.mtx
check_bad "unknown (allowed: krylovschur, lobpcg)" -A penalty.mtx -method arnoldi
check_bad "unknown (allowed: lu, cholesky)" -A penalty.mtx -factor qr
check_bad "exceeds the size" -A penalty.mtx -nev 500
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 2 1\n' >small.mtx
check_bad "but B is" -A penalty.mtx -B small.mtx
echo "%%MatrixMarket matrix array real general" >dense.mtx
check_bad "not a coordinate Matrix Market matrix" -A dense.mtx
[ "$failures" -eq 0 ] && echo "all checks passed" || { echo "$failures checks failed"; exit 1; }
