import Foundation
import RequestKitModel

extension HTTP1ConnectionStateMachine.Failure {
    /// The error this failure stands for when the event that led to it carried none.
    var error: any Error {
        switch self {
        case .closedBeforeResponse: ExchangeFailure.closedBeforeResponse(nil)
        case .truncatedHead: HTTP1ParseError.truncatedHead
        case .truncatedBody: HTTP1ParseError.truncatedBody
        case .unconfirmedEnd: HTTP1ParseError.unconfirmedEnd
        case .tooManyInformationalResponses: HTTP1ParseError.tooManyInformationalResponses
        case .switchedProtocols: HTTP1ParseError.switchedProtocols
        case .timedOut: NetworkSocket.Failure.timedOut
        case .cancelled: CancellationError()
        case .error: ExchangeFailure.closedBeforeResponse(nil)
        case .unexpected(let what):
            RequestError.transport(POSIXError(.EPROTO), detail: "the HTTP/1.1 connection could not go on: \(what)")
        }
    }
}
