// SPDX-License-Identifier: Apache-2.0
/// The errors pathmond replies with: org.varlink.service's standard ones and io.pathmond's own.
public enum VarlinkError: Error, Sendable, Hashable {
    /// org.varlink.service.InterfaceNotFound.
    case interfaceNotFound(interface: String)
    /// org.varlink.service.MethodNotFound.
    case methodNotFound(method: String)
    /// org.varlink.service.InvalidParameter.
    case invalidParameter(parameter: String)
    /// org.varlink.service.PermissionDenied.
    case permissionDenied
    /// org.varlink.service.ExpectedMore.
    case expectedMore
    /// io.pathmond.ProtocolError: the message was unreadable; the connection closes after it.
    case protocolError(reason: String)
    /// io.pathmond.PermissionDenied: only root and the admin group may change policy.
    case pathmondPermissionDenied(reason: String)
    /// io.pathmond.NoSuchInterface.
    case noSuchInterface(interface: String)
    /// io.pathmond.NetworkNotIdentified: the interface's network is not known yet.
    case networkNotIdentified(interface: String)
    /// io.pathmond.InvalidNetworkKey.
    case invalidNetworkKey(key: String)
    /// io.pathmond.NoSuchNetwork.
    case noSuchNetwork(key: String)
    /// io.pathmond.PolicyNotSaved: the write failed, nothing changed.
    case policyNotSaved(reason: String)
    /// A limit that keeps the daemon fair to everyone was reached (clients in total, ...); try again later.
    case limitReached(reason: String)
    /// An error name this library does not know, with its parameters as text.
    case other(name: String)

    /// The fully qualified Varlink error name.
    public var name: String {
        switch self {
        case .interfaceNotFound: return "org.varlink.service.InterfaceNotFound"
        case .methodNotFound: return "org.varlink.service.MethodNotFound"
        case .invalidParameter: return "org.varlink.service.InvalidParameter"
        case .permissionDenied: return "org.varlink.service.PermissionDenied"
        case .expectedMore: return "org.varlink.service.ExpectedMore"
        case .protocolError: return "io.pathmond.ProtocolError"
        case .pathmondPermissionDenied: return "io.pathmond.PermissionDenied"
        case .noSuchInterface: return "io.pathmond.NoSuchInterface"
        case .networkNotIdentified: return "io.pathmond.NetworkNotIdentified"
        case .invalidNetworkKey: return "io.pathmond.InvalidNetworkKey"
        case .noSuchNetwork: return "io.pathmond.NoSuchNetwork"
        case .policyNotSaved: return "io.pathmond.PolicyNotSaved"
        case .limitReached: return "io.pathmond.LimitReached"
        case .other(let name): return name
        }
    }

    /// The error's parameters as the wire carries them.
    public var parameters: ErrorParameters {
        switch self {
        case .interfaceNotFound(let interface): return ErrorParameters(interface: interface)
        case .methodNotFound(let method): return ErrorParameters(method: method)
        case .invalidParameter(let parameter): return ErrorParameters(parameter: parameter)
        case .protocolError(let reason), .pathmondPermissionDenied(let reason), .policyNotSaved(let reason),
            .limitReached(let reason):
            return ErrorParameters(reason: reason)
        case .noSuchInterface(let interface), .networkNotIdentified(let interface):
            return ErrorParameters(interface: interface)
        case .invalidNetworkKey(let key), .noSuchNetwork(let key): return ErrorParameters(key: key)
        case .permissionDenied, .expectedMore, .other: return ErrorParameters()
        }
    }

    /// Rebuilds an error from its wire form.
    public init(name: String, parameters: ErrorParameters?) {
        let parameters = parameters ?? ErrorParameters()
        switch name {
        case "org.varlink.service.InterfaceNotFound": self = .interfaceNotFound(interface: parameters.interface ?? "")
        case "org.varlink.service.MethodNotFound": self = .methodNotFound(method: parameters.method ?? "")
        case "org.varlink.service.InvalidParameter": self = .invalidParameter(parameter: parameters.parameter ?? "")
        case "org.varlink.service.PermissionDenied": self = .permissionDenied
        case "org.varlink.service.ExpectedMore": self = .expectedMore
        case "io.pathmond.ProtocolError": self = .protocolError(reason: parameters.reason ?? "")
        case "io.pathmond.PermissionDenied": self = .pathmondPermissionDenied(reason: parameters.reason ?? "")
        case "io.pathmond.NoSuchInterface": self = .noSuchInterface(interface: parameters.interface ?? "")
        case "io.pathmond.NetworkNotIdentified": self = .networkNotIdentified(interface: parameters.interface ?? "")
        case "io.pathmond.InvalidNetworkKey": self = .invalidNetworkKey(key: parameters.key ?? "")
        case "io.pathmond.NoSuchNetwork": self = .noSuchNetwork(key: parameters.key ?? "")
        case "io.pathmond.PolicyNotSaved": self = .policyNotSaved(reason: parameters.reason ?? "")
        case "io.pathmond.LimitReached": self = .limitReached(reason: parameters.reason ?? "")
        default: self = .other(name: name)
        }
    }

    /// The union of the standard errors' parameter fields; each error sets at most one.
    public struct ErrorParameters: Codable, Sendable, Hashable {
        public var interface: String?
        public var method: String?
        public var parameter: String?
        public var reason: String?
        public var key: String?

        public init(
            interface: String? = nil, method: String? = nil, parameter: String? = nil, reason: String? = nil,
            key: String? = nil
        ) {
            self.interface = interface
            self.method = method
            self.parameter = parameter
            self.reason = reason
            self.key = key
        }
    }
}

extension VarlinkError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .interfaceNotFound(let interface): return "\(name): \(interface)"
        case .methodNotFound(let method): return "\(name): \(method)"
        case .invalidParameter(let parameter): return "\(name): \(parameter)"
        case .protocolError(let reason): return "\(name): \(reason)"
        case .pathmondPermissionDenied(let reason): return "permission denied: \(reason)"
        case .noSuchInterface(let interface): return "no interface named \(interface)"
        case .networkNotIdentified(let interface):
            return "the network on \(interface) is not identified yet (no SSID, SIM or resolved gateway)"
        case .invalidNetworkKey(let key): return "\"\(key)\" is not a network key"
        case .noSuchNetwork(let key): return "no setting is remembered for \(key)"
        case .policyNotSaved(let reason): return "the policy could not be saved: \(reason)"
        case .limitReached(let reason): return "pathmond is at a limit: \(reason)"
        case .permissionDenied, .expectedMore, .other: return name
        }
    }
}
