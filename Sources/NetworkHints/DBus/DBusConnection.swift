import Glibc

/// A minimal blocking D-Bus client over a Unix socket: SASL EXTERNAL authentication, Hello, and method calls that
/// wait for their reply (signals and other traffic are read and dropped). Every socket operation has a timeout,
/// so a wedged bus costs a few seconds, never a hang. Not thread-safe: one owner, one conversation.
final class DBusConnection {
    private let descriptor: Int32
    private var nextSerial: UInt32 = 1
    private var pending: [UInt8] = []

    /// Connects to the socket at `path` and authenticates as the calling user; `timeout` bounds every read and
    /// write.
    init(socketPath path: String, timeout: Duration = .seconds(2)) throws(DBusError) {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        // Every stored property is set: if a step below throws, deinit runs and closes the socket. Closing it here
        // as well would close whatever reused the number in between (it once took SwiftNIO's eventfd).
        try setTimeout(timeout)
        try connect(to: path)
        try authenticate()
        _ = try call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "Hello")
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Calls a method and returns its reply; a D-Bus error reply becomes `DBusError.errorReply`. The call never
    /// starts a service that is not running (NO_AUTO_START): we ask, we do not activate.
    func call(
        destination: String, path: String, interface: String, member: String, body: [DBusValue] = [],
        signature: String = ""
    ) throws(DBusError) -> DBusMessage {
        let serial = nextSerial
        nextSerial &+= 1
        let message = DBusMessage(
            kind: .methodCall, flags: DBusMessage.noAutoStart, serial: serial, path: path, interface: interface,
            member: member, destination: destination, body: body, signature: signature)
        try send(message.encoded())
        // A bus may queue signals (NameAcquired after Hello) ahead of our reply; bound how many we skip.
        for _ in 0..<1024 {
            let reply = try receiveMessage()
            guard reply.replySerial == serial else { continue }
            if reply.kind == .error {
                throw .errorReply(name: reply.errorName ?? "", message: reply.body.first?.text)
            }
            if reply.kind == .methodReturn { return reply }
        }
        throw .connectionLost
    }

    private func setTimeout(_ timeout: Duration) throws(DBusError) {
        let seconds = timeout.components.seconds
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            guard setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
                throw .system(call: "setsockopt", errno: errno)
            }
        }
    }

    private func connect(to path: String) throws(DBusError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { throw .system(call: "connect", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                Glibc.connect(descriptor, generic, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw .system(call: "connect", errno: errno) }
    }

    /// The SASL exchange: a NUL byte (which the bus uses to read our credentials), AUTH EXTERNAL with our uid in
    /// hex-encoded decimal, "OK <guid>", BEGIN.
    private func authenticate() throws(DBusError) {
        let uid = Array(String(getuid()).utf8).hexString
        try send([0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8))
        let answer = try receiveLine()
        guard answer.hasPrefix("OK ") else { throw .authenticationFailed(answer) }
        try send(Array("BEGIN\r\n".utf8))
    }

    private func send(_ bytes: [UInt8]) throws(DBusError) {
        var sent = 0
        while sent < bytes.count {
            // `bytes` is non-empty inside the loop, so its base address exists.
            let count = bytes.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw errno == EAGAIN ? .connectionLost : .system(call: "send", errno: errno) }
            sent += count
        }
    }

    /// Reads more bytes into `pending`; the peer closing or the timeout expiring is `connectionLost`.
    private func fill() throws(DBusError) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw .connectionLost }
            guard count >= 0 else { throw .system(call: "recv", errno: errno) }
            guard count > 0 else { throw .connectionLost }
            pending += buffer[..<count]
            return
        }
    }

    private func receiveLine() throws(DBusError) -> String {
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 1)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            guard pending.count < 16 * 1024 else { throw .authenticationFailed("overlong line") }
            try fill()
        }
    }

    private func receiveMessage() throws(DBusError) -> DBusMessage {
        while true {
            if let length = try DBusMessage.frameLength(prefix: pending[...]), pending.count >= length {
                let frame = Array(pending[..<length])
                pending.removeFirst(length)
                return try DBusMessage.decode(frame)
            }
            try fill()
        }
    }
}
