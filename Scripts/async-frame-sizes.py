#!/usr/bin/env python3
"""Prints the frame size of each async function of RequestKit in a built binary, largest first.

An async function's frame is allocated from its task's memory when it is called. A task keeps what its deepest
chain of calls took until the task ends, so the frames on the path of a long-held call (an event stream, a long
poll) are paid for every call held at once. The size is the second word of the function's "async function
pointer" record (the symbols ending in `Tu`): a 32-bit relative address, then the 32-bit context size.

    swift build -c release --product Benchmarks
    python3 Scripts/async-frame-sizes.py .build/release/Benchmarks [count] [filter]

Needs `nm` and `readelf` (binutils) and `swift demangle`; Linux (ELF) only.
"""
import re
import struct
import subprocess
import sys


def sections(binary):
    """(address, file offset, size, name) of each section with contents."""
    listing = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 6 and fields[0].startswith("[") and fields[2] != "NOBITS":
            try:
                found.append((int(fields[3], 16), int(fields[4], 16), int(fields[5], 16), fields[1]))
            except ValueError:
                continue
    return found


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip())
        sys.exit(2)
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    wanted = sys.argv[3] if len(sys.argv) > 3 else ""
    contents = open(binary, "rb").read()
    mapped = sections(binary)

    def read(address, length):
        for start, offset, size, _ in mapped:
            if start <= address < start + size:
                return contents[offset + address - start:offset + address - start + length]
        return None

    symbols = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    records = []
    for line in symbols.splitlines():
        fields = line.split()
        # Every layer's module: RequestKit, RequestKitModel, RequestKitSending, ...
        if len(fields) == 3 and fields[2].endswith("Tu") and re.search(r"\d+RequestKit", fields[2]):
            raw = read(int(fields[0], 16), 8)
            if raw is not None and len(raw) == 8:
                records.append((struct.unpack("<iI", raw)[1], fields[2]))
    names = subprocess.run(
        ["swift", "demangle", "--simplified"], input="\n".join(name for _, name in records),
        capture_output=True, text=True, check=True).stdout.splitlines()
    rows = sorted(
        ((size, name.replace("async function pointer to ", "")) for (size, _), name in zip(records, names)),
        key=lambda row: -row[0])
    shown = [row for row in rows if wanted in row[1]][:count]
    for size, name in shown:
        print(f"{size:6d}  {name}")


if __name__ == "__main__":
    main()
