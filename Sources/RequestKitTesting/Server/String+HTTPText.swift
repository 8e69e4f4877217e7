import Foundation

extension String {
    /// Whether two ASCII header names are equal ignoring case.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }

    /// The text of `bytes` when they are valid UTF-8, otherwise `nil`.
    init?(validatingUTF8Bytes bytes: ArraySlice<UInt8>) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput:
                self.init(scalars)
                return
            case .error: return nil
            }
        }
    }
}
