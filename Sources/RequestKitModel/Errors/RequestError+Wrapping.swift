extension RequestError {
    /// Any error as a ``RequestError``: itself when it is one, `.cancelled` for a `CancellationError`, and a
    /// transport failure wrapping it otherwise.
    package static func wrapping(_ error: any Error) -> RequestError {
        switch error {
        case let error as RequestError: error
        case let error as CancellationError: RequestError.cancelled(underlyingError: error)
        default: RequestError.transport(error)
        }
    }
}
