#!/usr/bin/env bash
# Installs httpbin and gunicorn from PyPI into a virtual environment and starts httpbin on a free port of
# 127.0.0.1, with gthread workers and keep-alive. Prints the lines to eval:
#
#   eval "$(bash Scripts/start-httpbin.sh)"   # sets REQUESTKIT_HTTPBIN_URL and REQUESTKIT_HTTPBIN_PID
#
# Exits non-zero when the server cannot be installed or does not answer within 60 seconds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${REQUESTKIT_HTTPBIN_VENV:-$root/.build-interop/venv}"
log="$root/.build-interop/httpbin.log"
mkdir -p "$root/.build-interop"

if [ ! -x "$venv/bin/gunicorn" ] || ! "$venv/bin/python" -c "import httpbin" 2>/dev/null; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet httpbin gunicorn >&2
fi

port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
# A long keep-alive: a client's pooled connection that sits idle through a slow stretch (the thread sanitizer, a busy
# machine) must not be closed under a POST, which no client may resend.
"$venv/bin/gunicorn" -k gthread --threads 16 --keep-alive 120 --timeout 60 -b "127.0.0.1:$port" httpbin:app \
    >"$log" 2>&1 &
pid=$!

for _ in $(seq 1 120); do
    if "$venv/bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/get', timeout=1)" \
        2>/dev/null; then
        echo "export REQUESTKIT_HTTPBIN_URL=http://127.0.0.1:$port"
        echo "export REQUESTKIT_HTTPBIN_PID=$pid"
        exit 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.5
done
echo "httpbin did not start; its log:" >&2
cat "$log" >&2
kill "$pid" 2>/dev/null || true
exit 1
