import Foundation

/// A content coding (RFC 9110 §8.4.1) that a request body can be compressed with: the token sent as
/// `Content-Encoding`.
///
/// `gzip` and `deflate` are available everywhere; `br` and `zstd` where RequestKit links the system brotli and zstd
/// libraries (Linux). ``isAvailable`` says which.
///
/// ```swift
/// Body(report).compressed(.gzip)
/// if ContentCoding.zstd.isAvailable { … }
/// ```
public struct ContentCoding: Sendable, Hashable, CustomStringConvertible {
    /// The coding's token, as written in `Content-Encoding` and `Accept-Encoding`.
    public let name: String

    private init(name: String) { self.name = name }

    /// gzip (RFC 1952), through the system zlib.
    ///
    /// ```swift
    /// Body(logLines).compressed(.gzip)
    /// ```
    public static let gzip = Self(name: "gzip")

    /// deflate in the zlib format (RFC 1950), through the system zlib.
    ///
    /// ```swift
    /// Body(logLines).compressed(.deflate)
    /// ```
    public static let deflate = Self(name: "deflate")

    /// Brotli (RFC 7932), token `br`, through the system libbrotlienc: Linux only.
    ///
    /// ```swift
    /// Body(logLines).compressed(.brotli)
    /// ```
    public static let brotli = Self(name: "br")

    /// Zstandard (RFC 8878), token `zstd`, through the system libzstd: Linux only.
    ///
    /// ```swift
    /// Body(logLines).compressed(.zstd)
    /// ```
    public static let zstd = Self(name: "zstd")

    /// Whether this platform's RequestKit can compress with the coding.
    ///
    /// ```swift
    /// let coding: ContentCoding = ContentCoding.zstd.isAvailable ? .zstd : .gzip
    /// ```
    public var isAvailable: Bool { ContentCompressor.isAvailable(self) }

    /// The token.
    public var description: String { name }
}
