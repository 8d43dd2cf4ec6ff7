# The conductivity's standard error (/conductivity/error, the spread of R random-phase vectors'
# sigma over sqrt(R)) is the standard deviation of sigma itself: over K = 20 runs with independent
# seeds, the spread of sigma matches the mean reported error (pooled over the energies of xx, whose
# ratio is 1 up to the sampling noise of 20 runs: within [0.5, 2], where an error sqrt(R) = 4 times
# too large gives 0.25 and one sqrt(R) too small gives 4); hamlet post recomputes the same error from
# the stored per-vector moments; every error of a random trace is > 0. Seeds printed; HAMLET_TEST_SEED
# replays them.
. "$(dirname "$0")/common.sh"
need_h5py
seed=${HAMLET_TEST_SEED:-$(( $(date +%s) % 1000000 ))}
echo "HAMLET_TEST_SEED=$seed"
K=20
for k in $(seq 1 "$K"); do
  cat >"run$k.ini" <<INI
[hamiltonian]
model = ti
nx = 3
ny = 3
nz = 2
boundary = periodic periodic open
potential = disorder
disorder_w = 1
[solver]
method = conductivity
[kpm]
trace = random
bounds = gershgorin
[conductivity]
components = xx
energies = -2 2 9
temperatures = 0.1
moments = 16
vectors = 16
seed = $((seed + k))
INI
  "$MPIEXEC" -n 1 "$HAMLET" run "run$k.ini" -o "run$k.h5" --quiet >"run$k.log" 2>&1 || fail "run $k: $(cat "run$k.log")"
done
"$HAMLET" post run1.h5 -o post1.h5 >post.log 2>&1 || fail "post: $(cat post.log)"
"$PYTHON" - "$K" <<'PY' || fail "the reported standard error does not match the spread over seeds"
import sys, h5py, numpy as np
K = int(sys.argv[1])
sigma, error = [], []
for k in range(1, K + 1):
    with h5py.File(f"run{k}.h5", "r") as f:
        sigma.append(f["/conductivity/sigma"][:].ravel())
        error.append(f["/conductivity/error"][:].ravel())
sigma, error = np.array(sigma), np.array(error)
assert np.all(error > 0), f"a random trace with 16 vectors reported a zero error: {error.min()}"
with h5py.File("run1.h5", "r") as a, h5py.File("post1.h5", "r") as b:
    ra, rb = a["/conductivity/error"][:], b["/conductivity/error"][:]
    assert np.allclose(ra, rb, rtol=1e-10, atol=0), f"run and post errors differ: {ra.ravel()} vs {rb.ravel()}"
spread = sigma.std(axis=0, ddof=1)            # the standard deviation of sigma over independent runs
reported = np.sqrt((error ** 2).mean(axis=0))  # the runs' own estimate of it
ratio = np.sqrt((spread ** 2).sum() / (reported ** 2).sum())
print(f"spread of sigma over {K} seeds / reported error = {ratio:.3f} (per energy: {np.round(spread / reported, 2)})")
assert 0.5 <= ratio <= 2, ratio
PY
finish
