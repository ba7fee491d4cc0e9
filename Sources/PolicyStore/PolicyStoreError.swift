// SPDX-License-Identifier: Apache-2.0
import StateFiles

/// Why the policy store could not do what it was asked. Every case names the file, so a log line stands alone.
public enum PolicyStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the store was doing when a system call failed.
    public typealias Operation = StateFileError.Operation

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

    /// A failed system call of the state-files layer.
    init(_ error: StateFileError) {
        self = .system(error.operation, path: error.path, errno: error.errno)
    }

    /// The C library's sentence for an error number, and the number for searching.
    static func message(for number: Int32) -> String { StateFileError.message(for: number) }
}
