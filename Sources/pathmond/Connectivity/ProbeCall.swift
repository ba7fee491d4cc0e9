// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import Glibc
import PathProtocol
import SDEvent

/// One exchange with `pathmond-probe` on the main loop, never waiting: connect to its socket (systemd starts a probe
/// per connection), send the call, and read the answer when epoll says it is there; a timer bounds the whole.
/// The result goes to `completion`, once, on the loop; `cancel()` drops the exchange without calling it. Every method
/// of the probe goes this way: `Request` encodes its call and decodes its reply.
final class ProbeCall<Request: ProbeMethod> {
    private let loop: SDEventLoop
    private let socketPath: String
    private let request: Request
    private let timeout: Duration
    private var completion: ((Result<Request.Reply, ProbeCallError>) -> Void)?
    private var descriptor: Int32 = -1
    private var source: SDEventSource?
    private var timer: SDEventSource?
    private var received: [UInt8] = []

    init(
        loop: SDEventLoop, socketPath: String, request: Request, timeout: Duration = probeCallTimeout,
        completion: @escaping (Result<Request.Reply, ProbeCallError>) -> Void
    ) {
        self.loop = loop
        self.socketPath = socketPath
        self.request = request
        self.timeout = timeout
        self.completion = completion
    }

    deinit { closeDescriptor() }

    /// Connects and sends; a failure to do either is reported on a later turn, like any other result.
    func start() {
        if let error = connectAndSend() {
            let call = UncheckedTransfer(self)
            loop.execute { call.value.finish(.failure(error)) }
            return
        }
        do {
            let call = UncheckedTransfer(self)
            source = try loop.watch(descriptor, for: .readable) { _ in call.value.readable() }
            timer = try loop.schedule(after: timeout) { call.value.finish(.failure(.timedOut(call.value.timeout))) }
        } catch {
            let call = UncheckedTransfer(self)
            loop.execute { call.value.finish(.failure(.loop(error.errno))) }
        }
    }

    /// Drops the exchange: the probe sees its connection close, and `completion` is never called.
    func cancel() {
        completion = nil
        closeDescriptor()
    }

    private func connectAndSend() -> ProbeCallError? {
        guard let address = UnixSocketAddress(path: socketPath) else { return .badSocketPath(socketPath) }
        descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .connect(errno) }
        // A Unix stream socket connects at once or not at all (EAGAIN: the backlog is full, also a failure here).
        guard address.withSocketAddress({ connect(descriptor, $0, $1) }) == 0 else { return .connect(errno) }
        // One call of a few hundred bytes fits any socket buffer: a short write means something is wrong.
        let frame = request.encoded() + [0]
        let written = frame.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard written == frame.count else { return .send(written < 0 ? errno : 0) }
        return nil
    }

    private func readable() {
        var chunk = [UInt8](repeating: 0, count: 4_096)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            finish(.failure(.receive(errno)))
            return
        }
        guard count > 0 else {
            finish(.failure(.closedEarly))
            return
        }
        received.append(contentsOf: chunk[0..<count])
        if let end = received.firstIndex(of: 0) {
            do {
                finish(.success(try Request.decodeReply(Array(received[..<end]))))
            } catch {
                finish(.failure(.answer(error)))
            }
        } else if received.count > ProbeRequest.maximumFrame {
            finish(.failure(.answer(.tooLarge)))
        }
    }

    private func finish(_ result: Result<Request.Reply, ProbeCallError>) {
        let completion = completion
        self.completion = nil
        closeDescriptor()
        completion?(result)
    }

    private func closeDescriptor() {
        source?.cancel()
        source = nil
        timer?.cancel()
        timer = nil
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}

/// The probe allows itself 10 s for a request; this leaves room for systemd to start it. (A generic class has no
/// stored static properties.)
let probeCallTimeout = Duration.seconds(20)

/// Why an exchange with the probe gave no answer (not the network's fault: the check is tried again later).
enum ProbeCallError: Error, Hashable, CustomStringConvertible {
    case badSocketPath(String)
    /// Connecting failed: ENOENT or ECONNREFUSED when no probe is installed or its socket unit is stopped.
    case connect(Int32)
    case send(Int32)
    case receive(Int32)
    /// The probe closed the connection before a whole answer.
    case closedEarly
    case timedOut(Duration)
    case answer(ProbeProtocolError)
    case loop(Int32)

    /// Whether the probe is simply not there: worth a notice once, not a warning per check.
    var isProbeMissing: Bool {
        if case .connect(let code) = self { return code == ENOENT || code == ECONNREFUSED }
        return false
    }

    var description: String {
        func words(_ code: Int32) -> String { String(cString: strerror(code)) }
        switch self {
        case .badSocketPath(let path): return "the probe's socket path \(path) is not a Unix socket path"
        case .connect(let code): return "cannot connect to the probe: \(words(code))"
        case .send(let code): return "cannot send to the probe: \(code == 0 ? "short write" : words(code))"
        case .receive(let code): return "cannot read the probe's answer: \(words(code))"
        case .closedEarly: return "the probe closed the connection without an answer"
        case .timedOut(let limit): return "no answer from the probe within \(limit)"
        case .answer(let error): return "the probe's answer was not usable: \(error)"
        case .loop(let code): return "cannot watch the probe's connection: \(words(code))"
        }
    }
}
