// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// One call to pathmond's dispatcher (`DispatcherProtocol`): a blocking connection, one call, one reply, closed.
/// Five seconds at most for each step. Any user may defer its unit's run (as that unit's ExecCondition= command);
/// only root may list or forget.
struct DispatcherClient {
    var socketPath = DispatcherProtocol.socketPath

    enum Failure: Error, CustomStringConvertible {
        /// The socket is missing or refuses: the dispatcher is not running (or not installed).
        case notRunning
        /// Only root may list or forget (or, from an older dispatcher, use it at all).
        case permissionDenied
        /// The dispatcher answered with an error.
        case remote(String)
        /// The dispatcher refused, and said why.
        case refused(reason: String)
        case broken(String)

        var description: String {
            switch self {
            case .notRunning:
                return "pathmond-dispatcher is not running (systemctl start pathmond-dispatcher)"
            case .permissionDenied:
                return "only root may list or forget deferred runs"
            case .refused(let reason): return reason
            case .remote(let name):
                switch name {
                case DispatcherProtocol.ErrorName.notACondition:
                    return "not run as a service's ExecCondition= command: nothing to defer"
                case DispatcherProtocol.ErrorName.noSuchDeferral: return "no deferred run of that unit"
                case DispatcherProtocol.ErrorName.tooManyDeferrals: return "too many deferred runs already"
                default: return "the dispatcher answered \(name)"
                }
            case .broken(let reason): return "the dispatcher's answer cannot be read: \(reason)"
            }
        }
    }

    /// Calls `method` and decodes its reply as `Reply`.
    func call<Parameters: Codable & Sendable, Reply: Codable & Sendable>(
        _ method: DispatcherProtocol.Method, _ parameters: Parameters, as _: Reply.Type
    ) throws(Failure) -> Reply {
        guard let address = UnixSocketAddress(path: socketPath) else { throw .notRunning }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .broken(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard address.withSocketAddress({ connect(descriptor, $0, $1) }) == 0 else {
            throw errno == EACCES || errno == EPERM ? .permissionDenied : .notRunning
        }
        let codec = VarlinkCodec()
        let message = codec.encode(VarlinkCallWithParameters(method: method.rawValue, parameters: parameters))
        var sent = 0
        while sent < message.count {
            let count = message[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .broken(String(cString: strerror(errno))) }
            sent += count
        }
        var frame: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !frame.contains(0) {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0, frame.count + count <= VarlinkCodec.maximumReplySize else {
                throw .broken(count == 0 ? "connection closed" : String(cString: strerror(errno)))
            }
            frame += chunk[..<count]
        }
        let body = Array(frame.prefix { $0 != 0 })
        if let header = try? codec.decode(VarlinkReplyHeader.self, from: body), let error = header.error {
            if error == DispatcherProtocol.ErrorName.permissionDenied { throw .permissionDenied }
            if let refusal = try? codec.decode(VarlinkReply<DispatcherProtocol.Refusal>.self, from: body),
                let reason = refusal.parameters?.reason
            {
                throw .refused(reason: reason)
            }
            throw .remote(error)
        }
        do {
            guard let parameters = try codec.decode(VarlinkReply<Reply>.self, from: body).parameters else {
                throw Failure.broken("no parameters")
            }
            return parameters
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .broken("\(error)")
        }
    }
}
