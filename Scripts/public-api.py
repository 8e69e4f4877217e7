#!/usr/bin/env python3
"""Lists RequestKit's public API, as DocC sees it, one line per public or open symbol and per conformance, sorted.

Usage: Scripts/public-api.py <directory of swift symbol graphs>
Scripts/check-public-api.sh runs it on the graphs `swift package dump-symbol-graph` writes and compares the listing
with the baseline, API/public-api.txt.

The layers (RequestKitJSON, RequestKitModel, ...) are listed as RequestKit, the module users import, so moving a
declaration from one layer to another is no change; RequestKitTesting is listed on its own. A line is the module,
the symbol's path, and its declaration without parameter names a caller never writes (renaming those is no change),
with the constraints of the extension that declares it and a mark when it is deprecated. Synthesized symbols (a
protocol's default implementations as they appear on each conforming type) are left out; the conformance that
brings them in is listed."""
import glob
import json
import os
import re
import sys

# Conformances every type has, or that the toolchain infers from others (Sendable brings SendableMetatype).
IMPLIED = {"Copyable", "Escapable", "BitwiseCopyable", "SendableMetatype"}
LAYER = re.compile(r"^RequestKit(?!Testing\b)[A-Z]\w*$")


def module_as_users_see_it(name):
    if name == "RequestKit" or LAYER.match(name):
        return "RequestKit"
    if name == "RequestKitTesting":
        return name
    return None


def declaration(fragments):
    """The declaration's text without internal parameter names: `func f(_ x: Int)` reads `func f(_: Int)`."""
    text = ""
    for index, fragment in enumerate(fragments):
        if fragment["kind"] == "internalParam":
            text = text.rstrip(" ")
            continue
        text += fragment["spelling"]
    return " ".join(text.split())


def constraints(symbol):
    clauses = symbol.get("swiftExtension", {}).get("constraints", [])
    if not clauses:
        return ""
    operators = {"conformance": ":", "superclass": ":", "sameType": "=="}
    spelled = sorted(f"{c['lhs']} {operators.get(c['kind'], c['kind'])} {c['rhs']}".replace(" :", ":") for c in clauses)
    return " [where " + ", ".join(spelled) + "]"


def protocol_extension(symbol):
    """A member of a protocol's extension (a default implementation, or a member every conforming type gets) differs
    from the requirement it may share its declaration with."""
    return " [protocol extension]" if symbol.get("swiftExtension", {}).get("typeKind") == "swift.protocol" else ""


def deprecated(symbol):
    for entry in symbol.get("availability", []):
        if entry.get("isUnconditionallyDeprecated") or "deprecated" in entry or "obsoleted" in entry:
            return " [deprecated]"
    return ""


def main():
    lines = set()
    paths = {}
    public = {}
    relationships = []
    graphs = sorted(glob.glob(os.path.join(sys.argv[1], "*.symbols.json")))
    for path in graphs:
        with open(path, encoding="utf-8") as handle:
            graph = json.load(handle)
        module = module_as_users_see_it(graph["module"]["name"])
        if module is None:
            continue
        for symbol in graph["symbols"]:
            identifier = symbol["identifier"]["precise"]
            paths[identifier] = ".".join(symbol["pathComponents"])
            if symbol.get("accessLevel") not in ("public", "open") or symbol["kind"]["identifier"] == "swift.extension":
                continue
            if "::SYNTHESIZED::" in identifier:
                continue
            public[identifier] = module
            lines.add(
                f"{module}: {paths[identifier]}: {declaration(symbol['declarationFragments'])}"
                f"{constraints(symbol)}{protocol_extension(symbol)}{deprecated(symbol)}"
            )
        relationships += graph["relationships"]
    if not lines:
        sys.exit(f"no public symbols of RequestKit in {sys.argv[1]}")
    for relationship in relationships:
        if relationship["kind"] != "conformsTo" or relationship["source"] not in public:
            continue
        target = relationship["target"]
        name = paths.get(target) or relationship.get("targetFallback") or target
        name = name.rsplit(".", 1)[-1] if target not in paths else name
        if name in IMPLIED:
            continue
        clauses = relationship.get("swiftConstraints", [])
        where = ""
        if clauses:
            where = " [where " + ", ".join(sorted(f"{c['lhs']} {c['kind']} {c['rhs']}" for c in clauses)) + "]"
        source = relationship["source"]
        lines.add(f"{public[source]}: {paths[source]}: conforms to {name}{where}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
