import Foundation
import RequestKitModel

/// A request as a ``ResponseCache`` sees it: the method, the URL without its fragment (the primary key, RFC 9111
/// §4), the digest of its credentials when its responses are kept for them alone, the header fields, the request's
/// `Cache-Control` directives (looked up once) and the ``CachePolicy`` rule.
///
/// ```swift
/// let request = CacheRequest(method: "GET", url: url, headers: ["Accept": "application/json"])
/// #expect(request.key == url.absoluteString)
/// ```
package struct CacheRequest: Sendable {
    let method: String
    package let url: URL
    let headers: HTTPHeaders
    /// The request's `Cache-Control` directives.
    let directives: CacheDirectives
    let rule: CachePolicy.Rule
    /// The URL without its fragment: the key of every response stored for it, whatever the credentials.
    package let urlKey: String
    /// The key the request's responses are stored under: ``urlKey``, then a space and the digest of the request's
    /// credentials when it has any and the cache keeps responses for their credentials (a URL's text has no space).
    package let key: String

    package init(
        method: String, url: URL, headers: HTTPHeaders, rule: CachePolicy.Rule = .useProtocol,
        credentials: CredentialDigest? = nil
    ) {
        self.method = Self.uppercased(method)
        self.url = url
        self.headers = headers
        self.rule = rule
        directives = CacheDirectives(headers)
        let urlKey = Self.key(for: url)
        self.urlKey = urlKey
        if let credentials { key = urlKey + " " + credentials.hex } else { key = urlKey }
    }

    /// The URL part of a key (``key``): all of it, or what comes before the credentials' digest.
    static func urlKey(of key: String) -> Substring {
        key.firstIndex(of: " ").map { key[..<$0] } ?? key[...]
    }

    /// `method` in upper case: as it is when it is ASCII without a lower-case letter (the usual case, which
    /// `uppercased()` would copy), else `uppercased()`.
    static func uppercased(_ method: String) -> String {
        // The methods a cache looks up, compared whole: walking their bytes cost a hit some 150 instructions.
        if method == "GET" || method == "HEAD" { return method }
        let isUpperCaseASCII = method.utf8.allSatisfy {
            $0 < 0x80 && !($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
        }
        return isUpperCaseASCII ? method : method.uppercased()
    }

    /// The primary key of `url`: the absolute URL without a fragment.
    static func key(for url: URL) -> String {
        var text = url.absoluteString
        // Searched in the contiguous bytes: by `Character` (or through `utf8`'s indices) the search cost a memory
        // hit some 8,800 (or 700) instructions, on every lookup.
        let withoutFragment = text.withUTF8 { bytes -> String? in
            guard let hash = bytes.firstIndex(of: UInt8(ascii: "#")) else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<hash]), as: UTF8.self)
        }
        return withoutFragment ?? text
    }

    /// Whether the cache may answer this request from storage: GET, or HEAD (answered by a stored GET).
    package var isLookupMethod: Bool { method == "GET" || method == "HEAD" }

    /// Whether a response to this request may be stored: GET, or POST (only with explicit freshness and a
    /// `Content-Location` naming the request's URL, which ``CacheStorability`` checks; RFC 9110 §9.3.3).
    var isStorableMethod: Bool { method == "GET" || method == "POST" }

    /// Whether the method is unsafe, so a success invalidates what is stored for the URL (RFC 9111 §4.4).
    var isUnsafe: Bool { !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method) }

    /// Whether the request carries its own preconditions (`If-None-Match`, `If-Modified-Since`, …), which the
    /// cache evaluates against a fresh stored response or passes on to the server.
    package var isConditional: Bool {
        headers.contains("If-None-Match") || headers.contains("If-Modified-Since")
            || headers.contains("If-Match") || headers.contains("If-Unmodified-Since") || headers.contains("If-Range")
    }

    /// The request fields whose values compare without regard to case: language tags and coding names.
    static let caseInsensitiveFields: Set<String> = ["accept-language", "accept-encoding", "accept-charset"]

    /// The value of the fields named `name` as a secondary key compares them: joined by commas, with the
    /// whitespace around each value removed, lower-cased for ``caseInsensitiveFields`` (RFC 9111 §4.1), and for
    /// `Accept-Language` its ranges in order of weight and name (``LanguagePreferences``); nil when absent.
    func normalizedValue(of name: String) -> String? {
        let values = headers.values(for: name)
        guard !values.isEmpty else { return nil }
        let joined = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: ",")
        let lowered = name.lowercased()
        if lowered == "accept-language", let preferences = LanguagePreferences(joined) {
            return preferences.normalized
        }
        return Self.caseInsensitiveFields.contains(lowered) ? joined.lowercased() : joined
    }

    /// Whether the server would select `contentLanguage` for this request: it is the one language range the
    /// request weights above every other (`fr;q=0.5, de` selects a stored `Content-Language: de`).
    func selectsLanguage(_ contentLanguage: String) -> Bool {
        let values = headers.values(for: "Accept-Language")
        guard !values.isEmpty, let favourite = LanguagePreferences(values.joined(separator: ","))?.favourite else {
            return false
        }
        let language = contentLanguage.trimmingCharacters(in: .whitespaces).lowercased()
        return favourite != "*" && !language.contains(",") && language == favourite
    }

    /// `max-stale`: how stale a response the request accepts, in seconds; infinity for `max-stale` without a
    /// value or ``CachePolicy/Rule/returnCacheElseLoad``; nil when stale responses are not accepted.
    var maxStale: Double? {
        if rule == .returnCacheElseLoad || rule == .returnCacheDontLoad { return .infinity }
        switch directives.maxStale {
        case .absent, .invalid: return nil
        case .noValue: return .infinity
        case .valid(let seconds): return Double(seconds)
        }
    }

    /// Whether the request forbids going to the network (`only-if-cached`, ``CachePolicy/Rule/returnCacheDontLoad``).
    var isOnlyIfCached: Bool { rule == .returnCacheDontLoad || directives.onlyIfCached }

    /// Whether the request forbids storing its response (`no-store`).
    var forbidsStoring: Bool { directives.noStore }

    /// Whether the request asks for a stored response to be validated first (`no-cache`).
    var requiresValidation: Bool { directives.noCache }
}
