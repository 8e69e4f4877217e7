#!/usr/bin/env python3
"""Counts the results of an Autobahn|Testsuite fuzzing-server run for one agent, from the reports' index.json.

Usage: Scripts/autobahn-summary.py <reports directory> <agent> [expected case count]

Prints one line per behavior (OK, NON-STRICT, INFORMATIONAL, UNIMPLEMENTED, FAILED, ...) with its count, the same for
the closing behavior, and every case that did not pass with its behaviors, then the closing line
`N passed, N failed`. A case passes when its behavior and its closing behavior are each OK, NON-STRICT or
INFORMATIONAL (issue #46's bar: none FAILED or UNCLEAN; a closing behavior of WRONG CODE fails too). Exits 1 when a
case failed, or fewer cases than expected ran."""
import json
import os
import sys
from collections import Counter

PASSING = {"OK", "NON-STRICT", "INFORMATIONAL"}


def case_key(case_id):
    return tuple(int(part) for part in case_id.split("."))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    reports, agent = sys.argv[1], sys.argv[2]
    expected = int(sys.argv[3]) if len(sys.argv) == 4 else None
    with open(os.path.join(reports, "index.json"), encoding="utf-8") as handle:
        index = json.load(handle)
    if agent not in index:
        sys.exit(f"no results for agent {agent!r} in {reports}/index.json (agents: {', '.join(index) or 'none'})")
    results = index[agent]
    behaviors = Counter(result["behavior"] for result in results.values())
    closes = Counter(result["behaviorClose"] for result in results.values())
    print(f"Autobahn|Testsuite, agent {agent}: {len(results)} cases")
    for name, count in sorted(behaviors.items()):
        print(f"  behavior {name}: {count}")
    for name, count in sorted(closes.items()):
        print(f"  closing behavior {name}: {count}")
    failed = []
    for case_id in sorted(results, key=case_key):
        result = results[case_id]
        if result["behavior"] not in PASSING or result["behaviorClose"] not in PASSING:
            failed.append(case_id)
            print(f"  case {case_id}: {result['behavior']}, closing {result['behaviorClose']}")
    passed = len(results) - len(failed)
    missing = (expected - len(results)) if expected is not None else 0
    if missing > 0:
        print(f"  {missing} of the {expected} expected cases have no result")
    print(f"{passed} passed, {len(failed) + max(0, missing)} failed")
    sys.exit(1 if failed or missing > 0 else 0)


if __name__ == "__main__":
    main()
