// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathMonitor

/// A connection to the server together with the `FlowMonitor` that watches it: a connection is only ready for
/// traffic once pathmond can also tell the client about it.
struct WatchedConnection: Sendable {
    let connection: TCPConnection
    let monitor: FlowMonitor

    /// Stops watching and closes the connection.
    func close() {
        monitor.cancel()
        connection.close()
    }
}

/// Opens connections to the server through the interfaces pathmond names.
struct Dialer: Sendable {
    /// Where every connection goes.
    let server: SocketAddress
    /// What the client may use; pathmond judges better paths by these.
    let parameters: PathParameters
    /// pathmond's socket.
    let socketPath: String
    /// How long a connection may take to complete.
    let timeout: Duration

    /// Connects through `interface` and starts describing the connection to pathmond. `addresses` are the ones
    /// a better-path verdict came with; without one of the server's family, pathmond is asked.
    func open(via interface: String, addresses: [IPAddress] = []) async throws(ClientError) -> WatchedConnection {
        let given = addresses.first { $0.family == server.address.family }
        let source: IPAddress
        if let given { source = given } else { source = try await sourceAddress(on: interface) }
        let connection = try await TCPConnection.open(to: server, via: interface, from: source, timeout: timeout)
        // The monitor reads the flow (interface, addresses) from the socket itself; when the socket could not be
        // bound to its device, that asks pathmond which interface holds the address: a blocking call.
        let (descriptor, parameters, socketPath) = (connection.descriptor, parameters, socketPath)
        do {
            let monitor = try await offload { () throws(FlowDescriptionError) -> FlowMonitor in
                try FlowMonitor(connectedSocket: descriptor, parameters: parameters, socketPath: socketPath)
            }
            return WatchedConnection(connection: connection, monitor: monitor)
        } catch {
            connection.close()
            throw .unwatchable(error)
        }
    }

    /// The interface's first usable (global, past duplicate address detection) address of the server's family, as
    /// pathmond sees it: the same view its better-path verdict came from.
    private func sourceAddress(on interface: String) async throws(ClientError) -> IPAddress {
        let socketPath = socketPath
        let candidates: [String]
        do {
            candidates = try await offload { () throws(PathmondClientError) -> [String] in
                try PathmondConnection(socketPath: socketPath).interfaces()
                    .filter { $0.name == interface }
                    .flatMap { $0.addresses.filter { $0.scope == "global" && !$0.isTentative }.map(\.address) }
            }
        } catch {
            throw .daemon(error)
        }
        guard
            let source = candidates.lazy.compactMap(IPAddress.init).first(where: { $0.family == server.address.family })
        else { throw .noSourceAddress(interface: interface) }
        return source
    }
}
