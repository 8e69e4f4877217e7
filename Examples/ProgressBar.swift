import Foundation
import RequestKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Draws a transfer's progress as a person expects: one bar redrawn in place on a terminal, and a plain line
/// at each quarter when the output is a file or a pipe (where carriage returns would garble it).
struct ProgressBar {
    /// Whether standard output is a terminal.
    let isTerminal = isatty(STDOUT_FILENO) == 1
    /// The bar's width in characters.
    let width = 30
    private var nextQuarter = 0

    /// Shows `progress`.
    mutating func show(_ progress: TransferProgress) {
        let fraction = progress.fractionCompleted
        if isTerminal {
            print("\r   " + Self.line(progress, width: width), terminator: "")
            fflush(nil)  // every stream: the bar has no newline to flush it
            return
        }
        let quarter = Int((fraction ?? 0) * 4)
        guard quarter >= nextQuarter else { return }
        nextQuarter = quarter + 1
        print("   " + Self.line(progress, width: width))
    }

    /// Ends the bar: moves a terminal to the next line.
    func finish() {
        if isTerminal { print("") }
    }

    /// `[###############...............]  50%  2.0 of 4.0 MiB`, or the bytes alone when the size is unknown.
    static func line(_ progress: TransferProgress, width: Int) -> String {
        let mebibytes = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1_048_576) }
        guard let fraction = progress.fractionCompleted, let total = progress.totalBytes else {
            return "\(mebibytes(progress.completedBytes)) MiB"
        }
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = String(Int((fraction * 100).rounded(.down))).leftPadded(to: 3)
        return "[\(bar)] \(percent)%  \(mebibytes(progress.completedBytes)) of \(mebibytes(total)) MiB"
    }
}

extension String {
    /// The text with spaces before it, to at least `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
