// SPDX-License-Identifier: Apache-2.0
import Logging
import SDEvent

extension ClientConnection {
    /// What every connection shares: the server's parts and the loop. The limits, the budget and the registry are
    /// the main loop's alone (connections are accepted, served and closed there), so they are `LoopBound`, not
    /// locked: a call from another thread traps.
    final class Shared: Sendable {
        let router: CallRouter
        let interestLimit: LoopBound<InterestLimit>
        let connectionLimit: LoopBound<ConnectionLimit>
        /// What each user's clients may leave unread, all together.
        let outputBudget: LoopBound<OutputBudget>
        /// Gives memory back once clients let go of it.
        let memoryReturn: MemoryReturn
        /// Every connection: the server closes them when it stops.
        let registry: LoopBound<ConnectionRegistry>
        let logger: Logger
        /// Lines about misbehaving clients, shared by every connection and throttled: a client decides how often
        /// they happen.
        let violations: ThrottledLog
        /// The daemon's main loop: where connections are accepted, calls answered and streams written.
        let loop: SDEventLoop
        /// One read buffer for every connection (the loop reads one at a time).
        let readBuffer: LoopBound<ReadBuffer>

        /// `memoryReturn`'s trims run on `trimLoop`, never on `loop`: a trim of a large heap takes milliseconds.
        init(
            router: CallRouter, interestLimit: InterestLimit, connectionLimit: ConnectionLimit,
            outputBudget: OutputBudget = OutputBudget(), loop: SDEventLoop, trimLoop: SDEventLoop, logger: Logger
        ) {
            self.router = router
            self.outputBudget = LoopBound(outputBudget, on: loop)
            self.memoryReturn = MemoryReturn(loop: trimLoop)
            self.interestLimit = LoopBound(interestLimit, on: loop)
            self.connectionLimit = LoopBound(connectionLimit, on: loop)
            self.registry = LoopBound(ConnectionRegistry(), on: loop)
            self.loop = loop
            self.readBuffer = LoopBound(ReadBuffer(), on: loop)
            self.logger = logger
            self.violations = ThrottledLog(logger: logger)
        }
    }

    /// The connections being served: `VarlinkServer.stop` closes them.
    struct ConnectionRegistry {
        private var connections: [ObjectIdentifier: ClientConnection] = [:]

        mutating func add(_ connection: ClientConnection) {
            connections[ObjectIdentifier(connection)] = connection
        }

        /// The connection, no longer held here: the caller lets go of it outside the registry's access.
        mutating func remove(_ connection: ClientConnection) -> ClientConnection? {
            connections.removeValue(forKey: ObjectIdentifier(connection))
        }

        var all: [ClientConnection] { Array(connections.values) }
    }

    /// 64 KiB that every read goes into: one read takes at most a turn's worth of a client's calls.
    final class ReadBuffer {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

        deinit { bytes.deallocate() }
    }
}
