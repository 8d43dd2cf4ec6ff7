# Every relative link of README.md, docs/**/*.md and bench/*.md (and bench/peers/README.md) names a
# file or folder of the tree (an anchor after # must be a heading of that page), none points outside
# the repository, and no line of README.md, docs/ or bench/README.md is over 120 columns.
set -u
cd "${SOURCE_DIR:?SOURCE_DIR is not set (ctest sets it)}" || exit 1
exec /usr/bin/python3 - <<'PY'
import glob, os, re, sys

pages = ["README.md"] + sorted(glob.glob("docs/**/*.md", recursive=True)) + sorted(glob.glob("bench/*.md"))
pages += ["bench/peers/README.md"]
narrow = {p for p in pages if p in ("README.md", "bench/README.md") or p.startswith("docs/")}
root = os.path.realpath(".")
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
failures = []

def anchors(path):
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to dashes."""
    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+\s+(.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(text.replace(" ", "-"))
    return out

for page in pages:
    if not os.path.exists(page):
        failures.append(f"{page}: missing")
        continue
    in_code = False
    for n, line in enumerate(open(page, encoding="utf-8"), 1):
        # the two set-up commands of the README are one line each, as a user pastes them
        if page in narrow and len(line.rstrip("\n")) > 120 and not line.startswith("bash scripts/setup_debian.sh"):
            failures.append(f"{page}:{n}: {len(line.rstrip())} columns (at most 120)")
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        targets = link.findall(re.sub(r"`[^`]*`", "", line))
        targets += re.findall(r"^\[[^\]]+\]:\s*(\S+)", line)  # reference-style definitions
        for target in targets:
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.realpath(full).startswith(root + os.sep) and os.path.realpath(full) != root:
                failures.append(f"{page}:{n}: {target} points outside the repository")
            elif not os.path.exists(full):
                failures.append(f"{page}:{n}: {target}: no such file")
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                failures.append(f"{page}:{n}: {target}: no heading #{anchor} in {full}")
    # a path named in the text, not only in a link, must not climb out of the repository either: read
    # from the page's folder, or, where nothing is there, from the root (where a user's commands run)
    for m in re.finditer(r"(?:\.\./)+[\w.-][\w./-]*", open(page, encoding="utf-8").read()):
        here = os.path.realpath(os.path.join(os.path.dirname(page), m.group(0)))
        where = here if os.path.exists(here) else os.path.realpath(m.group(0))
        if not where.startswith(root + os.sep):
            failures.append(f"{page}: names {m.group(0)}, outside the repository")

for f in failures:
    print("FAIL:", f)
print(f"{len(pages)} pages checked")
sys.exit(1 if failures else 0)
PY
