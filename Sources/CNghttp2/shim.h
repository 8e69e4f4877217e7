#if __has_include(<nghttp2/nghttp2.h>)
#include <nghttp2/nghttp2.h>
#else
#error "RequestKit speaks HTTP/2 with the system nghttp2 library: apt-get install libnghttp2-dev"
#endif
