// A WebSocket echo server over HTTP/2 (RFC 8441) on Node's own `http2` module, for the client's tests:
//
//   node Scripts/websocket-h2-echo-server.mjs PORT CERT KEY [--no-extended-connect]
//
// TLS on 127.0.0.1:PORT with ALPN h2 and http/1.1. With SETTINGS_ENABLE_CONNECT_PROTOCOL sent (the default), an
// extended CONNECT with `:protocol` websocket is answered 200 and its stream carries the WebSocket; a path of
// /refuse is answered 403 with a body. Over HTTP/1.1, an Upgrade is answered 101 (the fallback a client takes when
// the server picks h2 without extended CONNECT). Either way every text or binary message is echoed, a ping is
// answered, and a close is echoed before the stream ends. The answer carries `x-carrier: h2` or `x-carrier: http/1.1`
// so that a test can tell which one it used, and `x-connections` the TLS connections the server accepted so far.
//
// Over HTTP/2, /violation-behind-window closes the client's window for the stream (SETTINGS_INITIAL_WINDOW_SIZE 0 on
// its connection), answers 200 and sends a frame with a reserved opcode; 300 ms later it opens the window again, and
// records the code of the close frame the client sent, or "reset" when the stream was reset before one came.
// /closes sends those records as one text message, comma-separated, once there is one. /ping-while-paused sends
// eight text messages ("m0" to "m7"), then a PING on the connection 100 ms later, and a last text message: "ping
// answered" when the acknowledgement came within a second, "ping unanswered" otherwise. Prints "listening" once it accepts connections.
import http2 from "node:http2";
import crypto from "node:crypto";
import fs from "node:fs";

const [port, certificate, key, flag] = process.argv.slice(2);
const extendedConnect = flag !== "--no-extended-connect";

/// Reads client frames (masked) from `chunks` and calls `message(opcode, payload)` for each whole message; answers
/// pings and echoes a close through `send(opcode, payload)`, or hands the close's payload to `closed` when given.
function echoing(send, end, closed) {
    let buffer = Buffer.alloc(0);
    let fragments = [];
    let fragmentOpcode = 0;
    return (chunk) => {
        buffer = Buffer.concat([buffer, chunk]);
        for (;;) {
            if (buffer.length < 2) return;
            const fin = (buffer[0] & 0x80) !== 0;
            const opcode = buffer[0] & 0x0f;
            let length = buffer[1] & 0x7f;
            let offset = 2;
            if (length === 126) {
                if (buffer.length < 4) return;
                length = buffer.readUInt16BE(2);
                offset = 4;
            } else if (length === 127) {
                if (buffer.length < 10) return;
                length = Number(buffer.readBigUInt64BE(2));
                offset = 10;
            }
            const masked = (buffer[1] & 0x80) !== 0;
            const maskOffset = offset;
            if (masked) offset += 4;
            if (buffer.length < offset + length) return;
            const payload = Buffer.from(buffer.subarray(offset, offset + length));
            if (masked) {
                for (let index = 0; index < payload.length; index++) {
                    payload[index] ^= buffer[maskOffset + (index % 4)];
                }
            }
            buffer = buffer.subarray(offset + length);
            if (opcode === 0x9) {
                send(0xa, payload);
            } else if (opcode === 0x8) {
                if (closed) {
                    closed(payload);
                    return;
                }
                send(0x8, payload);
                end();
                return;
            } else if (opcode === 0x0 || opcode === 0x1 || opcode === 0x2) {
                if (opcode !== 0) fragmentOpcode = opcode;
                fragments.push(payload);
                if (fin) {
                    send(fragmentOpcode, Buffer.concat(fragments));
                    fragments = [];
                }
            }
        }
    };
}

/// A server frame (unmasked, final) with `opcode` and `payload`.
function frame(opcode, payload) {
    let header;
    if (payload.length < 126) {
        header = Buffer.from([0x80 | opcode, payload.length]);
    } else if (payload.length < 65536) {
        header = Buffer.alloc(4);
        header[0] = 0x80 | opcode;
        header[1] = 126;
        header.writeUInt16BE(payload.length, 2);
    } else {
        header = Buffer.alloc(10);
        header[0] = 0x80 | opcode;
        header[1] = 127;
        header.writeBigUInt64BE(BigInt(payload.length), 2);
    }
    return Buffer.concat([header, payload]);
}

