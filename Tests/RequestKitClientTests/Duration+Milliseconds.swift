extension Duration {
    /// The duration in whole milliseconds, rounded, for comparing waits computed from seconds as `Double`.
    var roundedMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + Int64((Double(attoseconds) / 1e15).rounded())
    }
}
