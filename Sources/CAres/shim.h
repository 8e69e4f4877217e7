#if __has_include(<ares.h>)
#include <ares.h>
#else
#error "RequestKit resolves host names with the system c-ares library on Linux: apt-get install libc-ares-dev"
#endif
