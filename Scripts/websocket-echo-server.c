/*
 * A WebSocket echo server for the websocket benchmarks (Scripts/start-websocket-echo.sh compiles and starts it):
 * one thread, epoll, no message assembly. Each frame a client sends goes back as the same frame, unmasked, streamed
 * as its payload arrives (a fragmented message comes back in the same fragments, a 1 GiB stream in constant memory);
 * a ping is answered with a pong of its payload, a pong is dropped, a close frame is echoed and the connection closed
 * once it is written. A connection whose unwritten answer passes 4 MiB is not read until it drains, so a client that
 * does not read cannot grow the server. An idle connection costs its socket and about 100 bytes, so 10,000 held
 * sockets cost the server little. It checks no more of the handshake than the Sec-WebSocket-Key it answers and no
 * more of the frames than their heads: it is a benchmark's load generator, not a conformant server.
 *
 *   cc -O2 -o websocket-echo-server Scripts/websocket-echo-server.c -lcrypto
 *   ./websocket-echo-server [port]     # prints the port it listens on, on 127.0.0.1 (0 or none: a free one)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define HANDSHAKE_LIMIT 8192
#define PAUSE_READING_ABOVE (4u << 20)

struct connection {
    int fd;
    int upgraded;
    int closing;         /* a close frame was echoed: close once the answer is written */
    int reading_paused;
    char *handshake;     /* the request head until it is complete */
    size_t handshake_length;
    unsigned char head[14]; /* the frame head being read */
    size_t head_length;
    uint64_t payload_left;  /* payload bytes of the current frame still to come */
    unsigned char mask[4];
    unsigned mask_offset;
    int drop_payload;       /* a pong's payload is not echoed */
    unsigned char *out;     /* the answer not written yet */
    size_t out_start, out_end, out_capacity;
};

static int epoll_descriptor;

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static void watch(struct connection *c) {
    struct epoll_event event = {0};
    event.data.ptr = c;
    event.events = (c->reading_paused ? 0 : EPOLLIN) | (c->out_end > c->out_start ? EPOLLOUT : 0);
    epoll_ctl(epoll_descriptor, EPOLL_CTL_MOD, c->fd, &event);
}

static void drop(struct connection *c) {
    epoll_ctl(epoll_descriptor, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->handshake);
    free(c->out);
    free(c);
}

/* Writes what it can of the pending answer; returns -1 when the connection failed. */
static int flush(struct connection *c) {
    while (c->out_end > c->out_start) {
        ssize_t n = write(c->fd, c->out + c->out_start, c->out_end - c->out_start);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            if (errno == EINTR) continue;
            return -1;
        }
        c->out_start += (size_t)n;
    }
    c->out_start = c->out_end = 0;
    if (c->out_capacity > (1u << 16)) { /* an idle connection keeps no large buffer */
        free(c->out);
        c->out = NULL;
        c->out_capacity = 0;
    }
    return 0;
}

/* Queues bytes of the answer, writing them at once when nothing is queued before them. */
static int send_bytes(struct connection *c, const unsigned char *bytes, size_t length) {
    if (c->out_end == c->out_start) {
        while (length > 0) {
            ssize_t n = write(c->fd, bytes, length);
            if (n < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK) break;
                if (errno == EINTR) continue;
                return -1;
            }
            bytes += n;
            length -= (size_t)n;
        }
        if (length == 0) return 0;
    }
    if (c->out_start > 0 && c->out_end + length > c->out_capacity) {
        memmove(c->out, c->out + c->out_start, c->out_end - c->out_start);
        c->out_end -= c->out_start;
        c->out_start = 0;
    }
    if (c->out_end + length > c->out_capacity) {
        size_t capacity = c->out_capacity ? c->out_capacity : 4096;
        while (capacity < c->out_end + length) capacity *= 2;
        unsigned char *grown = realloc(c->out, capacity);
        if (!grown) return -1;
        c->out = grown;
        c->out_capacity = capacity;
    }
    memcpy(c->out + c->out_end, bytes, length);
    c->out_end += length;
    return 0;
}

static int answer_handshake(struct connection *c) {
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    char *key = NULL;
    for (char *line = strstr(c->handshake, "\r\n"); line; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, "Sec-WebSocket-Key:", 18) == 0) {
            key = line + 20;
            break;
        }
    }
    if (!key) return -1;
    while (*key == ' ') key++;
    size_t key_length = strcspn(key, " \r");
    char joined[128];
    if (key_length > 60) return -1;
    memcpy(joined, key, key_length);
    memcpy(joined + key_length, guid, sizeof guid - 1);
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA1((unsigned char *)joined, key_length + sizeof guid - 1, digest);
    unsigned char accept[64];
    EVP_EncodeBlock(accept, digest, SHA_DIGEST_LENGTH);
    char response[256];
    int length = snprintf(response, sizeof response,
                          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: %s\r\n\r\n",
                          accept);
    return send_bytes(c, (unsigned char *)response, (size_t)length);
}

