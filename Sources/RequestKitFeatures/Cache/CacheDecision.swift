import Foundation
import RequestKitModel

/// What a cache does with a request, given the responses stored for its URL (RFC 9111 §4): a pure function of
/// the request, the stored responses and the time, so every rule is tested with tables.
///
/// ```swift
/// switch CacheDecision(for: request, stored: variants, at: now) {
/// case .use(let stored, let status): serve(stored, status)
/// case .validate(let stored, let options): send(conditionalOn: stored)
/// case .forward: send(request)
/// case .unsatisfiable: serve504()
/// }
/// ```
package enum CacheDecision: Sendable, Equatable {
    /// Serve the stored response without contacting the server: ``CacheStatus/hit`` when fresh,
    /// ``CacheStatus/stale`` when the request's `max-stale` accepts it.
    case use(CachedResponse, CacheStatus)
    /// Ask the server whether the stored response is still good (a conditional request, when it has validators).
    case validate(CachedResponse, ValidationOptions)
    /// Nothing stored may answer: send the request as it is.
    case forward
    /// Nothing stored may answer and the request forbids the network (`only-if-cached`).
    case unsatisfiable

    /// What a stale response still allows while it is validated.
    package struct ValidationOptions: Sendable, Equatable {
        /// `stale-while-revalidate` covers it: serve it now and validate in the background.
        package var mayServeWhileRevalidating = false
        /// `stale-if-error` covers it: serve it if the server fails or answers 500, 502, 503 or 504.
        package var mayServeOnError = false

        package init(mayServeWhileRevalidating: Bool = false, mayServeOnError: Bool = false) {
            self.mayServeWhileRevalidating = mayServeWhileRevalidating
            self.mayServeOnError = mayServeOnError
        }
    }

    init(for request: borrowing CacheRequest, stored variants: [CachedResponse], at now: Date) {
        guard request.rule != .reloadIgnoringCache,
            let stored = variants.first(where: { $0.matches(request) }), Self.canAnswerRange(of: request, from: stored)
        else {
            self = request.isOnlyIfCached ? .unsatisfiable : .forward
            return
        }
        let response = stored.directives
        let freshness = Freshness(of: stored, at: now)
        let requestDirectives = request.directives
        let mustValidate = response.noCache || requestDirectives.noCache
        if !mustValidate {
            if Self.isAcceptable(freshness, to: requestDirectives) {
                self = .use(stored, .hit)
                return
            }
            if !freshness.isFresh, !response.mustRevalidate, let maxStale = request.maxStale,
                freshness.staleness <= maxStale, Self.isWithinMaxAge(freshness, requestDirectives)
            {
                self = .use(stored, .stale)
                return
            }
        }
        if request.isOnlyIfCached {
            self = .unsatisfiable
            return
        }
        var options = ValidationOptions()
        if !freshness.isFresh, !response.mustRevalidate {
            if !mustValidate, case .valid(let seconds) = response.staleWhileRevalidate {
                options.mayServeWhileRevalidating = freshness.staleness <= Double(seconds)
            }
            for staleIfError in [response.staleIfError, requestDirectives.staleIfError] {
                if case .valid(let seconds) = staleIfError, freshness.staleness <= Double(seconds) {
                    options.mayServeOnError = true
                }
            }
        }
        self = .validate(stored, options)
    }

    /// Whether `stored` can answer the request's `Range` (none, or one range of a complete `200` within its body):
    /// any other range request goes to the server.
    private static func canAnswerRange(of request: CacheRequest, from stored: CachedResponse) -> Bool {
        guard let range = request.headers["Range"] else { return true }
        return stored.status == 200 && !request.headers.contains("If-Range")
            && ByteRange(range, length: stored.body.count) != nil
    }

    /// Whether a fresh response also meets the request's `max-age` and `min-fresh`.
    private static func isAcceptable(_ freshness: Freshness, to directives: CacheDirectives) -> Bool {
        guard freshness.isFresh, isWithinMaxAge(freshness, directives) else { return false }
        switch directives.minFresh {
        case .valid(let seconds): return freshness.lifetime - freshness.age >= Double(seconds)
        case .invalid, .noValue: return false
        case .absent: return true
        }
    }

    private static func isWithinMaxAge(_ freshness: Freshness, _ directives: CacheDirectives) -> Bool {
        switch directives.maxAge {
        case .valid(let seconds): return freshness.age <= Double(seconds)
        case .invalid, .noValue: return false
        case .absent: return true
        }
    }
}
