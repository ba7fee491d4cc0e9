/// The parameters and replies of each method pathmond serves.
public enum Methods {
    /// io.pathmond.GetPath and io.pathmond.WatchPath reply.
    public struct PathReply: Codable, Sendable, Hashable {
        public var path: WirePath
        public init(path: WirePath) { self.path = path }
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
}
