// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A `sockaddr_un` for a path: the one place that builds it, for the daemon's listener and every client.
public struct UnixSocketAddress: Sendable {
    private var address = sockaddr_un()

    /// Nil when the path is empty (it would name an abstract socket) or does not fit `sun_path` (108 bytes with
    /// its NUL).
    public init?(path: String) {
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, !bytes.contains(0), bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    }

    /// Calls `body` with the address as bind(2) and connect(2) take it.
    public func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
