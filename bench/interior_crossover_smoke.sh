#!/bin/bash
# bench/interior_crossover.py on two tiny slabs: every method finds the same eigenvalues (the script
# prints their agreement), the table and the fits are printed.
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=tests/e2e/common.sh
source "$SOURCE_DIR/tests/e2e/common.sh"
need_h5py
need scipy "no scipy for $PYTHON" python_has scipy
OMP_NUM_THREADS=1 "$PYTHON" "$SOURCE_DIR/bench/interior_crossover.py" "$HAMLET" 5 6 --nev 4 >crossover.txt 2>&1 ||
  fail "interior_crossover.py: $(cat crossover.txt)"
grep -q "ChebFD overtakes SciPy" crossover.txt && [ "$(grep -c "the 4 values agree to [0-9.]*e-1[0-9]" crossover.txt)" -eq 2 ] ||
  fail "interior_crossover.py printed no table, or values that disagree: $(cat crossover.txt)"
finish
