#!/usr/bin/env bash
# What the Logging, Metrics and Tracing integrations cost per request with no-op backends, in instructions
# (BENCHMARKS.md, "Integrations with no-op backends"): Peers/IntegrationCost is built in release with those traits from
# local git copies of their packages (Scripts/use-local-packages.sh), then run under callgrind against one loopback
# nginx, plain and with LoggingMonitor, MetricsMonitor and Traced on no-op backends, each for a short and a long count
# of sequential requests; the difference between the two counts' instructions, divided by the requests between them,
# is the instructions per request without the process's start and end.
#
#   bash Scripts/measure-integration-cost.sh   # prints each run's instructions, then per request and the ratio
#
# Environment (optional):
#   REQUESTKIT_COST_SHORT, REQUESTKIT_COST_LONG   the two counts of requests; default 200 and 1200
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
short="${REQUESTKIT_COST_SHORT:-200}"
long="${REQUESTKIT_COST_LONG:-1200}"
package="$root/Peers/IntegrationCost"
build="$root/.build-integration-cost"
command -v valgrind >/dev/null || { echo "measure-integration-cost: valgrind is not installed" >&2; exit 1; }

bash "$root/Scripts/use-local-packages.sh"
swift build -c release --package-path "$package" --scratch-path "$build" --config-path "$root/.swiftpm/configuration" >&2
cost="$(swift build -c release --package-path "$package" --scratch-path "$build" --config-path "$root/.swiftpm/configuration" \
    --show-bin-path)/IntegrationCost"

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
    server { listen 127.0.0.1:$port; location / { default_type text/plain; return 200 'ok'; } }
}
CONF
"$(command -v nginx || echo /usr/sbin/nginx)" -p "$work" -c "$work/nginx.conf"
trap 'kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT

for mode in plain integrations; do
    for count in "$short" "$long"; do
        valgrind --tool=callgrind --callgrind-out-file="$work/$mode-$count.out" "$cost" "$mode" "http://127.0.0.1:$port/" \
            "$count" >"$work/$mode-$count.log" 2>&1
        instructions="$(grep -E '^(summary|totals):' "$work/$mode-$count.out" | head -1 | awk '{print $2}')"
        echo "$mode $count $instructions"
        echo "$mode $count $instructions" >>"$work/results"
    done
done
python3 - "$work/results" "$short" "$long" <<'PY'
import sys
runs = {(mode, int(count)): int(total) for mode, count, total in (line.split() for line in open(sys.argv[1]))}
short, long = int(sys.argv[2]), int(sys.argv[3])
per = {mode: (runs[(mode, long)] - runs[(mode, short)]) / (long - short) for mode in ("plain", "integrations")}
print(f"plain: {per['plain']:,.0f} instructions per request; with the integrations on no-op backends: "
      f"{per['integrations']:,.0f} ({(per['integrations'] / per['plain'] - 1) * 100:+.2f} %)")
PY
