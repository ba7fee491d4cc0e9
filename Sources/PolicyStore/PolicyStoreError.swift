// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// Why the policy store could not do what it was asked. Every case names the file, so a log line stands alone.
public enum PolicyStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the store was doing when a system call failed.
    public enum Operation: String, Sendable, Hashable {
        case open, read, write, fsync, rename, link, remove
        case createDirectory = "create the directory"
        case listDirectory = "list the directory"
        case inspect = "inspect"
    }

    /// A system call failed on `path` with `errno`.
    case system(Operation, path: String, errno: Int32)
    /// Saving was refused to protect a file this pathmond cannot read: the file and why.
    case refused(path: String, reason: String)

    /// The file or directory concerned.
    public var path: String {
        switch self {
        case .system(_, let path, _), .refused(let path, _): return path
        }
    }

    /// The system's error number, when a system call failed.
    public var errno: Int32? {
        if case .system(_, _, let number) = self { return number }
        return nil
    }

    public var description: String {
        switch self {
        case .system(let operation, let path, let number):
            return "could not \(operation.rawValue) \(path): \(Self.message(for: number))"
        case .refused(let path, let reason):
            return "policy changes are not saved: \(path) \(reason)"
        }
    }

    /// The C library's sentence for an error number, and the number for searching.
    static func message(for number: Int32) -> String {
        #if canImport(Glibc)
            // glibc's strerror returns static strings for known numbers; the text is copied at once.
            return "\(String(cString: strerror(number))) (errno \(number))"
        #else
            return "errno \(number)"
        #endif
    }
}
