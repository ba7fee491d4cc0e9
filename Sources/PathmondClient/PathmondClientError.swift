// SPDX-License-Identifier: Apache-2.0
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Why a call to pathmond failed.
public enum PathmondClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing listens on the socket: pathmond is not running, or the path is wrong.
    case daemonNotRunning(socketPath: String)
    /// The socket exists but this user may not connect to it.
    case permissionDenied(socketPath: String)
    /// Another system error, with its errno.
    case system(operation: String, errno: Int32)
    /// pathmond closed the connection.
    case disconnected
    /// Something listens on the socket but did not answer in time: not pathmond, or a daemon that is stuck.
    case timedOut(socketPath: String)
    /// pathmond sent something this library cannot read.
    case invalidReply(String)
    /// pathmond answered with a Varlink error.
    case remote(VarlinkError)

    public var description: String {
        switch self {
        case .daemonNotRunning(let path):
            return "pathmond is not running (nothing listens on \(path))"
        case .permissionDenied(let path):
            return "permission denied connecting to \(path)"
        case .system(let operation, let code):
            return "\(operation) failed: \(String(cString: strerror(code)))"
        case .disconnected:
            return "pathmond closed the connection"
        case .timedOut(let path):
            return "no answer on \(path): is that pathmond's socket?"
        case .invalidReply(let detail):
            return "unreadable reply from pathmond: \(detail)"
        case .remote(let error):
            // pathmond's own errors are sentences; the generic Varlink ones are names, so say who gave them.
            return error.name.hasPrefix("io.pathmond.") ? error.description : "pathmond refused the call: \(error)"
        }
    }
}
