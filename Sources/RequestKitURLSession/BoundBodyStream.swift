import Foundation
import RequestKitModel

#if !canImport(FoundationNetworking)
/// On Apple platforms: a bound stream pair whose input side is URLSession's `httpBodyStream`, fed by a thread
/// that copies a ``RequestBodyReader`` into the output side (URLSession does not accept `InputStream`
/// subclasses). The bound buffer, 64 KiB, keeps memory bounded.
enum BoundBodyStream {
    /// An input stream that yields the reader's bytes.
    static func make(reader: RequestBodyReader) -> InputStream? {
        var input: InputStream?
        var output: OutputStream?
        Stream.getBoundStreams(withBufferSize: 64 * 1024, inputStream: &input, outputStream: &output)
        guard let input, let output else { return nil }
        let pump = Pump(reader: reader, output: output)
        let thread = Thread { pump.run() }
        thread.name = "RequestKit.BodyStream"
        thread.start()
        return input
    }

    /// Copies the reader into the output stream on its own thread.
    private final class Pump: @unchecked Sendable {
        // Safe: after creation, only the pump's thread touches the reader and the output stream.
        let reader: RequestBodyReader
        let output: OutputStream

        init(reader: RequestBodyReader, output: OutputStream) {
            self.reader = reader
            self.output = output
        }

        func run() {
            output.open()
            defer { output.close() }
            while let block = try? reader.read(upTo: 64 * 1024) {
                var offset = 0
                while offset < block.count {
                    let written = block.withUnsafeBytes { bytes -> Int in
                        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return -1 }
                        return output.write(base + offset, maxLength: block.count - offset)
                    }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }
}
#endif
