// SPDX-License-Identifier: Apache-2.0

/// What came back from one HTTP request, before it is judged.
public enum HTTPExchange: Sendable, Hashable {
    /// No HTTP answer: the connection, the name's resolution or the time ran out. The words say which.
    case noAnswer(String)
    /// An answer: its status, a redirect's target, and the body's first bytes (`truncated`: there was more).
    case answered(status: Int, location: String?, body: [UInt8], truncated: Bool)
}

/// Judges an answer the way NetworkManager and Android do: the expected answer means the internet is reached; a
/// redirect, or any other answer, means something on the way answered instead (a captive portal); no answer means
/// the network reaches no further. Pure: the probe's transfer gives it what libcurl saw.
public enum ConnectivityClassifier {
    /// How much of a body is kept to compare: the expected text is at most 1 KiB.
    public static let bodyPrefix = 4_096

    public static func classify(_ exchange: HTTPExchange, expecting response: String) -> ProbeAnswer {
        switch exchange {
        case .noAnswer(let reason):
            return ProbeAnswer(verdict: .limited, detail: "no answer: \(reason)")
        case .answered(let status, let location, let body, _):
            if (300..<400).contains(status) {
                return ProbeAnswer(
                    verdict: .portal, status: status, location: location,
                    detail: "HTTP \(status), a redirect to \(location ?? "nowhere")")
            }
            if response.isEmpty {
                // Android's rule: 204, or a 200 whose body is empty (some proxies turn one into the other).
                if status == 204 || (status == 200 && body.isEmpty) {
                    return ProbeAnswer(verdict: .open, status: status, detail: "HTTP \(status)")
                }
                return ProbeAnswer(
                    verdict: .portal, status: status, detail: "HTTP \(status), not the expected 204")
            }
            // NetworkManager's rule: the body starts with the expected text (the server may end it with a newline).
            if status == 200 && body.starts(with: Array(response.utf8)) {
                return ProbeAnswer(verdict: .open, status: status, detail: "HTTP 200, the expected answer")
            }
            return ProbeAnswer(
                verdict: .portal, status: status, detail: "HTTP \(status), not the expected answer")
        }
    }
}
