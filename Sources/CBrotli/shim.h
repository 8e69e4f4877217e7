#if __has_include(<brotli/decode.h>)
#include <brotli/decode.h>
#include <brotli/encode.h>
#else
#error "RequestKit decodes Content-Encoding: br with the system brotli library: apt-get install libbrotli-dev"
#endif
