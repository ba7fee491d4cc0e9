#if canImport(Glibc)
    import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET, which may be an abstract socket ("@...").
/// Outside systemd (no NOTIFY_SOCKET) it does nothing.
struct SystemdNotifier: Sendable {
    let socketPath: String?

    init(environment: [String: String]) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sends a state string such as "READY=1" or "STATUS=...". Failures are returned, not thrown: a daemon
    /// must not stop because its supervisor's socket went away.
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL), socketAddress, length)
            }
        }
        return sent == message.count
    }
}
