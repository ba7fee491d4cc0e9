// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PathModel
import PathMonitor

#if canImport(Glibc)
    import Glibc
#endif

/// migrating-client: holds a TCP connection to a server and moves it to a better path when pathmond offers one,
/// opening the new connection first and leaving the old one only once the new one is ready.
///
/// It sends a counter, one line every 100 ms, so that the server can see which connection carries the traffic,
/// and prints what happens (see `Report`) on standard output. SIGINT or SIGTERM closes the connection and ends it.
@main
struct MigratingClient: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrating-client",
        abstract: "Hold a TCP connection and move it to a better path when pathmond offers one.",
        discussion: """
            Connects over the interface pathmond prefers for the given parameters, sends a counter line every \
            100 ms, and when pathmond reports a better path opens a second connection over it, switches to it \
            once it is connected, and only then closes the first.
            """
    )

    @Option(help: ArgumentHelp("The server, as an IP address and port.", valueName: "host:port"))
    var server: SocketAddress

    @Option(help: "The socket pathmond listens on.")
    var socket = PathmondConnection.defaultSocketPath

    @Flag(help: "Never use expensive interfaces (cellular, tethering), nor move to them.")
    var noExpensive = false

    @Flag(help: "Never use interfaces on networks in Low Data Mode, nor move to them.")
    var noConstrained = false

    @Option(help: "Seconds a new connection may take to complete.")
    var connectTimeout: Double = 5

    func validate() throws {
        guard connectTimeout > 0 else { throw ValidationError("--connect-timeout must be more than 0 seconds.") }
    }

    func run() async throws {
        let dialer = Dialer(
            server: server,
            // Requiring the server's IP version makes pathmond offer only paths that can reach it.
            parameters: PathParameters(
                prohibitsExpensive: noExpensive, prohibitsConstrained: noConstrained,
                family: server.address.family == .ipv6 ? .ipv6 : .ipv4),
            socketPath: socket, timeout: .seconds(connectTimeout))
        let failure = await withTaskGroup(of: ClientError?.self) { group in
            group.addTask { await firstSignal(of: [SIGINT, SIGTERM]) == nil ? .cancelled : nil }
            group.addTask {
                do throws(ClientError) {
                    let first = try await connect(dialer)
                    return await Migrator(dialer: dialer, interval: .milliseconds(100)).run(from: first)
                } catch {
                    return error
                }
            }
            // Whichever ends first, a signal or the client, ends the other; the client closes its connection as
            // its task unwinds.
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let failure {
            warn("\(failure)")
            throw ExitCode.failure
        }
        say(Report.stopped)
    }

    /// The first connection: once pathmond says the path for the client's parameters is satisfied, over its
    /// interfaces in the order it prefers them, until one connects.
    private func connect(_ dialer: Dialer) async throws(ClientError) -> WatchedConnection {
        let monitor = NetworkPathMonitor(parameters: dialer.parameters, socketPath: dialer.socketPath)
        defer { monitor.cancel() }
        for await update in monitor.updates {
            switch update {
            case .unavailable(let error):
                say(Report.unavailable(error))
            case .path(let path) where path.status != .satisfied:
                say(Report.waiting(path.unsatisfiedReason))
            case .path(let path):
                var lastError = ClientError.cancelled
                for interface in path.availableInterfaces.map(\.name) {
                    do {
                        let first = try await dialer.open(via: interface)
                        say(Report.connected(first.connection))
                        return first
                    } catch {
                        lastError = error
                        warn("could not connect via \(interface): \(error)")
                    }
                }
                throw lastError
            }
        }
        throw .cancelled
    }
}

extension SocketAddress: ExpressibleByArgument {
    init?(argument: String) {
        self.init(parsing: argument)
    }
}
