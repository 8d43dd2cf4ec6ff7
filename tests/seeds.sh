# Every test with fresh random inputs can be replayed: its seed comes from hm_test_seed
# (tests/support/testing.c: HAMLET_TEST_SEED where set, else the clock, printed), never from the
# clock directly. Checks the sources of the C/CUDA tests and benchmarks and the test scripts; then
# runs one seeded test with HAMLET_TEST_SEED set and checks that it says it replays that seed.
#   seeds.sh SEEDED_TEST
set -u
cd "$SOURCE_DIR" || exit 1
seeded_test=$1
failed=0
# C and CUDA: a call of time() or clock() in a test or benchmark (timers are MPI_Wtime and chrono).
mapfile -t sources < <(git ls-files -- '*/tests/*.c' '*/tests/*.cu' 'tests/*.c' 'bench/*.c' 'bench/*.cu' 2>/dev/null ||
                       find . -path './build*' -prune -o \( -path '*/tests/*' -o -path './bench/*' \) \( -name '*.c' -o -name '*.cu' \) -print)
[ "${#sources[@]}" -gt 100 ] || { echo "FAIL: only ${#sources[@]} test sources found under $SOURCE_DIR"; exit 1; }
for f in "${sources[@]}"; do
  [ "$f" = tests/support/testing.c ] && continue
  if grep -nE '(^|[^_[:alnum:]])(time|clock)[[:space:]]*\((NULL|0|nullptr)?\)' "$f"; then
    echo "FAIL: $f reads the clock: seed from hm_test_seed() so that HAMLET_TEST_SEED replays it"
    failed=$((failed + 1))
  fi
done
# Scripts: the clock only as the default of HAMLET_TEST_SEED.
while IFS= read -r hit; do
  # shellcheck disable=SC2016 # the literal text ${HAMLET_TEST_SEED:- is looked for
  case $hit in *'${HAMLET_TEST_SEED:-'*) ;; *) echo "FAIL: $hit: a seed from the clock that HAMLET_TEST_SEED cannot replay"; failed=$((failed + 1)) ;; esac
done < <(grep -rnE 'seed.*\$\(date|\$\(date \+%s.*seed' tests bench/*.sh 2>/dev/null)
# At run time: the seed set is the seed used.
out=$(HAMLET_TEST_SEED=424242 "$seeded_test" 2>&1)
grep -q "^HAMLET_TEST_SEED=424242$" <<<"$out" || { echo "FAIL: $seeded_test ignores HAMLET_TEST_SEED=424242: $out" | head -5; failed=$((failed + 1)); }
echo "seeds: ${#sources[@]} sources, $failed findings"
[ "$failed" -eq 0 ] && echo PASSED
