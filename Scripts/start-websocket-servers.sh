#!/usr/bin/env bash
# Starts the WebSocket servers the client is tried against, each on a free port of 127.0.0.1, and prints the lines
# to eval:
#
#   eval "$(bash Scripts/start-websocket-servers.sh)"
#
# - websocketd (Debian's websocketd) running `cat`: every line of text sent comes back as a text message
#   (REQUESTKIT_WEBSOCKETD_URL, REQUESTKIT_WEBSOCKETD_PID);
# - libwebsockets-test-server (Debian's libwebsockets-test-server): subprotocol `lws-mirror-protocol` sends every
#   message to every client on it, the sender included, and `dumb-increment-protocol` counts up as text every 50 ms,
#   both uncompressed; a connection that asks for no subprotocol gets permessage-deflate (its `http-only` protocol,
#   which sends no messages) (REQUESTKIT_LWS_URL, REQUESTKIT_LWS_PID). It binds no
#   IPv4 loopback address itself, so it listens on the IPv4-mapped ::ffff:127.0.0.1 and Scripts/loopback-relay.py
#   relays 127.0.0.1 to it (REQUESTKIT_LWS_RELAY_PID);
# - the Python `websockets` library's echo server (Scripts/websockets-echo-server.py; PyPI, in a virtual
#   environment), permessage-deflate on, subprotocol `echo` (REQUESTKIT_PYWEBSOCKETS_URL, REQUESTKIT_PYWEBSOCKETS_PID);
# - nginx (Debian's nginx-light) in front of that echo server, proxying the Upgrade as its documentation says
#   (`proxy_http_version 1.1` and the `Upgrade` and `Connection` fields passed on) (REQUESTKIT_NGINX_WEBSOCKET_URL,
#   REQUESTKIT_NGINX_WEBSOCKET_PID).
#
# Exits non-zero when a binary is missing (apt-get install websocketd libwebsockets-test-server nginx-light) or a
# server does not listen.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
folder="$root/.build-interop/websocket-servers"
venv="${REQUESTKIT_WEBSOCKETS_VENV:-$root/.build-interop/websockets-venv}"
mkdir -p "$folder"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
wait_for() {
    for _ in $(seq 1 100); do
        if python3 -c "import socket; socket.create_connection(('$1', $2), timeout=1)" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "nothing listens on $1 port $2; the logs are in $folder" >&2
    return 1
}
for binary in websocketd libwebsockets-test-server; do
    command -v "$binary" >/dev/null || { echo "$binary is missing: apt-get install $binary" >&2; exit 1; }
done
nginx_binary="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$nginx_binary" ] || { echo "nginx is missing: apt-get install nginx-light" >&2; exit 1; }
if ! "$venv/bin/python" -c "import websockets" 2>/dev/null; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check websockets >&2
fi

websocketd_port="$(free_port)"
websocketd --address=127.0.0.1 --port="$websocketd_port" --loglevel=error cat >"$folder/websocketd.log" 2>&1 &
websocketd_pid=$!
wait_for 127.0.0.1 "$websocketd_port"

lws_port="$(free_port)"
relay_port="$(free_port)"
libwebsockets-test-server --port="$lws_port" --interface=lo -d 1 >"$folder/libwebsockets.log" 2>&1 &
lws_pid=$!
python3 "$root/Scripts/loopback-relay.py" "$relay_port" ::ffff:127.0.0.1 "$lws_port" >"$folder/relay.log" 2>&1 &
relay_pid=$!
wait_for ::ffff:127.0.0.1 "$lws_port"
wait_for 127.0.0.1 "$relay_port"

python_port="$(free_port)"
"$venv/bin/python" "$root/Scripts/websockets-echo-server.py" "$python_port" >"$folder/websockets.log" 2>&1 &
python_pid=$!
wait_for 127.0.0.1 "$python_port"

nginx_port="$(free_port)"
mkdir -p "$folder/nginx/logs"
cat >"$folder/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $folder/nginx/nginx.pid;
error_log $folder/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
    server {
        listen 127.0.0.1:$nginx_port;
        location / {
            proxy_pass http://127.0.0.1:$python_port;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_read_timeout 300s;
        }
    }
}
CONF
"$nginx_binary" -p "$folder/nginx" -c "$folder/nginx/nginx.conf" >"$folder/nginx/logs/stderr.log" 2>&1 &
nginx_pid=$!
wait_for 127.0.0.1 "$nginx_port"

echo "export REQUESTKIT_WEBSOCKETD_URL=ws://127.0.0.1:$websocketd_port/"
echo "export REQUESTKIT_WEBSOCKETD_PID=$websocketd_pid"
echo "export REQUESTKIT_LWS_URL=ws://127.0.0.1:$relay_port/"
echo "export REQUESTKIT_LWS_PID=$lws_pid"
echo "export REQUESTKIT_LWS_RELAY_PID=$relay_pid"
echo "export REQUESTKIT_PYWEBSOCKETS_URL=ws://127.0.0.1:$python_port/"
echo "export REQUESTKIT_PYWEBSOCKETS_PID=$python_pid"
echo "export REQUESTKIT_NGINX_WEBSOCKET_URL=ws://127.0.0.1:$nginx_port/"
echo "export REQUESTKIT_NGINX_WEBSOCKET_PID=$nginx_pid"
