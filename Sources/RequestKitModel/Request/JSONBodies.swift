import Foundation

/// What redaction needs of JSON, which RequestKitModel cannot read itself: it does not link the JSON library, so
/// that the transports below it build without one. RequestKitDSL, which has both, conforms ``JSONBodies`` to it.
///
/// The conformance is found at run time (``JSONBodies/redacting``), so there is nothing to set up and nothing to
/// race: conformances are fixed when the binary is linked, and every product of the package links RequestKitDSL.
package protocol JSONBodyRedacting {
    /// `body`, when it is a JSON document, with the value of every member `sensitive` names replaced by the
    /// placeholder at any depth, written compactly; each string and number replaced is added to `secrets`. Nil when
    /// the body is not JSON or holds nothing to redact.
    static func redactingMembers(
        of body: Data, by sensitive: SensitiveData, secrets: inout SensitiveData.Secrets
    ) -> Data?

    /// `body` written compactly when it is a JSON document; nil when it is not.
    static func compactText(of body: Data) -> String?

    /// What a JSON parsing error says, with its line and column; nil for any other error.
    static func parsingFailure(_ error: any Error) -> String?
}

/// The type RequestKitDSL conforms to ``JSONBodyRedacting``.
package enum JSONBodies {
    /// The conformance to ``JSONBodyRedacting``; nil in a binary that does not link RequestKitDSL.
    static var redacting: (any JSONBodyRedacting.Type)? { (Self.self as Any.Type) as? any JSONBodyRedacting.Type }
}
