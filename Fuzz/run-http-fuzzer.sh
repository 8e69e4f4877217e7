#!/usr/bin/env bash
# Builds the libFuzzer target for NativeTransport's response parser and runs it.
#
# Usage: Fuzz/run-http-fuzzer.sh [seconds=30] [corpus directory=Fuzz/corpus-http]
# Crash inputs are written to Fuzz/out/. Only the parser's sources are compiled in (HTTP1ParseError,
# ResponseHead, HTTP1BodyDecoder and HTTPSyntax), so they must depend on Foundation alone.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-30}"
corpus="${2:-$root/Fuzz/corpus-http}"
out="$root/Fuzz/out"
binary="$out/http-response-parser-fuzzer"

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
mapfile -t sources < <(one_module "$out/sources-http" \
    "$root"/Sources/RequestKitNativeTransport/HTTP1/HTTP1ParseError.swift \
    "$root"/Sources/RequestKitNativeTransport/Exchange/ResponseHead.swift \
    "$root"/Sources/RequestKitNativeTransport/HTTP1/HTTP1BodyDecoder.swift \
    "$root"/Sources/RequestKitModel/Request/HTTPSyntax.swift \
    "$root"/Sources/RequestKitModel/Request/HTTPHeaders.swift)
swiftc -sanitize=fuzzer,address -parse-as-library -O \
    -module-name HTTPResponseParserFuzzer -package-name RequestKit \
    "${sources[@]}" "$root"/Fuzz/HTTPResponseParser/main.swift \
    -o "$binary"

# Seed an empty corpus with a few well-formed responses (the first byte picks GET and a read size).
if [ -z "$(ls -A "$corpus")" ]; then
    printf '\x10HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: a=1\r\n\r\nhello' >"$corpus/length"
    printf '\x06HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nX-T: 1\r\n\r\n' \
        >"$corpus/chunked"
    printf '\x00HTTP/1.0 200 OK\r\nServer: old\r\n\r\nuntil the end' >"$corpus/close"
    printf '\x01HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n' >"$corpus/head"
    printf '\x02HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n' >"$corpus/informational"
    printf '\x04HTTP/1.1 304 Not Modified\nETag: "x"\n\n' >"$corpus/bare-lf"
fi

export SWIFT_BACKTRACE=enable=no
"$binary" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" -print_final_stats=1
