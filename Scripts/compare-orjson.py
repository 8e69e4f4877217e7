#!/usr/bin/env python3
"""Measures Python's orjson.loads on the JSON benchmark documents, for the side-by-side figures in BENCHMARKS.md.

Not used by tests or CI. Run it right after `swift run -c release Benchmarks json`, on the same machine:
    pip install orjson
    python3 Scripts/compare-orjson.py
Prints MB/s of input (10^6 bytes per second), the median and the best of 11 rounds of 5 parses each.
"""
import os
import statistics
import time

import orjson

folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "json-benchmark")
print("| orjson.loads (MB/s) | median | best |")
print("| --- | ---: | ---: |")
for name in ["twitter", "citm_catalog", "canada"]:
    path = os.path.join(folder, name + ".json")
    if not os.path.exists(path):
        print(f"skipped {name}.json: not found at {path}")
        continue
    data = open(path, "rb").read()
    orjson.loads(data)
    rounds = []
    for _ in range(11):
        start = time.perf_counter()
        for _ in range(5):
            orjson.loads(data)
        rounds.append((time.perf_counter() - start) / 5)
    speeds = [len(data) / seconds / 1e6 for seconds in rounds]
    print(f"| {name} | {statistics.median(speeds):.1f} | {max(speeds):.1f} |")
