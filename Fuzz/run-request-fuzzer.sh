#!/usr/bin/env bash
# Builds the libFuzzer target for request building (every component that reaches the wire, and the outgoing
# check of what an interceptor adds) and runs it.
#
# Usage: Fuzz/run-request-fuzzer.sh [seconds=30] [corpus directory=Fuzz/corpus-request]
# Crash inputs are written to Fuzz/out/. Every source of RequestKit's layers (Sources/RequestKit*, not
# RequestKitTesting) is compiled in as one module, with the system libraries they link (zlib, and on Linux epoll's
# shim and OpenSSL 3); RequestKit.swift, which only re-exports the layers, is left out.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-30}"
corpus="${2:-$root/Fuzz/corpus-request}"
out="$root/Fuzz/out"
binary="$out/request-building-fuzzer"

mkdir -p "$corpus" "$out"
# The layers' files import each other's modules (`import RequestKitModel`); compiled here into one module, they are
# compiled from copies without those imports.
one_module() {
    local staged="$1"
    shift
    rm -rf "$staged" && mkdir -p "$staged"
    for file in "$@"; do
        local relative="${file#"$root"/}"
        sed '/^import RequestKit[A-Za-z0-9]*$/d' "$file" >"$staged/${relative//\//_}"
        echo "$staged/${relative//\//_}"
    done
}
# shellcheck disable=SC2046
mapfile -t sources < <(one_module "$out/sources-request" $(find "$root"/Sources/RequestKit[A-Z]* -name '*.swift' \
    -not -path '*/RequestKitTesting/*' | sort))
swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name RequestKit -package-name RequestKit \
    -I "$root/Sources/CZlib" -lz -I "$root/Sources/CEpoll" -I "$root/Sources/CAtomics" \
    -I "$root/Sources/COpenSSL" -lssl -lcrypto \
    -I "$root/Sources/CBrotli" -lbrotlidec -lbrotlienc -I "$root/Sources/CZstd" -lzstd \
    "${sources[@]}" "$root/Fuzz/RequestBuilding/main.swift" -o "$binary"

if [ -z "$(ls -A "$corpus")" ]; then
    printf 'http://127.0.0.1:8080/a\xffusers\xffq\xffa b&c\xffX-Id\xff1\xffGET\xff' > "$corpus/seed-1"
    printf 'https://example.com/x?y=1#f\xffa/b\xffk\xff\xc3\xa9\xffAccept\xfftext/html\xffPATCH\xffbody' > "$corpus/seed-2"
fi

export SWIFT_BACKTRACE=enable=no
"$binary" "$corpus" -max_total_time="$seconds" -max_len=512 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" -print_final_stats=1
