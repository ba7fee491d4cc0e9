// SPDX-License-Identifier: Apache-2.0
import libpathmond

#if canImport(Glibc)
    import Glibc
#endif

/// A libpathmond client on one end of a socketpair(2), and the test as its server on the other: the replies are
/// bytes the test chooses, the calls are bytes the test reads.
final class SocketPair {
    let client: OpaquePointer
    let server: Int32

    init() throws {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0
        else { throw Failure("socketpair: errno \(errno)") }
        var client: OpaquePointer?
        let r = pathmond_connect_fd(descriptors[0], &client)
        guard r == 0, let client else {
            close(descriptors[1])
            throw Failure("pathmond_connect_fd: \(r)")
        }
        self.client = client
        server = descriptors[1]
    }

    deinit {
        pathmond_client_free(client)
        close(server)
    }

    /// Writes every byte (the socket's buffer holds far more than the replies these tests send at once).
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(server, $0.baseAddress, $0.count, 0) }
            guard written > 0 else { return }
            offset += written
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// The call the client sent, without its NUL; empty when none arrived.
    func receiveCall() -> [UInt8] {
        var call: [UInt8] = []
        var byte: UInt8 = 0
        while recv(server, &byte, 1, Int32(MSG_DONTWAIT)) == 1 {
            if byte == 0 { return call }
            call.append(byte)
        }
        return call
    }

    func closeServer() { shutdown(server, Int32(SHUT_RDWR)) }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a watch's handler heard, in order; the handler is a C function, so it reaches this through userdata.
final class Heard {
    var paths: [Snapshot] = []
    var flows: [FlowSnapshot] = []
    var errors: [Int32] = []
    var freeClientOnError: OpaquePointer?

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ userdata: UnsafeMutableRawPointer?) -> Heard {
        Unmanaged<Heard>.fromOpaque(userdata!).takeUnretainedValue()  // always a Heard: only these tests pass one
    }
}

let pathHandler: pathmond_path_handler = { client, error, path, userdata in
    let heard = Heard.from(userdata)
    if error < 0 {
        heard.errors.append(error)
        if let freeing = heard.freeClientOnError, freeing == client { pathmond_client_free(client) }
    } else if let path {
        heard.paths.append(Snapshot(path))
    }
}

let flowHandler: pathmond_flow_handler = { _, error, status, userdata in
    let heard = Heard.from(userdata)
    if error < 0 {
        heard.errors.append(error)
    } else if let status {
        heard.flows.append(FlowSnapshot(status))
    }
}

/// A path as the C accessors give it.
struct Snapshot: Equatable, CustomStringConvertible {
    var satisfied: Bool
    var reason: String?
    var expensive, constrained, ultraConstrained, roaming, ipv4, ipv6, dns: Bool
    var captivePortal: UInt32
    var interfaces: [String]
    var ifindexes: [Int32]
    var types: [UInt32]
    var interfaceExpensive: [Bool]
    var gateways: [String]

    init(_ path: OpaquePointer) {
        satisfied = pathmond_path_get_status(path) == PATHMOND_STATUS_SATISFIED
        reason = pathmond_path_get_unsatisfied_reason(path).map { String(cString: $0) }
        expensive = pathmond_path_is_expensive(path) != 0
        constrained = pathmond_path_is_constrained(path) != 0
        ultraConstrained = pathmond_path_is_ultra_constrained(path) != 0
        roaming = pathmond_path_is_roaming(path) != 0
        ipv4 = pathmond_path_supports_ipv4(path) != 0
        ipv6 = pathmond_path_supports_ipv6(path) != 0
        dns = pathmond_path_supports_dns(path) != 0
        captivePortal = pathmond_path_get_captive_portal(path).rawValue
        let count = pathmond_path_get_interface_count(path)
        interfaces = (0..<count).map { String(cString: pathmond_path_get_interface_name(path, $0)) }
        ifindexes = (0..<count).map { pathmond_path_get_interface_ifindex(path, $0) }
        types = (0..<count).map { pathmond_path_get_interface_type(path, $0).rawValue }
        interfaceExpensive = (0..<count).map { pathmond_path_interface_is_expensive(path, $0) != 0 }
        gateways = (0..<pathmond_path_get_gateway_count(path)).map {
            String(cString: pathmond_path_get_gateway(path, $0))
        }
    }

    var description: String {
        "\(satisfied ? "satisfied" : "unsatisfied") expensive=\(expensive) constrained=\(constrained) \(interfaces)"
    }
}

struct FlowSnapshot: Equatable {
    var viable: Bool
    var better: Bool
    var betterInterface: String?
    var addresses: [String]

    init(_ status: OpaquePointer) {
        viable = pathmond_flow_status_is_viable(status) != 0
        better = pathmond_flow_status_has_better_path(status) != 0
        betterInterface = pathmond_flow_status_get_better_interface(status).map { String(cString: $0) }
        addresses = (0..<pathmond_flow_status_get_better_address_count(status)).map {
            String(cString: pathmond_flow_status_get_better_address(status, $0))
        }
    }
}
