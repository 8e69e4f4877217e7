#!/usr/bin/env bash
# Installs Autobahn|Testsuite and starts its fuzzing server (the server a WebSocket client under test connects to)
# on a free port of 127.0.0.1. Prints the lines to eval:
#
#   eval "$(bash Scripts/start-autobahn.sh)"          # sets REQUESTKIT_AUTOBAHN_URL, _REPORTS and _PID
#   eval "$(bash Scripts/start-autobahn.sh '1.*' '2.*')"   # only these cases (globs); by default the sections the
#                                                     # client is judged by: 1-7, 9, 10, 12 and 13
#
# The runner is the original wstest (PyPI autobahntestsuite, which needs Python 2.7: pyenv's 2.7.18 under
# $PYENV_ROOT, or REQUESTKIT_PYTHON2), or with REQUESTKIT_AUTOBAHN_RUNNER=kosoku the Python 3 runner kosoku (PyPI),
# which plays the same case files. A client drives it with WebSocket connections to:
#
#   $REQUESTKIT_AUTOBAHN_URL/getCaseCount                  a text message with the number of cases, then a close
#   $REQUESTKIT_AUTOBAHN_URL/runCase?case=N&agent=NAME     case N (1 to the count): the client echoes every message
#                                                          and answers as the protocol says until the server closes
#   $REQUESTKIT_AUTOBAHN_URL/updateReports?agent=NAME      writes the reports, then a close
#
# after which $REQUESTKIT_AUTOBAHN_REPORTS/index.json holds {agent: {case id: {"behavior", "behaviorClose", ...}}}
# (Scripts/autobahn-summary.py counts it) and one JSON and HTML file per case (wstest) beside it.
#
# Exits non-zero when the runner cannot be installed or does not listen within 60 seconds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
folder="$root/.build-interop/autobahn"
mkdir -p "$folder"
runner="${REQUESTKIT_AUTOBAHN_RUNNER:-wstest}"
if [ "$#" -gt 0 ]; then cases=("$@"); else cases=('1.*' '2.*' '3.*' '4.*' '5.*' '6.*' '7.*' '9.*' '10.*' '12.*' '13.*'); fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
reports="$folder/reports-$port"
rm -rf "$reports" && mkdir -p "$reports"
log="$folder/fuzzingserver-$port.log"

case "$runner" in
wstest)
    venv="${REQUESTKIT_AUTOBAHN_VENV:-$root/.build-interop/autobahn-py27}"
    if [ ! -x "$venv/bin/wstest" ]; then
        python2="${REQUESTKIT_PYTHON2:-${PYENV_ROOT:-$HOME/.pyenv}/versions/2.7.18/bin/python}"
        if [ ! -x "$python2" ]; then
            echo "wstest needs Python 2.7 ($python2 is missing: pyenv install 2.7.18, or REQUESTKIT_PYTHON2);" \
                "REQUESTKIT_AUTOBAHN_RUNNER=kosoku runs the same cases on Python 3" >&2
            exit 1
        fi
        export PIP_NO_PYTHON_VERSION_WARNING=1
        "$python2" -m pip install --quiet --disable-pip-version-check "virtualenv<20.22" >&2
        "$python2" -m virtualenv --quiet "$venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check autobahntestsuite >&2
    fi
    python3 - "$port" "$reports" "${cases[@]}" >"$folder/fuzzingserver-$port.json" <<'PY'
import json, sys
port, reports, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
print(json.dumps({"url": f"ws://127.0.0.1:{port}", "outdir": reports, "cases": cases, "exclude-cases": [],
                  "exclude-agent-cases": {}}, indent=2))
PY
    # -u 0: no embedded web server (it would take port 8080).
    (cd "$folder" && exec "$venv/bin/wstest" -m fuzzingserver -s "$folder/fuzzingserver-$port.json" -u 0) \
        >"$log" 2>&1 &
    pid=$!
    ;;
kosoku)
    venv="${REQUESTKIT_KOSOKU_VENV:-$root/.build-interop/kosoku}"
    if [ ! -x "$venv/bin/kosoku" ]; then
        python3 -m venv "$venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check kosoku >&2
    fi
    includes=()
    for pattern in "${cases[@]}"; do includes+=(-i "$pattern"); done
    "$venv/bin/kosoku" -m fuzzingserver "127.0.0.1:$port" "${includes[@]}" -o "$reports" >"$log" 2>&1 &
    pid=$!
    ;;
*)
    echo "REQUESTKIT_AUTOBAHN_RUNNER is wstest or kosoku, not $runner" >&2
    exit 1
    ;;
esac

for _ in $(seq 1 120); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), timeout=1)" 2>/dev/null; then
        echo "export REQUESTKIT_AUTOBAHN_URL=ws://127.0.0.1:$port"
        echo "export REQUESTKIT_AUTOBAHN_REPORTS=$reports"
        echo "export REQUESTKIT_AUTOBAHN_PID=$pid"
        exit 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.5
done
echo "the Autobahn fuzzing server ($runner) did not start; its log:" >&2
cat "$log" >&2
kill "$pid" 2>/dev/null || true
exit 1
