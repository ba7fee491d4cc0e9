// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

/// Issue 11's correctness under the one-loop design, and issue 10's limit on distinct watches per user.
@Suite(.serialized) struct FanOutTests {
    /// 1,000 WatchPath subscribers and a sequence of 1,000 default-route changes, each to a new gateway. Every
    /// subscriber sees the gateways in the order they were set, never one twice, and ends on the last one: a
    /// subscriber that falls behind may skip states (a path is state: the newest wins), never reorder or lose
    /// the final one.
    @Test func everySubscriberSeesChangesInOrderAndTheFinalState() async throws {
        raiseDescriptorLimit(to: 4096)
        let scenario = try Scenario.start { namespace in
            try namespace.addVeth("eth0", peer: "eth0-peer")
            try namespace.ip("address add 10.0.0.10/16 dev eth0")
            try namespace.ip("route add default via 10.0.0.1 dev eth0")
        }
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }

        let subscribers = try (0..<1_000).map { _ in try RawClient(socketPath: scenario.daemon.socketPath) }
        for subscriber in subscribers {
            try subscriber.send(Array(#"{"method":"io.pathmond.WatchPath","more":true,"parameters":{}}"#.utf8) + [0])
        }
        // Each has its first reply (the current path) before the changes start.
        for subscriber in subscribers { _ = try subscriber.receive() }

        // 1,000 changes in 100 rounds of 10; each round waits until the first subscriber has its last state, so
        // the daemon publishes about one state per round (the kernel hands a quick round over as one batch).
        let gateways = (1...1_000).map { "10.0.\($0 / 250).\($0 % 250 + 1)" }
        let order = Dictionary(uniqueKeysWithValues: gateways.enumerated().map { ($1, $0) })
        var reference: [Int] = []
        for round in stride(from: 0, to: gateways.count, by: 10) {
            let batch = gateways[round..<round + 10]
            try scenario.namespace.batch(batch.map { "route replace default via \($0) dev eth0" })
            while reference.last != round + 9 {
                reference.append(try nextGateway(subscribers[0], order: order, after: reference.last ?? -1))
            }
        }
        #expect(reference.count >= 100, "the reference saw \(reference.count) states")

        // The others read only now: their queues (about 100 replies) stay under the write buffer's high mark, so
        // nothing was coalesced for them and each must have exactly the reference's sequence.
        for (number, subscriber) in subscribers.enumerated().dropFirst() {
            var seen: [Int] = []
            while seen.last != gateways.count - 1 {
                seen.append(try nextGateway(subscriber, order: order, after: seen.last ?? -1))
            }
            #expect(
                seen == reference, "subscriber \(number) saw \(seen.count) states, the reference \(reference.count)")
            if seen != reference { break }
        }
        print("1,000 subscribers each saw the same \(reference.count) states in order")
        for subscriber in subscribers { subscriber.close() }
    }

