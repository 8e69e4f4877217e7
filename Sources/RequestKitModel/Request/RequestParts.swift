import Foundation

/// The request being built: every component changes this one value, in the order the components are written.
///
/// Custom components read and write its properties; building the request (``Request/urlRequest()``)
/// validates the result and turns it into a `URLRequest`.
///
/// ```swift
/// struct Traced: RequestComponent {
///     func apply(to parts: inout RequestParts) {
///         parts.headers.set("X-Trace-ID", UUID().uuidString)
///     }
/// }
/// ```
public struct RequestParts: Sendable {
    /// The URL set by `Url`, absolute or (with a client's base URL) relative.
    public var url: URL?
    /// How many `Url` components applied; more than one is a problem.
    package var urlCount = 0
    /// Path segments appended by `Path`, already percent-encoded.
    public var pathSegments: [String] = []
    /// Query items added by `Query`, in order, not yet encoded.
    public var queryItems: [QueryItem] = []
    /// The request method; GET unless a `Method` says otherwise.
    public var method: HTTPMethod = .get
    /// The headers, validated when the request is built.
    public var headers = HTTPHeaders()
    /// The body, if any.
    public var body: RequestBody?
    /// The idle timeout in seconds: the longest wait for the next bytes.
    public var timeout: Double?
    /// The total deadline in seconds for the whole exchange, including redirects and retries.
    public var resourceTimeout: Double?
    /// Which responses count as success.
    public var validation = Validation.successfulStatus
    /// The transport that sends this request; the shared URLSession transport when nil.
    public var transport: (any Transport)?
    /// Every problem reported so far.
    public private(set) var problems: [RequestProblem] = []
    // Reachable from inlined code: the option subscript is specialised in every layer that reads an option. A
    // request sets a handful of options (a client's configuration a dozen), so they are found by comparing their
    // keys in order: a dictionary hashed the key on every read (1,350 of a memory cache hit's instructions went to
    // hashing), and allocated and grew its storage as options were set.
    @usableFromInline var options: [OptionEntry] = []

    /// Creates empty parts: a GET with no URL.
    ///
    /// ```swift
    /// var parts = RequestParts()
    /// Url("http://127.0.0.1:8080").apply(to: &parts)
    /// ```
    public init() {}

    /// Records a problem; it is reported, with every other, when the request is built.
    ///
    /// ```swift
    /// parts.report(RequestProblem(.invalidComponent, "page must be positive"))
    /// ```
    public mutating func report(_ problem: RequestProblem) {
        problems.append(problem)
    }

    /// Whether any option is set: a request with none has every option at its default.
    package var hasOptions: Bool { !options.isEmpty }

    /// Whether a component set the option of `key`: one nobody set reads as its default, so a caller whose test
    /// holds for the default need not read (or copy) the value.
    package func hasOption<Key: RequestOptionKey>(_ key: Key.Type) -> Bool {
        let identifier = ObjectIdentifier(key)
        var index = 0
        while index < options.count {
            if options[index].key == identifier { return true }
            index += 1
        }
        return false
    }

    /// A typed option stored with the request, for components and features that need their own settings.
    ///
    /// ```swift
    /// enum TraceKey: RequestOptionKey { static let defaultValue = false }
    /// parts[option: TraceKey.self] = true
    /// ```
    @inlinable  // Read by every layer on every request: unspecialised, each read looks up generic metadata.
    public subscript<Key: RequestOptionKey>(option key: Key.Type) -> Key.Value {
        get {
            let identifier = ObjectIdentifier(key)
            // By index, so that only the key of each entry is read: iterating copied every entry's value. An
            // option nobody set costs no dynamic cast.
            var index = 0
            while index < options.count {
                if options[index].key == identifier { return options[index].value as? Key.Value ?? Key.defaultValue }
                index += 1
            }
            return Key.defaultValue
        }
        set {
            let identifier = ObjectIdentifier(key)
            if let index = options.firstIndex(where: { $0.key == identifier }) {
                options[index].value = newValue
            } else {
                options.append(OptionEntry(key: identifier, value: newValue))
            }
        }
    }

    /// One option set on a request: its key's type and its value.
    @usableFromInline
    struct OptionEntry: Sendable {
        @usableFromInline let key: ObjectIdentifier
        @usableFromInline var value: any Sendable

        @usableFromInline
        init(key: ObjectIdentifier, value: any Sendable) {
            self.key = key
            self.value = value
        }
    }
}

/// The key of a typed option stored in ``RequestParts``.
///
/// ```swift
/// enum RetryCountKey: RequestOptionKey { static let defaultValue = 0 }
/// ```
public protocol RequestOptionKey {
    /// The option's type.
    associatedtype Value: Sendable
    /// The value when no component set one.
    static var defaultValue: Value { get }
}

/// One query item: a name and an optional value, not yet percent-encoded.
///
/// A nil value is sent as a bare name (`?flag`).
///
/// ```swift
/// parts.queryItems.append(QueryItem(name: "page", value: "2"))
/// ```
public struct QueryItem: Sendable, Hashable {
    /// The name.
    public var name: String
    /// The value, or nil for a bare name.
    public var value: String?

    /// Creates a query item.
    ///
    /// ```swift
    /// let item = QueryItem(name: "flag", value: nil)
    /// ```
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
