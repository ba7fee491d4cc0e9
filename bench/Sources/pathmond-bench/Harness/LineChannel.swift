// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Lines over a pair of pipe descriptors, with blocking read(2) and write(2): how the bench and a process it started
/// talk (no stdio buffer, so a line is on its way as soon as it is written).
final class LineChannel {
    let input: Int32
    let output: Int32
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65536)

    init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    /// The next line, without its newline; nil at end of file or on an error.
    func readLine() -> Substring? {
        while true {
            if let end = pending.firstIndex(of: 0x0a) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                return line[...]
            }
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }

    /// Writes `lines`, each followed by a newline, at once; false if the other end is gone.
    @discardableResult
    func write(_ lines: [String]) -> Bool {
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line.utf8
            bytes.append(0x0a)
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    @discardableResult
    func write(_ line: String) -> Bool { write([line]) }
}
