#!/usr/bin/env bash
# Runs the Autobahn|Testsuite fuzzing server (Scripts/start-autobahn.sh) against RequestKit's WebSocket client (the
# AutobahnClient executable), then counts the reports (Scripts/autobahn-summary.py): every case of sections 1-7, 9,
# 10, 12 and 13 must be OK, NON-STRICT or INFORMATIONAL, none FAILED or UNCLEAN. Prints the counts; exits non-zero
# when a case failed, fewer cases ran than the server has, or the server could not start.
#
#   bash Scripts/run-autobahn.sh                  # every case; the client is the debug build in .build (the one
#                                                 # `swift test` made, so CI builds nothing more)
#   bash Scripts/run-autobahn.sh '9.*'            # only these cases (globs, as start-autobahn.sh takes them)
#   REQUESTKIT_AUTOBAHN_CONFIGURATION=release REQUESTKIT_AUTOBAHN_SCRATCH=.build-autobahn bash Scripts/run-autobahn.sh
#   REQUESTKIT_AUTOBAHN_RUNNER=kosoku bash Scripts/run-autobahn.sh   # the Python 3 runner instead of wstest
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
configuration="${REQUESTKIT_AUTOBAHN_CONFIGURATION:-debug}"
scratch="${REQUESTKIT_AUTOBAHN_SCRATCH:-.build}"

echo "== building AutobahnClient ($configuration)" >&2
swift build -c "$configuration" --scratch-path "$scratch" --product AutobahnClient >&2
client="$(swift build -c "$configuration" --scratch-path "$scratch" --show-bin-path)/AutobahnClient"

eval "$(bash Scripts/start-autobahn.sh "$@")"
trap 'kill "$REQUESTKIT_AUTOBAHN_PID" 2>/dev/null || true' EXIT
echo "== the fuzzing server at $REQUESTKIT_AUTOBAHN_URL, reports in $REQUESTKIT_AUTOBAHN_REPORTS" >&2

agent=RequestKit
ran="$("$client" "$REQUESTKIT_AUTOBAHN_URL" "$agent")"
echo "$ran"
count="${ran%% *}"
python3 Scripts/autobahn-summary.py "$REQUESTKIT_AUTOBAHN_REPORTS" "$agent" "$count"
