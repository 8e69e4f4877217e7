#!/usr/bin/env bash
# What the Logging, Metrics and Tracing integrations cost per request with no-op backends, in instructions counted by
# callgrind (BENCHMARKS.md, "Integrations with no-op backends"). Peers/IntegrationCost is built in release twice from
# local git copies of the traits' packages (Scripts/use-local-packages.sh): with RequestKit's Logging, Metrics and
# Tracing traits on, and with `--disable-default-traits` (RequestKit's default build, no integrations). Each mode runs
# under callgrind against one loopback nginx for a short and a long count of sequential requests; the difference
# between the two counts' instructions, divided by the requests between them, is the instructions per request without
# the process's start, the first connection and the end. Modes: none, logging (LoggingMonitor on
# SwiftLogNoOpLogHandler), metrics (MetricsMonitor on NOOPMetricsHandler), tracing (Traced on NoOpTracer), all three;
# and none again with the traits off.
#
#   bash Scripts/measure-integration-cost.sh   # prints each run's instructions, then a table per request
#
# Environment (optional):
#   REQUESTKIT_COST_SHORT, REQUESTKIT_COST_LONG   the two counts of requests; default 500 and 2500
#   REQUESTKIT_COST_BUILD                         the scratch folder of the build with the traits, and
#                                                 that with -traits-off; default .build-integration-cost
#   REQUESTKIT_COST_KEEP                          a folder to keep the callgrind files in (for callgrind_annotate)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
short="${REQUESTKIT_COST_SHORT:-500}"
long="${REQUESTKIT_COST_LONG:-2500}"
package="$root/Peers/IntegrationCost"
build="${REQUESTKIT_COST_BUILD:-$root/.build-integration-cost}"
command -v valgrind >/dev/null || { echo "measure-integration-cost: valgrind is not installed" >&2; exit 1; }
[ "$long" -gt "$short" ] || { echo "measure-integration-cost: the long count must exceed the short one" >&2; exit 2; }

bash "$root/Scripts/use-local-packages.sh" >&2
swift_build() { # <scratch> [extra arguments]
    local scratch="$1"
    shift
    swift build -c release --package-path "$package" --scratch-path "$scratch" --config-path "$root/.swiftpm/configuration" "$@"
}
swift_build "$build" >&2
swift_build "$build-traits-off" --disable-default-traits >&2
on="$(swift_build "$build" --show-bin-path)/IntegrationCost"
off="$(swift_build "$build-traits-off" --disable-default-traits --show-bin-path)/IntegrationCost"

work="$(mktemp -d)"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
mkdir -p "$work/logs"
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 600;
    server { listen 127.0.0.1:$port; location / { default_type text/plain; return 200 'ok'; } }
}
CONF
"$(command -v nginx || echo /usr/sbin/nginx)" -p "$work" -c "$work/nginx.conf"
trap 'kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT

run() { # <label> <binary> <mode>
    local label="$1" binary="$2" mode="$3" count out instructions
    for count in "$short" "$long"; do
        out="$work/$label-$count.out"
        if ! valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$out" "$binary" "$mode" \
            "http://127.0.0.1:$port/" "$count" >"$work/$label-$count.log" 2>&1; then
            echo "measure-integration-cost: $label with $count requests failed:" >&2
            tail -20 "$work/$label-$count.log" >&2
            exit 1
        fi
        instructions="$(grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}')"
        echo "$label $count $instructions" | tee -a "$work/results"
        if [ -n "${REQUESTKIT_COST_KEEP:-}" ]; then
            mkdir -p "$REQUESTKIT_COST_KEEP"
            cp "$out" "$REQUESTKIT_COST_KEEP/"
        fi
    done
}
for mode in none logging metrics tracing all; do
    run "$mode" "$on" "$mode"
done
run traits-off "$off" none

python3 - "$work/results" "$short" "$long" <<'PY'
import sys
runs = {(label, int(count)): int(total) for label, count, total in (line.split() for line in open(sys.argv[1]))}
short, long = int(sys.argv[2]), int(sys.argv[3])
labels = ["none", "logging", "metrics", "tracing", "all", "traits-off"]
per = {label: (runs[(label, long)] - runs[(label, short)]) / (long - short) for label in labels}
print(f"\ninstructions per request ({long} - {short} requests, callgrind):")
print("| integrations (no-op backends) | instructions per request | against none |")
print("|---|---:|---:|")
for label in labels:
    name = {"traits-off": "none, traits off (default build)"}.get(label, label)
    print(f"| {name} | {per[label]:,.0f} | {(per[label] / per['none'] - 1) * 100:+.2f} % |")
PY
