# shellcheck shell=bash
# The tests' optional dependencies, each by name. A test that lacks one skips (exit 77, ctest's skip
# code, the reason in its log) unless HAMLET_TEST_REQUIRE (comma-separated names) names it: then it
# fails, so a machine that should have it (CI: what scripts/setup_debian.sh installs) cannot pass
# without running the test. The C tests' gpu is tests/support/testing.c's (hm_test_no_gpu).
# What scripts/setup_debian.sh installs (.ci/run and the README's test command require these):
# shellcheck disable=SC2034 # read by the scripts that source this file
HM_TEST_INSTALLED="h5py scipy matplotlib shellcheck toolchain h5dump"
HM_TEST_INSTALLED_LIST=${HM_TEST_INSTALLED// /,} # as HAMLET_TEST_REQUIRE spells it
# What the machine may or may not offer: a CUDA device, a tmpfs mount, KITE (bench/kite_build.sh), a
# build that reads the GPU tuning variables (-DHAMLET_TUNING=ON; checked by the C tests).
HM_TEST_MACHINE="gpu tmpfs kite tuning"
# requires NAME: does HAMLET_TEST_REQUIRE name NAME?
requires() { case ",${HAMLET_TEST_REQUIRE:-}," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
# have NAME WHAT CHECK...: is NAME usable (CHECK succeeds)? Where not: a failure of the whole test
# (exit 1) where required, else WHAT said in the log and 1 returned (the part that needs it skipped).
have() {
  local name=$1 what=$2
  shift 2
  case " $HM_TEST_INSTALLED $HM_TEST_MACHINE " in
    *" $name "*) ;;
    *) echo "FAIL: '$name' is not a requirement this suite knows ($HM_TEST_INSTALLED $HM_TEST_MACHINE)"; exit 1 ;;
  esac
  "$@" >/dev/null 2>&1 && return 0
  if requires "$name"; then
    echo "FAIL: $what, but HAMLET_TEST_REQUIRE=$HAMLET_TEST_REQUIRE requires $name"
    exit 1
  fi
  echo "$what: skipped (HAMLET_TEST_REQUIRE=$name would make this a failure)"
  return 1
}
# need NAME WHAT CHECK...: the whole test needs NAME: skipped (77) without it, or failed where required.
need() { have "$@" || exit 77; }
# Checks for the names above.
python_has() { "${HAMLET_TEST_PYTHON:-/usr/bin/python3}" -c "import $1"; }
commands_exist() { local c; for c in "$@"; do command -v "$c" || return 1; done; }
