import RequestKitModel

/// The handlers a group runs when it is sent with `call()`.
struct GroupCallbacks: Sendable {
    var response: [@Sendable (Int, Response) throws(RequestError) -> Void] = []
    var error: [@Sendable (Int, RequestError) -> Void] = []
    var complete: [@Sendable ([Result<Response, RequestError>]) -> Void] = []
}
