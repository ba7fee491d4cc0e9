// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import Glibc

/// One connection from pathmond: one call in (`Check` or `AskPortalAPI`), one request, one answer out, then the
/// connection closes. Bounded: a caller that sends nothing, or too much, is dropped after `readTimeout` or
/// `ProbeRequest.maximumFrame` bytes.
struct ProbeConnection {
    let descriptor: Int32
    var checks = ProbeChecks()
    /// How long the caller has to send its call.
    var readTimeoutMilliseconds: Int32 = 5_000

    func serve() {
        let reply: [UInt8]
        switch readCall() {
        case .failure(let error):
            reply = ProbeAnswer.encodedError(error)
            log("refused a call: \(error)")
        case .success(let bytes):
            do {
                switch try ProbeMethodCall.decode(bytes) {
                case .check(let request):
                    let answer = checks.check(request)
                    log("\(request.uri) out of \(request.interface): \(answer.verdict.rawValue) (\(answer.detail))")
                    reply = answer.encoded()
                case .askPortalAPI(let request):
                    let result = checks.askPortalAPI(request)
                    switch result {
                    case .success(let status):
                        log("portal API \(request.uri) out of \(request.interface): captive \(status.isCaptive)")
                    case .failure(let failure):
                        log("portal API \(request.uri) out of \(request.interface): \(failure)")
                    }
                    reply = PortalAPIRequest.encodedReply(result)
                }
            } catch {
                reply = ProbeAnswer.encodedError(error)
                log("refused a call: \(error)")
            }
        }
        write(reply + [0])
    }

    /// The bytes before the first NUL.
    private func readCall() -> Result<[UInt8], ProbeProtocolError> {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, readTimeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return .failure(.malformed("no call within \(readTimeoutMilliseconds) ms")) }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .failure(.malformed("the connection closed before a whole call")) }
            received.append(contentsOf: chunk[0..<count])
            if let end = received.firstIndex(of: 0) { return .success(Array(received[..<end])) }
            guard received.count <= ProbeRequest.maximumFrame else { return .failure(.tooLarge) }
        }
    }

    private func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

/// One line to stderr, which the unit's journal takes (priority 6).
func log(_ line: String) {
    var text = "pathmond-probe: " + line + "\n"
    text.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
}
