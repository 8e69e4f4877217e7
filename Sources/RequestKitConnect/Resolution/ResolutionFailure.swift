/// Why a host name did not resolve to addresses of one family: what a ``Resolver`` throws.
///
/// An open set of kinds, so a resolver of your own can name its own reasons.
///
/// ```swift
/// throw ResolutionFailure(.notFound, "no service named \(host) in the registry")
/// ```
public struct ResolutionFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is, for matching in code.
    public var kind: Kind
    /// A sentence a person can act on.
    public var message: String

    /// Creates a failure of a kind with a message.
    ///
    /// ```swift
    /// let failure = ResolutionFailure(.timedOut, "the registry did not answer")
    /// ```
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The kinds of resolution failure.
    ///
    /// ```swift
    /// if failure.kind == .notFound { print("no such host") }
    /// ```
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// A stable name for the kind.
        public let name: String

        /// Creates a kind with a stable name.
        ///
        /// ```swift
        /// let kind = ResolutionFailure.Kind("registryDown")
        /// ```
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// The name does not exist (`NXDOMAIN`, or no entry anywhere the resolver looks).
        public static let notFound = Self("notFound")
        /// The name exists but has no address of the family asked for (no `AAAA` record, say).
        public static let noAddress = Self("noAddress")
        /// No name server answered in time.
        public static let timedOut = Self("timedOut")
        /// The name servers failed or refused to answer (`SERVFAIL`, `REFUSED`), or could not be reached.
        public static let serverFailed = Self("serverFailed")
        /// Anything else: the message says what.
        public static let other = Self("other")
    }
}
