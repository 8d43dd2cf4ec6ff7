#!/bin/bash
# The one entry for a GPU machine that reaches no package registry: the Debian packages of
# scripts/gpu_host_packages.txt are fetched on a build machine (`apt-get download $(cat
# scripts/gpu_host_packages.txt)` inside .debs/, a folder git ignores) and travel with the tree;
# this script unpacks them under /opt/deps, builds the C + CUDA tree in build-gpu and runs one task.
#
#   bash scripts/gpu_host.sh check [CTEST ARGS...]   every GPU test (default `-L gpu`), a skip fails
#   bash scripts/gpu_host.sh sanitize [REGEX]         compute-sanitizer memcheck and racecheck on the
#                                                    one-process GPU tests (those matching REGEX), with their arguments;
#                                                    SANITIZE_SECONDS limits each run (default 600), SANITIZE_TOOLS
#                                                    names the tools (default "memcheck racecheck")
#   bash scripts/gpu_host.sh repeat TEST [N]          one test program N times (40) with fresh seeds
#   bash scripts/gpu_host.sh bench CASE...            benchmark cases of bench/cases.sh (`list` names them)
#   bash scripts/gpu_host.sh ab CASE...               the cases in this tree and in build-base/src, a tree
#                                                    made with `git archive COMMIT | tar -x -C build-base/src`
#   bash scripts/gpu_host.sh install                  install, relocate, build the downstream examples
#   bash scripts/gpu_host.sh tsan [REGEX]             CPU tests under ThreadSanitizer (GCC, no CUDA)
#   bash scripts/gpu_host.sh run TARGETS -- CMD...    build TARGETS, then run CMD in build-gpu
# Logs go to $OUT (the folder the machine sends back); a summary goes to stdout; the exit status is
# non-zero where anything failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
task=${1:-check}
shift || true
# shellcheck source=scripts/gpu_host_env.sh
source scripts/gpu_host_env.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

# build_tree SRC DIR [TARGETS...]: configure DIR from SRC once, then build (everything by default).
build_tree() {
  local src=$1 dir=$2 log
  shift 2
  log="$OUT/build_$(basename "$dir").log"
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    # shellcheck disable=SC2086 # the flag list splits into words on purpose
    cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON -DHAMLET_TUNING=ON -DCMAKE_CUDA_ARCHITECTURES=native \
      $HAMLET_DEVICE_CMAKE_FLAGS >"$log" 2>&1 || { tail -20 "$log"; return 1; }
  fi
  cmake --build "$dir" -j "$(nproc)" ${1:+--target "$@"} >>"$log" 2>&1 || { grep -E "error|Error" "$log" | head -20; return 1; }
  echo "built $dir at $SECONDS s"
}

gpu_test_commands() { # "EXE ARGS" of the one-process GPU tests matching $1 (ctest runs them as mpiexec -n 1 EXE ARGS)
  (cd build-gpu && ctest -L gpu ${1:+-R "$1"} -N -V) | sed -n 's/^[0-9]*: Test command: //p' | tr -d '"' |
    awk '$2 == "-n" && $3 == "1" { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' | sort -u
}

status=0
case $task in
  check)
    build_tree . build-gpu || exit 1
    [ $# -gt 0 ] || set -- -L gpu
    (cd build-gpu && OMP_NUM_THREADS=2 ctest "$@" -j 4 --timeout 300 --output-on-failure >"$OUT/ctest.log" 2>&1) || status=1
    grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest.log" | head -30
    ;;
  sanitize)
    build_tree . build-gpu || exit 1
    while read -r exe args; do
      name=$(basename "$exe")${args:+_${args// /_}}
      for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
        # shellcheck disable=SC2086 # the test's arguments split into words
        OMP_NUM_THREADS=2 timeout "${SANITIZE_SECONDS:-600}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$exe" $args \
          >"$OUT/sanitizer_${name}_$tool.log" 2>&1 </dev/null
        code=$?
        echo "compute-sanitizer $tool $name: exit $code"
        [ "$code" -eq 0 ] || status=1
      done
    done < <(gpu_test_commands "${1:-}")
    ;;
  repeat)
    test=${1:?repeat TEST [N]}
    runs=${2:-40}
    build_tree . build-gpu "$test" || exit 1
    exe=$(find build-gpu -name "$test" -type f -perm -u+x | head -1)
    fails=0
    for _ in $(seq 1 "$runs"); do
      "$exe" >"$OUT/repeat.log" 2>&1 || { fails=$((fails + 1)); grep -E "SEED|FAIL" "$OUT/repeat.log" | head -5; }
    done
    echo "$test failed $fails of $runs runs"
    [ "$fails" -eq 0 ] || status=1
    ;;
  bench | ab)
    trees=(this:build-gpu)
    build_tree . build-gpu || exit 1
    if [ "$task" = ab ]; then
      [ -d build-base/src ] || { echo "ab: no build-base/src (git archive COMMIT | tar -x -C build-base/src)"; exit 2; }
      build_tree build-base/src build-base/gpu && trees+=(base:build-base/gpu) || exit 1
    fi
    for tree in "${trees[@]}"; do
      for c in "$@"; do
        echo "== ${tree%%:*}: $c"
        bash bench/cases.sh "${tree#*:}" "$c" 2>&1 | tee -a "$OUT/bench_${tree%%:*}.log" || status=1
      done
    done
    ;;
  install)
    bash scripts/gpu_host_install.sh || status=1
    ;;
  tsan)
    bash scripts/gpu_host_tsan.sh "${1:-}" || status=1
    ;;
  run)
    targets=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do targets+=("$1"); shift; done
    shift || true
    build_tree . build-gpu "${targets[@]}" || exit 1
    (cd build-gpu && "$@") || status=1
    ;;
  *)
    echo "gpu_host.sh: unknown task '$task'; allowed: check sanitize repeat bench ab install tsan run" >&2
    exit 2
    ;;
esac
echo "done at $SECONDS s, status $status"
exit $status
