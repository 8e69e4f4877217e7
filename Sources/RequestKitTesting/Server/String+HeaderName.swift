import Foundation

extension String {
    /// Whether two ASCII header names are equal ignoring case.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
