# `hamlet help deck` prints every key of the schema, a section alone, refuses an unknown section, and
# docs/guide/deck.md is exactly `hamlet help deck --markdown` (regenerate it with that command).
. "$(dirname "$0")/common.sh"
PAGE=$SOURCE_DIR/docs/guide/deck.md
"$HAMLET" help deck >all.txt 2>err.txt || fail "hamlet help deck exited $?: $(cat err.txt)"
# The keys as io/deck_schema.c spells them, read from the source, not from the program.
grep -o '\.section = "[a-z]*", \.key = "[a-z0-9_]*"' "$SOURCE_DIR/io/deck_schema.c" |
  sed 's/.*section = "\([a-z]*\)", .key = "\([a-z0-9_]*\)"/\1 \2/' >keys.txt
[ "$(wc -l <keys.txt)" -gt 100 ] || fail "read only $(wc -l <keys.txt) keys from io/deck_schema.c"
# "section key" of every key line of the output (a key line starts with two blanks and the key)
awk '/^\[/ {s = substr($0, 2, length($0) - 2)} /^  [a-z]/ {print s, $1}' all.txt >printed.txt
missing=$(grep -vxFf printed.txt keys.txt)
[ -z "$missing" ] || fail "hamlet help deck lacks (section key): $missing"
grep -q 'multishift' all.txt && grep -A4 '^  multishift' all.txt | grep -q 'auto = yes from 32 energies' ||
  fail "multishift's help does not say when auto chooses multi-shift: $(grep -A4 '^  multishift' all.txt)"
grep -A3 '^  moments' all.txt | grep -q 'an even integer in \[2, 100000000\]; default "256"' ||
  fail "[kpm] moments lacks its range and default"
"$HAMLET" help deck solver >solver.txt 2>err.txt || fail "hamlet help deck solver exited $?"
[ "$(grep -c '^\[' solver.txt)" -eq 1 ] && head -1 solver.txt | grep -qx '\[solver\]' ||
  fail "hamlet help deck solver printed other sections: $(grep '^\[' solver.txt)"
"$HAMLET" help deck '[kpm]' | head -1 | grep -qx '\[kpm\]' || fail "hamlet help deck [kpm] does not print [kpm]"
"$HAMLET" help deck nosuch >out.txt 2>err.txt
code=$?
[ "$code" -eq 2 ] || fail "an unknown section exited $code, expected 2"
sections=$(grep '^\[' all.txt | tr -d '[]' | tr '\n' ' ')
grep -qF "unknown section 'nosuch' (allowed: ${sections% })" err.txt ||
  fail "the unknown section's message: $(cat err.txt)"
"$HAMLET" help frobnicate >out.txt 2>err.txt
[ $? -eq 2 ] || fail "hamlet help frobnicate did not exit 2"
"$HAMLET" help deck --markdown >page.md 2>err.txt || fail "hamlet help deck --markdown exited $?"
if ! diff -u "$PAGE" page.md >page.diff; then
  fail "docs/guide/deck.md differs from the schema; regenerate it: build/bin/hamlet help deck --markdown > docs/guide/deck.md
$(head -40 page.diff)"
fi
awk 'length($0) > 120 {print FILENAME ":" FNR ": " length($0) " columns"; bad = 1} END {exit bad}' page.md ||
  fail "the deck page has lines over 120 columns"
# every key under its own section's heading of the page
awk '/^## \[/ {s = substr($2, 2, length($2) - 2)} /^- \*\*/ {k = $2; gsub(/[*:]/, "", k); print s, k}' page.md >page_keys.txt
missing=$(grep -vxFf page_keys.txt keys.txt)
[ -z "$missing" ] || fail "the deck page lacks (section key): $missing"
finish
