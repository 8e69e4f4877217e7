#!/usr/bin/env bash
# The same generated OpenAPI client through RequestKitTransport and through swift-openapi-async-http-client, against
# one nginx, in interleaved rounds, each contender in a process of its own, at 1, 16 and 64 concurrent calls
# (BENCHMARKS.md, "OpenAPI transports"). Peers/OpenAPI is built in release by Scripts/build-peer.sh OpenAPI, in a
# staging directory outside RequestKit's package, from local git copies of every package, with the generated client of
# Tests/IntegrationTests/OpenAPI/Generated copied in.
#
#   bash Scripts/compare-openapi-transports.sh   # prints each run, then a table: the rates of each round, the median
#                                                # CPU per request, RequestKit ÷ AsyncHTTPClient paired by round, and
#                                                # the generated client's own cost (its calls answered in memory)
#
# Environment (optional):
#   REQUESTKIT_OPENAPI_PEER   the staging directory (see build-peer.sh); default /work/scratch/openapi-peer
#   REQUESTKIT_BENCH_ROUNDS   rounds (each runs both contenders at each concurrency); default 3
#   REQUESTKIT_BENCH_SECONDS  seconds each run measures, after one second of warm-up; default 5
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${REQUESTKIT_BENCH_ROUNDS:-3}"
seconds="${REQUESTKIT_BENCH_SECONDS:-5}"

export REQUESTKIT_OPENAPI_PEER="${REQUESTKIT_OPENAPI_PEER:-/work/scratch/openapi-peer}"
peer="$REQUESTKIT_OPENAPI_PEER"
bench="$(bash "$root/Scripts/build-peer.sh" OpenAPI | tail -1)"

# nginx answering getGreeting as the tests' server does, keeping connections alive.
nginx_binary="$(command -v nginx || echo /usr/sbin/nginx)"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
mkdir -p "$peer/nginx/logs"
cat >"$peer/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $peer/nginx/nginx.pid;
error_log $peer/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$port;
        location = /api/greetings/ann { default_type application/json; return 200 '{"message":"Hello, ann."}'; }
    }
}
CONF
"$nginx_binary" -p "$peer/nginx" -c "$peer/nginx/nginx.conf"
trap 'kill "$(cat "$peer/nginx/nginx.pid")" 2>/dev/null || true' EXIT
url="http://127.0.0.1:$port/api"

results="$(mktemp)"
for round in $(seq 1 "$rounds"); do
    for tasks in 1 16 64; do
        # The order swaps from round to round.
        if [ $((round % 2)) -eq 1 ]; then order="requestkit ahc none"; else order="ahc requestkit none"; fi
        for contender in $order; do
            line="$("$bench" "$contender" "$url" "$tasks" "$seconds")"
            echo "round $round: $line"
            echo "$line" >>"$results"
        done
    done
done
python3 - "$results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    contender, tasks, rate, cpu, failures = line.split()
    runs.setdefault((contender, int(tasks)), []).append((int(rate), float(cpu)))
print("| Concurrent calls | RequestKitTransport req/s (rounds) | CPU µs/req | AsyncHTTPClientTransport req/s (rounds) "
      "| CPU µs/req | RequestKit ÷ AHC by round | median | generated client alone, CPU µs/req |")
print("|---|---|---|---|---|---|---|---|")
for tasks in (1, 16, 64):
    ours, theirs = runs[("requestkit", tasks)], runs[("ahc", tasks)]
    ratios = [a[0] / b[0] for a, b in zip(ours, theirs)]
    def rates(rs): return " · ".join(f"{r:,}" for r, _ in rs)
    def cpu(rs): return f"{statistics.median(c for _, c in rs):.1f}"
    print(f"| {tasks} | {rates(ours)} | {cpu(ours)} | {rates(theirs)} | {cpu(theirs)} | "
          f"{' · '.join(f'{r:.2f}' for r in ratios)} | **{statistics.median(ratios):.2f}×** | "
          f"{cpu(runs[('none', tasks)])} |")
PY
rm -f "$results"
