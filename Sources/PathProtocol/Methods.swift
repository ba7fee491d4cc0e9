// SPDX-License-Identifier: Apache-2.0
/// The parameters and replies of each method pathmond serves.
public enum Methods {
    /// io.pathmond.GetPath and io.pathmond.WatchPath reply.
    public struct PathReply: Codable, Sendable, Hashable {
        public var path: WirePath
        public init(path: WirePath) { self.path = path }
    }

    /// io.pathmond.GetPath and io.pathmond.WatchPath parameters.
    public struct PathParameters: Codable, Sendable, Hashable {
        public var requirements: WirePathRequirements?
        public init(requirements: WirePathRequirements?) { self.requirements = requirements }

        /// Whatever is wrong in them, InvalidParameter names "requirements", the one parameter, rather than a
        /// field inside it (a value it does not know is named later, by `WirePathRequirements.parameters()`).
        public init(from decoder: any Decoder) throws {
            do {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                requirements = try container.decodeIfPresent(WirePathRequirements.self, forKey: .requirements)
            } catch {
                throw DecodingError.typeMismatch(
                    WirePathRequirements.self,
                    .init(codingPath: decoder.codingPath + [CodingKeys.requirements], debugDescription: "\(error)"))
            }
        }
    }

    /// io.pathmond.WatchFlow parameters.
    public struct FlowParameters: Codable, Sendable, Hashable {
        public var flow: WireFlow
        public init(flow: WireFlow) { self.flow = flow }
    }

    /// io.pathmond.WatchFlow reply.
    public struct FlowReply: Codable, Sendable, Hashable {
        public var status: WireFlowStatus
        public init(status: WireFlowStatus) { self.status = status }
    }

    /// io.pathmond.ListInterfaces reply.
    public struct InterfacesReply: Codable, Sendable, Hashable {
        public var interfaces: [WireInterface]
        public init(interfaces: [WireInterface]) { self.interfaces = interfaces }
    }

    /// org.varlink.service.GetInfo reply.
    public struct InfoReply: Codable, Sendable, Hashable {
        public var vendor: String
        public var product: String
        public var version: String
        public var url: String
        public var interfaces: [String]

        public init(vendor: String, product: String, version: String, url: String, interfaces: [String]) {
            self.vendor = vendor
            self.product = product
            self.version = version
            self.url = url
            self.interfaces = interfaces
        }
    }

    /// org.varlink.service.GetInterfaceDescription parameters.
    public struct InterfaceDescriptionParameters: Codable, Sendable, Hashable {
        public var interface: String
        public init(interface: String) { self.interface = interface }
    }

    /// org.varlink.service.GetInterfaceDescription reply.
    public struct InterfaceDescriptionReply: Codable, Sendable, Hashable {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// io.pathmond.SetConstrained parameters: exactly one of `interface` and `key`.
    public struct SetConstrainedParameters: Codable, Sendable, Hashable {
        public var interface: String?
        public var key: String?
        public var constrained: Bool
        public init(interface: String? = nil, key: String? = nil, constrained: Bool) {
            self.interface = interface
            self.key = key
            self.constrained = constrained
        }
    }

    /// io.pathmond.SetExpensive parameters: exactly one of `interface` and `key`; `expensive` nil clears.
    public struct SetExpensiveParameters: Codable, Sendable, Hashable {
        public var interface: String?
        public var key: String?
        public var expensive: Bool?
        public init(interface: String? = nil, key: String? = nil, expensive: Bool?) {
            self.interface = interface
            self.key = key
            self.expensive = expensive
        }

        // `expensive: null` must reach the wire: it says "leave it to detection".
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(interface, forKey: .interface)
            try container.encodeIfPresent(key, forKey: .key)
            try container.encode(expensive, forKey: .expensive)
        }
    }

    /// io.pathmond.SetNetworkName parameters: exactly one of `interface` and `key`; `name` absent removes the name.
    public struct SetNetworkNameParameters: Codable, Sendable, Hashable {
        public var interface: String?
        public var key: String?
        public var name: String?
        public init(interface: String? = nil, key: String? = nil, name: String?) {
            self.interface = interface
            self.key = key
            self.name = name
        }
    }

    /// io.pathmond.ForgetNetwork parameters.
    public struct ForgetNetworkParameters: Codable, Sendable, Hashable {
        public var key: String
        public init(key: String) { self.key = key }
    }

    /// SetConstrained and SetExpensive reply.
    public struct NetworkReply: Codable, Sendable, Hashable {
        public var network: WireNetwork
        public init(network: WireNetwork) { self.network = network }
    }

    /// io.pathmond.ListNetworks reply.
    public struct NetworksReply: Codable, Sendable, Hashable {
        public var networks: [WireNetwork]
        public init(networks: [WireNetwork]) { self.networks = networks }
    }

    /// io.pathmond.GetStatus reply.
    public struct StatusReply: Codable, Sendable, Hashable {
        public var status: WireDaemonStatus
        public init(status: WireDaemonStatus) { self.status = status }
    }
}

/// io.pathmond.Network on the wire: a network pathmond remembers (the user set something for it) or sees attached
/// now; the client library's `NetworkDetails`.
public struct WireNetwork: Codable, Sendable, Hashable {
    /// The stable key: "wifi:" and the SSID, "cellular:" and a hash of the SIM, or "wired:" and the gateway's
    /// link-layer address.
    public var key: String
    /// A name for people: the user's name for it if any, else a description (Wi-Fi "Home").
    public var displayName: String
    /// Low Data Mode as the user set it; absent when never set.
    public var constrained: Bool?
    /// Expensive as the user set it, over detection; absent when left to detection.
    public var expensive: Bool?
    /// The interfaces attached to it now.
    public var interfaces: [String]
    /// The name the user gave the network (SetNetworkName); absent when none. `displayName` is then this name.
    public var name: String?
    /// Ultra-constrained as the user set it (SetUltraConstrained); absent when never set, and from older servers.
    public var ultraConstrained: Bool?

    public init(
        key: String, displayName: String, constrained: Bool?, expensive: Bool?, interfaces: [String],
        name: String? = nil, ultraConstrained: Bool? = nil
    ) {
        self.ultraConstrained = ultraConstrained
        self.key = key
        self.displayName = displayName
        self.constrained = constrained
        self.expensive = expensive
        self.interfaces = interfaces
        self.name = name
    }
}

/// io.pathmond.DaemonStatus on the wire: pathmond's own condition; the client library's `DaemonStatus`.
public struct WireDaemonStatus: Codable, Sendable, Hashable {
    /// pathmond's version.
    public var version: String
    /// Where it keeps the user's network settings.
    public var policyFile: String
    /// What went wrong loading that file (it was kept aside); absent when all is well.
    public var policyProblem: String?
    /// The inode of the daemon's network namespace (as /proc/PID/ns/net shows it); absent from older daemons.
    public var networkNamespace: Int?

    public init(version: String, policyFile: String, policyProblem: String?, networkNamespace: Int? = nil) {
        self.version = version
        self.policyFile = policyFile
        self.policyProblem = policyProblem
        self.networkNamespace = networkNamespace
    }
}
