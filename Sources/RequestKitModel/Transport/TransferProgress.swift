/// How far a transfer has come: the bytes done and, when known, the total.
///
/// ```swift
/// try await request.download(to: destination) { progress in
///     if let fraction = progress.fractionCompleted { print("\(Int(fraction * 100)) %") }
/// }
/// ```
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes sent or received so far.
    public var completedBytes: Int64
    /// The total bytes expected (from `Content-Length` or the body's length), when known.
    public var totalBytes: Int64?

    /// Creates a progress value.
    ///
    /// ```swift
    /// let progress = TransferProgress(completedBytes: 512, totalBytes: 1024)
    /// ```
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// The fraction done, from 0 to 1, when the total is known (1 for an empty body).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }

    public var description: String {
        totalBytes.map { "\(completedBytes) of \($0) bytes" } ?? "\(completedBytes) bytes"
    }
}
