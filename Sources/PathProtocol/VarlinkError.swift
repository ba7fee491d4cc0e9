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
    /// io.pathmond.ConfigurationRefused: pathmond refuses its configuration file (FILE:LINE: why) and answers every
    /// call with this until it is fixed.
    case configurationRefused(reason: String)
    /// An error name this library does not know, with its parameters as text.
    case other(name: String)

    /// The errors pathmond knows by name, without their parameters: what the method table lists.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case interfaceNotFound = "org.varlink.service.InterfaceNotFound"
        case methodNotFound = "org.varlink.service.MethodNotFound"
        case invalidParameter = "org.varlink.service.InvalidParameter"
        case permissionDenied = "org.varlink.service.PermissionDenied"
        case expectedMore = "org.varlink.service.ExpectedMore"
        case protocolError = "io.pathmond.ProtocolError"
        case pathmondPermissionDenied = "io.pathmond.PermissionDenied"
        case noSuchInterface = "io.pathmond.NoSuchInterface"
        case networkNotIdentified = "io.pathmond.NetworkNotIdentified"
        case invalidNetworkKey = "io.pathmond.InvalidNetworkKey"
        case noSuchNetwork = "io.pathmond.NoSuchNetwork"
        case policyNotSaved = "io.pathmond.PolicyNotSaved"
        case limitReached = "io.pathmond.LimitReached"
        case configurationRefused = "io.pathmond.ConfigurationRefused"
    }

    /// Which known error this is; nil for `.other`.
    public var kind: Kind? {
        switch self {
        case .interfaceNotFound: return .interfaceNotFound
        case .methodNotFound: return .methodNotFound
        case .invalidParameter: return .invalidParameter
        case .permissionDenied: return .permissionDenied
        case .expectedMore: return .expectedMore
        case .protocolError: return .protocolError
        case .pathmondPermissionDenied: return .pathmondPermissionDenied
        case .noSuchInterface: return .noSuchInterface
        case .networkNotIdentified: return .networkNotIdentified
        case .invalidNetworkKey: return .invalidNetworkKey
        case .noSuchNetwork: return .noSuchNetwork
        case .policyNotSaved: return .policyNotSaved
        case .limitReached: return .limitReached
        case .configurationRefused: return .configurationRefused
        case .other: return nil
        }
    }

    /// The fully qualified Varlink error name.
    public var name: String {
        guard case .other(let name) = self else { return kind?.rawValue ?? "" }
        return name
    }

    /// The error's parameters as the wire carries them.
    public var parameters: ErrorParameters {
        switch self {
        case .interfaceNotFound(let interface): return ErrorParameters(interface: interface)
        case .methodNotFound(let method): return ErrorParameters(method: method)
        case .invalidParameter(let parameter): return ErrorParameters(parameter: parameter)
        case .protocolError(let reason), .pathmondPermissionDenied(let reason), .policyNotSaved(let reason),
            .limitReached(let reason), .configurationRefused(let reason):
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
        switch Kind(rawValue: name) {
        case .interfaceNotFound: self = .interfaceNotFound(interface: parameters.interface ?? "")
        case .methodNotFound: self = .methodNotFound(method: parameters.method ?? "")
        case .invalidParameter: self = .invalidParameter(parameter: parameters.parameter ?? "")
        case .permissionDenied: self = .permissionDenied
        case .expectedMore: self = .expectedMore
        case .protocolError: self = .protocolError(reason: parameters.reason ?? "")
        case .pathmondPermissionDenied: self = .pathmondPermissionDenied(reason: parameters.reason ?? "")
        case .noSuchInterface: self = .noSuchInterface(interface: parameters.interface ?? "")
        case .networkNotIdentified: self = .networkNotIdentified(interface: parameters.interface ?? "")
        case .invalidNetworkKey: self = .invalidNetworkKey(key: parameters.key ?? "")
        case .noSuchNetwork: self = .noSuchNetwork(key: parameters.key ?? "")
        case .policyNotSaved: self = .policyNotSaved(reason: parameters.reason ?? "")
        case .limitReached: self = .limitReached(reason: parameters.reason ?? "")
        case .configurationRefused: self = .configurationRefused(reason: parameters.reason ?? "")
        case nil: self = .other(name: name)
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
        case .configurationRefused(let reason): return "pathmond refuses its configuration: \(reason)"
        case .permissionDenied, .expectedMore, .other: return name
        }
    }
}
