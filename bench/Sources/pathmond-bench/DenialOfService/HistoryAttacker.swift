// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `pathmond-bench dos-history-attacker` (internal; `dos` runs it as `nobody`): issue 22's GetHistory flood. It
/// opens --connections connections, sends one GetHistory call on each and never reads a reply, holds them for
/// --seconds and leaves. Prints `opened held H refused R` once all were attempted.
struct HistoryAttacker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dos-history-attacker", abstract: "Unread GetHistory calls (used by `dos`).",
        shouldDisplay: false)

    @Option var socket: String
    @Option var connections = 1000
    @Option var seconds = 30

    func run() throws {
        _ = raiseOpenFileLimit()
        let deadline = monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000
        let call = Array(#"{"method":"io.pathmond.GetHistory","parameters":{}}"#.utf8) + [0]
        var held: [VarlinkSocket] = []
        var refused = 0
        for _ in 0..<connections {
            guard let connection = try? VarlinkSocket(path: socket, sendTimeoutMilliseconds: 1000) else {
                refused += 1
                continue
            }
            connection.send(call)
            held.append(connection)
        }
        let line = Array("opened held \(held.count) refused \(refused)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        while monotonicNanoseconds() < deadline { usleep(100_000) }
        withExtendedLifetime(held) {}
    }
}
