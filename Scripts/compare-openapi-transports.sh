#!/usr/bin/env bash
# The same generated OpenAPI client through RequestKitTransport and through swift-openapi-async-http-client, against
# one nginx, in interleaved rounds, each contender in a process of its own, at 1, 16 and 64 concurrent calls
# (BENCHMARKS.md, "OpenAPI transports"). Peers/OpenAPI is built in release in a scratch directory, outside
# RequestKit's package, from local git copies of every package (the AsyncHTTPClient peer's clones, see
# Scripts/build-peer-ahc.sh), with the generated client of Tests/IntegrationTests/OpenAPI/Generated copied in.
#
#   bash Scripts/compare-openapi-transports.sh   # prints each run, then the medians and RequestKit ÷ AsyncHTTPClient
#
# Environment (optional):
#   REQUESTKIT_OPENAPI_PEER   the scratch directory; default /work/scratch/openapi-peer
#   REQUESTKIT_BENCH_ROUNDS   rounds (each runs both contenders at each concurrency); default 3
#   REQUESTKIT_BENCH_SECONDS  seconds each run measures, after one second of warm-up; default 5
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
peer="${REQUESTKIT_OPENAPI_PEER:-/work/scratch/openapi-peer}"
rounds="${REQUESTKIT_BENCH_ROUNDS:-3}"
seconds="${REQUESTKIT_BENCH_SECONDS:-5}"

mirrors="$(bash "$root/Scripts/build-peer-ahc.sh" --mirrors-only)"
mkdir -p "$peer/Sources/OpenAPIBenchmarks" "$peer/config"
cp "$mirrors" "$peer/config/mirrors.json"
sed "s|REQUESTKIT_ROOT|$root|" "$root/Peers/OpenAPI/Package.swift" >"$peer/Package.swift"
cp "$root/Peers/OpenAPI/Sources/OpenAPIBenchmarks/main.swift" "$root"/Tests/IntegrationTests/OpenAPI/Generated/*.swift \
    "$peer/Sources/OpenAPIBenchmarks/"
echo "compare-openapi-transports: building $peer in release" >&2
swift build -c release --package-path "$peer" --config-path "$peer/config" >&2
bench="$(swift build -c release --package-path "$peer" --config-path "$peer/config" --show-bin-path)/OpenAPIBenchmarks"

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
        if [ $((round % 2)) -eq 1 ]; then order="requestkit ahc"; else order="ahc requestkit"; fi
        for contender in $order; do
            line="$("$bench" "$contender" "$url" "$tasks" "$seconds")"
            echo "round $round: $line"
            echo "$line" >>"$results"
        done
    done
done
python3 - "$results" <<'PY'
import statistics, sys
rates = {}
for line in open(sys.argv[1]):
    contender, tasks, rate, failures = line.split()
    rates.setdefault((contender, int(tasks)), []).append(int(rate))
print("| Concurrent calls | RequestKitTransport (requests/s) | AsyncHTTPClientTransport (requests/s) | RequestKit ÷ AHC |")
print("|---|---|---|---|")
for tasks in (1, 16, 64):
    ours, theirs = statistics.median(rates[("requestkit", tasks)]), statistics.median(rates[("ahc", tasks)])
    print(f"| {tasks} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.2f}× |")
PY
rm -f "$results"
