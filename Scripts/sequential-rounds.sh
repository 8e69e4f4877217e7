#!/usr/bin/env bash
# Sequential requests as users run them: interleaved rounds, each contender its own process, `h2load -c1 -m1`
# against the same nginx in the same rounds. A contender is `label=binary:options`, the options (comma-separated) those
# of `Benchmarks transport-profile 1 SECONDS …` (h2, https, nopoll, direct); `h2load` names the ceiling. System calls
# are counted by `perf stat` on the raw_syscalls and sched_yield tracepoints (as root), which, unlike
# `strace -c -f`, does not slow the process down and so does not change how often a waiting thread looks.
#
#   eval "$(HTTP2=1 bash Scripts/start-nginx-tls.sh)"   # REQUESTKIT_BENCH_H2_URL, REQUESTKIT_BENCH_CA
#   swift build -c release --product Benchmarks && cp .build/release/Benchmarks /tmp/Benchmarks-new
#   ROUNDS=5 SECONDS_PER_RUN=3 bash Scripts/sequential-rounds.sh old=/tmp/Benchmarks-old:h2 \
#       new=/tmp/Benchmarks-new:h2 h2load
#
# Prints a line per run (requests/s, CPU µs per request as the benchmark measures it, system calls and sched_yield
# calls per request, the process's task-clock per request), then per contender the medians and the median of its
# per-round ratios to h2load.
set -euo pipefail
rounds="${ROUNDS:-5}"
seconds="${SECONDS_PER_RUN:-3}"
url="${REQUESTKIT_BENCH_H2_URL:?eval \"\$(HTTP2=1 bash Scripts/start-nginx-tls.sh)\" first}"
command -v perf >/dev/null || { echo "perf is missing (apt-get install linux-perf)" >&2; exit 1; }
lines=()
for round in $(seq 1 "$rounds"); do
    for contender in "$@"; do
        events=raw_syscalls:sys_enter,syscalls:sys_enter_sched_yield,task-clock
        if [ "$contender" = h2load ]; then
            label=h2load
            count=$((seconds * 10000))
            output="$(perf stat -x, -e "$events" -- h2load -c1 -m1 -n "$count" "$url" 2>&1)"
            rate="$(sed -nE 's/^finished in [^,]*, ([0-9.]+) req\/s.*/\1/p' <<<"$output")"
            cpu=""
        else
            label="${contender%%=*}"
            rest="${contender#*=}"
            binary="${rest%%:*}"
            options=()
            [ "$rest" != "$binary" ] && IFS=, read -r -a options <<<"${rest#*:}"
            output="$(perf stat -x, -e "$events" -- "$binary" transport-profile 1 "$seconds" "${options[@]}" 2>&1)"
            rate="$(sed -nE 's/^median: ([0-9,]+) requests\/s.*/\1/p' <<<"$output" | tr -d ,)"
            cpu="$(sed -nE 's/^median: .* ([0-9.]+) CPU µs\/request.*/\1/p' <<<"$output")"
            count="$(sed -nE 's/^requests sent: ([0-9]+)$/\1/p' <<<"$output")"
        fi
        calls="$(grep 'raw_syscalls:sys_enter' <<<"$output" | cut -d, -f1)"
        yields="$(grep 'sched_yield' <<<"$output" | cut -d, -f1)"
        clock="$(grep 'task-clock' <<<"$output" | cut -d, -f1)"
        line="$label round=$round load=$(cut -d' ' -f1 /proc/loadavg) rate=${rate:-0} cpu=${cpu:-0}"
        line+=" calls=${calls:-0} yields=${yields:-0} clock_ms=${clock:-0} requests=${count:-1}"
        echo "$line"
        lines+=("$line")
    done
done
printf '%s\n' "${lines[@]}" | python3 -c '
import statistics, sys
runs = [dict(kv.split("=") for kv in line.split()[1:]) | {"label": line.split()[0]} for line in sys.stdin]
ceiling = {r["round"]: float(r["rate"]) for r in runs if r["label"] == "h2load"}
print("\n| contender | req/s (median) | CPU µs/req | system calls/req | sched_yield/req | ÷ h2load -c1 -m1, median of rounds (range) |")
print("|---|---|---|---|---|---|")
for label in dict.fromkeys(r["label"] for r in runs):
    mine = [r for r in runs if r["label"] == label]
    def per(key):
        return statistics.median(float(r[key]) / float(r["requests"]) for r in mine)
    rate = statistics.median(float(r["rate"]) for r in mine)
    cpu = statistics.median(float(r["cpu"]) for r in mine) or per("clock_ms") * 1000
    ratios = [float(r["rate"]) / ceiling[r["round"]] for r in mine if ceiling.get(r["round"])]
    ratio = f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})" if ratios else ""
    calls, yields = per("calls"), per("yields")
    print(f"| {label} | {rate:,.0f} | {cpu:.1f} | {calls:.1f} | {yields:.1f} | {ratio} |")
'
