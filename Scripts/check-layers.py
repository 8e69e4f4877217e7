#!/usr/bin/env python3
"""Checks that Package.swift's edges between the package's own targets are the ones the code uses.

SwiftPM's --explicit-target-dependency-import-check accepts an import of any target reachable through the declared
dependencies, so an edge that another path also reaches can be dropped, or never declared, unnoticed. This check is
exact: for every target, the package targets its Swift files import (or test with `canImport`) must be the package
targets it declares, no more and no fewer. Product dependencies (the traits' packages) are not checked.

    python3 Scripts/check-layers.py     # from the package's root; exit status 1 and the differences when they differ
"""
import json
import os
import re
import subprocess
import sys

IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)")
CAN_IMPORT = re.compile(r"canImport\((\w+)\)")


def target_folder(target):
    if target.get("path"):
        return target["path"]
    return ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]


def used_modules(folder):
    used = set()
    for directory, _, files in os.walk(folder):
        for name in files:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(directory, name), encoding="utf-8") as source:
                for line in source:
                    match = IMPORT.match(line)
                    if match:
                        used.add(match.group(1))
                    used.update(CAN_IMPORT.findall(line))
    return used


def main():
    dumped = subprocess.run(["swift", "package", "dump-package"], capture_output=True, text=True, check=True)
    package = json.loads(dumped.stdout)
    own = {target["name"] for target in package["targets"]}
    problems = []
    for target in package["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        declared = set()
        for dependency in target["dependencies"]:
            kind, value = next(iter(dependency.items()))
            if kind in ("byName", "target") and value[0] in own:
                declared.add(value[0])
        used = used_modules(target_folder(target)) & own
        used.discard(target["name"])
        for name in sorted(declared - used):
            problems.append(f"{target['name']} declares {name}, which none of its files imports")
        for name in sorted(used - declared):
            problems.append(f"{target['name']} imports {name} without declaring it in Package.swift")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"check-layers: every edge of {len(own)} targets is used and declared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
