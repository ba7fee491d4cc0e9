// SPDX-License-Identifier: Apache-2.0
import Foundation
import NetlinkTestSupport
import PathModel
import Testing

@testable import Netlink

/// Lost notifications and interrupted dumps: the watcher resyncs with a full dump and never wedges.
@Suite struct KernelWatcherResyncTests {
    /// A small receive buffer and two `ip -batch` writers adding 20,000 host routes each (and default routes in
    /// tables of their own): the kernel drops notifications (ENOBUFS), the watcher resyncs, and after the storm the
    /// state built from every batch equals a fresh dump.
    @Test func realOverflowResyncsAndConverges() async throws {
        try await withTestNamespace { namespace in
            try namespace.ip("address add 10.1.0.2/24 dev va")
            try namespace.ip("address add 10.2.0.2/24 dev vb")
            let files = try [("va", 20, 1000), ("vb", 21, 2000)].map { device, firstOctet, firstTable in
                try Self.writeStorm(device: device, firstOctet: firstOctet, firstTable: firstTable)
            }
            defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
            let watcher = try KernelWatcher(receiveBufferSize: 4096, namespacePath: namespace.path)
            defer { watcher.stop() }
            var stepper = BatchStepper(watcher.batches())
            try await stepper.next()

            // Not reading while the writers run: the kernel must drop notifications, however loaded the machine
            // (a loaded machine once slowed the writers enough for the watcher to keep up).
            watcher.suspendReading()
            let writers = try files.map { try namespace.startBatch(file: $0) }
            for writer in writers { writer.waitUntilExit() }
            watcher.resumeReading()
            #expect(writers.allSatisfy { $0.terminationStatus == 0 })

            // Notifications are ordered: once the sentinel is seen, everything before it has been read.
            try namespace.ip("address add 10.99.99.99/32 dev va")
            let sentinel = IPAddress("10.99.99.99")!
            try await stepper.waitUntil(timeout: .seconds(8)) { $0.addresses.contains { $0.address == sentinel } }
            #expect(stepper.batches.contains { $0.resync == .overflow || $0.resync == .dumpInterrupted })
            #expect(stepper.state.routes.count == 202)
            try await stepper.waitUntilConverged(with: namespace)
        }
    }

    /// 20,000 /32 routes out of `device`, and every 100 a default route in a table of its own, half of them
    /// deleted again, so that the default routes that survive depend on every notification.
    private static func writeStorm(device: String, firstOctet: Int, firstTable: Int) throws -> String {
        var lines: [String] = []
        for number in 0..<20_000 {
            lines.append("route add 10.\(firstOctet + 100).\(number / 250).\(number % 250 + 1)/32 dev \(device)")
            if number % 100 == 0 {
                let table = firstTable + number / 100
                lines.append("route add default dev \(device) table \(table)")
                if number % 200 == 0, number > 0 { lines.append("route del default dev \(device) table \(table - 1)") }
            }
        }
        let path = "/tmp/pmnl-storm-\(UInt32.random(in: 0...UInt32.max)).batch"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func forcedOverflowResyncs() async throws {
        try await withTestNamespace { namespace in
            let va = try namespace.index(of: "va")
            let faults = FaultInjection()
            let watcher = try KernelWatcher(
                receiveBufferSize: 1 << 20, namespacePath: namespace.path, deviceFacts: { _, _ in .unknown },
                calls: faults.calls)
            defer { watcher.stop() }
            var stepper = BatchStepper(watcher.batches())
            try await stepper.next()

            faults.overflowingReceives.withLock { $0 = 1 }
            try namespace.ip("address add 10.1.0.2/24 dev va")
            let resync = try await stepper.next { $0.resync != nil }
            #expect(resync.resync == .overflow)
            guard case .snapshot(let snapshot) = try #require(resync.events.first) else {
                Issue.record("a resync batch holds a snapshot")
                return
            }
            #expect(snapshot.addresses.contains { $0.interfaceIndex == va && $0.address == IPAddress("10.1.0.2") })
            try await stepper.waitUntilConverged(with: namespace)
        }
    }

    @Test func interruptedDumpsAreRepeated() async throws {
        try await withTestNamespace { namespace in
            let faults = FaultInjection()
            // More interruptions than one resync tries, and a broken reply: the watcher retries later.
            faults.interruptedDumps.withLock { $0 = KernelDump.maximumAttempts + 2 }
            faults.failedDumps.withLock { $0 = 1 }
            let watcher = try KernelWatcher(
                receiveBufferSize: 1 << 20, namespacePath: namespace.path, deviceFacts: { _, _ in .unknown },
                calls: faults.calls)
            defer { watcher.stop() }
            var stepper = BatchStepper(watcher.batches())
            let first = try await stepper.next()
            #expect(first.resync == .initial)
            #expect(faults.interruptedDumps.withLock { $0 } == 0)

            faults.overflowingReceives.withLock { $0 = 1 }
            faults.interruptedDumps.withLock { $0 = 1 }
            try namespace.ip("link set vb down")
            let resync = try await stepper.next { $0.resync != nil }
            #expect(resync.resync == .dumpInterrupted)
            try await stepper.waitUntilConverged(with: namespace)
        }
    }
}
