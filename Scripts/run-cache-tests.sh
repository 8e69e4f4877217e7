#!/usr/bin/env bash
# Runs the public HTTP cache test suite (github.com/http-tests/cache-tests) against RequestKit's cache: the suite's
# origin server (Node), CacheProxy (a loopback reverse proxy whose requests go through a ResponseCache) in front of
# it, and the suite's client against the proxy; then prints the pass counts by level (required = must, optimal =
# should, check = informational), the failures, and the published browser results for comparison.
#
#   bash Scripts/run-cache-tests.sh [SUITE-DIRECTORY] [memory|disk]
#
# The suite is not part of this repository: give a local checkout (or set REQUESTKIT_CACHE_TESTS). Without one,
# or without node, the script says so and exits 0. It needs no npm packages (only the tests that collect interim
# responses import undici, and they fail without it; see Scripts/cache-tests-not-applicable.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

suite="${1:-${REQUESTKIT_CACHE_TESTS:-}}"
store="${2:-memory}"
if [ -z "$suite" ] || [ ! -f "$suite/tests/index.mjs" ]; then
    echo "cache-tests: no suite checkout given (argument or REQUESTKIT_CACHE_TESTS); skipped"
    exit 0
fi
if ! command -v node >/dev/null; then
    echo "cache-tests: node is not installed; skipped"
    exit 0
fi
suite="$(cd "$suite" && pwd)"

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# A debug build is enough to judge behaviour; REQUESTKIT_CACHE_PROXY names an already built CacheProxy instead.
proxy="${REQUESTKIT_CACHE_PROXY:-}"
if [ -z "$proxy" ]; then
    swift build --product CacheProxy >&2
    proxy="$(swift build --show-bin-path)/CacheProxy"
fi

origin_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
npm_config_protocol=http npm_config_port="$origin_port" npm_config_pidfile="$work/server.pid" \
    node "$suite/test-engine/server/server.mjs" >"$work/server.log" 2>&1 &
pids+=($!)

proxy_arguments=("http://127.0.0.1:$origin_port")
if [ "$store" = "disk" ]; then proxy_arguments+=(disk "$work/cache"); fi
"$proxy" "${proxy_arguments[@]}" >"$work/proxy.port" 2>"$work/proxy.log" &
pids+=($!)

for _ in $(seq 1 100); do
    if [ -s "$work/proxy.port" ] && grep -q Listening "$work/server.log"; then break; fi
    sleep 0.1
done
proxy_port="$(head -1 "$work/proxy.port")"

node --input-type=module -e "
import tests from '$suite/tests/index.mjs'
const out = []
for (const suite of tests) for (const test of suite.tests) {
  out.push({ id: test.id, suite: suite.id, kind: test.kind || 'required', name: test.name,
             browser_only: test.browser_only === true, depends_on: test.depends_on || [] })
}
console.log(JSON.stringify(out))" >"$work/tests.json"

npm_config_base="http://127.0.0.1:$proxy_port" npm_config_id="" npm_package_config_id="" \
    node --no-warnings "$suite/test-engine/cli.mjs" >"$work/results.json" 2>"$work/client.log" || true

python3 Scripts/summarize-cache-tests.py "$work/tests.json" "$work/results.json" "$suite/results" \
    Scripts/cache-tests-not-applicable.txt
