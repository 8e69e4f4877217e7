#!/usr/bin/env bash
# Counts RequestKit's public surface (the library's layers and RequestKitTesting), so a change that grows it shows.
#
# Usage: Scripts/count-public.sh [--symbols] [commit]
#   The count of lines in Sources that declare something public or open (the measure issue #28 used: 995 at faf76e0),
#   in the working tree, or at `commit`.
#   --symbols also counts the public and open symbols in the symbol graphs of the working tree, as DocC sees them
#   (declarations, enum cases and protocol requirements; not synthesized ones such as `!=`). It dumps the graphs into
#   the scratch path Scripts/check-docs.sh uses, .build-docs/build, building there first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

symbols=false
if [ "${1:-}" = "--symbols" ]; then
    symbols=true
    shift
fi
commit="${1:-}"

declaration='^\s*(@[A-Za-z_]+(\([^)]*\))? )*(public|open) '
if [ -n "$commit" ]; then
    lines=$(git grep -E "$declaration" "$commit" -- Sources | wc -l)
else
    lines=$(git grep -E "$declaration" -- Sources | wc -l)
fi
echo "public or open declaration lines in Sources${commit:+ at $commit}: $lines"

if $symbols; then
    # Not `swift package dump-symbol-graph`, which resolves every trait's package (Scripts/dump-symbol-graphs.sh).
    bash "$root/Scripts/dump-symbol-graphs.sh" "${REQUESTKIT_DOCS_SCRATCH:-$root/.build-docs/build}" \
        >"$root/.build-docs/dump.log" 2>&1 || true
    python3 - "$(echo "${REQUESTKIT_DOCS_SCRATCH:-$root/.build-docs/build}"/*/symbolgraph)" <<'EOF'
import glob
import json
import re
import sys

# The library's modules (the layers and RequestKit, which re-exports them) and RequestKitTesting: not the tests,
# examples or benchmarks.
LIBRARY = re.compile(r"^RequestKit(?!Tests$)\w*$")
seen = set()
per_module = {}
for path in sorted(glob.glob(f"{sys.argv[1]}/*.symbols.json")):
    graph = json.load(open(path))
    module = graph["module"]["name"]
    if not LIBRARY.match(module):
        continue
    for symbol in graph["symbols"]:
        identifier = symbol["identifier"]["precise"]
        if symbol.get("accessLevel") not in ("public", "open") or symbol["kind"]["identifier"] == "swift.extension":
            continue
        if "::SYNTHESIZED::" in identifier or identifier in seen:
            continue
        seen.add(identifier)
        per_module[module] = per_module.get(module, 0) + 1
if not seen:
    sys.exit("no symbol graphs found: see .build-docs/dump.log")
for module, count in sorted(per_module.items()):
    print(f"  {module}: {count}")
print(f"public or open symbols in the symbol graphs: {len(seen)}")
EOF
fi
