#!/usr/bin/env bash
# Builds the libFuzzer target for the client side of an HTTP/2 connection (HTTP2Session) and runs it.
#
# Usage: Fuzz/run-http2-fuzzer.sh [seconds=30] [corpus directory=Fuzz/corpus-http2]
# (HTTP2_FUZZ_BUILD_ONLY=1 builds it without running, to replay a crash input: Fuzz/out/http2-session-fuzzer FILE.)
# Crash inputs are written to Fuzz/out/. The model's sources (and the JSON ones they use) and RequestKitHTTP2's are
# compiled in, instrumented; the session links the system nghttp2 (Debian's libnghttp2-dev).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-30}"
corpus="${2:-$root/Fuzz/corpus-http2}"
out="$root/Fuzz/out"
binary="$out/http2-session-fuzzer"

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
mapfile -t sources < <(one_module "$out/sources-http2" $(find "$root/Sources/RequestKitJSON" \
    "$root/Sources/RequestKitModel" "$root/Sources/RequestKitHTTP2" -name '*.swift' | sort))
swiftc -sanitize=fuzzer,address -parse-as-library -O \
    -module-name HTTP2SessionFuzzer -package-name RequestKit \
    -I "$root/Sources/CNghttp2" \
    "${sources[@]}" "$root/Fuzz/HTTP2Session/main.swift" \
    -o "$binary"

# Seed an empty corpus with a few server answers (the first byte picks the read size; stream 1, 3 and 5 are open).
if [ -z "$(ls -A "$corpus")" ]; then
    # HEADERS (:status 200, END_HEADERS) then DATA "ok" with END_STREAM on stream 1.
    printf '\x05\x00\x00\x01\x01\x04\x00\x00\x00\x01\x88\x00\x00\x02\x00\x01\x00\x00\x00\x01ok' >"$corpus/answer"
    # RST_STREAM REFUSED_STREAM on stream 3, GOAWAY with last stream 1.
    printf '\x02\x00\x00\x04\x03\x00\x00\x00\x00\x03\x00\x00\x00\x07\x00\x00\x08\x07\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00' \
        >"$corpus/refused"
    # PING, WINDOW_UPDATE on the connection, a 103 then a 204 with END_STREAM on stream 5.
    printf '\x3f\x00\x00\x08\x06\x00\x00\x00\x00\x00abcdefgh\x00\x00\x04\x08\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x05\x01\x04\x00\x00\x00\x05\x48\x03\x31\x30\x33\x00\x00\x01\x01\x05\x00\x00\x00\x05\x89' \
        >"$corpus/interim"
fi

export SWIFT_BACKTRACE=enable=no
[ -n "${HTTP2_FUZZ_BUILD_ONLY:-}" ] && exit 0
"$binary" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" -print_final_stats=1
