// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathMonitor

#if canImport(Glibc)
    import Glibc
#endif

/// The lines the client prints on standard output, one per event. Their leading words are stable, so that people
/// and scripts (the integration test among them) can follow a migration:
///
/// ```
/// connected via wwan0 203.0.113.10:41000 -> 192.0.2.80:7000
/// viable
/// better path: wlan0
/// opening a connection via wlan0
/// connected via wlan0 198.51.100.10:52000 -> 192.0.2.80:7000
/// migrated to wlan0
/// ```
enum Report {
    /// A connection is established (it does not carry the traffic until `migrated to` says so, after the first).
    static func connected(_ connection: TCPConnection) -> String {
        "connected via \(connection.interface) \(connection.local) -> \(connection.remote)"
    }

    /// The connection that carries the traffic can, or can no longer, send and receive.
    static func viability(_ isViable: Bool) -> String {
        isViable ? "viable" : "not viable"
    }

    /// pathmond prefers another path for the client's parameters, or no longer does.
    static func betterPath(_ interface: String?) -> String {
        interface.map { "better path: \($0)" } ?? "no better path"
    }

    /// A second connection is being made over the better path; the first still carries the traffic.
    static func opening(via interface: String) -> String {
        "opening a connection via \(interface)"
    }

    /// The traffic moved to the new connection and the old one was closed.
    static func migrated(to interface: String) -> String {
        "migrated to \(interface)"
    }

    /// The new connection could not be made; the old one goes on carrying the traffic.
    static func migrationFailed(to interface: String, _ error: ClientError, stayingOn current: FlowState) -> String {
        "migration to \(interface) failed: \(error); staying on \(current.connection.interface)"
            + (current.status?.isViable == false ? " (not viable)" : "")
    }

    /// Before the first connection: the path for the client's parameters is not usable yet.
    static func waiting(_ reason: UnsatisfiedReason?) -> String {
        "waiting for a path: \(reason?.rawValue ?? "unsatisfied")"
    }

    /// pathmond cannot be reached: what it would say is unknown until it can.
    static func unavailable(_ error: PathmondClientError) -> String {
        "pathmond unavailable: \(error)"
    }

    /// The client was asked to stop, and has closed its connection.
    static let stopped = "stopped"
}

/// Prints one line on standard output. Written straight to the descriptor, unbuffered: standard output is usually
/// a pipe, and whoever reads it is waiting for each line as it happens.
func say(_ line: String) {
    write(line, to: STDOUT_FILENO)
}

/// Prints a warning on standard error.
func warn(_ line: String) {
    write("migrating-client: \(line)", to: STDERR_FILENO)
}

private func write(_ line: String, to descriptor: Int32) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }  // Nobody is reading any more; there is no one left to tell.
        offset += written
    }
}
