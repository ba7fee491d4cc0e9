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
        case .other(let name): return name
        }
    }

    /// The error's parameters as the wire carries them.
    public var parameters: ErrorParameters {
        switch self {
        case .interfaceNotFound(let interface): return ErrorParameters(interface: interface)
        case .methodNotFound(let method): return ErrorParameters(method: method)
        case .invalidParameter(let parameter): return ErrorParameters(parameter: parameter)
        case .protocolError(let reason): return ErrorParameters(reason: reason)
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
        default: self = .other(name: name)
        }
    }

    /// The union of the standard errors' parameter fields; each error sets at most one.
    public struct ErrorParameters: Codable, Sendable, Hashable {
        public var interface: String?
        public var method: String?
        public var parameter: String?
        public var reason: String?

        public init(interface: String? = nil, method: String? = nil, parameter: String? = nil, reason: String? = nil) {
            self.interface = interface
            self.method = method
            self.parameter = parameter
            self.reason = reason
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
        case .permissionDenied, .expectedMore, .other: return name
        }
    }
}
