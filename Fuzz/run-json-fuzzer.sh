#!/usr/bin/env bash
# Builds the libFuzzer target for the JSON parser and runs it.
#
# Usage: Fuzz/run-json-fuzzer.sh [seconds=30] [corpus directory=Fuzz/corpus-json]
# Crash inputs are written to Fuzz/out/. Only Sources/RequestKitJSON (with Codable/) is compiled in: the JSON target
# is the bottom layer and depends on nothing else of RequestKit.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-30}"
corpus="${2:-$root/Fuzz/corpus-json}"
out="$root/Fuzz/out"
binary="$out/json-parser-fuzzer"

mkdir -p "$corpus" "$out"
swiftc -sanitize=fuzzer,address -parse-as-library -O \
    -module-name JSONParserFuzzer \
    -package-name RequestKit "$root"/Sources/RequestKitJSON/*.swift "$root"/Sources/RequestKitJSON/Codable/*.swift \
    "$root"/Fuzz/JSONParser/main.swift \
    -o "$binary"

# Seed the corpus with the conformance cases when they are available.
suite="$root/../shared/data/JSONTestSuite/test_parsing"
if [ -d "$suite" ] && [ -z "$(ls -A "$corpus")" ]; then
    cp "$suite"/*.json "$corpus"/
fi

export SWIFT_BACKTRACE=enable=no
"$binary" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" -print_final_stats=1
