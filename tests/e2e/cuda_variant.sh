# Run an end-to-end script with backend = cuda (HAMLET_TEST_BACKEND, which the eigensolver scripts
# write into their decks): skipped (77) where test_gpu_probe (argument 1) sees no GPU, failed where
# HAMLET_TEST_REQUIRE=gpu asks for one and there is none (the probe's own rule).
#   cuda_variant.sh TEST_GPU_PROBE SCRIPT
probe=$1 script=$2
"$MPIEXEC" -n 1 "$probe" >/dev/null 2>&1
rc=$?
case $rc in
  0) ;;
  77) echo "no GPU: skipped"; exit 77 ;;
  *) echo "FAIL: $probe exited $rc (no GPU, but HAMLET_TEST_REQUIRE=${HAMLET_TEST_REQUIRE:-} requires one)"; exit 1 ;;
esac
HAMLET_TEST_BACKEND=cuda exec bash "$script"
