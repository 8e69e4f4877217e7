#!/usr/bin/env bash
# Runs the tests with code coverage in their own scratch path and prints a line-coverage summary for
# Sources/RequestKit (llvm-cov report).
#
# Usage: Scripts/coverage.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="$root/.build-coverage"

swift test --enable-code-coverage --scratch-path "$scratch"

bin="$(swift build --show-bin-path --scratch-path "$scratch")"
profile="$bin/codecov/default.profdata"
binary="$bin/RequestKitPackageTests.xctest"
llvm_cov="$(dirname "$(readlink -f "$(command -v swift)")")/llvm-cov"

"$llvm_cov" report "$binary" -instr-profile="$profile" --ignore-filename-regex='(\.build|Tests|Sources/RequestKitTesting)' \
    "$root/Sources/RequestKit" | tail -n 1 | awk '{ printf "Line coverage of Sources/RequestKit: %s (%s of %s lines missed)\n", $10, $9, $8 }'
