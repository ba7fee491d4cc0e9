// SPDX-License-Identifier: Apache-2.0

/// A long-lived part of the daemon, and what it needs: the parts it calls while it runs. The daemon builds and
/// starts the parts so that each comes after what it needs (`ServiceGraph`), on the main loop's thread before the
/// loop runs, and stops them in reverse order once the loop has exited: a part never outlives what it calls, and
/// the state files' final flush, which everything feeds, comes last.
///
/// A part reaches another only through `needs`: `make` gets the ones it named (`ServiceParts.get`) and nothing else,
/// and where the one it needs must call back (a change it watches), it registers with it (`LoopHook`,
/// `HubUpdates`), so no part holds a reference set after the fact.
protocol DaemonService {
    /// The parts this one uses: built and started before it, stopped after it.
    static var needs: [any DaemonService.Type] { get }
    /// Builds the part from the daemon's set-up and the parts it needs, already built (nothing starts yet).
    static func make(_ parts: ServiceParts) throws -> Self
    func start() throws
    func stop()
    /// Called on SIGTERM and SIGINT, before the loop exits, newest part first: what must still reach the system
    /// bus or the loop's other sources before they close.
    func loopWillExit()
    /// What made this part stop the loop after it started, if anything: `Daemon.run()` throws it.
    var failure: (any Error)? { get }
}

extension DaemonService {
    func loopWillExit() {}
    var failure: (any Error)? { nil }
}

/// A part by its type: the graph's node, and the name its errors give.
struct ServiceKey: Hashable, Sendable, CustomStringConvertible {
    private let identifier: ObjectIdentifier
    let description: String

    init(_ type: any DaemonService.Type) {
        identifier = ObjectIdentifier(type)
        description = "\(type)"
    }
}
