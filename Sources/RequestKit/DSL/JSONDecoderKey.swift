import Foundation

/// The decoder `decode(_:)` uses when the call names none: a client's.
enum JSONDecoderKey: RequestOptionKey {
    static let defaultValue: JSONDecoder? = nil
}
