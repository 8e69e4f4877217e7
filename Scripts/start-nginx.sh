#!/usr/bin/env bash
# Installs nginx from the Debian packages when missing, and starts it on a free port of 127.0.0.1 serving a
# 118-byte JSON file (and a 100 KiB file, large.bin) with keep-alive, for the transport and cache benchmarks.
# Prints the lines to eval:
#
#   eval "$(bash Scripts/start-nginx.sh)"   # sets REQUESTKIT_BENCH_URL, REQUESTKIT_BENCH_UNIX_SOCKET (the same
#                                           # server on a Unix socket) and REQUESTKIT_NGINX_PID
#   swift run -c release Benchmarks transport
#   kill "$REQUESTKIT_NGINX_PID"
#
# Also installs wrk, which the benchmark runs as the ceiling when it is on the PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.build-nginx"
mkdir -p "$dir/www" "$dir/logs"

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    (apt-get install -y nginx-light || (apt-get update && apt-get install -y nginx-light)) >&2
fi
if ! command -v wrk >/dev/null; then
    apt-get install -y wrk >&2 || echo "wrk is not installed: the benchmark runs without its ceiling" >&2
fi
nginx_binary="$(command -v nginx || echo /usr/sbin/nginx)"

# 118 bytes, like a small REST resource.
printf '%s' '{"userId":1,"id":1,"title":"delectus aut autem","completed":false,"tags":["a","b"],"owner":{"name":"Annabel","id":70}}' \
    >"$dir/www/todo.json"
# 100 KiB, for the cache benchmark's disk hit.
head -c 102400 /dev/zero | tr '\0' 'b' >"$dir/www/large.bin"
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
    server {
        listen 127.0.0.1:$port;
        listen unix:$dir/nginx.sock;
        root $dir/www;
        location / { }
    }
}
CONF
rm -f "$dir/nginx.sock"   # left by an nginx that did not end cleanly: it would refuse to listen there
"$nginx_binary" -p "$dir" -c "$dir/nginx.conf" >&2

for _ in $(seq 1 50); do
    if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/todo.json', timeout=1)" \
        2>/dev/null; then
        echo "export REQUESTKIT_BENCH_URL=http://127.0.0.1:$port/todo.json"
        echo "export REQUESTKIT_BENCH_UNIX_SOCKET=$dir/nginx.sock"
        echo "export REQUESTKIT_NGINX_PID=$(cat "$dir/nginx.pid")"
        exit 0
    fi
    sleep 0.1
done
echo "nginx did not answer on port $port; see $dir/logs/error.log" >&2
exit 1
