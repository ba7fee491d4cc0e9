// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking
import PathMonitor
import Testing

/// The client library as a Swift developer who knows NWPathMonitor uses it (issue 12): `pathUpdateHandler` and
/// `start(queue:)`, the monitor as an AsyncSequence of paths, `usesInterfaceType(_:)`, and errors that describe
/// the situation rather than pathctl's flags. Only `import PathMonitor` above: the model types come with it.
@Suite(.serialized) struct NetworkPathMonitorTests {
    static func scenario() throws -> Scenario {
        try Scenario.start { namespace in
            try namespace.addWiredUplink(routed: true)
        }
    }

    @Test func pathUpdateHandlerGetsEveryPathOnTheStartQueue() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        let seen = Locked<[Path]>([])
        let queue = DispatchQueue(label: "test.handler")
        let onQueue = Locked(true)
        let monitor = NetworkPathMonitor(socketPath: scenario.daemon.socketPath)
        monitor.pathUpdateHandler = { path in
            if DispatchQueue.getSpecific(key: Self.queueKey) != "handler" { onQueue.withLock { $0 = false } }
            seen.withLock { $0.append(path) }
        }
        queue.setSpecific(key: Self.queueKey, value: "handler")
        monitor.start(queue: queue)
        defer { monitor.cancel() }
        try await eventually("the first path") { seen.withLock { $0.last?.status == .satisfied } }
        let first = try #require(seen.withLock { $0.last })
        #expect(first.usesInterfaceType(.wired))
        #expect(!first.usesInterfaceType(.wifi) && !first.usesInterfaceType(.cellular))

        try scenario.namespace.ip("route del default via 192.0.2.1 dev eth0")
        try await eventually("the unsatisfied path") { seen.withLock { $0.last?.status == .unsatisfied } }
        #expect(seen.withLock { $0.last?.usesInterfaceType(.wired) } == false)
        #expect(onQueue.withLock { $0 }, "every call came on the queue given to start(queue:)")
    }

    private static let queueKey = DispatchSpecificKey<String>()

    @Test func theMonitorIsAnAsyncSequenceOfPaths() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        let monitor = NetworkPathMonitor(
            parameters: PathParameters(requiredInterfaceKind: .wired), socketPath: scenario.daemon.socketPath)
        var iterator = monitor.makeAsyncIterator()
        // Module-qualified, as PathMonitor.Path could not be written while a class shared the module's name.
        let first: PathMonitor.Path? = await iterator.next()
        #expect(first?.status == .satisfied && first?.availableInterfaces.map(\.name) == ["eth0"])
        try scenario.namespace.ip("link set eth0 down")
        let second = await iterator.next()
        #expect(second?.status == .unsatisfied)
        monitor.cancel()
        #expect(await iterator.next() == nil, "cancel ends the sequence")
    }

    @Test func anUnreachableDaemonIsDescribedWithoutCommandLineAdvice() async throws {
        let monitor = NetworkPathMonitor(socketPath: "/tmp/pmit-nonexistent/io.pathmond")
        let reason = Locked<PathmondClientError?>(nil)
        monitor.unavailableHandler = { error in reason.withLock { $0 = error } }
        monitor.start(queue: DispatchQueue(label: "test.unavailable"))
        defer { monitor.cancel() }
        try await eventually("unavailable reported") { reason.withLock { $0 } != nil }
        let text = try #require(reason.withLock { $0 }).description
        #expect(text == "pathmond is not running (nothing listens on /tmp/pmit-nonexistent/io.pathmond)")
        #expect(!text.contains("--socket") && !text.contains("systemctl"))
        #expect(monitor.currentPath == nil)
    }

    /// One-shot calls answer in the library's own types (not the protocol's Wire* structures), and pathmond's
    /// refusals are errors an app can match without importing the protocol module.
    @Test func oneShotCallsAnswerInLibraryTypes() async throws {
        let scenario = try Self.scenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let connection = try PathmondConnection(socketPath: scenario.daemon.socketPath)

        let interfaces: [InterfaceDetails] = try connection.interfaces()
        let eth0 = try #require(interfaces.first { $0.name == "eth0" })
        #expect(eth0.kind == .wired && eth0.state == "usable" && eth0.routes.first?.gateway == "192.0.2.1")
        let status: DaemonStatus = try connection.status()
        #expect(status.networkNamespace != nil && status.policyProblem == nil)
        let networks: [NetworkDetails] = try connection.networks()
        #expect(networks.isEmpty)
        #expect(throws: PathmondClientError.remote(VarlinkError.noSuchInterface(interface: "wlan9"))) {
            try connection.setConstrained(true, interface: "wlan9")
        }
    }
}
