#!/usr/bin/env bash
# bad_options.sh BINARY CASE...: each CASE is "ARGS|MESSAGE"; BINARY run with ARGS must exit 2 and
# print MESSAGE on stderr (the benchmarks parse their options before they look for a device, so
# this runs on machines without a GPU too).
set -u
bin=$1
shift
failed=0
for c in "$@"; do
  args=${c%%|*} want=${c#*|}
  # shellcheck disable=SC2086 # ARGS is a word list
  err=$("$bin" $args 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" <<<"$err"; then
    echo "FAIL: $(basename "$bin") $args: exit $rc (want 2), stderr: ${err%%$'\n'*} (want: $want)"
    failed=1
  else
    echo "ok: $(basename "$bin") $args: $want"
  fi
done
exit $failed
