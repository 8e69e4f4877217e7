#!/usr/bin/env python3
"""A loopback h2c server that holds every stream open, for the connections benchmark over HTTP/2.

It speaks HTTP/2 with prior knowledge (no TLS) and allows 128 streams per connection. Each stream gets an
event-stream response head and a first event, then nothing more until the client resets it or closes the
connection. Prints the port it listens on (127.0.0.1, a free port), then serves until stdin closes. Needs the h2
package (Debian's python3-h2, or `pip install h2`).

    python3 Scripts/hold-streams-h2.py   # prints e.g. 41234
"""
import asyncio
import resource
import sys

import h2.config
import h2.connection
import h2.events
import h2.settings

EVENT = b"data: held\n\n"
HEAD = [(":status", "200"), ("content-type", "text/event-stream"), ("cache-control", "no-cache")]


async def serve(reader, writer):
    config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
    connection = h2.connection.H2Connection(config=config)
    connection.local_settings = h2.settings.Settings(
        client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 128})
    connection.initiate_connection()
    writer.write(connection.data_to_send())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            for event in connection.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    connection.send_headers(event.stream_id, HEAD)
                    connection.send_data(event.stream_id, EVENT)
            writer.write(connection.data_to_send())
            await writer.drain()
    except (ConnectionError, h2.exceptions.ProtocolError):
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
