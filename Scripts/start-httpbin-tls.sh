#!/usr/bin/env bash
# Puts https in front of a running httpbin: nginx on a free port of 127.0.0.1 with the test-only certificate of
# RequestKitTesting (valid for 127.0.0.1 and localhost, issued by the test CA), proxying to the plain httpbin that
# Scripts/start-httpbin.sh started. nginx passes the client's Host (with its port) and `X-Forwarded-Proto: https`,
# so httpbin echoes the https URLs the client asked for and builds its redirects from them. Responses are not
# buffered, so /drip and /stream arrive as httpbin writes them. Prints the lines to eval:
#
#   eval "$(bash Scripts/start-httpbin.sh)"       # the plain server, REQUESTKIT_HTTPBIN_URL
#   eval "$(bash Scripts/start-httpbin-tls.sh)"   # sets REQUESTKIT_HTTPBIN_TLS_URL, REQUESTKIT_HTTPBIN_TLS_PID and
#                                                  # REQUESTKIT_HTTPBIN_TLS_CA_BUNDLE (the system roots + the test CA)
#   SSL_CERT_FILE="$REQUESTKIT_HTTPBIN_TLS_CA_BUNDLE" \
#       REQUESTKIT_HTTPBIN_URL="$REQUESTKIT_HTTPBIN_TLS_URL" swift test --skip-build --filter InteropTests
#   kill "$REQUESTKIT_HTTPBIN_TLS_PID"
#
# The native transport's default trust uses OpenSSL's default verify paths, which honour SSL_CERT_FILE. URLSession on
# Linux (libcurl) always reads the system bundle, so over https the interop suite runs the native transport only.
# With HTTP2=1 the front speaks HTTP/2 as well (`listen … ssl http2`, ALPN offers h2), in a directory of its own so
# both fronts can run at once, and the variables it prints are REQUESTKIT_HTTPBIN_H2_URL and REQUESTKIT_HTTPBIN_H2_PID:
#
#   eval "$(HTTP2=1 bash Scripts/start-httpbin-tls.sh)"
#   SSL_CERT_FILE="$REQUESTKIT_HTTPBIN_TLS_CA_BUNDLE" REQUESTKIT_HTTPBIN_URL="$REQUESTKIT_HTTPBIN_H2_URL" \
#       REQUESTKIT_HTTPBIN_EXPECT_PROTOCOL=h2 swift test --skip-build --filter InteropTests
#
# Exits non-zero when REQUESTKIT_HTTPBIN_URL is not set or nginx does not answer within 10 seconds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${HTTP2:-0}" = "1" ]; then
    dir="$root/.build-httpbin-h2"
    listen_options="ssl http2"
    prefix=REQUESTKIT_HTTPBIN_H2
else
    dir="$root/.build-httpbin-tls"
    listen_options="ssl"
    prefix=REQUESTKIT_HTTPBIN_TLS
fi
fixtures="$root/Sources/RequestKitTesting/Server/TLSFixtures"
upstream="${REQUESTKIT_HTTPBIN_URL:?start the plain httpbin first: eval \"\$(bash Scripts/start-httpbin.sh)\"}"
upstream="${upstream#http://}"
upstream="${upstream%/}"
mkdir -p "$dir/logs"

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    (apt-get install -y nginx-light || (apt-get update && apt-get install -y nginx-light)) >&2
fi
nginx_binary="$(command -v nginx || echo /usr/sbin/nginx)"

system_bundle=/etc/ssl/certs/ca-certificates.crt
[ -f "$system_bundle" ] || { echo "no system CA bundle at $system_bundle" >&2; exit 1; }
cat "$system_bundle" "$fixtures/ca.pem" >"$dir/ca-bundle.pem"

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
    keepalive_timeout 120;
    client_max_body_size 64m;
    ssl_protocols TLSv1.2 TLSv1.3;
    upstream httpbin {
        server $upstream;
        keepalive 16;
    }
    server {
        listen 127.0.0.1:$port $listen_options;
        ssl_certificate $fixtures/valid.pem;
        ssl_certificate_key $fixtures/valid-key.pem;
        location / {
            proxy_pass http://httpbin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-Proto https;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_read_timeout 120s;
        }
    }
}
CONF
"$nginx_binary" -p "$dir" -c "$dir/nginx.conf" >&2

for _ in $(seq 1 100); do
    if curl -sf --cacert "$fixtures/ca.pem" "https://127.0.0.1:$port/get" -o /dev/null 2>/dev/null; then
        echo "export ${prefix}_URL=https://127.0.0.1:$port"
        echo "export REQUESTKIT_HTTPBIN_TLS_CA_BUNDLE=$dir/ca-bundle.pem"
        echo "export ${prefix}_PID=$(cat "$dir/nginx.pid")"
        exit 0
    fi
    sleep 0.1
done
echo "nginx did not answer on port $port; see $dir/logs/error.log" >&2
[ -f "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
exit 1
