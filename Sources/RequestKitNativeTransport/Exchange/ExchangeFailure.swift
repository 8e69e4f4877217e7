import Foundation

/// A connection ended before the server sent any byte of a response: the one failure after which a request
/// may be sent again on a fresh connection.
enum ExchangeFailure: Error, Sendable {
    case closedBeforeResponse(POSIXError?)
}
