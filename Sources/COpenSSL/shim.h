// The system OpenSSL 3 (Debian's libssl-dev) for RequestKit's TLS layer, the TLS mode of TestServer and WebSocket
// masking keys, plus functions for what OpenSSL spells as macros (which Swift cannot call) and a socket BIO that never
// raises SIGPIPE.
#ifndef REQUESTKIT_COPENSSL_SHIM_H
#define REQUESTKIT_COPENSSL_SHIM_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

static inline int requestkit_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

static inline int requestkit_SSL_CTX_set_max_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_max_proto_version(context, version);
}

/// Non-blocking use: a write may send part of the buffer, and a retried write may pass the bytes at another address.
/// No renegotiation. A peer closing without close_notify is reported (SSL_R_UNEXPECTED_EOF_WHILE_READING), so that a
/// body delimited by the connection's close is never taken as whole when it may have been cut.
static inline void requestkit_SSL_CTX_set_client_stream_options(SSL_CTX *context) {
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // Reads take whatever the socket holds: one system call per record instead of its header and then its body.
    // What OpenSSL then holds is read before the socket is waited for again (every read is repeated until it would
    // block), and a partial record held makes a read want the socket, as it should.
    SSL_CTX_set_read_ahead(context, 1);
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}

static inline int requestkit_select_http11(SSL *ssl, const unsigned char **selected, unsigned char *selectedLength,
                                           const unsigned char *offered, unsigned int offeredLength, void *argument) {
    static const unsigned char supported[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    (void)ssl;
    (void)argument;
    unsigned char *choice = NULL;
    if (SSL_select_next_proto(&choice, selectedLength, supported, sizeof supported, offered, offeredLength) !=
        OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *selected = choice;
    return SSL_TLSEXT_ERR_OK;
}

/// Blocking server use (TestServer): whole writes, no renegotiation, ALPN answering `http/1.1` when offered.
static inline void requestkit_SSL_CTX_set_server_stream_options(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_alpn_select_cb(context, requestkit_select_http11, NULL);
}

static inline int requestkit_SSL_CTX_add1_chain_cert(SSL_CTX *context, X509 *certificate) {
    return (int)SSL_CTX_add1_chain_cert(context, certificate);
}

static inline int requestkit_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// A BIO over a socket descriptor that sends with MSG_NOSIGNAL, so a peer that went away is an EPIPE error, never
// a SIGPIPE that ends the process. Reads and writes that would block set the retry flags, as OpenSSL's own socket
// BIO does, so a non-blocking descriptor gives SSL_ERROR_WANT_READ / SSL_ERROR_WANT_WRITE.
static inline int requestkit_socket_bio_is_retryable(int code) {
    return code == EAGAIN || code == EWOULDBLOCK || code == EINTR;
}

static inline int requestkit_socket_bio_write(BIO *bio, const char *bytes, int count) {
    int descriptor = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t sent = send(descriptor, bytes, (size_t)count, MSG_NOSIGNAL);
    if (sent < 0 && requestkit_socket_bio_is_retryable(errno)) BIO_set_retry_write(bio);
    return (int)sent;
}

static inline int requestkit_socket_bio_read(BIO *bio, char *bytes, int count) {
    int descriptor = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t received = recv(descriptor, bytes, (size_t)count, 0);
    if (received < 0 && requestkit_socket_bio_is_retryable(errno)) BIO_set_retry_read(bio);
    return (int)received;
}

static inline int requestkit_socket_bio_puts(BIO *bio, const char *text) {
    return requestkit_socket_bio_write(bio, text, (int)strlen(text));
}

static inline long requestkit_socket_bio_control(BIO *bio, int command, long number, void *pointer) {
    (void)bio;
    (void)number;
    (void)pointer;
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

static inline int requestkit_socket_bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

/// A new method table for socket BIOs; create it once and keep it.
static inline BIO_METHOD *requestkit_socket_bio_method_new(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "RequestKit socket");
    if (method == NULL) return NULL;
    BIO_meth_set_write(method, requestkit_socket_bio_write);
    BIO_meth_set_read(method, requestkit_socket_bio_read);
    BIO_meth_set_puts(method, requestkit_socket_bio_puts);
    BIO_meth_set_ctrl(method, requestkit_socket_bio_control);
    BIO_meth_set_create(method, requestkit_socket_bio_create);
    return method;
}

/// A BIO reading and writing `descriptor`, which it never closes.
static inline BIO *requestkit_socket_bio_new(BIO_METHOD *method, int descriptor) {
    BIO *bio = BIO_new(method);
    if (bio != NULL) BIO_set_data(bio, (void *)(intptr_t)descriptor);
    return bio;
}

/// Puts back on the thread's error queue an error taken off it with ERR_get_error_all: a TLS session running over
/// another TLS stream calls that stream from inside its own OpenSSL calls, and the inner stream's calls need the
/// queue empty, while the outer session's own errors must still be there when its call returns.
static inline void requestkit_err_requeue(unsigned long code, const char *file, int line, const char *function,
                                          const char *data) {
    ERR_new();
    ERR_set_debug(file, line, function);
    if (data != NULL) {
        ERR_set_error(ERR_GET_LIB(code), ERR_GET_REASON(code), "%s", data);
    } else {
        ERR_set_error(ERR_GET_LIB(code), ERR_GET_REASON(code), NULL);
    }
}

#endif
