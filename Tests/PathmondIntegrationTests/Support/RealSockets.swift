// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Connected UDP sockets held open by a helper process inside the namespace, bound to a device
/// (SO_BINDTODEVICE) or not, that send datagrams on demand: where the kernel really sends a flow's packets is the
/// interface whose transmit counter moved (issue 40). Nothing answers them; the far side drops them.
final class RealSockets {
    /// One socket: the device it is bound to (nil: none), the local address it binds to (nil: the kernel picks at
    /// connect), and its peer.
    struct Socket {
        var device: String?
        var local: String?
        var remote: String
    }

    /// Where datagrams went.
    enum Outcome: Equatable, CustomStringConvertible {
        /// Out of the interface with this index (and this name at the time).
        case sent(index: Int32, name: String)
        /// The kernel refused them (errno): no route, or a blocking one.
        case refused(errno: Int32)
        /// Sent but not out of any interface yet (queued for neighbour discovery) or counted on several: says
        /// nothing.
        case unknown

        var description: String {
            switch self {
            case .sent(_, let name): "sent by \(name)"
            case .refused(let code): "refused (errno \(code))"
            case .unknown: "unknown"
            }
        }
    }

    let namespace: NetworkNamespace
    /// Each socket's local address after connect (getsockname), nil when connect failed.
    private(set) var localAddresses: [String?] = []
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending = Data()

    /// How long a burst may wait for neighbour discovery before it says nothing.
    var patience: Duration = .milliseconds(500)

    /// Datagrams per send: spontaneous packets (IPv6 router solicitations, MLD reports) move a counter by one or
    /// two, never by this many in the time a send takes.
    static let burst = 4

    /// Argument per socket "DEVICE,LOCAL,REMOTE" ("-" for none). A local address is bound with IP_FREEBIND, so
    /// that it need not exist yet; a socket whose connect failed (no route then) connects again before it sends.
    /// Lines in: "own N" sends a burst on socket N, never waiting for room in its send buffer; "fresh N" opens a
    /// new unbound socket to socket N's peer (a new connection), sends a burst on it and closes it. Lines out:
    /// "sent COUNT ERRNO".
    private static let program = """
        import socket, sys
        held = []
        for spec in sys.argv[1:]:
            device, local, remote = spec.split(",")
            family = socket.AF_INET6 if ":" in remote else socket.AF_INET
            s = socket.socket(family, socket.SOCK_DGRAM)
            if device != "-":
                s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, device.encode())
            if local != "-":
                if family == socket.AF_INET6:
                    s.setsockopt(socket.IPPROTO_IPV6, 78, 1)
                else:
                    s.setsockopt(socket.IPPROTO_IP, 15, 1)
                s.bind((local, 0))
            connected = True
            try:
                s.connect((remote, 9))
            except OSError:
                connected = False
            print("local", s.getsockname()[0] if connected or local != "-" else "-")
            held.append([s, family, remote, connected])
        print("ready", flush=True)
        for line in sys.stdin:
            verb, index = line.split()
            s, family, remote, connected = held[int(index)]
            error = 0
            if verb == "fresh" or not connected:
                if verb == "fresh":
                    s = socket.socket(family, socket.SOCK_DGRAM)
                try:
                    s.connect((remote, 9))
                    if verb != "fresh":
                        held[int(index)][3] = True
                except OSError as failure:
                    error = failure.errno
            sent = 0
            if error == 0:
                for _ in range(\(burst)):
                    try:
                        s.send(b"pathmond issue 40", socket.MSG_DONTWAIT)
                        sent += 1
                    except OSError as failure:
                        error = failure.errno
            if verb == "fresh":
                s.close()
            print("sent", sent, error, flush=True)
        """

    let sockets: [Socket]

    init(_ namespace: NetworkNamespace, _ sockets: [Socket]) throws {
        self.namespace = namespace
        self.sockets = sockets
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments =
            namespace.exec + ["python3", "-c", Self.program]
            + sockets.map { "\($0.device ?? "-"),\($0.local ?? "-"),\($0.remote)" }
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var locals: [String?] = []
        var line = Self.readLine(output, &pending)
        while let current = line, current.hasPrefix("local ") {
            let address = current.dropFirst(6).split(separator: " ").first.map(String.init)
            locals.append(address == "-" ? nil : address)
            line = Self.readLine(output, &pending)
        }
        localAddresses = locals
        guard line == "ready", locals.count == sockets.count else {
            process.terminate()
            throw CommandError(
                command: process.arguments ?? [],
                result: CommandResult(status: -1, output: line ?? "", errorOutput: "no sockets"))
        }
    }

    /// Sends a burst on socket `index` (`fresh`: on a new unbound socket to its peer, as a new connection would),
    /// and reads where it went. A burst that said nothing is sent once more: the first datagrams to a gateway not
    /// resolved yet wait for neighbour discovery (and the queue keeps only some of them).
    func send(_ index: Int, fresh: Bool = false) throws -> Outcome {
        let outcome = try sendOnce(index, fresh: fresh)
        return outcome == .unknown ? try sendOnce(index, fresh: fresh) : outcome
    }

    private func sendOnce(_ index: Int, fresh: Bool) throws -> Outcome {
        let before = try Self.transmitted(namespace)
        input.fileHandleForWriting.write(Data("\(fresh ? "fresh" : "own") \(index)\n".utf8))
        guard let reply = Self.readLine(output, &pending) else { return .unknown }
        let words = reply.split(separator: " ")
        guard words.count == 3, let sent = Int(words[1]), let error = Int32(words[2]) else { return .unknown }
        // EAGAIN, ENOBUFS: the send buffer is full of datagrams still queued for neighbour discovery (a send that
        // waited for room could wait for ever).
        if sent == 0 { return error == 0 || error == EAGAIN || error == ENOBUFS ? .unknown : .refused(errno: error) }
        // A datagram waiting for the gateway's neighbour entry leaves once it resolves: a moment to do so.
        let deadline = ContinuousClock.now + patience
        while true {
            let after = try Self.transmitted(namespace)
            // Not lo: it counts what is delivered locally, such as the ICMP errors for datagrams whose gateway
            // never answered.
            let moved = after.filter {
                $0.value.name != "lo" && $0.value.packets - (before[$0.key]?.packets ?? 0) >= UInt64(sent)
            }
            if moved.count == 1, let (index, counter) = moved.first { return .sent(index: index, name: counter.name) }
            if moved.count > 1 || ContinuousClock.now >= deadline { return .unknown }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Every link's name and transmitted packets, by index (`ip -s -j link show`).
    static func transmitted(_ namespace: NetworkNamespace) throws -> [Int32: (name: String, packets: UInt64)] {
        let result = try runCommand(["ip", "-n", namespace.name, "-s", "-j", "link", "show"])
        let links = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] ?? []
        var counters: [Int32: (name: String, packets: UInt64)] = [:]
        for link in links {
            guard let index = link["ifindex"] as? Int, let name = link["ifname"] as? String,
                let statistics = link["stats64"] as? [String: Any], let sent = statistics["tx"] as? [String: Any],
                let packets = sent["packets"] as? Int
            else { continue }
            counters[Int32(index)] = (name, UInt64(packets))
        }
        return counters
    }

    /// The next line of the helper's output, nil at its end.
    private static func readLine(_ pipe: Pipe, _ pending: inout Data) -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[pending.index(after: newline)...])
                return line
            }
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { return nil }
            pending.append(chunk)
        }
    }

    /// Closes the sockets and waits for the helper to end.
    func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
