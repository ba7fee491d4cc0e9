// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A system call on a state file failed: what was being done, to which file, and the errno. Every state file the
/// daemon keeps (policy, history, metrics, deferrals, the SIM-key secret) fails with this, so a log line stands alone.
public struct StateFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done when the call failed.
    public enum Operation: String, Sendable, Hashable {
        case open, create, read, write, fsync, rename, link, remove
        case append = "append to"
        case createDirectory = "create the directory"
        case listDirectory = "list the directory"
        case inspect = "inspect"
    }

    public var operation: Operation
    /// The file or directory concerned.
    public var path: String
    public var errno: Int32

    public init(_ operation: Operation, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String { "could not \(operation.rawValue) \(path): \(Self.message(for: errno))" }

    /// The C library's sentence for an error number, and the number for searching.
    public static func message(for number: Int32) -> String {
        // glibc's strerror returns static strings for known numbers; the text is copied at once.
        "\(String(cString: strerror(number))) (errno \(number))"
    }
}
