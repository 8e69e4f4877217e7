#!/usr/bin/env bash
# RequestKit's WebSocket client against Vapor's websocket-kit (Peers/WebSocketKit, swift-nio's NIOWebSocket) and
# Python `websockets`, all echoing through the same server (Scripts/websocket-echo-server.c, one thread, epoll): each
# contender is its own process, run in turns within each round (the order rotating from round to round) for each
# load, so a change in the machine's load meets them alike. Then a table per load: each contender's median (and
# range) of echoes per second, MB/s and CPU µs per message (user plus system time of its process, from getrusage:
# /proc's times), the ratios RequestKit ÷ websocket-kit and RequestKit ÷ websockets paired by round, the share of a
# core the echo server used during the runs (to show it was not the limit) and the load average. Not part of CI.
#
#   bash Scripts/compare-websocket.sh                       # 5 rounds, 3 s per run
#   ROUNDS=7 SECONDS_PER_RUN=2 LOADS="1:text 64:text" bash Scripts/compare-websocket.sh
#   REQUESTKIT_BENCHMARKS=/path/to/Benchmarks bash Scripts/compare-websocket.sh   # a release build made elsewhere
#
# Loads are <sockets>:text (32-byte text messages) or <sockets>:binary (1 MiB binary messages); each socket sends a
# message and waits for its echo before the next. The raw output goes to $REQUESTKIT_COMPARE_LOGS (default
# .build-compare/websocket-<date>).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rounds="${ROUNDS:-5}"
seconds="${SECONDS_PER_RUN:-3}"
loads="${LOADS:-1:text 16:text 64:text 1:binary}"
logs="${REQUESTKIT_COMPARE_LOGS:-$root/.build-compare/websocket-$(date -u +%Y%m%dT%H%M%SZ)}"
venv="${REQUESTKIT_WEBSOCKETS_VENV:-$root/.build-interop/websockets-venv}"
mkdir -p "$logs"

echo "== building the websocket-kit peer" >&2
peer="$(bash Scripts/build-peer.sh WebSocketKit | tail -1)"
if [ -n "${REQUESTKIT_BENCHMARKS:-}" ]; then
    requestkit="$REQUESTKIT_BENCHMARKS"
else
    echo "== building RequestKit's Benchmarks (release)" >&2
    swift build -c release --product Benchmarks >&2
    requestkit="$(swift build -c release --show-bin-path)/Benchmarks"
fi
if ! "$venv/bin/python" -c "import websockets" 2>/dev/null; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check websockets >&2
fi
echo "websockets $("$venv/bin/python" -c 'import websockets; print(websockets.__version__)')" >"$logs/versions.txt"

eval "$(bash Scripts/start-websocket-echo.sh)"
trap 'kill "$REQUESTKIT_WS_ECHO_PID" 2>/dev/null || true' EXIT
echo "echo server at $REQUESTKIT_BENCH_WS_URL (pid $REQUESTKIT_WS_ECHO_PID)" >&2
server_ticks() { awk '{ print $14 + $15 }' "/proc/$REQUESTKIT_WS_ECHO_PID/stat"; }
ticks_per_second="$(getconf CLK_TCK)"

contenders=(RequestKit websocket-kit websockets)
command_for() { # <contender> <sockets> <kind>
    case "$1" in
    RequestKit) echo "$requestkit websocket-echo $REQUESTKIT_BENCH_WS_URL $2 $seconds $3" ;;
    websocket-kit) echo "$peer echo $REQUESTKIT_BENCH_WS_URL $2 $seconds $3" ;;
    websockets) echo "$venv/bin/python $root/Scripts/websocket-echo-client.py $REQUESTKIT_BENCH_WS_URL $2 $seconds $3" ;;
    esac
}

results="$logs/results.txt"
: >"$results"
for round in $(seq 1 "$rounds"); do
    for load in $loads; do
        sockets="${load%%:*}" kind="${load#*:}"
        for index in 0 1 2; do
            contender="${contenders[$(((index + round) % 3))]}"
            load_average="$(cut -d' ' -f1 /proc/loadavg)"
            ticks_before="$(server_ticks)"
            start="$(date +%s.%N)"
            line="$($(command_for "$contender" "$sockets" "$kind") 2>>"$logs/errors.log" | grep '^result ' | tail -1 || true)"
            end="$(date +%s.%N)"
            ticks_after="$(server_ticks)"
            server_share="$(python3 -c "print(f'{($ticks_after - $ticks_before) / $ticks_per_second / ($end - $start):.3f}')")"
            echo "round=$round load=$load contender=$contender loadavg=$load_average server=$server_share $line" |
                tee -a "$results" >&2
        done
    done
done

python3 - "$results" <<'PY'
import re, statistics, sys
rows = []
for line in open(sys.argv[1]):
    fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
    rows.append(fields)
def median_range(values, fmt):
    if not values: return "n/a"
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"
loads = list(dict.fromkeys(row["load"] for row in rows))
for load in loads:
    sockets, kind = load.split(":")
    print(f"\n{sockets} socket(s), {'32-byte text' if kind == 'text' else '1 MiB binary'} messages")
    print("| client | messages/s | MB/s | CPU µs/message | echo server, share of a core |")
    print("|---|---|---|---|---|")
    rates = {}
    for contender in ["RequestKit", "websocket-kit", "websockets"]:
        good = [r for r in rows if r["load"] == load and r["contender"] == contender and "messages" in r
                and int(r["messages"]) > 0]
        rate = {int(r["round"]): int(r["messages"]) / float(r["seconds"]) for r in good}
        rates[contender] = rate
        megabytes = [int(r["bytes"]) / float(r["seconds"]) / 1e6 for r in good]
        cpu = [float(r["cpu"]) / int(r["messages"]) * 1e6 for r in good]
        server = [float(r["server"]) for r in good]
        failed = len([r for r in rows if r["load"] == load and r["contender"] == contender]) - len(good)
        wrong = sum(int(r.get("wrong", 0)) for r in good)
        note = (f" ({failed} runs failed)" if failed else "") + (f" ({wrong} wrong echoes)" if wrong else "")
        print(f"| {contender}{note} | {median_range(list(rate.values()), lambda v: f'{v:,.0f}')} | "
              f"{median_range(megabytes, lambda v: f'{v:,.1f}')} | {median_range(cpu, lambda v: f'{v:,.1f}')} | "
              f"{median_range(server, lambda v: f'{v:.2f}')} |")
    for peer in ["websocket-kit", "websockets"]:
        ratios = [rates["RequestKit"][r] / rates[peer][r] for r in rates["RequestKit"] if r in rates[peer]]
        if ratios:
            print(f"RequestKit ÷ {peer}, paired by round: median {statistics.median(ratios):.2f} "
                  f"({min(ratios):.2f}–{max(ratios):.2f}); " + " · ".join(f"{x:.2f}" for x in ratios))
averages = [float(r["loadavg"]) for r in rows]
print(f"\nload average (1 min) at the start of each run: {min(averages):.2f}–{max(averages):.2f}, "
      f"median {statistics.median(averages):.2f}")
PY
echo "raw output in $logs" >&2
