#!/usr/bin/env bash
# Runs the tests with code coverage in their own scratch path and prints a line-coverage summary for the library's
# targets, Sources/RequestKit and Sources/RequestKit<Layer> (llvm-cov report).
#
# Usage: Scripts/coverage.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="$root/.build-coverage"

# At most 32 tests at once, as under the thread sanitizer: the instrumented build is slower, and tests that wait on
# sockets should not all start together.
swift test --enable-code-coverage --scratch-path "$scratch" --experimental-maximum-parallelization-width 32

bin="$(swift build --show-bin-path --scratch-path "$scratch")"
profile="$bin/codecov/default.profdata"
binary="$bin/RequestKitPackageTests.xctest"
llvm_cov="$(dirname "$(readlink -f "$(command -v swift)")")/llvm-cov"

"$llvm_cov" report "$binary" -instr-profile="$profile" --ignore-filename-regex='(\.build|Tests|Sources/RequestKitTesting)' \
    "$root"/Sources/RequestKit "$root"/Sources/RequestKit[A-Z]* | tail -n 1 \
    | awk '{ printf "Line coverage of the library targets: %s (%s of %s lines missed)\n", $10, $9, $8 }'
