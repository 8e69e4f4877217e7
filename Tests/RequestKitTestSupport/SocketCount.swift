import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Counts this process's sockets connected to a port, matching `/proc/self/fd` socket inodes with the
/// connections listed in `/proc/net/tcp` and `/proc/net/tcp6`, so other suites' sockets are never counted.
package func socketsConnected(toPort port: Int) -> Int {
    let fdDirectory = "/proc/self/fd"
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { return -1 }
    var inodes = Set<String>()
    for entry in entries {
        var link = [CChar](repeating: 0, count: 256)
        let length = readlink("\(fdDirectory)/\(entry)", &link, link.count - 1)
        guard length > 0 else { continue }
        let target = String(decoding: link[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard target.hasPrefix("socket:[") else { continue }
        inodes.insert(String(target.dropFirst(8).dropLast()))
    }
    let portSuffix = ":" + String(format: "%04X", port)
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file.
        guard let handle = FileHandle(forReadingAtPath: table) else { continue }
        let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        try? handle.close()
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ")
            guard columns.count > 9, columns[2].hasSuffix(portSuffix), inodes.contains(String(columns[9])) else {
                continue
            }
            count += 1
        }
    }
    return count
}
