#!/usr/bin/env bash
# Runs the already built test binary and samples its thread count (Threads: in /proc/PID/status) every 20 ms,
# printing the peak when the suite ends. Linux only.
#
#   swift build --build-tests
#   bash Scripts/peak-threads.sh                           # the whole suite
#   bash Scripts/peak-threads.sh --filter TestServer       # arguments go to the test binary
#   PEAK_THREADS_GDB=70 bash Scripts/peak-threads.sh       # also a backtrace of every thread (gdb) the first time
#                                                          # the count reaches 70, in peak-threads-gdb.txt
#
# Environment: PEAK_THREADS_BINARY (default .build/debug/RequestKitPackageTests.xctest), PEAK_THREADS_INTERVAL
# (seconds between samples, default 0.02), PEAK_THREADS_LOG (the suite's output, default peak-threads.log),
# PEAK_THREADS_GDB (a thread count at which to take the backtraces; unset for none), PEAK_THREADS_GDB_FRAMES (frames
# per thread, default 16: the first frames of a waiting thread are the C library's).
# The script exits with the suite's status.
set -uo pipefail
cd "$(dirname "$0")/.."

binary="${PEAK_THREADS_BINARY:-.build/debug/RequestKitPackageTests.xctest}"
interval="${PEAK_THREADS_INTERVAL:-0.02}"
log="${PEAK_THREADS_LOG:-peak-threads.log}"
gdb_at="${PEAK_THREADS_GDB:-}"
gdb_frames="${PEAK_THREADS_GDB_FRAMES:-16}"

if [ ! -x "$binary" ]; then
    echo "no test binary at $binary: run 'swift build --build-tests' first" >&2
    exit 2
fi

"$binary" --testing-library swift-testing "$@" >"$log" 2>&1 &
pid=$!

peak=0
peak_at=0
started=$EPOCHREALTIME
took_backtraces=0
while kill -0 "$pid" 2>/dev/null; do
    threads=$(awk '/^Threads:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    if [ -n "$threads" ] && [ "$threads" -gt "$peak" ]; then
        peak=$threads
        peak_at=$(awk -v now="$EPOCHREALTIME" -v start="$started" 'BEGIN { printf "%.1f", now - start }')
    fi
    if [ -n "$gdb_at" ] && [ "$took_backtraces" = 0 ] && [ -n "$threads" ] && [ "$threads" -ge "$gdb_at" ]; then
        took_backtraces=1
        gdb -p "$pid" -batch -ex "thread apply all bt $gdb_frames" >peak-threads-gdb.txt 2>&1
        echo "backtraces of $threads threads in peak-threads-gdb.txt" >&2
    fi
    sleep "$interval"
done
wait "$pid"
status=$?
echo "peak threads: $peak (at ${peak_at}s); suite exit status $status; output in $log"
exit "$status"
