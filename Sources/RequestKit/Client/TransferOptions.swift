import Foundation

/// What the transports need to know about the request they send beyond the `URLRequest`: how to handle
/// redirects, the cookie jar whose cookies each redirect stores and sends, and the response limits.
///
/// The executor sets it as a task-local value around each attempt, so the `Transport` protocol stays as it is.
struct TransferOptions: Sendable {
    /// The redirect policy; the transport follows up to 10 redirects when nil.
    var redirects: RedirectPolicy?
    /// The jar that stores cookies set by redirect responses and sends matching cookies along redirects.
    var cookieJar: CookieJar?
    /// The `Cookie` header the request had before the jar's cookies were added.
    var explicitCookies: String?
    /// How large a response may be.
    var limits = ResponseLimits()
    /// The headers a redirect to another origin drops, among others.
    var sensitiveData = SensitiveData()

    /// The options of the attempt the current task is sending.
    @TaskLocal static var current = TransferOptions()
}
