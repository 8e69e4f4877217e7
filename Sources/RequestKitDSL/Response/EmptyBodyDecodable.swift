/// A `Decodable` type with a value for an empty body, so a `204` or an empty `200` decodes instead of failing.
///
/// ```swift
/// struct Ack: Decodable, EmptyBodyDecodable {
///     var ok = true
///     static var emptyValue: Ack { Ack() }
/// }
/// ```
public protocol EmptyBodyDecodable: Decodable {
    /// The value an empty body decodes to.
    static var emptyValue: Self { get }
}
