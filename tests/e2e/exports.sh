# The shared library exports exactly the public API: every function declared HM_API in include/,
# nothing else (no internal hm_* name, no C++ kernel stub of the CUDA backend).
# Argument: the path of libhamlet.so.
set -u
lib=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/hamlet-exports.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# exported code and data, less the runtime's own (_init, _fini, OpenMP's named critical sections)
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' |
  grep -vE '^(_init|_fini|_edata|_end|__bss_start|\.gomp_critical_user_.*)$' | sort -u >"$work/exported"
grep -hoE '^HM_API [a-z][a-z_ ]*\*? ?hm_[a-z0-9_]+\(' "$SOURCE_DIR/include/hamlet.h" "$SOURCE_DIR"/include/hamlet/*.h |
  grep -oE 'hm_[a-z0-9_]+' | sort -u >"$work/declared"
[ -s "$work/declared" ] || fail "no HM_API declaration found under $SOURCE_DIR/include"
# every public function of the headers is marked (an unmarked one would be hidden)
unmarked=$(grep -hE '^(int|void|double|const char \*) ?hm_[a-z0-9_]+\(' "$SOURCE_DIR/include/hamlet.h" \
  "$SOURCE_DIR"/include/hamlet/*.h)
[ -z "$unmarked" ] || fail "public declarations without HM_API: $unmarked"
extra=$(comm -23 "$work/exported" "$work/declared")
missing=$(comm -13 "$work/exported" "$work/declared")
[ -z "$extra" ] || fail "exported but not public ($(echo "$extra" | wc -l)): $(echo "$extra" | head -20 | tr '\n' ' ')"
[ -z "$missing" ] || fail "public but not exported: $(echo "$missing" | tr '\n' ' ')"
echo "$(wc -l <"$work/exported") symbols exported, $(wc -l <"$work/declared") public functions declared"
if [ "$failures" -eq 0 ]; then echo PASSED; exit 0; fi
echo "FAILED ($failures)"
exit 1