const server = http2.createSecureServer({
    cert: fs.readFileSync(certificate),
    key: fs.readFileSync(key),
    allowHTTP1: true,
    settings: { enableConnectProtocol: extendedConnect },
});

let connections = 0;
/// The close code the client sent on each stream behind a closed window, or "reset".
const closes = [];
server.on("secureConnection", () => {
    connections += 1;
});

server.on("stream", (stream, headers) => {
    if (headers[":method"] !== "CONNECT" || headers[":protocol"] !== "websocket") {
        stream.respond({ ":status": 404 });
        stream.end("not a WebSocket");
        return;
    }
    if (headers[":path"] === "/refuse") {
        stream.respond({ ":status": 403, "content-type": "text/plain" });
        stream.end("no sockets here");
        return;
    }
    const answer = { ":status": 200, "x-carrier": "h2", "x-connections": String(connections) };
    const offered = headers["sec-websocket-protocol"];
    if (offered) answer["sec-websocket-protocol"] = offered.split(",")[0].trim();
    if (headers[":path"] === "/closes") {
        stream.respond(answer);
        // The record comes once a stream behind a closed window ended, or after 10 s.
        const started = Date.now();
        const report = setInterval(() => {
            if (closes.length === 0 && Date.now() - started < 10000) return;
            clearInterval(report);
            stream.write(frame(0x1, Buffer.from(closes.join(","))));
        }, 20);
        stream.on("data", echoing(() => {}, () => stream.end()));
        stream.on("error", () => {});
        return;
    }
    if (headers[":path"] === "/ping-while-paused") {
        stream.respond(answer);
        for (let index = 0; index < 8; index++) stream.write(frame(0x1, Buffer.from(`m${index}`)));
        stream.on("data", echoing(() => {}, () => stream.end()));
        stream.on("error", () => {});
        setTimeout(() => {
            let verdict = null;
            const report = (text) => {
                if (verdict !== null) return;
                verdict = text;
                stream.write(frame(0x1, Buffer.from(text)));
            };
            stream.session.ping((error) => report(error ? "ping unanswered" : "ping answered"));
            setTimeout(() => report("ping unanswered"), 1000);
        }, 100);
        return;
    }
    if (headers[":path"] === "/violation-behind-window") {
        let answered = false;
        stream.on("data", echoing(
            (opcode, payload) => {},
            () => {},
            (payload) => {
                answered = true;
                closes.push(payload.length >= 2 ? String(payload.readUInt16BE(0)) : "none");
                stream.end();
            }));
        stream.on("close", () => { if (!answered) closes.push("reset"); });
        stream.on("error", () => {});
        stream.session.settings({ initialWindowSize: 0 }, () => {
            stream.respond(answer);
            stream.write(frame(0x3, Buffer.from("reserved")));
            setTimeout(() => stream.session.settings({ initialWindowSize: 65535 }), 300);
        });
        return;
    }
    stream.respond(answer);
    stream.on("data", echoing((opcode, payload) => stream.write(frame(opcode, payload)), () => stream.end()));
    stream.on("error", () => {});
});

server.on("upgrade", (request, socket) => {
    const accept = crypto
        .createHash("sha1")
        .update(request.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
        .digest("base64");
    const lines = [
        "HTTP/1.1 101 Switching Protocols",
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Accept: ${accept}`,
        "x-carrier: http/1.1",
        `x-connections: ${connections}`,
    ];
    const offered = request.headers["sec-websocket-protocol"];
    if (offered) lines.push(`Sec-WebSocket-Protocol: ${offered.split(",")[0].trim()}`);
    socket.write(lines.join("\r\n") + "\r\n\r\n");
    socket.on("data", echoing((opcode, payload) => socket.write(frame(opcode, payload)), () => socket.end()));
    socket.on("error", () => {});
});

server.listen(Number(port), "127.0.0.1", () => console.log("listening"));
