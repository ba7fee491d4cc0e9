// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Why a file could not be replaced or appended to.
struct AtomicFileError: Error, Sendable, CustomStringConvertible {
    var operation: String
    var path: String
    var errno: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
}

/// Replaces a file whole: the bytes go to a temporary file in the same directory, which is renamed over the
/// target, so a reader sees the old file or the new one, never a part (node_exporter's textfile collector and
/// our own loader both rely on it).
enum AtomicFile {
    /// Writes `bytes` to `path` atomically with the given permissions. The temporary file starts with "." and ends
    /// in ".tmp", so globs such as `*.prom` never pick it up. With `sync`, the data reaches the disk before the
    /// rename, and the rename reaches it before this returns (so that appends made to the new file afterwards are
    /// not lost with a directory entry that still names the old one).
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t, sync: Bool = false) throws(AtomicFileError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // A fresh name, created exclusively: the directory may be writable by others (node_exporter's), and a
        // predictable name opened with O_TRUNC would let them plant a link there and have pathmond truncate or
        // fill the file it points at.
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<8 where descriptor < 0 {
            temporary = "\(directory.isEmpty ? "" : directory)/.\(name).\(UInt64.random(in: 0...UInt64.max)).tmp"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
            if descriptor < 0 && errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw AtomicFileError(operation: "create", path: temporary, errno: errno) }
        if let failure = writeAll(bytes, to: descriptor) {
            close(descriptor)
            unlink(temporary)
            throw AtomicFileError(operation: "write", path: temporary, errno: failure)
        }
        // The umask narrowed the mode at creation; the mode must be ours.
        fchmod(descriptor, mode)
        if sync { fsync(descriptor) }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw AtomicFileError(operation: "rename to", path: path, errno: failure)
        }
        if sync { syncDirectory(directory.isEmpty ? "/" : directory) }
    }

    /// Writes every byte, going on after a short write or an interrupted call; the errno of a failure, else nil.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + written, bytes.count - written)  // non-empty here
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? EIO : errno }
            written += count
        }
        return nil
    }

    /// Makes a rename in `directory` durable; best effort (a file system without directory fsync loses nothing
    /// more than the rename's durability).
    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
