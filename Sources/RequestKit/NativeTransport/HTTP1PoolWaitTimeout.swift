/// No pooled connection to a host came free within the request's idle timeout.
struct HTTP1PoolWaitTimeout: Error {}
