// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathMonitor

/// A namespace, a daemon in it and a subscribed client: the setting of every end-to-end test.
struct Scenario {
    let namespace: NetworkNamespace
    let daemon: Daemon
    let client: RecordedMonitor

    /// Names starting "wl" are Wi-Fi and "ww" cellular in every scenario: veth pairs stand in for radios.
    static let testConfiguration = """
        [interface wl*]
        type = wifi

        [interface ww*]
        type = cellular
        """

    /// Creates the namespace, lets `prepare` build links before the daemon starts, then starts the daemon and
    /// subscribes a client.
    static func start(
        configuration: String = testConfiguration, arguments: [String] = [], launcher: [String] = [],
        prepare: (NetworkNamespace) throws -> Void = { _ in }
    ) throws -> Scenario {
        let namespace = try NetworkNamespace()
        do {
            try prepare(namespace)
            let daemon = try Daemon(
                in: namespace, configuration: configuration, arguments: arguments, launcher: launcher)
            do {
                try daemon.start()
            } catch {
                daemon.cleanUp()
                throw error
            }
            return Scenario(
                namespace: namespace, daemon: daemon, client: RecordedMonitor(socketPath: daemon.socketPath))
        } catch {
            namespace.delete()
            throw error
        }
    }

    /// Stops everything; the daemon must exit cleanly on SIGTERM.
    func tearDown() -> Int32 {
        client.monitor.cancel()
        let status = daemon.stop()
        daemon.cleanUp()
        namespace.delete()
        return status
    }
}

extension Path {
    var interfaceNames: [String] { availableInterfaces.map(\.name) }
}
