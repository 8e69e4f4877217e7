#!/usr/bin/env python3
"""Checks that the folders of Sources/RequestKit form layers: no two folders use each other, directly or through
others. A folder "uses" another when one of its files names a type declared at the top level of a file there
(comments and string literals are ignored). Prints each folder's dependencies; exits 1 on a cycle."""
import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "RequestKit")
DECLARATION = re.compile(
    r"^(?:public |private |fileprivate |internal |final |indirect )*(?:struct|class|enum|protocol|actor|typealias)"
    r"\s+([A-Z]\w*)", re.M)


def folder_of(relative):
    return relative.split(os.sep)[0] if os.sep in relative else "."


def main():
    files = {}
    for directory, _, names in os.walk(ROOT):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    files[os.path.relpath(path, ROOT)] = handle.read()
    owner = {}
    for relative, text in files.items():
        for match in DECLARATION.finditer(text):
            owner.setdefault(match.group(1), folder_of(relative))
    uses = collections.defaultdict(lambda: collections.defaultdict(set))
    for relative, text in files.items():
        folder = folder_of(relative)
        code = re.sub(r"//.*", "", text)
        code = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', code)
        for name in set(re.findall(r"\b([A-Z]\w*)\b", code)):
            other = owner.get(name)
            if other and other != folder:
                uses[folder][other].add(f"{name} ({os.path.basename(relative)})")
    folders = sorted({folder_of(relative) for relative in files})
    for folder in folders:
        print(f"{folder} -> {', '.join(sorted(uses[folder])) or '(nothing)'}")

    # Tarjan's strongly connected components: any component of two or more folders is a cycle.
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for neighbour in uses[node]:
            if neighbour not in index:
                visit(neighbour)
                low[node] = min(low[node], low[neighbour])
            elif neighbour in on_stack:
                low[node] = min(low[node], index[neighbour])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(component)

    for folder in folders:
        if folder not in index:
            visit(folder)
    for cycle in cycles:
        print(f"\ncycle between {', '.join(sorted(cycle))}:", file=sys.stderr)
        for folder in cycle:
            for other in sorted(uses[folder]):
                if other in cycle:
                    print(f"  {folder} -> {other}: {', '.join(sorted(uses[folder][other])[:6])}", file=sys.stderr)
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
