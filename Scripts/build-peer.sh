#!/usr/bin/env bash
# Builds a peer benchmark (a package of its own under Peers/, outside RequestKit's) in release, without network: every
# package in the peer's dependency graph is cloned from a local git directory (with its tags) and SwiftPM is told to
# use those clones in place of the GitHub URLs (package mirrors, in a configuration directory of the build, so nothing
# is written to ~/.swiftpm; the Package.resolved SwiftPM writes into the peer directory is git-ignored, its versions
# are recorded in Benchmarks/HISTORY.md).
#
#   bash Scripts/build-peer.sh AsyncHTTPClient   # Peers/AsyncHTTPClient (Scripts/build-peer-ahc.sh runs this)
#   bash Scripts/build-peer.sh WebSocketKit      # Peers/WebSocketKit: Vapor's websocket-kit
#   bash Scripts/build-peer.sh OpenAPI           # Peers/OpenAPI: the OpenAPI trait's generated client through
#                                                # RequestKitTransport and swift-openapi-async-http-client
#
# Peers/OpenAPI depends on this checkout of RequestKit (with its OpenAPI trait) and on the generated client of
# Tests/IntegrationTests/OpenAPI/Generated, so it is staged (its manifest with RequestKit's path filled in, main.swift
# and the generated files) in REQUESTKIT_OPENAPI_PEER, default /work/scratch/openapi-peer, and built there.
#
# It prints the path of the peer's executable on its last line.
#
# Environment (all optional):
#   REQUESTKIT_AHC_SOURCES   a directory holding one bare or non-bare git repository per package, at
#                            <owner>+<name>/repo (the layout of the `fetch` mirror); default /work/.mirror
#   REQUESTKIT_AHC_DEPS      where the clones go (shared by the peers); default /work/scratch/ahc-deps
#   REQUESTKIT_AHC_BUILD     SwiftPM's scratch path for the peer; default <repo>/.build-peer-ahc, or
#                            <repo>/.build-peer-websocketkit for WebSocketKit, <staging directory>/.build for
#                            OpenAPI
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sources="${REQUESTKIT_AHC_SOURCES:-/work/.mirror}"
deps="${REQUESTKIT_AHC_DEPS:-/work/scratch/ahc-deps}"
case "${1:-AsyncHTTPClient}" in
AsyncHTTPClient)
    peer="$root/Peers/AsyncHTTPClient" product=AHCBenchmarks default_build="$root/.build-peer-ahc"
    libraries=(swift-server/async-http-client)
    ;;
WebSocketKit)
    peer="$root/Peers/WebSocketKit" product=WebSocketKitBenchmarks default_build="$root/.build-peer-websocketkit"
    libraries=(vapor/websocket-kit)
    ;;
