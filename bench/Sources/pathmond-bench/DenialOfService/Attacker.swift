// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench dos-attacker` (internal; `dos` runs it as `nobody`): issue 10's hostile local user. It attempts
/// --connections connections: the first --pipelined write ListInterfaces calls and never read a reply, --flooders
/// more each send a malformed message, read the error and reconnect, over and over; the rest are held idle.
/// Prints `opened held H refused R failed F` once all were attempted, and the totals when --seconds are over.
struct Attacker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dos-attacker", abstract: "A hostile client of pathmond (used by `dos`).", shouldDisplay: false)

    @Option var socket: String
    @Option var connections = 5000
    @Option var pipelined = 10
    @Option var flooders = 20
    @Option var seconds = 30

    func run() throws {
        _ = raiseOpenFileLimit()
        let deadline = monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000
        let totals = AttackTotals()

        var pipeliners: [VarlinkSocket] = []
        for _ in 0..<pipelined {
            if let connection = try? VarlinkSocket(path: socket, sendTimeoutMilliseconds: 1000) {
                pipeliners.append(connection)
            }
        }
        // The flooders' first connections are taken before the idle ones, which would otherwise fill the user's share.
        var floodConnections: [VarlinkSocket] = []
        for _ in 0..<flooders {
            if let connection = try? VarlinkSocket(path: socket, sendTimeoutMilliseconds: 1000) {
                floodConnections.append(connection)
            }
        }
        // The rest, held idle: past the per-user limit the daemon answers LimitReached and closes.
        var idle: [VarlinkSocket] = []
        var failed = 0
        let openingDeadline = monotonicNanoseconds() + 30_000_000_000
        for _ in 0..<max(0, connections - pipelined - flooders) where monotonicNanoseconds() < openingDeadline {
            if let connection = try? VarlinkSocket(path: socket, sendTimeoutMilliseconds: 1000) {
                idle.append(connection)
            } else {
                failed += 1
            }
        }
        // Connections the daemon has not accepted yet still look open: wait until its answers stop coming, so the
        // counts are right and no late admission takes the place a flooder gives back.
        var refused = 0
        var answered = Set<Int>()
        var stableSince = monotonicNanoseconds()
        while monotonicNanoseconds() - stableSince < 1_000_000_000 && monotonicNanoseconds() < openingDeadline {
            usleep(100_000)
            for (index, connection) in idle.enumerated() where !answered.contains(index) {
                connection.readAvailable()
                if connection.nextFrame().map({ $0.containsCompact("LimitReached") }) == true {
                    refused += 1
                    answered.insert(index)
                    stableSince = monotonicNanoseconds()
                } else if !Self.isOpen(connection.fd) {
                    answered.insert(index)
                    stableSince = monotonicNanoseconds()
                }
            }
        }
        let held = idle.count - answered.count
        let descriptors = pipeliners.map(\.fd)
        startThread { Self.pipeline(descriptors, until: deadline, totals: totals) }
        for connection in floodConnections {
            let first = Connection(connection)
            let path = socket
            startThread { Self.flood(path, first: first, until: deadline, totals: totals) }
        }
        floodConnections.removeAll()
        // write(2), not print: the line must reach the pipe now, not when stdio's buffer fills.
        let line = Array("opened held \(held + pipeliners.count) refused \(refused) failed \(failed)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        while monotonicNanoseconds() < deadline { usleep(100_000) }
        print(
            "totals pipelined-calls \(totals.pipelinedCalls.load(ordering: .relaxed)) "
                + "malformed-answered \(totals.floodAnswered.load(ordering: .relaxed)) "
                + "flood-refused \(totals.floodRefused.load(ordering: .relaxed)) "
                + "flood-failed \(totals.floodFailed.load(ordering: .relaxed))")
        withExtendedLifetime(pipeliners) {}
        withExtendedLifetime(idle) {}
    }

    /// Whether the daemon still holds the connection (no end of file pending).
    private static func isOpen(_ fd: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 0) > 0 else { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// Writes ListInterfaces calls to every socket as long as it takes them, never reading a reply.
    private static func pipeline(_ descriptors: [Int32], until deadline: UInt64, totals: AttackTotals) {
        let call = Array(#"{"method":"io.pathmond.ListInterfaces"}"#.utf8) + [0]
        var burst: [UInt8] = []
        while burst.count < 16_384 { burst += call }
        var pollers = descriptors.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
        while monotonicNanoseconds() < deadline {
            for fd in descriptors {
                while true {
                    let sent = burst.withUnsafeBytes {
                        send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                    }
                    guard sent > 0 else { break }
                    totals.pipelinedCalls.add(sent / call.count, ordering: .relaxed)
                }
            }
            _ = poll(&pollers, nfds_t(pollers.count), 100)
        }
    }

    /// Connect, one malformed message, read the answer, close; again until the deadline.
    private static func flood(_ path: String, first: Connection, until deadline: UInt64, totals: AttackTotals) {
        let garbage = Array("{\"method\": this is not JSON".utf8) + [0]
        var next: VarlinkSocket? = first.socket
        while monotonicNanoseconds() < deadline {
            guard let connection = next ?? (try? VarlinkSocket(path: path, sendTimeoutMilliseconds: 1000)) else {
                totals.floodFailed.add(1, ordering: .relaxed)
                usleep(10_000)
                continue
            }
            next = nil
            connection.send(garbage)
            let reply = connection.receive(timeoutMilliseconds: 1000) ?? []
            if reply.containsCompact("LimitReached") {
                totals.floodRefused.add(1, ordering: .relaxed)
            } else if !reply.isEmpty {
                totals.floodAnswered.add(1, ordering: .relaxed)
            } else {
                totals.floodFailed.add(1, ordering: .relaxed)
            }
        }
    }
}

/// A connection handed to the thread that uses it from then on.
/// @unchecked Sendable: the opening thread lets go of it before the flood thread starts.
final class Connection: @unchecked Sendable {
    let socket: VarlinkSocket
    init(_ socket: VarlinkSocket) { self.socket = socket }
}

/// What the attacker's threads did, counted across them.
final class AttackTotals: Sendable {
    let pipelinedCalls = Atomic<Int>(0)
    let floodAnswered = Atomic<Int>(0)
    let floodRefused = Atomic<Int>(0)
    let floodFailed = Atomic<Int>(0)
}
