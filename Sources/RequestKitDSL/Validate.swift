import RequestKitModel

/// Says which responses count as success. Without one, a request accepts 200..<300.
///
/// The convenience calls (`data()`, `string()`, `value()`, the callbacks) throw or report a ``RequestError``
/// for a response that fails. A status set replaces the previous one; custom checks add up.
///
/// ```swift
/// Validate(200..<400)
/// Validate([200, 304])
/// Validate(.none)                                     // accept every status
/// Validate { response in response.contentType?.isJSON == true }
/// ```
public struct Validate: RequestComponent {
    private enum Rule: Sendable {
        case statuses(Set<Int>?)
        case replace(Validation)
        case check(@Sendable (Response) async throws -> Void)
    }

    private let rule: Rule

    /// Accepts the statuses in a range.
    ///
    /// ```swift
    /// Validate(200..<300)
    /// ```
    public init(_ statuses: Range<Int>) { rule = .statuses(Set(statuses)) }

    /// Accepts the statuses in a closed range.
    ///
    /// ```swift
    /// Validate(200...299)
    /// ```
    public init(_ statuses: ClosedRange<Int>) { rule = .statuses(Set(statuses)) }

    /// Accepts the listed statuses.
    ///
    /// ```swift
    /// Validate([200, 201, 204])
    /// ```
    public init(_ statuses: Set<Int>) { rule = .statuses(statuses) }

    /// Replaces the whole validation, for example with `.none` to accept every response.
    ///
    /// ```swift
    /// Validate(.none)
    /// ```
    public init(_ validation: Validation) { rule = .replace(validation) }

    /// Adds a check that accepts a response by returning true.
    ///
    /// ```swift
    /// Validate { response in response.headers["X-Version"] == "2" }
    /// ```
    public init(_ check: @escaping @Sendable (Response) async -> Bool) {
        rule = .check { response in
            guard await check(response) else {
                throw ValidationRejection(description: "a custom check rejected the response (\(response.status))")
            }
        }
    }

    /// Adds a check that rejects a response by throwing.
    ///
    /// ```swift
    /// Validate(throwing: { response in if response.body.isEmpty { throw EmptyBody() } })
    /// ```
    public init(throwing check: @escaping @Sendable (Response) async throws -> Void) {
        rule = .check(check)
    }

    /// Requires the response's `Content-Type` to have this essence (parameters are ignored).
    ///
    /// ```swift
    /// Validate(contentType: .json)
    /// ```
    public init(contentType: MediaType) {
        rule = .check { response in
            guard let actual = response.contentType, actual.essence == contentType.essence else {
                let actual = response.headers["Content-Type"] ?? "none"
                throw ValidationRejection(description: "expected Content-Type \(contentType.essence), got \(actual)")
            }
        }
    }

    public func apply(to parts: inout RequestParts) {
        switch rule {
        case .statuses(let statuses): parts.validation.acceptableStatuses = statuses
        case .replace(let validation): parts.validation = validation
        case .check(let check): parts.validation = parts.validation.adding(check)
        }
    }
}
