# HAMLET_TEST_REQUIRE turns a skip into a failure: a GPU test (argument 1) without a GPU exits 1
# with a message naming the requirement instead of 77, and so does need_h5py without h5py.
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
[ $? -eq 1 ] && grep -q "requires it" h5.txt || fail "need_h5py without h5py but required must fail: $(cat h5.txt)"
finish
