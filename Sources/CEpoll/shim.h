// epoll and eventfd for HTTP1Transport's event loop on Linux; empty elsewhere (Apple platforms use kqueue).
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
