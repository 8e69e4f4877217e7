// Atomic operations on a plain 64-bit word, for the native transport's lock-free handoffs. Swift's own `Atomic`
// needs macOS 15 and iOS 18, above the package's minimum; these compile to the same instructions everywhere.
#ifndef REQUESTKIT_CATOMICS_H
#define REQUESTKIT_CATOMICS_H

#include <stdbool.h>
#include <stdint.h>

static inline uint64_t requestkit_atomic_load(uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline void requestkit_atomic_store(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

static inline bool requestkit_atomic_compare_exchange(uint64_t *word, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static inline uint64_t requestkit_atomic_add(uint64_t *word, uint64_t amount) {
    return __atomic_add_fetch(word, amount, __ATOMIC_RELAXED);
}

#endif
