#!/usr/bin/env bash
# Builds and tests RequestKit with every trait enabled (Logging, Metrics, Tracing, HTTPTypes, OpenAPI,
# ServiceLifecycle), from local git copies of their packages (Scripts/use-local-packages.sh), in its own scratch path
# (.build-traits: a trait is a compilation condition of every target, so the default build's objects cannot be
# reused). Without the copies it says so and exits 0: the default build never needs them.
#
#   bash Scripts/test-traits.sh                 # the integrations' tests and the documents' trait snippets
#   TRAITS=Logging bash Scripts/test-traits.sh  # one trait (a comma-separated list)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if ! bash Scripts/use-local-packages.sh --check; then
    echo "test-traits: SKIPPED: no local copies of the traits' packages, so the traits were neither built nor tested"
    exit 0
fi
bash Scripts/use-local-packages.sh
if [ -n "${TRAITS:-}" ]; then traits=(--traits "$TRAITS"); else traits=(--enable-all-traits); fi
# A warning in RequestKit's own code fails the run (-warnings-as-errors would apply to the packages' code too).
echo "== traits: build (${traits[*]}); a warning in RequestKit's sources or tests is an error"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift build --scratch-path .build-traits "${traits[@]}" --build-tests 2>&1 | tee "$log"
if grep -E "^$root/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log"; then
    echo "test-traits: warnings in RequestKit's code (above)" >&2
    exit 1
fi
echo "== traits: tests"
swift test --scratch-path .build-traits "${traits[@]}" --skip-build --filter '^(IntegrationTests|SnippetTests)\.'
