import Foundation
import RequestKitModel

/// The handlers a request runs when it is sent with `call()`, and how it decodes error bodies.
///
/// Most requests have none, and a ``Request`` is copied on every send: the handlers live in one allocation, made
/// when the first is added, so copying a request without them copies one empty reference.
package struct Callbacks: Sendable {
    private var storage: Storage?

    package init() {}

    package var statusCode: [@Sendable (Int) -> Void] {
        get { storage?.statusCode ?? [] }
        set { uniqueStorage().statusCode = newValue }
    }
    package var response: [@Sendable (Response) throws(RequestError) -> Void] {
        get { storage?.response ?? [] }
        set { uniqueStorage().response = newValue }
    }
    package var error: [@Sendable (RequestError) -> Void] {
        get { storage?.error ?? [] }
        set { uniqueStorage().error = newValue }
    }
    package var errorBodyDecoder: (@Sendable (Data) -> (any Sendable)?)? {
        get { storage?.errorBodyDecoder }
        set { uniqueStorage().errorBodyDecoder = newValue }
    }

    /// The storage, made or copied first when absent or shared, so that changing these callbacks changes no other.
    private mutating func uniqueStorage() -> Storage {
        if isKnownUniquelyReferenced(&storage), let current = storage { return current }
        let unique = storage?.copy() ?? Storage()
        storage = unique
        return unique
    }

    /// The handlers. Changed only through ``uniqueStorage()``, that is, while one `Callbacks` alone holds them.
    private final class Storage: @unchecked Sendable {
        var statusCode: [@Sendable (Int) -> Void] = []
        var response: [@Sendable (Response) throws(RequestError) -> Void] = []
        var error: [@Sendable (RequestError) -> Void] = []
        var errorBodyDecoder: (@Sendable (Data) -> (any Sendable)?)?

        func copy() -> Storage {
            let copy = Storage()
            copy.statusCode = statusCode
            copy.response = response
            copy.error = error
            copy.errorBodyDecoder = errorBodyDecoder
            return copy
        }
    }

    /// The error with the decoded error body attached, when a decoder is set and the body decodes.
    package func attachingErrorBody(to error: RequestError) -> RequestError {
        guard let decode = errorBodyDecoder, let body = error.responseBody,
            let decoded = decode(body)
        else { return error }
        var copy = error
        copy.decodedErrorBody = decoded
        return copy
    }
}
