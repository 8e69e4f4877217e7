import Foundation
import RequestKitModel

/// The decoder `decode(_:)` uses when the call names none: a client's.
package enum JSONDecoderKey: RequestOptionKey {
    package static let defaultValue: JSONDecoder? = nil
}
