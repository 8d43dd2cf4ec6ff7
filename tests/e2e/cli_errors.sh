# The program refuses bad input with a clear message, a non-zero exit and no file written.
. "$(dirname "$0")/common.sh"
expect() { # expect CODE NEEDLE -- command...
  local code=$1 needle=$2; shift 3
  "$@" >out.txt 2>err.txt; local got=$?
  [ "$got" -eq "$code" ] || fail "'$*' exited $got, expected $code: $(cat err.txt)"
  grep -qF -- "$needle" err.txt out.txt || fail "'$*': output lacks '$needle': $(cat err.txt)"
}
expect 2 "unknown subcommand 'frobnicate'" -- "$HAMLET" frobnicate
expect 2 "usage: hamlet run" -- "$HAMLET" run
expect 2 "no_such_deck.ini" -- run2 run no_such_deck.ini
printf '[run]\noutput = bad.h5\n[hamiltonian]\nmodel = ti\nnx = 4\nny = 4\nnz = 4\n[kpm]\nmoments = 7\n' > odd.ini
expect 2 "odd.ini:9" -- run2 run odd.ini
[ -e bad.h5 ] || [ -e bad.h5.tmp ] && fail "a rejected deck wrote an output file"
# backend = cuda: runs where a GPU is visible, else a clear refusal and no file.
printf '[run]\noutput = cuda.h5\nbackend = cuda\n[hamiltonian]\nmodel = ti\nnx = 4\nny = 4\nnz = 4\n' > cuda.ini
if ! run2 run cuda.ini --quiet >out.txt 2>err.txt; then
  expect 2 "backend = cuda" -- run2 run cuda.ini
  [ -e cuda.h5 ] && fail "a run without its backend wrote an output file"
fi
expect 2 "no_such.h5" -- run2 restart no_such.h5
expect 2 "must be a number" -- "$HAMLET" compare a.h5 b.h5 --rtol banana
"$HAMLET" --version | grep -q "hamlet 0" || fail "--version does not print the version"
finish
