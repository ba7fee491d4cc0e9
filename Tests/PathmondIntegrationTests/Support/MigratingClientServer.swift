// SPDX-License-Identifier: Apache-2.0
/// The server end of the migration tests: a TCP server in the far namespace that says which connection each line
/// arrives on, as `accept PEER`, `line PEER TEXT` and `close PEER` (PEER is address:port).
///
/// One thread, one selector, and accepts handled before reads in each round: a connection the kernel completed
/// before another connection's FIN arrived is reported before that `close`, so the order of the lines is the
/// order of the events on the wire. It unblocks SIGTERM first: a process started from one of the tests' worker
/// threads inherits their signal mask, which blocks it, and would otherwise outlive the test.
enum MigratingClientServer {
    static let script = """
        import selectors, signal, socket, sys
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])
        listener = socket.create_server((sys.argv[1], int(sys.argv[2])))
        listener.setblocking(False)
        selector = selectors.DefaultSelector()
        selector.register(listener, selectors.EVENT_READ)
        print("listening", flush=True)
        while True:
            ready = selector.select()
            ready.sort(key=lambda event: event[0].fileobj is not listener)
            for key, _ in ready:
                if key.fileobj is listener:
                    connection, peer = listener.accept()
                    connection.setblocking(False)
                    name = "%s:%d" % peer[:2]
                    selector.register(connection, selectors.EVENT_READ, [name, b""])
                    print("accept", name, flush=True)
                    continue
                name, pending = key.data
                try:
                    data = key.fileobj.recv(4096)
                except ConnectionError:
                    data = b""
                if not data:
                    selector.unregister(key.fileobj)
                    key.fileobj.close()
                    print("close", name, flush=True)
                    continue
                *complete, key.data[1] = (pending + data).split(b"\\n")
                for line in complete:
                    print("line", name, line.decode(), flush=True)
        """

    /// Starts the server on `address`:`port` in `namespace` and waits until it listens.
    static func start(in namespace: String, address: String, port: Int) throws -> ProcessTranscript {
        let server = try ProcessTranscript(
            "server", ["ip", "netns", "exec", namespace, "python3", "-u", "-c", script, address, String(port)])
        try server.next(startingWith: "listening")
        return server
    }
}

/// One line of the server's transcript.
enum ServerEvent: Equatable {
    case accept(peer: String)
    case line(peer: String, number: Int)
    case close(peer: String)

    init?(_ text: String) {
        let words = text.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("accept", 2): self = .accept(peer: words[1])
        case ("close", 2): self = .close(peer: words[1])
        case ("line", 3):
            guard let number = Int(words[2]) else { return nil }
            self = .line(peer: words[1], number: number)
        default: return nil
        }
    }
}
