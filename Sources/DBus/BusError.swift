// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Glibc

/// A failure of the bus itself, as sd-bus reports it: a negative errno, kept here positive. Static members name
/// the ones callers tell apart; any other errno still prints its C name's text.
public struct BusError: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The errno value (positive).
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// sd-bus returns `-errno`; this takes that return value.
    init(returned value: Int32) {
        rawValue = value < 0 ? -value : value
    }

    /// The bus socket does not exist: no D-Bus on this machine (or not yet). ENOENT.
    public static let noSocket = BusError(rawValue: ENOENT)
    /// Nobody listens on the bus socket. ECONNREFUSED.
    public static let connectionRefused = BusError(rawValue: ECONNREFUSED)
    /// The bus went away: the daemon stopped or restarted. ECONNRESET.
    public static let connectionReset = BusError(rawValue: ECONNRESET)
    /// The connection is closed. ENOTCONN.
    public static let notConnected = BusError(rawValue: ENOTCONN)
    /// No reply within the call's timeout. ETIMEDOUT.
    public static let timedOut = BusError(rawValue: ETIMEDOUT)
    /// The bus refused us. EACCES.
    public static let permissionDenied = BusError(rawValue: EACCES)
    /// A message had another shape than expected. EBADMSG.
    public static let badMessage = BusError(rawValue: EBADMSG)
    /// An argument (address, match rule, name) was not valid. EINVAL.
    public static let invalidArgument = BusError(rawValue: EINVAL)

    /// The bus is gone for good: the connection must be opened again.
    public var isDisconnect: Bool {
        self == .connectionReset || self == .notConnected || rawValue == EPIPE || rawValue == ESHUTDOWN
    }

    public var description: String {
        String(cString: strerror(rawValue))
    }
}

/// Why a method call failed: the bus, or the peer's own error reply.
public enum BusCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bus failed (or the call timed out).
    case bus(BusError)
    /// The peer (or the bus daemon for it) answered with a D-Bus error, such as
    /// org.freedesktop.DBus.Error.ServiceUnknown.
    case errorReply(name: String, message: String)

    /// The name has no owner (the service is not running, and we never start one).
    public var isServiceAbsent: Bool {
        guard case .errorReply(let name, _) = self else { return false }
        return name == "org.freedesktop.DBus.Error.ServiceUnknown"
            || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    /// The service runs but has not exported the object yet (it takes its name first, then builds its objects).
    public var isObjectAbsent: Bool {
        guard case .errorReply(let name, _) = self else { return false }
        return name == "org.freedesktop.DBus.Error.UnknownObject" || name == "org.freedesktop.DBus.Error.UnknownMethod"
    }

    public var description: String {
        switch self {
        case .bus(let error): return "bus: \(error)"
        case .errorReply(let name, let message): return "\(name): \(message)"
        }
    }
}
