#!/usr/bin/env bash
# RequestKit against AsyncHTTPClient, in one session against the same nginx: RequestKit's `Benchmarks transport`
# and `Benchmarks https` and the AsyncHTTPClient peer (Peers/AsyncHTTPClient, built by Scripts/build-peer-ahc.sh)
# run in turns, PAIRS times each (the order alternating from pair to pair), then a table of each pair's figures and
# the ratios RequestKit ÷ AsyncHTTPClient per mode, paired by run. Not part of CI (CI has no AsyncHTTPClient).
#
#   bash Scripts/compare-peers.sh                    # 3 pairs, REQUESTKIT_BENCH_ROUNDS=5 rounds per run
#   PAIRS=5 REQUESTKIT_BENCH_ROUNDS=7 bash Scripts/compare-peers.sh
#   SUITES=transport bash Scripts/compare-peers.sh   # or SUITES=https, or SUITES=h2 (nginx with http2 over TLS)
#   REQUESTKIT_BENCHMARKS=/path/to/Benchmarks bash Scripts/compare-peers.sh   # a release build made elsewhere
#
# The raw output of every run goes to $REQUESTKIT_COMPARE_LOGS (default .build-compare/<date>). URLSession on Linux
# trusts only libcurl's CA bundle, so when run as root with `unshare` available the https runs of RequestKit see the
# test CA appended to that bundle in a private mount namespace (as Benchmarks/HISTORY.md, "Native HTTPS", describes);
# otherwise the URLSession rows of the https suite fail, which does not affect the comparison. AsyncHTTPClient is
# given the CA in its own trust roots.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
pairs="${PAIRS:-3}"
suites="${SUITES:-transport https}"
export REQUESTKIT_BENCH_ROUNDS="${REQUESTKIT_BENCH_ROUNDS:-5}"
logs="${REQUESTKIT_COMPARE_LOGS:-$root/.build-compare/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$logs"

echo "== building the AsyncHTTPClient peer" >&2
peer="$(bash Scripts/build-peer-ahc.sh | tail -1)"
if [ -n "${REQUESTKIT_BENCHMARKS:-}" ]; then
    requestkit="$REQUESTKIT_BENCHMARKS" # a release build made elsewhere (a clean clone, for instance)
else
    echo "== building RequestKit's Benchmarks (release)" >&2
    swift build -c release --product Benchmarks >&2
    requestkit="$(swift build -c release --show-bin-path)/Benchmarks"
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

bundle_mount=()
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    cat /etc/ssl/certs/ca-certificates.crt "$REQUESTKIT_BENCH_CA" >"$logs/ca-bundle.crt"
    bundle_mount=(unshare -m sh -c 'mount --bind "$0" /etc/ssl/certs/ca-certificates.crt && exec "$1" "$2"'
        "$logs/ca-bundle.crt")
fi

run() { # <log name> <command...>
    local name="$1"
    shift
    echo "load average $(cut -d' ' -f1-3 /proc/loadavg)" >"$logs/$name.log"
    echo "== $name (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    "$@" >>"$logs/$name.log" 2>&1
    echo "load average after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$logs/$name.log"
}

for pair in $(seq 1 "$pairs"); do
    for suite in $suites; do
        rk=("$requestkit" "$suite")
        [ "$suite" = https ] && [ "${#bundle_mount[@]}" -gt 0 ] && rk=("${bundle_mount[@]}" "$requestkit" "$suite")
        if [ $((pair % 2)) -eq 1 ]; then
            run "$suite-$pair-requestkit" "${rk[@]}"
            run "$suite-$pair-ahc" "$peer" "$suite"
        else
            run "$suite-$pair-ahc" "$peer" "$suite"
            run "$suite-$pair-requestkit" "${rk[@]}"
        fi
    done
done

echo "raw output in $logs" >&2
python3 - "$logs" "$pairs" "$suites" <<'PY'
import re, statistics, sys
logs, pairs, suites = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
row = re.compile(r"^\| ([^|]+?) \| ([^|]+?) \| ([\d,]+) \| ([\d.,]+) \|")

def rows(path):
    found = {}
    for line in open(path, encoding="utf-8"):
        m = row.match(line)
        if m:
            found[(m.group(1), m.group(2))] = (float(m.group(3).replace(",", "")), float(m.group(4).replace(",", "")))
    return found

def load(path):
    first = open(path, encoding="utf-8").readline().split()
    return first[2] if len(first) > 2 else "?"

contender = {"transport": "HTTP1", "https": "HTTP1 (native TLS)", "h2": "HTTP/2 (native)"}
modes = {"transport": ["sequential", "16 tasks", "64 tasks"], "https": ["sequential", "16 tasks", "64 tasks"],
         "h2": ["sequential", "16 tasks", "64 tasks", "256 tasks"]}
print("\nRequestKit (Request { … }.send() over NativeTransport) ÷ AsyncHTTPClient, paired by run; medians of "
      "each run's rounds")
for suite in suites:
    print(f"\n{suite}:")
    print("| mode | pair | load | RequestKit req/s | CPU µs/req | AHC req/s | CPU µs/req | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in modes[suite]:
        ratios = []
        for pair in range(1, pairs + 1):
            rk_log, ahc_log = f"{logs}/{suite}-{pair}-requestkit.log", f"{logs}/{suite}-{pair}-ahc.log"
            rk = rows(rk_log).get((contender[suite], mode))
            ahc = rows(ahc_log).get(("AsyncHTTPClient", mode))
            if not rk or not ahc:
                print(f"| {mode} | {pair} | | missing | | missing | | |")
                continue
            ratio = rk[0] / ahc[0]
            ratios.append(ratio)
            print(f"| {mode} | {pair} | {load(rk_log)} / {load(ahc_log)} | {rk[0]:,.0f} | {rk[1]:.1f} | "
                  f"{ahc[0]:,.0f} | {ahc[1]:.1f} | {ratio:.2f}× |")
        if ratios:
            verdict = "meets" if statistics.median(ratios) >= 1.5 else "misses"
            print(f"| **{mode}** | median | | | | | | **{statistics.median(ratios):.2f}×** "
                  f"({verdict} 1.5×; {min(ratios):.2f}–{max(ratios):.2f}) |")
    # RequestKit's own figure: the DSL's rate over the transport called directly, in alternating slices.
    pipeline = re.compile(r"^DSL over .+ ÷ NativeTransport\.send, (.+) in alternating slices: ([\d.]+)×")
    print(f"\nDSL ÷ NativeTransport.send ({suite}), per RequestKit run:")
    for pair in range(1, pairs + 1):
        found = [pipeline.match(line) for line in open(f"{logs}/{suite}-{pair}-requestkit.log", encoding="utf-8")]
        print(f"- pair {pair}: " + ", ".join(f"{m.group(1)} {m.group(2)}×" for m in found if m))
PY
