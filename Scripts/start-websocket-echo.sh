#!/usr/bin/env bash
# Compiles (cc, -lcrypto: libssl-dev) and starts the benchmarks' WebSocket echo server
# (Scripts/websocket-echo-server.c: one thread, epoll, each frame echoed as it arrives) on a free port of 127.0.0.1,
# and prints the lines to eval:
#
#   eval "$(bash Scripts/start-websocket-echo.sh)"   # REQUESTKIT_BENCH_WS_URL, REQUESTKIT_WS_ECHO_PID
#   kill "$REQUESTKIT_WS_ECHO_PID"
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
folder="$root/.build-bench"
mkdir -p "$folder"
binary="$folder/websocket-echo-server"
if [ ! -x "$binary" ] || [ "$root/Scripts/websocket-echo-server.c" -nt "$binary" ]; then
    cc -O2 -o "$binary" "$root/Scripts/websocket-echo-server.c" -lcrypto >&2
fi
"$binary" >"$folder/websocket-echo.port" 2>"$folder/websocket-echo.log" &
pid=$!
for _ in $(seq 1 50); do
    port="$(cat "$folder/websocket-echo.port" 2>/dev/null || true)"
    if [ -n "$port" ]; then
        echo "export REQUESTKIT_BENCH_WS_URL=ws://127.0.0.1:$port/echo"
        echo "export REQUESTKIT_WS_ECHO_PID=$pid"
        exit 0
    fi
    sleep 0.1
done
echo "the echo server did not start; see $folder/websocket-echo.log" >&2
exit 1
