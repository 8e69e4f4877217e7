#!/usr/bin/env bash
# Starts nginx with TLS on a free port of 127.0.0.1, serving the same 118-byte JSON file as start-nginx.sh over
# https with keep-alive, with the test-only certificate of RequestKitTesting (valid for 127.0.0.1 and localhost,
# issued by the test CA), TLS 1.2 and 1.3, and a session cache. Prints the lines to eval:
#
#   eval "$(bash Scripts/start-nginx-tls.sh)"   # sets REQUESTKIT_BENCH_HTTPS_URL, REQUESTKIT_BENCH_CA and
#                                                # REQUESTKIT_NGINX_TLS_PID
#   swift run -c release Benchmarks https
#   kill "$REQUESTKIT_NGINX_TLS_PID"
#
# With HTTP2=1 it speaks HTTP/2 as well (`http2` on the listener: ALPN picks h2 for a client that offers it), in a
# directory of its own, and prints REQUESTKIT_BENCH_H2_URL and REQUESTKIT_NGINX_H2_PID instead (plus
# REQUESTKIT_BENCH_CA), for `Benchmarks h2`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
http2="${HTTP2:-0}"
dir="$root/.build-nginx-tls"
listen_options="ssl"
url_variable=REQUESTKIT_BENCH_HTTPS_URL
pid_variable=REQUESTKIT_NGINX_TLS_PID
if [ "$http2" = 1 ]; then
    dir="$root/.build-nginx-h2"
    listen_options="ssl http2"
    url_variable=REQUESTKIT_BENCH_H2_URL
    pid_variable=REQUESTKIT_NGINX_H2_PID
fi
fixtures="$root/Sources/RequestKitTesting/Server/TLSFixtures"
mkdir -p "$dir/www" "$dir/logs"

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    (apt-get install -y nginx-light || (apt-get update && apt-get install -y nginx-light)) >&2
fi
nginx_binary="$(command -v nginx || echo /usr/sbin/nginx)"

printf '%s' '{"userId":1,"id":1,"title":"delectus aut autem","completed":false,"tags":["a","b"],"owner":{"name":"Annabel","id":70}}' \
    >"$dir/www/todo.json"
size="$(wc -c <"$dir/www/todo.json")"
[ "$size" -eq 118 ] || { echo "the JSON file has $size bytes, not 118" >&2; exit 1; }

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 65;
    default_type application/json;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:1m;
    ssl_session_tickets on;
    server {
        listen 127.0.0.1:$port $listen_options;
        ssl_certificate $fixtures/valid.pem;
        ssl_certificate_key $fixtures/valid-key.pem;
        root $dir/www;
        location / { }
    }
}
CONF
"$nginx_binary" -p "$dir" -c "$dir/nginx.conf" >&2

for _ in $(seq 1 50); do
    if curl -sf --cacert "$fixtures/ca.pem" "https://127.0.0.1:$port/todo.json" -o /dev/null 2>/dev/null; then
        echo "export $url_variable=https://127.0.0.1:$port/todo.json"
        echo "export REQUESTKIT_BENCH_CA=$fixtures/ca.pem"
        echo "export $pid_variable=$(cat "$dir/nginx.pid")"
        exit 0
    fi
    sleep 0.1
done
echo "nginx did not answer on port $port; see $dir/logs/error.log" >&2
exit 1
