#!/usr/bin/env python3
"""A loopback server that holds every connection open, for the connections benchmark.

Each connection gets one event-stream response head and a first event, then nothing more until the client
closes it. Prints the port it listens on (127.0.0.1, a free port), then serves until stdin closes.

    python3 Scripts/hold-connections.py   # prints e.g. 41234
"""
import asyncio
import resource
import sys

HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)
EVENT = b"data: held\n\n"
CHUNK = b"%x\r\n%s\r\n" % (len(EVENT), EVENT)


async def serve(reader, writer):
    try:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(HEAD + CHUNK)
        await writer.drain()
        while await reader.read(4096):
            pass
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)
    server.close()


asyncio.run(main())