    /// `nobody` may watch three distinct flows (with --max-watches-per-user 3); a fourth is refused with
    /// io.pathmond.LimitReached, once in the log; watching one of the three again costs nothing and is served;
    /// root is not limited.
    @Test func distinctWatchesPerUserAreLimited() async throws {
        let scenario = try ServiceBehaviourTests.wiredScenario(arguments: ["--max-watches-per-user", "3"])
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let watch = """
            import socket, sys, time
            def watch(last_octet):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                flow = '{"interface":"eth0","localAddress":"192.0.2.10","remoteAddress":"198.51.100.%d"}' % last_octet
                s.sendall(('{"method":"io.pathmond.WatchFlow","more":true,"parameters":{"flow":%s}}' % flow).encode() + b"\\0")
                s.settimeout(5)
                reply = s.recv(65536)
                return s, (b"LimitReached" in reply, b'"continues":true' in reply)
            held = []
            for octet in [1, 2, 3, 4, 4, 1]:
                s, outcome = watch(octet)
                held.append(s)
                print(octet, "refused" if outcome[0] else "served" if outcome[1] else "other", flush=True)
            # A refused watch and one of the three in one write: the refusal is a reply, the connection goes on.
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            calls = b""
            for octet in [5, 1]:
                flow = '{"interface":"eth0","localAddress":"192.0.2.10","remoteAddress":"198.51.100.%d"}' % octet
                calls += ('{"method":"io.pathmond.WatchFlow","more":true,"parameters":{"flow":%s}}' % flow).encode() + b"\\0"
            s.sendall(calls)
            s.settimeout(5)
            data = b""
            while data.count(b"\\0") < 2:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            replies = data.split(b"\\0")
            first = "refused" if b"LimitReached" in replies[0] else "other"
            second = "served" if len(replies) > 1 and b'"continues":true' in replies[1] else "other"
            print("pipelined", first, second, flush=True)
            time.sleep(0.5)
            """
        // Where nobody can read it: the scenario's directory is root's alone.
        let program = "/tmp/pathmond-watch-limit-\(getpid()).py"
        try watch.write(toFile: program, atomically: true, encoding: .utf8)
        defer { unlink(program) }
        chmod(program, 0o644)
        let result = try runCommand(
            [
                "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", program,
                scenario.daemon.socketPath,
            ], check: false)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "1 served", "2 served", "3 served", "4 refused", "4 refused", "1 served", "pipelined refused served",
            ],
            "status \(result.status): \(result.output)\(result.errorOutput)")
        let refusals = scenario.daemon.log.split(separator: "\n").filter { $0.contains("watch limit reached") }
        #expect(refusals.count == 1, "one line per episode: \(refusals)")

        // Root holds more than three distinct watches.
        let rootClients = try (1...5).map { octet in
            let client = try RawClient(socketPath: scenario.daemon.socketPath)
            let flow = #"{"interface":"eth0","localAddress":"192.0.2.10","remoteAddress":"203.0.113.\#(octet)"}"#
            let reply = try client.call(
                #"{"method":"io.pathmond.WatchFlow","more":true,"parameters":{"flow":\#(flow)}}"#)
            #expect(reply["continues"] as? Bool == true, "root watch \(octet): \(reply)")
            return client
        }
        for client in rootClients { client.close() }
    }

    /// The daemon is its main loop (kernel, clients), the policy loop and the state files' writer: after serving
    /// subscribers, a policy write and a reload it still has at most three threads, and with nothing happening it
    /// does not wake up at all (libdispatch's worker pool woke it once a second; its thread count grew to 4-9).
    @Test func theDaemonHasThreeThreadsAndSleepsWhenIdle() async throws {
        let scenario = try ServiceBehaviourTests.wiredScenario()
        defer { #expect(scenario.tearDown() == 0) }
        _ = try await scenario.client.log.nextPath { $0.status == .satisfied }
        let socket = scenario.daemon.socketPath
        let processID = try #require(scenario.daemon.processID)
        _ = try runCommand([product("pathctl"), "set-constrained", "--key", "wifi:Office", "--socket", socket])
        scenario.daemon.signal(SIGHUP)
        try await eventually("the reload is logged") { scenario.daemon.log.contains("configuration reloaded") }
        try scenario.namespace.ip("route replace default via 192.0.2.2 dev eth0")
        _ = try await scenario.client.log.nextPath { $0.gateways.first?.description == "192.0.2.2" }

        let process = "/proc/\(processID)"
        let threads = try FileManager.default.contentsOfDirectory(atPath: process + "/task")
        let names = threads.map {
            (try? String(contentsOfFile: "\(process)/task/\($0)/comm", encoding: .utf8)) ?? "?"
        }
        #expect(threads.count <= 3, "threads: \(names)")
        // The kernel still has things to say for a while (IPv6 duplicate address detection, neighbour states),
        // each a real wake-up; a quiet 3 s must come within 30 s. With a thread pool's monitor ticking once a
        // second it never would.
        var window: [Int] = [try contextSwitches(process)]
        while window.count < 31 {
            try await Task.sleep(for: .seconds(1))
            window.append(try contextSwitches(process))
            if window.count >= 4 && window[window.count - 1] == window[window.count - 4] { break }
        }
        let quiet = window.count >= 4 && window[window.count - 1] == window[window.count - 4]
        #expect(quiet, "context switches per second: \(zip(window.dropFirst(), window).map { $0 - $1 })")
    }

    /// Voluntary and involuntary context switches of every thread of a process: each wake-up is one.
    private func contextSwitches(_ process: String) throws -> Int {
        var total = 0
        for thread in try FileManager.default.contentsOfDirectory(atPath: process + "/task") {
            let status = try String(contentsOfFile: "\(process)/task/\(thread)/status", encoding: .utf8)
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                total += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return total
    }

    /// The position of the next path's gateway in the sequence; fails on one out of order or on silence.
    private func nextGateway(_ client: RawClient, order: [String: Int], after last: Int) throws -> Int {
        let message = try #require(try client.receive(timeout: .seconds(20)), "no state after position \(last)")
        let path = (message["parameters"] as? [String: Any])?["path"] as? [String: Any]
        let gateway = try #require((path?["gateways"] as? [String])?.first, "\(message)")
        let position = try #require(order[gateway], "an unknown gateway \(gateway)")
        try #require(position > last, "\(gateway) (position \(position)) after position \(last)")
        return position
    }

    private func raiseDescriptorLimit(to wanted: rlim_t) {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = min(max(limit.rlim_cur, wanted), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
