#!/usr/bin/env python3
"""Compares RequestKit's Json(parsing:) with Python's orjson.loads on the JSON benchmark documents, in one run.

Not used by tests or CI. Build the benchmarks first, then run this on the same machine:
    swift build -c release --product Benchmarks
    pip install orjson
    python3 Scripts/compare-orjson.py
Rounds alternate: one round of `Benchmarks json-parse-round` (a warm-up parse and five timed parses of each
document, in its own process), then one round of orjson.loads (the same), so that a change of the machine's load
hits both sides. Prints MB/s of input (10^6 bytes per second), the median and the best of 11 rounds.
"""
import os
import statistics
import subprocess
import time

import orjson

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
folder = os.path.join(root, "..", "shared", "data", "json-benchmark")
benchmarks = os.path.join(root, ".build", "release", "Benchmarks")
names = ["twitter", "citm_catalog", "canada"]
documents = {}
for name in names:
    path = os.path.join(folder, name + ".json")
    if os.path.exists(path):
        documents[name] = open(path, "rb").read()
    else:
        print(f"skipped {name}.json: not found at {path}")

ours = {name: [] for name in documents}
theirs = {name: [] for name in documents}
for _ in range(11):
    output = subprocess.run([benchmarks, "json-parse-round"], capture_output=True, text=True, check=True).stdout
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ours:
            ours[parts[0]].append(float(parts[1]))
    for name, data in documents.items():
        orjson.loads(data)
        start = time.perf_counter()
        for _ in range(5):
            orjson.loads(data)
        theirs[name].append(len(data) / ((time.perf_counter() - start) / 5) / 1e6)

print("| parse (MB/s) | Json median | orjson median | ratio of medians | Json best | orjson best | ratio of bests |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for name in documents:
    a, b = statistics.median(ours[name]), statistics.median(theirs[name])
    best_a, best_b = max(ours[name]), max(theirs[name])
    print(f"| {name} | {a:.1f} | {b:.1f} | {a / b:.2f}× | {best_a:.1f} | {best_b:.1f} | {best_a / best_b:.2f}× |")
