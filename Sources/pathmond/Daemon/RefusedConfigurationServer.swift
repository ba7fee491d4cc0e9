// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import Logging
import PathModel
import PathProtocol
import SDEvent

#if canImport(Glibc)
    import Glibc
#endif

/// pathmond's configuration was refused at start while systemd's socket is handed over (socket activation): pathmond
/// keeps the socket and answers every call `io.pathmond.ConfigurationRefused` (FILE:LINE: why) until SIGHUP finds
/// the file fixed, then starts as usual on the same socket, with the clients that wait in its queue.
///
/// Exiting with 78 there, as a start by hand does, breaks the socket: the socket unit starts the service again for
/// every client that connects, and after five failed starts in ten seconds systemd's start limit fails the socket
/// itself (service-start-limit-hit), while `systemctl restart` fails until the interval passes. Held, the socket
/// stays active, clients get a clear error instead of a hang, and the way back is `systemctl reload pathmond` (its
/// `--check-config` says whether the fix holds) or `systemctl restart pathmond`.
final class RefusedConfigurationServer {
    private let listener: Int32
    private let loader: ConfigurationLoader
    private let logger: Logger
    private let loop: SDEventLoop
    /// The reply every client gets: the refusal in force.
    private var refusal: [UInt8]
    private var accepted: Configuration?

    init(listener: Int32, loader: ConfigurationLoader, refused error: ConfigurationLoadError, logger: Logger) throws {
        self.listener = listener
        self.loader = loader
        self.logger = logger
        self.loop = try SDEventLoop()
        refusal = Self.reply(for: error)
    }

    /// Answers clients until SIGHUP finds the file fixed (its configuration is returned) or SIGTERM or SIGINT stops
    /// pathmond (nil). SIGTERM, SIGINT and SIGHUP must be blocked on the calling thread: they arrive through the
    /// loop's signalfd.
    func serveUntilFixed(notifier: SystemdNotifier) throws -> Configuration? {
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        let sources = [
            try loop.watchReadable(listener) { [unowned self] in refuseWaiting() },
            try loop.onSignal(SIGHUP) { [unowned self] in reload(notifier: notifier) },
            try loop.onSignal(SIGTERM) { [unowned self] in loop.exit() },
            try loop.onSignal(SIGINT) { [unowned self] in loop.exit() },
        ]
        // READY=1: the service is up and its socket answered; the status says it refuses, and how to mend it.
        notifier.notify("READY=1\nSTATUS=\(Self.status)")
        loop.run()
        withExtendedLifetime(sources) {}
        // Every client held was answered: each gets its EOF now, and none of their descriptors passes to the daemon.
        for client in Array(clients.keys) { drop(client) }
        sweep = nil
        return accepted
    }

    static let status =
        "Refusing every call: the configuration file was refused (journalctl -u pathmond -p err); fix it, then "
        + "systemctl reload pathmond"

    /// Takes every client waiting. Each is answered and dropped by `RefusedClient`'s rules below.
    private func refuseWaiting() {
        while true {
            let client = pathmond_accept_client(listener)
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            hold(client)
        }
    }

    /// Clients connected now, with when each connected and what it sent of a call so far.
    private var clients: [Int32: RefusedClient] = [:]
    private var sweep: SDEventSource?
    /// At most this many clients at once, each for at most `holdLimit`: the oldest goes first. Every call is answered
    /// at once, so a client has no reason to stay.
    private static let clientLimit = 256
    private static let holdLimit = Duration.seconds(5)

    private struct RefusedClient {
        var source: SDEventSource
        var since: ContinuousClock.Instant
        /// Calls are small: 64 KiB without a NUL is not a client of pathmond.
        var framer = NULFramer(maximumSize: 64 * 1024)
    }

    private func hold(_ client: Int32) {
        if clients.count >= Self.clientLimit, let oldest = clients.min(by: { $0.value.since < $1.value.since })?.key {
            drop(oldest)
        }
        guard let source = try? loop.watchReadable(client, { [unowned self] in readCalls(of: client) }) else {
            close(client)
            return
        }
        clients[client] = RefusedClient(source: source, since: ContinuousClock.now)
        if sweep == nil {
            sweep = try? loop.schedule(after: Self.holdLimit) { [unowned self] in dropExpired() }
        }
    }

    /// Answers each complete call with the refusal (a oneway call gets nothing, as Varlink has it), so a client that
    /// asks twice on one connection (pathctl's namespace check, then its question) reads the reason both times.
    private func readCalls(of client: Int32) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count > 0 else {
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
            return drop(client)
        }
        clients[client]?.framer.append(chunk[..<count])
        while true {
            let frame: [UInt8]?
            do { frame = try clients[client]?.framer.nextMessage() } catch { return drop(client) }
            guard let frame else { return }
            if (try? VarlinkCodec().decode(VarlinkCall.self, from: frame))?.oneway == true { continue }
            // A socket's buffer takes a few hundred bytes; a client that leaves its replies unread is dropped.
            let sent = refusal.withUnsafeBytes {
                send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            guard sent == refusal.count else { return drop(client) }
        }
    }

    private func drop(_ client: Int32) {
        guard let entry = clients.removeValue(forKey: client) else { return }
        entry.source.cancel()
        close(client)
    }

    private func dropExpired() {
        sweep = nil
        let now = ContinuousClock.now
        for (client, entry) in clients where now - entry.since >= Self.holdLimit { drop(client) }
        if !clients.isEmpty {
            sweep = try? loop.schedule(after: Self.holdLimit) { [unowned self] in dropExpired() }
        }
    }

    private func reload(notifier: SystemdNotifier) {
        do {
            let (configuration, warnings) = try loader.load()
            for warning in warnings { logger.warning("\(warning)") }
            logger.notice("configuration accepted on reload: starting to serve")
            accepted = configuration
            loop.exit()
        } catch {
            logger.error("configuration still refused, still not serving: \(error)", metadata: error.journalMetadata)
            refusal = Self.reply(for: error)
            notifier.notify("READY=1\nSTATUS=\(Self.status)")
        }
    }

    private static func reply(for error: ConfigurationLoadError) -> [UInt8] {
        VarlinkCodec().encodeError(.configurationRefused(reason: error.message))
    }
}
