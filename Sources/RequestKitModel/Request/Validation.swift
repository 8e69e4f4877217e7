import Foundation

/// Which responses count as success: a set of acceptable statuses plus any custom checks.
///
/// The convenience calls (`data()`, `string()`, `value()`) apply it and throw a ``RequestError`` for a
/// response that fails; `send()` returns every response as it came.
///
/// ```swift
/// Validate(200..<300)
/// Validate(.none)
/// Validate { response in response.headers["Content-Type"] != nil }
/// ```
public struct Validation: Sendable {
    /// The acceptable status codes, or nil to accept every status.
    public var acceptableStatuses: Set<Int>?
    /// Custom checks run after the status check, in order.
    var checks: [@Sendable (Response) async throws -> Void]

    /// Creates a validation accepting `statuses` (nil for any) with no custom checks.
    ///
    /// ```swift
    /// let validation = Validation(acceptableStatuses: [200, 304])
    /// ```
    public init(acceptableStatuses: Set<Int>?) {
        self.acceptableStatuses = acceptableStatuses
        self.checks = []
    }

    /// Accepts 200..<300: the default.
    public static let successfulStatus = Validation(acceptableStatuses: Set(200..<300))

    /// Accepts every response.
    public static let none = Validation(acceptableStatuses: nil)

    /// A copy with one more custom check; a check rejects a response by throwing.
    ///
    /// ```swift
    /// let strict = Validation.successfulStatus.adding { response in
    ///     guard response.contentType?.isJSON == true else { throw MyError.notJSON }
    /// }
    /// ```
    public func adding(_ check: @escaping @Sendable (Response) async throws -> Void) -> Validation {
        var copy = self
        copy.checks.append(check)
        return copy
    }

    /// Checks a response.
    ///
    /// ```swift
    /// try await Validation.successfulStatus.validate(response)
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/unacceptableStatus`` or
    ///   ``RequestError/Kind/validationFailed``, keeping the response.
    @inline(never)  // Inlined, its failure paths would enlarge the frame of every verb that validates.
    public func validate(_ response: Response) async throws(RequestError) {
        if let acceptableStatuses, !acceptableStatuses.contains(response.statusCode) {
            throw RequestError.unacceptableStatus(response)
        }
        for check in checks {
            do {
                try await check(response)
            } catch let error as RequestError {
                throw error
            } catch {
                throw RequestError.validationFailed(response, reason: "\(error)", underlyingError: error)
            }
        }
    }
}

/// The reason a custom validation rejected a response.
package struct ValidationRejection: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}