/* Takes frame bytes: heads are parsed and answered with the echoed frame's head, payloads unmasked and echoed. */
static int take_frames(struct connection *c, unsigned char *bytes, size_t length) {
    while (length > 0) {
        if (c->payload_left == 0) {
            c->head[c->head_length++] = *bytes++;
            length--;
            if (c->head_length < 2) continue;
            size_t extended = (c->head[1] & 0x7f) == 126 ? 2 : (c->head[1] & 0x7f) == 127 ? 8 : 0;
            size_t needed = 2 + extended + ((c->head[1] & 0x80) ? 4 : 0);
            if (c->head_length < needed) continue;
            uint64_t payload = c->head[1] & 0x7f;
            if (extended) {
                payload = 0;
                for (size_t i = 0; i < extended; i++) payload = (payload << 8) | c->head[2 + i];
            }
            if (c->head[1] & 0x80) memcpy(c->mask, c->head + 2 + extended, 4);
            else memset(c->mask, 0, 4);
            c->mask_offset = 0;
            c->head_length = 0;
            unsigned opcode = c->head[0] & 0x0f;
            c->drop_payload = opcode == 0xA;
            if (!c->drop_payload) {
                unsigned char head[10];
                size_t head_length;
                head[0] = opcode == 0x9 ? (unsigned char)((c->head[0] & 0xf0) | 0xA) : c->head[0];
                if (payload < 126) {
                    head[1] = (unsigned char)payload;
                    head_length = 2;
                } else if (payload <= 0xffff) {
                    head[1] = 126;
                    head[2] = (unsigned char)(payload >> 8);
                    head[3] = (unsigned char)payload;
                    head_length = 4;
                } else {
                    head[1] = 127;
                    for (int i = 0; i < 8; i++) head[2 + i] = (unsigned char)(payload >> (56 - 8 * i));
                    head_length = 10;
                }
                if (send_bytes(c, head, head_length) < 0) return -1;
            }
            if (opcode == 0x8) c->closing = 1;
            c->payload_left = payload;
            continue;
        }
        size_t take = length < c->payload_left ? length : (size_t)c->payload_left;
        for (size_t i = 0; i < take; i++) bytes[i] ^= c->mask[(c->mask_offset + i) & 3];
        c->mask_offset = (unsigned)((c->mask_offset + take) & 3);
        if (!c->drop_payload && send_bytes(c, bytes, take) < 0) return -1;
        c->payload_left -= take;
        bytes += take;
        length -= take;
    }
    return 0;
}

static int readable(struct connection *c) {
    static unsigned char buffer[1 << 17];
    for (;;) {
        ssize_t n = read(c->fd, buffer, sizeof buffer);
        if (n == 0) return -1;
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            if (errno == EINTR) continue;
            return -1;
        }
        unsigned char *bytes = buffer;
        size_t length = (size_t)n;
        if (!c->upgraded) {
            if (!c->handshake) c->handshake = malloc(HANDSHAKE_LIMIT + 1);
            if (!c->handshake) return -1;
            size_t room = HANDSHAKE_LIMIT - c->handshake_length;
            size_t take = length < room ? length : room;
            memcpy(c->handshake + c->handshake_length, bytes, take);
            c->handshake_length += take;
            c->handshake[c->handshake_length] = 0;
            char *end = strstr(c->handshake, "\r\n\r\n");
            if (!end) {
                if (c->handshake_length == HANDSHAKE_LIMIT) return -1;
                continue;
            }
            size_t head_length = (size_t)(end + 4 - c->handshake);
            size_t already = c->handshake_length - take; /* bytes of earlier reads */
            if (answer_handshake(c) < 0) return -1;
            free(c->handshake);
            c->handshake = NULL;
            c->upgraded = 1;
            bytes += head_length - already;
            length -= head_length - already;
        }
        if (take_frames(c, bytes, length) < 0) return -1;
        if (c->out_end - c->out_start > PAUSE_READING_ABOVE) {
            c->reading_paused = 1;
            watch(c);
            return 0;
        }
        if ((size_t)n < sizeof buffer) break;
    }
    if (c->out_end > c->out_start) watch(c);
    return 0;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (listener < 0) fail("socket");
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons(argc > 1 ? (uint16_t)atoi(argv[1]) : 0);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0) fail("bind");
    if (listen(listener, 16384) < 0) fail("listen");
    socklen_t address_length = sizeof address;
    getsockname(listener, (struct sockaddr *)&address, &address_length);
    printf("%d\n", ntohs(address.sin_port));
    fflush(stdout);

    epoll_descriptor = epoll_create1(0);
    if (epoll_descriptor < 0) fail("epoll_create1");
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.ptr = NULL; /* the listener */
    epoll_ctl(epoll_descriptor, EPOLL_CTL_ADD, listener, &event);
    struct epoll_event events[256];
    for (;;) {
        int count = epoll_wait(epoll_descriptor, events, 256, -1);
        if (count < 0) {
            if (errno == EINTR) continue;
            fail("epoll_wait");
        }
        for (int i = 0; i < count; i++) {
            struct connection *c = events[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct connection *accepted = calloc(1, sizeof *accepted);
                    if (!accepted) {
                        close(fd);
                        continue;
                    }
                    accepted->fd = fd;
                    struct epoll_event added = {0};
                    added.events = EPOLLIN;
                    added.data.ptr = accepted;
                    epoll_ctl(epoll_descriptor, EPOLL_CTL_ADD, fd, &added);
                }
                continue;
            }
            if (events[i].events & (EPOLLERR | EPOLLHUP)) {
                drop(c);
                continue;
            }
            if (events[i].events & EPOLLOUT) {
                if (flush(c) < 0) {
                    drop(c);
                    continue;
                }
                if (c->out_end == c->out_start) {
                    if (c->closing) {
                        drop(c);
                        continue;
                    }
                    c->reading_paused = 0;
                    watch(c);
                }
            }
            if ((events[i].events & EPOLLIN) && !c->reading_paused) {
                if (readable(c) < 0) {
                    drop(c);
                    continue;
                }
                if (c->closing && c->out_end == c->out_start) drop(c);
            }
        }
    }
}
