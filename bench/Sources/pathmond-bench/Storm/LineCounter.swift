import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counts the lines a child writes to its pipe (`ip monitor route` prints one per event), on a thread of its own.
final class LineCounter: Sendable {
    private let lines = Atomic<Int>(0)

    init(fd: Int32) {
        startThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                var newlines = 0
                for byte in chunk[..<count] where byte == 0x0a { newlines += 1 }
                lines.add(newlines, ordering: .relaxed)
            }
        }
    }

    var count: Int { lines.load(ordering: .relaxed) }
}
