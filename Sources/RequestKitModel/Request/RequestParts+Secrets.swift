import Foundation

extension RequestParts {
    /// The secrets this request carries, by its ``SensitiveData``: a password and sensitive query values in its URL,
    /// the values of its sensitive fields, and the sensitive members of a body held in memory.
    package var secrets: SensitiveData.Secrets {
        let sensitive = self[option: SensitiveDataKey.self]
        var secrets = SensitiveData.Secrets()
        if let url = try? resolvedURL() { sensitive.collectSecrets(of: url, into: &secrets) }
        sensitive.collectSecrets(of: headers, into: &secrets)
        if let body, body.isInMemory {
            let contentType = headers["Content-Type"] ?? body.contentType?.description
            _ = sensitive.redactingMembers(of: body.data, contentType: contentType, secrets: &secrets)
        }
        return secrets
    }
}
