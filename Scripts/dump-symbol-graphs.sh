#!/usr/bin/env bash
# Writes the symbol graph of every module of the default build (traits off) into <scratch>/<triple>/symbolgraph, as
# `swift package dump-symbol-graph --minimum-access-level public` does, for check-docs.sh, check-public-api.sh and
# count-public.sh. That command resolves the package with every trait enabled, so on a machine without network or
# local copies it fails fetching the traits' packages (Package.swift, "traits"); this builds with the default traits,
# which need no package, then runs swift-symbolgraph-extract with the arguments the command passes it.
#
#   bash Scripts/dump-symbol-graphs.sh [scratch path=.build-docs/build]   # prints the symbolgraph directory
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${1:-$root/.build-docs/build}"
cd "$root"
swift build --scratch-path "$scratch" --build-tests >&2
bin="$(swift build --scratch-path "$scratch" --build-tests --show-bin-path)"
triple="$(basename "$(dirname "$bin")")"
out="$(dirname "$bin")/symbolgraph"
rm -rf "$out" && mkdir -p "$out"
maps=()
for map in "$root"/Sources/C*/module.modulemap; do maps+=(-Xcc "-fmodule-map-file=$map"); done
for module in "$bin"/Modules/*.swiftmodule; do
    name="$(basename "$module" .swiftmodule)"
    # Test modules are not documented (dump-symbol-graph could not extract them; their names would pass for layers).
    case "$name" in *Tests) continue ;; esac
    # As with dump-symbol-graph, a module whose graph cannot be extracted is left out; the callers check that the
    # library's and RequestKitTesting's graphs are there.
    swift-symbolgraph-extract -module-name "$name" -target "$triple" -module-cache-path "$bin/ModuleCache" \
        "${maps[@]}" -I "$bin/Modules" -minimum-access-level public -omit-extension-block-symbols \
        -output-dir "$out" >&2 || echo "dump-symbol-graphs: no graph for $name" >&2
done
echo "$out"
