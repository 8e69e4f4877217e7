#!/usr/bin/env bash
# Builds the DocC catalog of RequestKit from the package's symbol graph, treating warnings as errors.
#
# Usage: Scripts/check-docs.sh [output directory=.build-docs/RequestKit.doccarchive]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${1:-$root/.build-docs/RequestKit.doccarchive}"
graphs="$root/.build-docs/symbol-graphs"

# The test modules' graphs may fail to extract; only the library's and RequestKitTesting's are needed (one archive
# documents both, so searching it finds MockTransport and TestServer), and their absence fails below. RequestKit
# re-exports its layers (RequestKitJSON, RequestKitModel, ...), whose graphs are merged into one graph of RequestKit,
# the module users import.
mkdir -p "$root/.build-docs"
# Not `swift package dump-symbol-graph`, which resolves every trait's package (Scripts/dump-symbol-graphs.sh).
bash "$root/Scripts/dump-symbol-graphs.sh" "${REQUESTKIT_DOCS_SCRATCH:-$root/.build-docs/build}" \
    >"$root/.build-docs/dump.log" 2>&1 || true
rm -rf "$graphs" && mkdir -p "$graphs"
python3 "$root/Scripts/merge-symbol-graphs.py" "$(echo "${REQUESTKIT_DOCS_SCRATCH:-$root/.build-docs/build}"/*/symbolgraph)" "$graphs"
test -s "$graphs/RequestKitTesting.symbols.json"

docc convert "$root/Sources/RequestKit/RequestKit.docc" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name RequestKit --fallback-bundle-identifier org.requestkit.RequestKit \
    --analyze --warnings-as-errors --output-path "$out"
echo "DocC catalog built at $out"
