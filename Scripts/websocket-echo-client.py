#!/usr/bin/env python3
"""The Python `websockets` side of RequestKit's `Benchmarks websocket-echo`: the same echo workload against the same
echo server (Scripts/compare-websocket.sh runs them in the same rounds), with the library's asyncio client, one
coroutine per socket sending a message and awaiting its echo before the next.

Usage: <python with websockets>/bin/python Scripts/websocket-echo-client.py <ws url> <sockets> <seconds> text|binary

Prints `result client=websockets sockets=… kind=… messages=… seconds=… cpu=… bytes=… wrong=…`: the echoes that came
back whole in <seconds> after a 0.5 s warm-up, and the user plus system CPU seconds of the process meanwhile."""
import asyncio
import resource
import sys
import time

from websockets.asyncio.client import connect


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def main(url, sockets, seconds, kind):
    message = "0123456789abcdef0123456789abcdef" if kind == "text" else bytes([0x5A]) * (1 << 20)
    size = len(message)
    counts = {"echoes": 0, "wrong": 0}
    stopping = False
    opened = [await connect(url, max_size=None, compression=None) for _ in range(sockets)]

    async def echo(socket):
        while not stopping:
            await socket.send(message)
            echoed = await socket.recv()
            if len(echoed) == size and type(echoed) is type(message):
                counts["echoes"] += 1
            else:
                counts["wrong"] += 1

    runners = [asyncio.create_task(echo(socket)) for socket in opened]
    await asyncio.sleep(0.5)
    before, cpu_before, start = counts["echoes"], cpu_seconds(), time.monotonic()
    await asyncio.sleep(seconds)
    messages, cpu, elapsed = counts["echoes"] - before, cpu_seconds() - cpu_before, time.monotonic() - start
    stopping = True
    await asyncio.gather(*runners, return_exceptions=True)
    for socket in opened:
        await socket.close()
    print(
        f"result client=websockets sockets={sockets} kind={kind} messages={messages} seconds={elapsed:.3f} "
        f"cpu={cpu:.3f} bytes={messages * size} wrong={counts['wrong']}"
    )


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[4] not in ("text", "binary"):
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]))
