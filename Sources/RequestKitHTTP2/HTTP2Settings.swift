/// What an ``HTTP2Session`` allows the server, announced in its first `SETTINGS` frame, and the limits it holds the
/// server to.
///
/// ```swift
/// var settings = HTTP2Settings()
/// settings.streamWindow = 256 * 1024   // at most 256 KiB of a stream's body unread at once
/// ```
package struct HTTP2Settings: Hashable, Sendable {
    /// The bytes of one stream's body the server may send before the consumer reads them (the stream's flow-control
    /// window: `SETTINGS_INITIAL_WINDOW_SIZE`).
    package var streamWindow = 1024 * 1024
    /// The bytes of all streams' bodies the server may send before they are read (the connection's window).
    package var connectionWindow = 16 * 1024 * 1024
    /// The largest response header list, counted as `SETTINGS_MAX_HEADER_LIST_SIZE` counts it; a larger one resets
    /// its stream with ``HTTP2StreamFailure/headerListTooLarge(limit:)``.
    package var maxHeaderListBytes = 256 * 1024
    /// The most entries one `SETTINGS` frame from the server may carry.
    package var maxSettingsEntries = 32
    /// The most acknowledgements (of the server's PING and SETTINGS frames) waiting to be written: a server that makes
    /// more wait is flooding the connection.
    package var maxPendingAcknowledgements = 1000
    /// The most `CONTINUATION` frames one header block may take.
    package var maxContinuationFrames = 8
    /// The concurrent streams assumed until the server's first `SETTINGS` frame says how many it allows.
    package var assumedMaxConcurrentStreams = 100

    package init() {}
}
