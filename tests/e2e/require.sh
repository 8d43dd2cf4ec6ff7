# HAMLET_TEST_REQUIRE turns a skip into a failure: a GPU test (argument 1) without a GPU exits 1
# with a message naming the requirement instead of 77, and so does need_h5py without h5py, and every
# other named dependency of tests/e2e/need.sh; no test skips without naming its dependency; CI
# (.ci/run, the README's test command) requires what scripts/setup_debian.sh installs.
# Where a GPU is visible the GPU test must pass with and without the requirement.
. "$(dirname "$0")/common.sh"
gpu_test=$1
HAMLET_TEST_REQUIRE="" "$MPIEXEC" -n 1 "$gpu_test" >plain.txt 2>&1
plain=$?
HAMLET_TEST_REQUIRE=h5py,gpu "$MPIEXEC" -n 1 "$gpu_test" >required.txt 2>&1
required=$?
case $plain in
  0) [ "$required" -eq 0 ] || fail "with a GPU and HAMLET_TEST_REQUIRE=gpu: exit $required: $(cat required.txt)" ;;
  77) [ "$required" -eq 1 ] && grep -q "HAMLET_TEST_REQUIRE=h5py,gpu requires the GPU" required.txt ||
        fail "no GPU but required: exit $required (expected 1 and a message): $(cat required.txt)" ;;
  *) fail "the GPU test failed without a requirement: exit $plain: $(cat plain.txt)" ;;
esac
HAMLET_TEST_REQUIRE=gpuish "$MPIEXEC" -n 1 "$gpu_test" >similar.txt 2>&1
[ $? -eq "$plain" ] || fail "HAMLET_TEST_REQUIRE=gpuish must not require gpu: $(cat similar.txt)"

# need_h5py with an interpreter that has no h5py ('false'): a skip, or a failure where required.
(HAMLET_TEST_PYTHON=false HAMLET_TEST_REQUIRE="" need_h5py) >h5.txt 2>&1
[ $? -eq 77 ] || fail "need_h5py without h5py must skip (77): $(cat h5.txt)"
(HAMLET_TEST_PYTHON=false HAMLET_TEST_REQUIRE=gpu,h5py need_h5py) >h5.txt 2>&1
[ $? -eq 1 ] && grep -q "requires h5py" h5.txt || fail "need_h5py without h5py but required must fail: $(cat h5.txt)"

# Every named dependency (tests/e2e/need.sh), missing: the whole test skips (need) or a part of it is
# left out (have), unless HAMLET_TEST_REQUIRE names it (not a longer name containing it): a failure.
for name in $HM_TEST_INSTALLED $HM_TEST_MACHINE; do
  [ "$name" = gpu ] && continue # the C probe's, checked above
  (HAMLET_TEST_REQUIRE="${name}ish" need "$name" "no $name" false) >n.txt 2>&1
  [ $? -eq 77 ] || fail "need $name without it and not required must skip (77): $(cat n.txt)"
  (HAMLET_TEST_REQUIRE="gpu,$name" need "$name" "no $name" false) >n.txt 2>&1
  [ $? -eq 1 ] && grep -q "requires $name" n.txt || fail "need $name without it but required must fail: $(cat n.txt)"
  (HAMLET_TEST_REQUIRE="" have "$name" "no $name" false; echo "went on: $?") >n.txt 2>&1
  grep -q "went on: 1" n.txt || fail "have $name without it must return 1 and go on: $(cat n.txt)"
  (HAMLET_TEST_REQUIRE="$name" have "$name" "no $name" false; echo "went on") >n.txt 2>&1
  [ $? -eq 1 ] && ! grep -q "went on" n.txt || fail "have $name without it but required must fail: $(cat n.txt)"
  (HAMLET_TEST_REQUIRE="$name" need "$name" "no $name" true) >n.txt 2>&1 || fail "need $name with it must go on: $(cat n.txt)"
done
(need sicpy "no sicpy" true) >n.txt 2>&1
[ $? -eq 1 ] || fail "need of a name the suite does not know must fail: $(cat n.txt)"
# The scripts' own checks: without Python modules ('false' as the interpreter) each skips, or fails
# where its dependencies are required.
for script in tests/e2e/shift_invert.sh tests/e2e/krylov_schur.sh tests/e2e/lobpcg_hard.sh io/tests/test_plot_dos.sh; do
  (cd "$SOURCE_DIR" && HAMLET_SOURCE_DIR=$SOURCE_DIR HAMLET_TEST_PYTHON=false HAMLET_TEST_REQUIRE="" bash "$script" x x) >s.txt 2>&1
  [ $? -eq 77 ] || fail "$script without Python modules must skip (77): $(tail -3 s.txt)"
  (cd "$SOURCE_DIR" && HAMLET_SOURCE_DIR=$SOURCE_DIR HAMLET_TEST_PYTHON=false HAMLET_TEST_REQUIRE="$HM_TEST_INSTALLED_LIST" \
    bash "$script" x x) >s.txt 2>&1
  [ $? -eq 1 ] && grep -q "HAMLET_TEST_REQUIRE=.*requires" s.txt || fail "$script without Python modules but required must fail: $(tail -3 s.txt)"
done
# No test skips but through need (or the GPU probe): ctest's skip code only in the helpers.
cd "$SOURCE_DIR" || exit 1
mapfile -t scripts < <(git ls-files -- 'tests/*.sh' '*/tests/*.sh' 'bench/*.sh')
[ "${#scripts[@]}" -gt 30 ] || fail "only ${#scripts[@]} test scripts found"
for f in "${scripts[@]}"; do
  case $f in tests/e2e/need.sh | tests/e2e/cuda_variant.sh | tests/e2e/require.sh) continue ;; esac
  grep -nE 'exit 77|return 77' "$f" && fail "$f skips (77) outside need/have (tests/e2e/need.sh): name the dependency"
done
mapfile -t sources < <(git ls-files -- '*/tests/*.c' '*/tests/*.cu' 'bench/*.c' 'bench/*.cu' 'bench/*.h')
for f in "${sources[@]}"; do
  [ "$f" = bench/gpu_bench_device.h ] && continue
  grep -nE 'return 77|\? 77' "$f" && fail "$f skips (77) outside the GPU probe (hm_test_no_gpu, bench/gpu_bench_device.h)"
done
# CI runs the README's test command, which requires everything scripts/setup_debian.sh installs.
ci=$(grep -E '^bash scripts/setup_debian.sh' .ci/run)
readme=$(grep -E '^bash scripts/setup_debian.sh .*ctest' README.md)
[ -n "$ci" ] && [ "$ci" = "$readme" ] || fail "the README's test command and .ci/run's differ: '$readme' and '$ci'"
[[ $ci == *"HAMLET_TEST_REQUIRE=$HM_TEST_INSTALLED_LIST ctest"* ]] ||
  fail ".ci/run must require HAMLET_TEST_REQUIRE=$HM_TEST_INSTALLED_LIST (what scripts/setup_debian.sh installs): $ci"
[[ $ci == *"--timeout 600"* ]] || fail ".ci/run's ctest lacks --timeout 600: $ci"
finish
