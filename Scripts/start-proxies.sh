#!/usr/bin/env bash
# Starts tinyproxy (HTTP and CONNECT, Basic authentication) and microsocks (SOCKS5, user name and password) on free
# ports of 127.0.0.1, for the interop suite's runs through proxies. Prints the lines to eval:
#
#   eval "$(bash Scripts/start-proxies.sh)"   # sets REQUESTKIT_HTTP_PROXY, REQUESTKIT_SOCKS_PROXY and their PIDs
#
# Exits non-zero when a binary is missing (apt-get install tinyproxy microsocks) or a proxy does not listen.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
folder="$root/.build-interop/proxies"
mkdir -p "$folder"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
wait_for() {
    for _ in $(seq 1 100); do
        if python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), timeout=1)" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    return 1
}

http_port="$(free_port)"
cat >"$folder/tinyproxy.conf" <<CONF
Port $http_port
Listen 127.0.0.1
Timeout 120
MaxClients 200
LogLevel Error
Allow 127.0.0.1
DisableViaHeader Yes
BasicAuth interop proxy-secret
CONF
tinyproxy -d -c "$folder/tinyproxy.conf" >"$folder/tinyproxy.log" 2>&1 &
http_pid=$!
wait_for "$http_port"

socks_port="$(free_port)"
microsocks -i 127.0.0.1 -p "$socks_port" -u interop -P proxy-secret >"$folder/microsocks.log" 2>&1 &
socks_pid=$!
wait_for "$socks_port"

echo "export REQUESTKIT_HTTP_PROXY=http://interop:proxy-secret@127.0.0.1:$http_port"
echo "export REQUESTKIT_HTTP_PROXY_PID=$http_pid"
echo "export REQUESTKIT_SOCKS_PROXY=socks5h://interop:proxy-secret@127.0.0.1:$socks_port"
echo "export REQUESTKIT_SOCKS_PROXY_PID=$socks_pid"
