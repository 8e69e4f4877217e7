#!/usr/bin/env bash
# Points SwiftPM at local git copies of the packages RequestKit's traits use, for machines that cannot reach GitHub.
# The default build needs none of them (a dependency used only by a trait that is off is neither fetched nor built);
# enabling a trait (`swift build --traits Logging`) fetches its package, from the copy once this script has run.
#
#   bash Scripts/use-local-packages.sh          # set the mirrors (in .swiftpm/configuration/mirrors.json, git-ignored)
#   bash Scripts/use-local-packages.sh --check  # exit 0 if every copy is present, 1 (naming what is missing) if not
#   bash Scripts/use-local-packages.sh --unset  # remove the mirrors again
#
# Environment (optional):
#   REQUESTKIT_PACKAGE_SOURCES  a directory holding one bare or non-bare git repository per package, at
#                               <owner>+<name>/repo (the layout of the `fetch` mirror); default /work/.mirror
#   REQUESTKIT_PACKAGE_CLONES   where the clones SwiftPM reads go; default /work/scratch/requestkit-packages
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sources="${REQUESTKIT_PACKAGE_SOURCES:-/work/.mirror}"
clones="${REQUESTKIT_PACKAGE_CLONES:-/work/scratch/requestkit-packages}"

# owner/name of every package a trait may visit: the traits' dependencies and theirs.
packages=(
    apple/swift-log apple/swift-metrics apple/swift-distributed-tracing apple/swift-service-context
    apple/swift-http-types apple/swift-openapi-runtime swift-server/swift-service-lifecycle apple/swift-async-algorithms
    apple/swift-collections
)

missing=()
for package in "${packages[@]}"; do
    [ -d "$sources/${package/\//+}/repo" ] || missing+=("$package")
done

case "${1:-}" in
--check)
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "use-local-packages: no git copies of: ${missing[*]} (under $sources)" >&2
        exit 1
    fi
    exit 0
    ;;
--unset)
    for package in "${packages[@]}"; do
        for suffix in "" ".git"; do
            swift package --package-path "$root" config unset-mirror \
                --original "https://github.com/$package$suffix" 2>/dev/null || true
        done
    done
    echo "use-local-packages: mirrors removed" >&2
    exit 0
    ;;
"") ;;
*)
    echo "usage: bash Scripts/use-local-packages.sh [--check | --unset]" >&2
    exit 2
    ;;
esac

if [ "${#missing[@]}" -gt 0 ]; then
    echo "use-local-packages: no git copies of: ${missing[*]}" >&2
    echo "  expected <owner>+<name>/repo under $sources (set REQUESTKIT_PACKAGE_SOURCES)" >&2
    exit 1
fi

mkdir -p "$clones"
for package in "${packages[@]}"; do
    clone="$clones/${package#*/}"
    # A clone of the copy with its tags, which SwiftPM resolves versions from; an existing clone is kept as it is
    # (delete $REQUESTKIT_PACKAGE_CLONES to take newer copies).
    if [ ! -d "$clone" ]; then
        git clone --quiet --bare "$sources/${package/\//+}/repo" "$clone"
    fi
    # Manifests spell the same package with and without ".git".
    for suffix in "" ".git"; do
        swift package --package-path "$root" config set-mirror \
            --original "https://github.com/$package$suffix" --mirror "$clone"
    done
    echo "use-local-packages: https://github.com/$package -> $clone ($(git -C "$clone" tag | sort -V | tail -1))" >&2
done
