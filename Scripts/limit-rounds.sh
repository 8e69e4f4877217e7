#!/usr/bin/env bash
# RequestKit against the limit, as users run it: in every round, for every mode, each contender is a process of its
# own against one loopback nginx, and the ceiling runs in the same round: `wrk -t1 -cN` over http and https,
# `h2load -c1 -mN` over HTTP/2. The contenders are RequestKit's DSL (`Benchmarks transport-profile N S`), the native
# transport called directly (`… direct`), optionally the DSL with its tasks on the transport's loop (`… onloop`), and
# AsyncHTTPClient (`AHCBenchmarks profile`, Peers/AsyncHTTPClient). The order of the contenders rotates from round to
# round. System calls and `sched_yield` calls are counted by `perf stat` where the kernel allows it; the ceiling runs
# under `perf stat` too, so that counting costs every contender alike.
#
#   bash Scripts/limit-rounds.sh                                   # every mode, 5 rounds of 3 s per run
#   MODES="h2:64,256" ROUNDS=7 bash Scripts/limit-rounds.sh          # a mode is scheme:tasks,tasks (http, https, h2)
#   CONTENDERS="dsl direct onloop" AHC= bash Scripts/limit-rounds.sh   # without AsyncHTTPClient
#
# It prints a line per run, then a table per mode: requests/s (median and range), the median of each round's ratio to
# the ceiling, the round-to-round spread of the DSL's rate (largest distance from its median), the median of the
# DSL ÷ direct ratios paired by round, CPU µs per request (user plus system, as each process measures it), the
# DSL's CPU over the direct transport's, and the CPU against AsyncHTTPClient's paired by round.
#
# Environment (all optional):
#   MODES                 default "http:1,16,64 https:1,16,64 h2:1,16,64,256"
#   ROUNDS                default 5
#   SECONDS_PER_RUN       default 3 (the ceiling runs as long)
#   CONTENDERS            default "dsl direct ahc"; add onloop for the DSL on the transport's loop
#   REQUESTKIT_BENCHMARKS a release build of Benchmarks; default: built here (swift build -c release)
#   AHC                   the AHCBenchmarks executable; default: built by Scripts/build-peer-ahc.sh when the local
#                         copies are there; empty to leave AsyncHTTPClient out
#   REQUESTKIT_LIMIT_LOGS where every run's output goes; default .build-limit/<date>
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
modes="${MODES:-http:1,16,64 https:1,16,64 h2:1,16,64,256}"
rounds="${ROUNDS:-5}"
seconds="${SECONDS_PER_RUN:-3}"
contenders="${CONTENDERS:-dsl direct ahc}"
logs="${REQUESTKIT_LIMIT_LOGS:-$root/.build-limit/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$logs"
command -v wrk >/dev/null || { echo "limit-rounds: wrk is missing (apt-get install wrk)" >&2; exit 1; }
command -v h2load >/dev/null || { echo "limit-rounds: h2load is missing (apt-get install nghttp2-client)" >&2; exit 1; }

if [ -n "${REQUESTKIT_BENCHMARKS:-}" ]; then
    requestkit="$REQUESTKIT_BENCHMARKS"
else
    echo "== building RequestKit's Benchmarks (release)" >&2
    swift build -c release --product Benchmarks >&2
    requestkit="$(swift build -c release --show-bin-path)/Benchmarks"
fi
ahc="${AHC-unset}"
if [[ " $contenders " == *" ahc "* ]] && [ "$ahc" = unset ]; then
    echo "== building the AsyncHTTPClient peer" >&2
    ahc="$(bash Scripts/build-peer-ahc.sh | tail -1)" || ahc=""
fi
[ "$ahc" = unset ] && ahc=""
if [ -z "$ahc" ]; then contenders="${contenders//ahc/}"; fi

perf_events=()
if command -v perf >/dev/null && perf stat -e raw_syscalls:sys_enter true >/dev/null 2>&1; then
    perf_events=(perf stat -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_sched_yield --)
fi

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
eval "$(bash Scripts/start-nginx.sh)"
pids+=("$REQUESTKIT_NGINX_PID")
eval "$(bash Scripts/start-nginx-tls.sh)"
pids+=("$REQUESTKIT_NGINX_TLS_PID")
eval "$(HTTP2=1 bash Scripts/start-nginx-tls.sh)"
pids+=("$REQUESTKIT_NGINX_H2_PID")
echo "nginx at $REQUESTKIT_BENCH_URL, $REQUESTKIT_BENCH_HTTPS_URL and (h2) $REQUESTKIT_BENCH_H2_URL" >&2

