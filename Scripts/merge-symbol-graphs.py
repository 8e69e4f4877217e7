#!/usr/bin/env python3
"""Merges the symbol graphs of RequestKit's layers (RequestKitJSON, RequestKitModel, ...) into one graph of the module
RequestKit, which re-exports them: the DocC archive documents one module, as users see it. RequestKitTesting's graphs
are copied with the layers' names in them replaced by RequestKit.

Usage: Scripts/merge-symbol-graphs.py <directory of swift symbol graphs> <output directory>
Writes RequestKit.symbols.json (every layer's symbols and the layers' extensions of one another) and one
RequestKit@<Other>.symbols.json per other module the layers extend (Swift, Foundation, ...), and RequestKitTesting's."""
import glob
import json
import os
import re
import sys

LAYER = re.compile(r"^RequestKit(?!Testing\b)[A-Z]\w*$")


def is_layer(name):
    return name == "RequestKit" or bool(LAYER.match(name))


def rename(value):
    """The layer names in module fields and fallbacks become RequestKit."""
    if isinstance(value, dict):
        return {key: rename_field(key, item) for key, item in value.items()}
    if isinstance(value, list):
        return [rename(item) for item in value]
    return value


def rename_field(key, item):
    if key in ("extendedModule", "name") and isinstance(item, str) and is_layer(item):
        return "RequestKit"
    if key == "targetFallback" and isinstance(item, str):
        module, _, rest = item.partition(".")
        return f"RequestKit.{rest}" if is_layer(module) and rest else item
    return rename(item)


def main():
    source, output = sys.argv[1], sys.argv[2]
    merged = {}
    for path in sorted(glob.glob(os.path.join(source, "*.symbols.json"))):
        name = os.path.basename(path)[: -len(".symbols.json")]
        module, _, extended = name.partition("@")
        if not is_layer(module) and module != "RequestKitTesting":
            continue
        module = "RequestKit" if is_layer(module) else module
        extended = "RequestKit" if extended and is_layer(extended) else extended
        target = module if not extended or extended == module else f"{module}@{extended}"
        with open(path, encoding="utf-8") as handle:
            graph = rename(json.load(handle))
        into = merged.setdefault(target, {**graph, "symbols": [], "relationships": []})
        into["symbols"] += graph["symbols"]
        into["relationships"] += graph["relationships"]
    if "RequestKit" not in merged or not merged["RequestKit"]["symbols"]:
        sys.exit("no symbols of RequestKit's layers in " + source)
    for name, graph in merged.items():
        with open(os.path.join(output, f"{name}.symbols.json"), "w", encoding="utf-8") as handle:
            json.dump(graph, handle)
        print(f"{name}: {len(graph['symbols'])} symbols")


if __name__ == "__main__":
    main()
