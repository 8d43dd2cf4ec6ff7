# The Debian package `shellcheck` run on every shell script of the repository: each *.sh
# (tracked or new, build folders excluded) and .ci/run, with the settings of .shellcheckrc.
# Skipped (77) only where shellcheck is not installed (scripts/setup_debian.sh installs it), failed then
# where HAMLET_TEST_REQUIRE names shellcheck.
set -u
cd "$SOURCE_DIR" || exit 1
# shellcheck source=tests/e2e/need.sh
. "$SOURCE_DIR/tests/e2e/need.sh"
need shellcheck "shellcheck is not installed" commands_exist shellcheck
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t scripts < <(git ls-files --cached --others --exclude-standard -- '*.sh' .ci/run | sort -u)
else
  mapfile -t scripts < <(find . -path ./.git -prune -o -path './build*' -prune -o -name '*.sh' -print; echo .ci/run)
fi
# A script with an unquoted expansion must be reported (shellcheck works, .shellcheckrc hides no
# such finding): checked in the source tree, where the settings apply.
probe=$(mktemp "$SOURCE_DIR/tests/shellcheck-probe.XXXXXX.sh")
trap 'rm -f "$probe"' EXIT
# shellcheck disable=SC2016 # the probe's text, never expanded here
printf 'x=$1\nrm $x\n' >"$probe"
shellcheck -f gcc "$probe" | grep -q SC2086 || { echo "FAIL: shellcheck did not report an unquoted \$x"; exit 1; }
[ "${#scripts[@]}" -gt 20 ] || { echo "FAIL: only ${#scripts[@]} scripts found under $SOURCE_DIR"; exit 1; }
failed=0
for s in "${scripts[@]}"; do
  [ -f "$s" ] && [ "$s" != "${probe#"$SOURCE_DIR"/}" ] || continue
  shellcheck -f gcc "$s" || failed=$((failed + 1))
done
echo "shellcheck: ${#scripts[@]} scripts, $failed with findings"
[ "$failed" -eq 0 ] && echo PASSED
