#!/usr/bin/env python3
"""Relays TCP connections from 127.0.0.1:<listen port> to <target host>:<target port>, byte for byte both ways, for
a server that cannot bind 127.0.0.1 itself (libwebsockets-test-server binds either every interface or, with
`--interface=lo`, only the IPv4-mapped IPv6 address). Standard library only; one thread, asyncio.

Usage: Scripts/loopback-relay.py <listen port> <target host> <target port>"""
import asyncio
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        try:
            if writer.can_write_eof():
                writer.write_eof()
        except (ConnectionError, OSError):
            writer.close()


async def relay(client_reader, client_writer, host, port):
    try:
        server_reader, server_writer = await asyncio.open_connection(host, port)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))
    client_writer.close()
    server_writer.close()


async def main(listen_port, host, port):
    server = await asyncio.start_server(lambda r, w: relay(r, w, host, port), "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3])))
