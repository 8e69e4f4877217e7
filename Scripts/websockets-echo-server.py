#!/usr/bin/env python3
"""An echo server on 127.0.0.1 with the Python `websockets` library (permessage-deflate offered as it does by
default, no message size limit): every message comes back as it came, text or binary; the subprotocol `echo` is
taken when offered.

Usage: <python with websockets>/bin/python Scripts/websockets-echo-server.py <port>"""
import asyncio
import sys

from websockets.asyncio.server import serve
from websockets.exceptions import WebSocketException


async def echo(socket):
    try:
        async for message in socket:
            await socket.send(message)
    except WebSocketException:
        pass


async def main(port):
    async with serve(echo, "127.0.0.1", port, max_size=None, subprotocols=["echo"]) as server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    asyncio.run(main(int(sys.argv[1])))
