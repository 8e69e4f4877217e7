#!/usr/bin/env python3
"""Writes Tests/RequestKitNativeTransportTests/Proxy/Data/no-proxy-curl.json: whether curl sends each (environment, URL) case
through its proxy, as curl itself decides.

A recording proxy listens on 127.0.0.1 (a random free port) and notes every request it receives. For each case,
curl runs with a clean environment holding only the case's variables plus http_proxy / https_proxy naming that
proxy, and with --connect-to sending any direct connection to a closed local port, so nothing leaves the machine
and no name is looked up. A case is "proxied" when the proxy saw a request during curl's run.

Usage: python3 Scripts/generate-no-proxy-table.py   (needs curl on PATH)
"""

import json
import os
import socket
import subprocess
import threading
from pathlib import Path

# (variables besides the proxy's, URL). Each is run by curl; the answer is curl's.
CASES = [
    ({}, "http://example.com/"),
    ({"no_proxy": "*"}, "http://example.com/"),
    ({"no_proxy": "*"}, "https://example.com/"),
    ({"no_proxy": "example.com"}, "http://example.com/"),
    ({"no_proxy": "example.com"}, "http://www.example.com/"),
    ({"no_proxy": "example.com"}, "http://a.b.example.com/"),
    ({"no_proxy": "example.com"}, "http://notexample.com/"),
    ({"no_proxy": "example.com"}, "http://example.com.evil.test/"),
    ({"no_proxy": ".example.com"}, "http://example.com/"),
    ({"no_proxy": ".example.com"}, "http://www.example.com/"),
    ({"no_proxy": "example.com."}, "http://www.example.com/"),
    ({"no_proxy": "example.com"}, "http://www.example.com./"),
    ({"no_proxy": "EXAMPLE.com"}, "http://www.Example.COM/"),
    ({"no_proxy": "www.example.com"}, "http://example.com/"),
    ({"no_proxy": "other.test,example.com"}, "http://example.com/"),
    ({"no_proxy": "other.test, example.com"}, "http://example.com/"),
    ({"no_proxy": "other.test ,example.com"}, "http://example.com/"),
    ({"no_proxy": "other.test example.com"}, "http://example.com/"),
    ({"no_proxy": "other.test,,example.com"}, "http://example.com/"),
    ({"no_proxy": " example.com "}, "http://example.com/"),
    ({"no_proxy": "*,example.com"}, "http://other.test/"),
    ({"no_proxy": "*.example.com"}, "http://www.example.com/"),
    ({"no_proxy": "example.com:8080"}, "http://example.com:8080/"),
    ({"no_proxy": "example.com:8080"}, "http://example.com/"),
    ({"no_proxy": "example.com"}, "http://example.com:8080/"),
    ({"no_proxy": "localhost"}, "http://localhost/"),
    ({}, "http://localhost/"),
    ({}, "http://127.0.0.1/"),
    ({}, "http://[::1]/"),
    ({"no_proxy": "127.0.0.1"}, "http://127.0.0.1/"),
    ({"no_proxy": "127.0.0.1"}, "http://localhost/"),
    ({"no_proxy": "localhost"}, "http://127.0.0.1/"),
    ({"no_proxy": "127.0.0.0/8"}, "http://127.1.2.3/"),
    ({"no_proxy": "127.0.0.0/8"}, "http://128.0.0.1/"),
    ({"no_proxy": "10.0.0.0/8"}, "http://10.20.30.40:8080/"),
    ({"no_proxy": "192.168.1.0/24"}, "http://192.168.1.77/"),
    ({"no_proxy": "192.168.1.0/24"}, "http://192.168.2.77/"),
    ({"no_proxy": "192.168.1.10"}, "http://192.168.1.10/"),
    ({"no_proxy": "192.168.1.1"}, "http://192.168.1.10/"),
    ({"no_proxy": "0.0.0.0/0"}, "http://203.0.113.9/"),
    ({"no_proxy": "10.0.0.0/33"}, "http://10.0.0.1/"),
    ({"no_proxy": "1.2.3.4"}, "http://1.2.3.4.example.com/"),
    ({"no_proxy": "::1"}, "http://[::1]/"),
    ({"no_proxy": "[::1]"}, "http://[::1]/"),
    ({"no_proxy": "::1"}, "http://[0:0:0:0:0:0:0:1]:8080/"),
    ({"no_proxy": "fe80::/10"}, "http://[fe80::1]/"),
    ({"no_proxy": "2001:db8::/32"}, "http://[2001:db8:1::5]/"),
    ({"no_proxy": "2001:db8::/32"}, "http://[2001:db9::5]/"),
    ({"no_proxy": "2001:db8::/33"}, "http://[2001:db8:8000::5]/"),
    ({"no_proxy": "2001:db8::/33"}, "http://[2001:db8:7fff::5]/"),
    ({"no_proxy": "2001:db8::1"}, "http://[2001:db8::1]/"),
    ({"no_proxy": "example.com"}, "https://www.example.com/"),
    ({"no_proxy": "other.test"}, "https://www.example.com/"),
    ({"NO_PROXY": "example.com"}, "http://example.com/"),
    ({"NO_PROXY": "example.com", "no_proxy": "other.test"}, "http://example.com/"),
    ({"NO_PROXY": "other.test", "no_proxy": "example.com"}, "http://example.com/"),
    ({"NO_PROXY": "example.com", "no_proxy": ""}, "http://example.com/"),
    ({"no_proxy": ""}, "http://example.com/"),
    ({"no_proxy": ","}, "http://example.com/"),
    ({"no_proxy": "."}, "http://example.com/"),
    ({"no_proxy": "com"}, "http://example.com/"),
    ({"no_proxy": "xample.com"}, "http://example.com/"),
]


class RecordingProxy:
    """Accepts connections, counts requests (any first line), answers 403 and closes."""

    def __init__(self):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.count = 0
        self.lock = threading.Lock()
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            connection, _ = self.listener.accept()
            try:
                data = connection.recv(65536)
                if data:
                    with self.lock:
                        self.count += 1
                connection.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            finally:
                connection.close()


def closed_port():
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def main():
    proxy = RecordingProxy()
    direct_port = closed_port()
    proxy_url = f"http://127.0.0.1:{proxy.port}"
    rows = []
    for variables, url in CASES:
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "http_proxy": proxy_url,
                       "https_proxy": proxy_url}
        environment.update(variables)
        before = proxy.count
        subprocess.run(
            ["curl", "-s", "-o", "/dev/null", "--max-time", "3", "--connect-to", f"::127.0.0.1:{direct_port}", url],
            env=environment, check=False)
        with proxy.lock:
            proxied = proxy.count > before
        rows.append({"variables": variables, "url": url, "proxied": proxied})
    version = subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    output = Path(__file__).resolve().parent.parent / "Tests/RequestKitNativeTransportTests/Proxy/Data/no-proxy-curl.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps({"producedBy": version, "cases": rows}, indent=1) + "\n")
    print(f"{len(rows)} cases, {sum(row['proxied'] for row in rows)} proxied, by {version}")


if __name__ == "__main__":
    main()
