#!/usr/bin/env bash
# Compares RequestKit's public API (the public and open symbols of the library's layers and RequestKitTesting, as DocC
# sees them in the symbol graphs) with the baseline checked into the repository, API/public-api.txt.
#
# Usage: bash Scripts/check-public-api.sh           fails, listing the symbols added and removed, when the API differs
#                                                   from the baseline; when the baseline differs from the base
#                                                   revision's, fails unless CHANGELOG.md differs too
#        bash Scripts/check-public-api.sh --update  rewrites the baseline from the working tree
#
# The base revision is REQUESTKIT_API_BASE, by default where HEAD left main (git merge-base HEAD main). The symbol
# graphs are dumped into the scratch path Scripts/check-docs.sh uses (.build-docs/build), so after the docs step the
# build is already there. The baseline is Linux's: declarations under `#if canImport(...)` differ on Apple platforms.
set -euo pipefail
export LC_ALL=C  # comm and Python sort the lines alike, byte by byte
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
baseline="API/public-api.txt"

update=false
if [ "${1:-}" = "--update" ]; then
    update=true
elif [ -n "${1:-}" ]; then
    echo "usage: bash Scripts/check-public-api.sh [--update]" >&2
    exit 2
fi

mkdir -p "$root/.build-docs"
# Not `swift package dump-symbol-graph`, which resolves every trait's package (Scripts/dump-symbol-graphs.sh).
bash "$root/Scripts/dump-symbol-graphs.sh" "${REQUESTKIT_DOCS_SCRATCH:-$root/.build-docs/build}" \
    >"$root/.build-docs/dump.log" 2>&1 || true
current="$root/.build-docs/public-api.txt"
if ! python3 "$root/Scripts/public-api.py" "$(echo "${REQUESTKIT_DOCS_SCRATCH:-$root/.build-docs/build}"/*/symbolgraph)" >"$current"; then
    echo "error: the symbol graphs could not be read; see .build-docs/dump.log" >&2
    exit 1
fi

if $update; then
    mkdir -p "$(dirname "$baseline")"
    {
        echo "# RequestKit's public API: written by \`bash Scripts/check-public-api.sh --update\`, compared by .ci/run."
        echo "# One line per public or open symbol and per conformance (Scripts/public-api.py says how it is spelled)."
        cat "$current"
    } >"$baseline"
    echo "$baseline: $(grep -vc '^#' "$baseline") lines; say what changed in CHANGELOG.md"
    exit 0
fi

if [ ! -f "$baseline" ]; then
    echo "error: no $baseline; write it with: bash Scripts/check-public-api.sh --update" >&2
    exit 1
fi
added="$(comm -13 <(grep -v '^#' "$baseline") "$current")"
removed="$(comm -23 <(grep -v '^#' "$baseline") "$current")"
if [ -n "$added" ] || [ -n "$removed" ]; then
    {
        echo "error: the public API differs from $baseline."
        if [ -n "$added" ]; then
            echo "Added ($(echo "$added" | wc -l)):"
            echo "$added" | sed 's/^/  + /'
        fi
        if [ -n "$removed" ]; then
            echo "Removed ($(echo "$removed" | wc -l)):"
            echo "$removed" | sed 's/^/  - /'
        fi
        echo "If the change is meant, regenerate the baseline (bash Scripts/check-public-api.sh --update), say what"
        echo "changed for users in CHANGELOG.md, and commit both."
    } >&2
    exit 1
fi
echo "public API: $(wc -l <"$current") lines, as in $baseline"

# A baseline that changed since the base revision needs a CHANGELOG entry in the same change.
base="${REQUESTKIT_API_BASE:-$(git merge-base HEAD main 2>/dev/null || true)}"
if [ -z "$base" ] || ! git cat-file -e "$base:$baseline" 2>/dev/null; then
    echo "(no base revision with a baseline to compare with: the CHANGELOG check is skipped)"
    exit 0
fi
if ! git diff --quiet "$base" -- "$baseline"; then
    if git diff --quiet "$base" -- CHANGELOG.md; then
        echo "error: $baseline changed since $(git rev-parse --short "$base") but CHANGELOG.md did not:" >&2
        git diff --stat "$base" -- "$baseline" >&2
        echo "say in CHANGELOG.md what the public API gained or lost." >&2
        exit 1
    fi
    echo "$baseline changed since $(git rev-parse --short "$base"), and CHANGELOG.md with it"
fi
