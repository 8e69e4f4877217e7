#!/usr/bin/env python3
"""Drives an Autobahn|Testsuite fuzzing server with the Python `websockets` library as the client under test, the
way RequestKit's client is driven: /getCaseCount, then /runCase?case=N&agent=NAME for every case (echoing each
message until the server closes), then /updateReports?agent=NAME. It checks the harness (Scripts/start-autobahn.sh,
Scripts/autobahn-summary.py) and gives a reference count for a well-known client.

Usage: <python with websockets>/bin/python Scripts/autobahn-reference-client.py ws://127.0.0.1:PORT AGENT
Prints the number of cases run."""
import asyncio
import sys

from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException


async def run_case(url):
    try:
        # No size limit and no keep-alive pings of its own: the cases send up to 16 MiB and count every frame.
        async with connect(url, max_size=None, ping_interval=None, open_timeout=60) as socket:
            async for message in socket:
                await socket.send(message)
    except (WebSocketException, OSError):
        # A case that fails the connection on purpose ends here; the server records what happened.
        pass


async def main(base, agent):
    async with connect(f"{base}/getCaseCount") as socket:
        count = int(await socket.recv())
    for case in range(1, count + 1):
        await run_case(f"{base}/runCase?case={case}&agent={agent}")
    try:
        async with connect(f"{base}/updateReports?agent={agent}") as socket:
            async for _ in socket:
                pass
    except WebSocketException:
        # kosoku ends its server once the reports are written, without a closing handshake.
        pass
    print(count)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
