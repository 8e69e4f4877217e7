import Foundation
import RequestKitJSON
import RequestKitModel

/// JSON redaction for RequestKitModel's descriptions, `cURL`, logs and secrets, which read JSON bodies through this
/// conformance: the model does not link the JSON library.
extension JSONBodies: JSONBodyRedacting {
    package static func redactingMembers(
        of body: Data, by sensitive: SensitiveData, secrets: inout SensitiveData.Secrets
    ) -> Data? {
        guard let json = try? Json(parsing: body) else { return nil }
        let redacted = redactingMembers(of: json, by: sensitive, secrets: &secrets)
        return redacted == json ? nil : redacted.serializedData()
    }

    package static func compactText(of body: Data) -> String? {
        (try? Json(parsing: body))?.serializedString()
    }

    package static func parsingFailure(_ error: any Error) -> String? {
        (error as? JsonParsingError).map { "\($0)" }
    }

    private static func redactingMembers(
        of json: Json, by sensitive: SensitiveData, secrets: inout SensitiveData.Secrets
    ) -> Json {
        if let entries = json.entries {
            return Json(
                entries: entries.map { entry -> (String, Json) in
                    guard sensitive.isSensitive(member: entry.key), !entry.value.isNull else {
                        return (entry.key, redactingMembers(of: entry.value, by: sensitive, secrets: &secrets))
                    }
                    collectStrings(in: entry.value, into: &secrets)
                    return (entry.key, Json(string: SensitiveData.placeholder))
                })
        }
        if let elements = json.array {
            return Json(elements.map { redactingMembers(of: $0, by: sensitive, secrets: &secrets) })
        }
        return json
    }

    /// Every string and number in `json`, as secrets: the value of a sensitive member, however it is shaped.
    private static func collectStrings(in json: Json, into secrets: inout SensitiveData.Secrets) {
        if let string = json.string {
            secrets.insert(credentials: string)
        } else if let entries = json.entries {
            for entry in entries { collectStrings(in: entry.value, into: &secrets) }
        } else if let elements = json.array {
            for element in elements { collectStrings(in: element, into: &secrets) }
        } else if !json.isNull, json.bool == nil {
            secrets.insert(json.serializedString())
        }
    }
}
