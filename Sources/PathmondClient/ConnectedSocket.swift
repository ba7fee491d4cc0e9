// SPDX-License-Identifier: Apache-2.0
import PathModel

#if canImport(Glibc)
    import Glibc
#endif

/// Why a flow could not be described from a socket.
public enum FlowDescriptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// getsockname or getpeername failed (not a socket, not connected), with errno.
    case notConnected(errno: Int32)
    /// Not an IPv4 or IPv6 socket.
    case unsupportedFamily(Int32)
    /// No interface holds the socket's local address (and the socket is not bound to a device).
    case noInterface(localAddress: String)
    /// pathmond could not be asked which interface holds the address.
    case daemon(PathmondClientError)

    public var description: String {
        switch self {
        case .notConnected(let code): return "the socket is not connected: \(String(cString: strerror(code)))"
        case .unsupportedFamily(let family): return "not an IP socket (address family \(family))"
        case .noInterface(let address): return "no interface holds \(address)"
        case .daemon(let error): return "\(error)"
        }
    }
}

/// Reads what the kernel knows about a connected socket.
package enum ConnectedSocket {
    package static func flow(
        of descriptor: Int32, parameters: PathParameters, socketPath: String
    ) throws(FlowDescriptionError) -> Flow {
        // A dual-stack socket talking IPv4 reports ::ffff:a.b.c.d; interfaces hold the plain IPv4 address.
        let local = try address(of: descriptor, getsockname).unmappingIPv4
        let remote = try address(of: descriptor, getpeername).unmappingIPv4
        // The interface's index goes with its name: the flow is that interface even after a rename, when the
        // monitor watches again (a restarted daemon reads the index from the name otherwise).
        let interface: (name: String, index: Int32?)
        let bound = boundDevice(of: descriptor)
        if let bound {
            let index = if_nametoindex(bound)
            interface = (bound, index == 0 ? nil : Int32(bitPattern: index))
        } else {
            let interfaces: [(name: String, index: Int32?)]
            do {
                interfaces = try PathmondConnection(socketPath: socketPath).interfaces()
                    .filter { $0.addresses.contains { $0.address == local.description } }.map { ($0.name, $0.index) }
            } catch {
                throw .daemon(error)
            }
            guard let found = interfaces.first else { throw .noInterface(localAddress: local.description) }
            interface = found
        }
        return Flow(
            interfaceName: interface.name, localAddress: local, remoteAddress: remote, parameters: parameters,
            isBoundToInterface: bound != nil, interfaceIndex: interface.index)
    }

    private typealias NameCall = (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32

    private static func address(of descriptor: Int32, _ call: NameCall) throws(FlowDescriptionError) -> IPAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(descriptor, $0, &length) }
        }
        guard result == 0 else { throw .notConnected(errno: errno) }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let bytes = withUnsafeBytes(of: &storage) { raw in
                raw.load(as: sockaddr_in.self).sin_addr.s_addr
            }
            return IPAddress(bytes: withUnsafeBytes(of: bytes) { Array($0) })!
        case AF_INET6:
            let bytes = withUnsafeBytes(of: &storage) { raw in
                Array(withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { $0 })
            }
            return IPAddress(bytes: bytes)!
        default:
            throw .unsupportedFamily(Int32(storage.ss_family))
        }
    }

    /// The device named by SO_BINDTODEVICE, if the socket was bound to one.
    private static func boundDevice(of descriptor: Int32) -> String? {
        var name = [CChar](repeating: 0, count: Int(IFNAMSIZ))
        var length = socklen_t(name.count)
        guard getsockopt(descriptor, SOL_SOCKET, SO_BINDTODEVICE, &name, &length) == 0, length > 0, name[0] != 0
        else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
