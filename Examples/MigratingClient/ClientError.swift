// SPDX-License-Identifier: Apache-2.0
import PathMonitor

#if canImport(Glibc)
    import Glibc
#endif

/// Why the client could not do something; each says what happened in words a user can act on.
enum ClientError: Error, CustomStringConvertible {
    /// A socket call failed, with its errno.
    case system(operation: String, errno: Int32)
    /// The connection did not complete within the time allowed.
    case timedOut(Duration)
    /// The client is stopping; the work was abandoned.
    case cancelled
    /// The interface has no usable address of the server's family to send from.
    case noSourceAddress(interface: String)
    /// pathmond could not be asked.
    case daemon(PathmondClientError)
    /// The connection could not be described to pathmond.
    case unwatchable(FlowDescriptionError)

    var description: String {
        switch self {
        case .system(let operation, let code): return "\(operation): \(String(cString: strerror(code)))"
        case .timedOut(let timeout): return "no answer within \(timeout)"
        case .cancelled: return "cancelled"
        case .noSourceAddress(let interface): return "\(interface) has no usable address to connect from"
        case .daemon(let error): return "pathmond: \(error)"
        case .unwatchable(let error): return "cannot watch the connection: \(error)"
        }
    }
}