OpenAPI)
    peer="${REQUESTKIT_OPENAPI_PEER:-/work/scratch/openapi-peer}" product=OpenAPIBenchmarks default_build="$peer/.build"
    # RequestKit's own trait dependencies are in the list below.
    libraries=(swift-server/swift-openapi-async-http-client swift-server/async-http-client apple/swift-openapi-runtime)
    mkdir -p "$peer/Sources/OpenAPIBenchmarks"
    sed "s|REQUESTKIT_ROOT|$root|" "$root/Peers/OpenAPI/Package.swift" >"$peer/Package.swift"
    rm -f "$peer"/Sources/OpenAPIBenchmarks/*.swift
    cp "$root/Peers/OpenAPI/Sources/OpenAPIBenchmarks/main.swift" "$root"/Tests/IntegrationTests/OpenAPI/Generated/*.swift \
        "$peer/Sources/OpenAPIBenchmarks/"
    ;;
*)
    echo "usage: build-peer.sh [AsyncHTTPClient|WebSocketKit|OpenAPI]" >&2
    exit 2
    ;;
esac
build="${REQUESTKIT_AHC_BUILD:-$default_build}"

# owner/name of every package the resolution may visit: the peer's library, and the manifests of the libraries'
# dependencies, transitively (some are only named by products the peer never builds, but SwiftPM reads their
# manifests).
packages=(
    "${libraries[@]}"
    apple/swift-nio apple/swift-nio-ssl apple/swift-nio-http2 apple/swift-nio-extras
    apple/swift-nio-transport-services apple/swift-log apple/swift-atomics apple/swift-collections
    apple/swift-algorithms apple/swift-numerics apple/swift-distributed-tracing apple/swift-service-context
    apple/swift-http-types apple/swift-http-structured-headers apple/swift-configuration apple/swift-system
    apple/swift-metrics apple/swift-certificates apple/swift-asn1 apple/swift-async-algorithms apple/swift-crypto
    swift-server/swift-service-lifecycle jpsim/Yams swiftlang/swift-docc-plugin swiftlang/swift-docc-symbolkit
)

missing=()
for package in "${packages[@]}"; do
    [ -d "$sources/${package/\//+}/repo" ] || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "build-peer: no git sources for: ${missing[*]}" >&2
    echo "  expected <owner>+<name>/repo under $sources (set REQUESTKIT_AHC_SOURCES)" >&2
    exit 1
fi

# The local sources may lack a few large blobs (test vectors stored outside the snapshot). A tag whose tree names a
# missing blob cannot be checked out, so each such tag is moved to a commit of the same tree without those files.
drop_missing_blobs() {
    local clone="$1" missing tag index tree commit date
    missing="$(git -C "$clone" rev-list --objects --all --missing=print | sed -n 's/^?//p')"
    [ -n "$missing" ] || return 0
    index="$(mktemp)"
    for tag in $(git -C "$clone" tag); do
        local paths
        paths="$(git -C "$clone" ls-tree -r "$tag" | grep -F -f <(echo "$missing") | cut -f2 || true)"
        [ -n "$paths" ] || continue
        rm -f "$index"
        GIT_INDEX_FILE="$index" git -C "$clone" read-tree "$tag"
        echo "$paths" | while read -r path; do
            GIT_INDEX_FILE="$index" git -C "$clone" update-index --force-remove -- "$path"
        done
        tree="$(GIT_INDEX_FILE="$index" git -C "$clone" write-tree)"
        # Dated as the tagged commit, so the same sources always give the same commit.
        date="$(git -C "$clone" log -1 --format=%cI "$tag^{commit}")"
        commit="$(GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date" git -C "$clone" \
            -c user.name=build-peer-ahc -c user.email=build-peer-ahc@localhost \
            commit-tree "$tree" -p "$tag^{commit}" -m "$tag without blobs missing from the local sources")"
        git -C "$clone" tag -f "$tag" "$commit" >/dev/null
        echo "build-peer: $(basename "$clone") $tag: dropped $(echo "$paths" | tr '\n' ' ')" >&2
    done
    rm -f "$index"
}

mkdir -p "$deps" "$build/config"
mirrors="$build/config/mirrors.json"
{
    echo '{ "version": 1, "object": ['
    first=1
    for package in "${packages[@]}"; do
        name="${package#*/}"
        clone="$deps/$name"
        # Existing clones are kept as they are (delete $REQUESTKIT_AHC_DEPS to take newer sources).
        if [ ! -d "$clone/.git" ]; then
            git clone --quiet --no-checkout "$sources/${package/\//+}/repo" "$clone" >&2
            drop_missing_blobs "$clone"
        fi
        # Manifests spell the same package with and without ".git" (and under apple/ or swiftlang/).
        owners=("${package%%/*}")
        for other in apple swiftlang; do [ "$other" = "${owners[0]}" ] || owners+=("$other"); done
        for owner in "${owners[@]}"; do
            for suffix in "" ".git"; do
                [ "$first" -eq 1 ] || echo ','
                first=0
                printf '{ "original": "https://github.com/%s/%s%s", "mirror": "%s" }' "$owner" "$name" "$suffix" "$clone"
            done
        done
    done
    echo '] }'
} >"$mirrors.tmp"
mv "$mirrors.tmp" "$mirrors"

echo "build-peer: building $peer (scratch path $build)" >&2
swift build -c release --package-path "$peer" --scratch-path "$build" --config-path "$build/config" >&2
echo "$(swift build -c release --package-path "$peer" --scratch-path "$build" --config-path "$build/config" --show-bin-path)/$product"
