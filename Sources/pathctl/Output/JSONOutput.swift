#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// JSON for scripts: sorted keys so output is stable from run to run.
enum JSONOutput {
    static func encode<Value: Encodable>(_ value: Value, pretty: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys]
        // Our own Codable values of strings, numbers and booleans always encode.
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    writeLine(message, to: STDERR_FILENO)
}

/// Writes a whole line straight to a file descriptor: unbuffered, so `pathctl monitor | grep` sees each change
/// as it happens.
func writeLine(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}