# run <label> <scheme> <tasks> <round>: one process, one line of figures on stdout.
run() {
    local label="$1" scheme="$2" tasks="$3" round="$4" output rate cpu count command=()
    local log="$logs/$scheme-$tasks-$label-$round.log"
    local load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    case "$label" in
    ceiling)
        if [ "$scheme" = h2 ]; then
            command=("${perf_events[@]}" h2load -c1 -m"$tasks" -D "$seconds" --warm-up-time=1 "$REQUESTKIT_BENCH_H2_URL")
        else
            local url="$REQUESTKIT_BENCH_URL"
            [ "$scheme" = https ] && url="$REQUESTKIT_BENCH_HTTPS_URL"
            command=("${perf_events[@]}" wrk -t1 -c"$tasks" -d"${seconds}s" "$url")
        fi
        ;;
    ahc)
        # AHCBenchmarks calls plain http `transport`.
        local suite="$scheme"
        [ "$scheme" = http ] && suite=transport
        command=("${perf_events[@]}" "$ahc" profile "$suite" "$tasks" "$seconds")
        ;;
    *)
        local options=()
        [ "$scheme" = http ] || options+=("$scheme")
        [ "$label" = dsl ] || options+=("$label")
        command=("${perf_events[@]}" "$requestkit" transport-profile "$tasks" "$seconds" "${options[@]}")
        ;;
    esac
    output="$("${command[@]}" 2>&1)" || true
    printf '%s\n' "$output" >"$log"
    case "$label" in
    ceiling)
        rate="$(sed -nE 's/^finished in [^,]*, ([0-9.]+) req\/s.*/\1/p; s/^Requests\/sec: *([0-9.]+).*/\1/p' <<<"$output")"
        cpu="" count=""
        ;;
    *)
        rate="$(sed -nE 's/^median: ([0-9,]+) requests\/s.*/\1/p' <<<"$output" | tr -d ,)"
        cpu="$(sed -nE 's/^median: .* ([0-9.]+) CPU µs\/request.*/\1/p' <<<"$output")"
        count="$(sed -nE 's/^requests sent: ([0-9]+)$/\1/p' <<<"$output")"
        ;;
    esac
    local calls yields
    calls="$(grep 'raw_syscalls:sys_enter' <<<"$output" | cut -d, -f1 || true)"
    yields="$(grep 'sched_yield' <<<"$output" | cut -d, -f1 || true)"
    [ -n "$rate" ] || echo "limit-rounds: no rate from $label ($scheme, $tasks tasks): see $log" >&2
    echo "$label mode=$scheme:$tasks round=$round load=$load rate=${rate:-0} cpu=${cpu:-0}" \
        "calls=${calls:-0} yields=${yields:-0} requests=${count:-0}"
}

