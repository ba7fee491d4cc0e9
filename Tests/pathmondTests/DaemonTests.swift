// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PathModel
import PathProtocol
import SDEvent
import Testing

@testable import pathmond

/// The real graph, as `pathmond` builds it: its services in their start order, serving Varlink from the kernel's
/// first snapshot on, holding the state directory against a second daemon, and stopping on `exit()`. It runs in a
/// network namespace of its own (only a loopback link), so the host's tables are neither read nor touched.
@Suite struct DaemonTests {
    @Test func theRealGraphStartsInOrderServesAndStops() throws {
        let directory = try HistoryFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = DaemonOptions()
        options.socket = directory + "/io.pathmond"
        options.stateDirectory = directory + "/state"
        options.networkdLeases = directory + "/leases"
        options.networkdLinks = directory + "/links"
        options.resolvConf = directory + "/resolv.conf"
        options.resolvedDirectory = directory + "/resolve"
        options.usesSystemBus = false
        options.version = "0.0.0-daemon-test"
        let running = try RunningDaemon(options: options)

        #expect(
            running.daemon.services.map { "\(type(of: $0))" } == [
                "StateFileService", "HubService", "PolicyWorker", "UsageService", "StateFileSettings",
                "PolicyController", "ResolverService", "KernelFeed", "PortalCheck", "ConnectivityCheck",
                "NetworkHintsService", "WiFiIdentityService", "WiFiQualityService", "ReloadService", "Serving",
            ])
        let reply = try Self.call(options.socket, #"{"method":"org.varlink.service.GetInfo"}"#)
        #expect(reply.contains(#""version":"0.0.0-daemon-test""#), "\(reply)")
        // The state directory is this daemon's while it runs.
        #expect(throws: (any Error).self) {
            try Daemon(
                options: options, configuration: Configuration(), loader: ConfigurationLoader(explicitPath: nil),
                logger: HistoryWriterTests.quiet)
        }

        #expect(running.stop() == "stopped")
    }

    /// One call on a new connection, answered before `deadline`: the reply without its NUL. The daemon answers
    /// once the kernel's first snapshot is in, so a refused connection is tried again.
    static func call(_ path: String, _ message: String, deadline: Duration = .seconds(30)) throws -> String {
        let end = ContinuousClock.now + deadline
        while true {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            let connected = UnixSocketAddress(path: path)!.withSocketAddress { connect(descriptor, $0, $1) } == 0
            guard connected else {
                guard ContinuousClock.now < end else { throw POSIXError(.ETIMEDOUT) }
                usleep(20_000)
                continue
            }
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let frame = Array(message.utf8) + [0]
            #expect(frame.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) } == frame.count)
            var reply: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !reply.contains(0) {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw POSIXError(.ECONNRESET) }
                reply += chunk[..<count]
            }
            return String(decoding: reply.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// A daemon built and run on a thread of its own, in a new network namespace, with the daemon's signals blocked
/// there as `pathmond` blocks them.
private final class RunningDaemon: @unchecked Sendable {
    // @unchecked: `daemon` is set before `init` returns (the thread hands it over through `built`) and never again.
    private(set) var daemon: Daemon!
    private let finished = Handoff<String>()

    init(options: DaemonOptions) throws {
        let built = Handoff<Result<Daemon, DaemonTestError>>()
        let finished = finished
        let thread = Thread {
            SDEventLoop.blockSignals([SIGTERM, SIGINT, SIGHUP])
            guard Self.unshareNetwork() == 0 else {
                built.complete(.failure(DaemonTestError(message: "unshare: errno \(errno)")))
                return
            }
            let daemon: Daemon
            do {
                daemon = try Daemon(
                    options: options, configuration: Configuration(),
                    loader: ConfigurationLoader(explicitPath: nil), logger: HistoryWriterTests.quiet)
            } catch {
                built.complete(.failure(DaemonTestError(message: "\(error)")))
                return
            }
            built.complete(.success(daemon))
            do {
                try daemon.run()
                finished.complete("stopped")
            } catch {
                finished.complete("failed: \(error)")
            }
        }
        thread.start()
        daemon = try built.wait().get()
    }

    /// unshare(CLONE_NEWNET) for the calling thread (and the threads it starts). Glibc's module leaves out the
    /// _GNU_SOURCE declarations, so the function is looked up in libc.
    private static func unshareNetwork() -> Int32 {
        typealias Unshare = @convention(c) (Int32) -> Int32
        let cloneNewNet: Int32 = 0x4000_0000
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "unshare") else { return -1 }
        return unsafeBitCast(symbol, to: Unshare.self)(cloneNewNet)
    }

    /// Ends the daemon's loop and waits for its services to stop; what `run()` ended with.
    func stop() -> String {
        daemon.exit()
        return finished.wait()
    }
}

/// One value handed from one thread to another that waits for it.
private final class Handoff<Value>: @unchecked Sendable {
    // @unchecked: `value` is written once before the signal and read after the wait.
    private var value: Value?
    private let ready = DispatchSemaphore(value: 0)

    func complete(_ value: Value) {
        self.value = value
        ready.signal()
    }

    func wait() -> Value {
        ready.wait()
        return value!
    }
}

private struct DaemonTestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
