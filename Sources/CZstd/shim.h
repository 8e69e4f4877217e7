#if __has_include(<zstd.h>)
#include <zstd.h>
#else
#error "RequestKit decodes Content-Encoding: zstd with the system zstd library: apt-get install libzstd-dev"
#endif
