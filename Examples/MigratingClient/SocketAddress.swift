// SPDX-License-Identifier: Apache-2.0
import PathModel

#if canImport(Glibc)
    import Glibc
#endif

/// An IP address and a port: one end of a TCP connection, convertible to and from the `sockaddr` that socket
/// calls take.
struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    var address: IPAddress
    var port: UInt16

    /// `192.0.2.80:7000`, or `[2001:db8::80]:7000`: the form `--server` takes.
    var description: String {
        address.family == .ipv6 ? "[\(address)]:\(port)" : "\(address):\(port)"
    }

    /// The socket-layer name of the address's family: AF_INET or AF_INET6.
    var domain: Int32 { address.family == .ipv6 ? AF_INET6 : AF_INET }

    /// Calls `body` with this address laid out as a `sockaddr_in` or `sockaddr_in6`.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var storage = sockaddr_storage()
        let length: Int
        switch address.family {
        case .ipv4:
            var ipv4 = sockaddr_in()
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &ipv4.sin_addr) { $0.copyBytes(from: address.bytes) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv4, as: sockaddr_in.self) }
            length = MemoryLayout<sockaddr_in>.size
        case .ipv6:
            var ipv6 = sockaddr_in6()
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &ipv6.sin6_addr) { $0.copyBytes(from: address.bytes) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv6, as: sockaddr_in6.self) }
            length = MemoryLayout<sockaddr_in6>.size
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    /// The socket's own end (`getsockname`), or nil if the kernel cannot say.
    static func local(of descriptor: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw -> SocketAddress? in
            switch Int32(storage.ss_family) {
            case AF_INET:
                let ipv4 = raw.load(as: sockaddr_in.self)
                let bytes = withUnsafeBytes(of: ipv4.sin_addr) { Array($0) }
                return IPAddress(bytes: bytes).map {
                    SocketAddress(address: $0, port: UInt16(bigEndian: ipv4.sin_port))
                }
            case AF_INET6:
                let ipv6 = raw.load(as: sockaddr_in6.self)
                let bytes = withUnsafeBytes(of: ipv6.sin6_addr) { Array($0) }
                return IPAddress(bytes: bytes).map {
                    SocketAddress(address: $0, port: UInt16(bigEndian: ipv6.sin6_port))
                }
            default:
                return nil
            }
        }
    }
}

extension SocketAddress {
    /// Parses `HOST:PORT` where HOST is an IP address, in brackets when it is IPv6. Names are not resolved: a name
    /// may resolve differently on each interface, which is a story of its own.
    init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0
        else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = host.dropFirst().dropLast()
        } else if host.contains(":") {
            return nil  // An IPv6 address without brackets: its last group could be the port.
        }
        guard let address = IPAddress(String(host)) else { return nil }
        self.init(address: address, port: port)
    }
}
