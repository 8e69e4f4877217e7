#if os(Linux)
import Foundation
import Glibc

/// Limits a (child) process's address space, so that the system refuses new thread stacks: how tests make
/// `pthread_create` fail.
package enum AddressSpaceLimit {
    /// Whether the limit can be used here: not under the thread sanitizer, which needs terabytes of address space
    /// for its shadow memory and ends the process when it cannot map more.
    package static let isUsable: Bool = {
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        return dlsym(program, "__tsan_init") == nil
    }()

    /// Limits the address space to what the process maps now plus `headroom` bytes.
    ///
    /// - Returns: Whether the limit was set.
    package static func restrict(headroom: Int) -> Bool {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        guard let pages = statm.split(separator: " ").first.flatMap({ Int($0) }) else { return false }
        var limit = rlimit(rlim_cur: rlim_t(pages * Int(getpagesize()) + headroom), rlim_max: rlim_t.max)
        return setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0
    }
}
#endif