read -r -a labels <<<"$contenders ceiling"
lines="$logs/runs.txt"
: >"$lines"
for round in $(seq 1 "$rounds"); do
    for mode in $modes; do
        scheme="${mode%%:*}"
        IFS=, read -r -a counts <<<"${mode#*:}"
        for tasks in "${counts[@]}"; do
            # The contenders' order rotates by one each round, so none always runs first or last.
            shift_by=$(((round - 1) % ${#labels[@]}))
            ordered=("${labels[@]:shift_by}" "${labels[@]:0:shift_by}")
            for label in "${ordered[@]}"; do
                run "$label" "$scheme" "$tasks" "$round" | tee -a "$lines"
            done
        done
    done
done
echo "raw output in $logs" >&2

python3 - "$lines" <<'PY'
import statistics, sys
runs = []
for line in open(sys.argv[1], encoding="utf-8"):
    words = line.split()
    if not words:
        continue
    run = dict(word.split("=", 1) for word in words[1:])
    run["label"] = words[0]
    runs.append(run)

def rate(run): return float(run["rate"])

def median_range(values, digits=2):
    if not values:
        return ""
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"

for mode in dict.fromkeys(r["mode"] for r in runs):
    mine = [r for r in runs if r["mode"] == mode]
    by = lambda label: {r["round"]: r for r in mine if r["label"] == label and rate(r) > 0}
    ceiling, dsl, direct, ahc = by("ceiling"), by("dsl"), by("direct"), by("ahc")
    scheme, tasks = mode.split(":")
    limit = "h2load -c1 -m" + tasks if scheme == "h2" else "wrk -t1 -c" + tasks
    print(f"\n{scheme}, {tasks} task{'s' if tasks != '1' else ''} (ceiling: {limit})")
    print("| contender | req/s, median (range) | ÷ ceiling, median of rounds (range) | CPU µs/req | "
          "system calls/req | sched_yield/req | CPU ÷ AsyncHTTPClient's |")
    print("|---|---|---|---|---|---|---|")
    for label in ["dsl", "onloop", "direct", "ahc", "ceiling"]:
        found = by(label)
        if not found:
            continue
        rates = [rate(r) for r in found.values()]
        ratios = [rate(r) / rate(ceiling[k]) for k, r in found.items() if k in ceiling] if label != "ceiling" else []
        cpu = [float(r["cpu"]) for r in found.values() if float(r["cpu"]) > 0]
        per = lambda key: [float(r[key]) / float(r["requests"]) for r in found.values() if float(r["requests"]) > 0]
        versus = [float(r["cpu"]) / float(ahc[k]["cpu"]) for k, r in found.items()
                  if k in ahc and float(ahc[k]["cpu"]) > 0 and float(r["cpu"]) > 0] if label != "ahc" else []
        calls, yields = per("calls"), per("yields")
        print(f"| {label} | {statistics.median(rates):,.0f} ({min(rates):,.0f}–{max(rates):,.0f}) | "
              f"{median_range(ratios)} | {median_range(cpu, 1)} | "
              f"{statistics.median(calls):.1f} | {statistics.median(yields):.1f} | {median_range(versus)} |"
              if calls and any(calls) else
              f"| {label} | {statistics.median(rates):,.0f} ({min(rates):,.0f}–{max(rates):,.0f}) | "
              f"{median_range(ratios)} | {median_range(cpu, 1)} | | | {median_range(versus)} |")
    if dsl:
        rates = [rate(r) for r in dsl.values()]
        middle = statistics.median(rates)
        spread = max(abs(value - middle) for value in rates) / middle * 100
        paired = [rate(r) / rate(direct[k]) for k, r in dsl.items() if k in direct]
        extra = [float(r["cpu"]) - float(direct[k]["cpu"]) for k, r in dsl.items() if k in direct]
        summary = f"DSL spread ±{spread:.0f} % round to round"
        if paired:
            summary += f"; DSL ÷ direct {median_range(paired)}; DSL CPU over direct {median_range(extra, 1)} µs/req"
        print(summary)

# One row per mode, for BENCHMARKS.md: medians of the per-round ratios, paired by round.
print("\n| mode | ceiling req/s | DSL req/s | DSL ÷ ceiling (range) | DSL spread | DSL ÷ direct | DSL CPU µs/req | "
      "over direct, µs | DSL ÷ AHC, rate | DSL ÷ AHC, CPU | system calls/req | sched_yield/req |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for mode in dict.fromkeys(r["mode"] for r in runs):
    mine = [r for r in runs if r["mode"] == mode]
    by = lambda label: {r["round"]: r for r in mine if r["label"] == label and rate(r) > 0}
    ceiling, dsl, direct, ahc = by("ceiling"), by("dsl"), by("direct"), by("ahc")
    if not dsl:
        continue
    paired = lambda other, f: [f(r, other[k]) for k, r in dsl.items() if k in other]
    rates = [rate(r) for r in dsl.values()]
    middle = statistics.median(rates)
    spread = max(abs(value - middle) for value in rates) / middle * 100
    med = lambda values, digits=2: f"{statistics.median(values):.{digits}f}" if values else ""
    to_ceiling = paired(ceiling, lambda a, b: rate(a) / rate(b))
    calls = [float(r["calls"]) / float(r["requests"]) for r in dsl.values() if float(r["requests"]) > 0]
    yields = [float(r["yields"]) / float(r["requests"]) for r in dsl.values() if float(r["requests"]) > 0]
    scheme, tasks = mode.split(":")
    print(f"| {scheme}, {tasks} | {statistics.median([rate(r) for r in ceiling.values()]) if ceiling else 0:,.0f} | "
          f"{middle:,.0f} | **{med(to_ceiling)}** ({min(to_ceiling):.2f}–{max(to_ceiling):.2f}) | ±{spread:.0f} % | "
          f"{med(paired(direct, lambda a, b: rate(a) / rate(b)))} | {med([float(r['cpu']) for r in dsl.values()], 1)} | "
          f"{med(paired(direct, lambda a, b: float(a['cpu']) - float(b['cpu'])), 1)} | "
          f"{med(paired(ahc, lambda a, b: rate(a) / rate(b)))} | "
          f"{med(paired(ahc, lambda a, b: float(a['cpu']) / float(b['cpu'])))} | {med(calls, 1)} | {med(yields, 1)} |"
          if to_ceiling else f"| {scheme}, {tasks} | | {middle:,.0f} | | | | | | | | | |")
PY
