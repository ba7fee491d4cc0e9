// SPDX-License-Identifier: Apache-2.0
import JSON

/// What one check found, as `pathmond-probe` answers it: the reply to `io.pathmond.Probe.Check`.
public struct ProbeAnswer: Sendable, Hashable {
    /// The network's connectivity as the answer (or its absence) says.
    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        /// The expected answer: the internet is reached.
        case open
        /// A redirect or another answer: something on the way (a captive portal) answered instead.
        case portal
        /// No answer at all: no connection, no name resolution, a timeout.
        case limited
    }

    public var verdict: Verdict
    /// The HTTP status, when there was an answer.
    public var status: Int?
    /// A redirect's target, when the answer was one (the portal's sign-in page, usually).
    public var location: String?
    /// Why, in words for the journal: "HTTP 302", "no answer: Connection refused".
    public var detail: String

    public init(verdict: Verdict, status: Int? = nil, location: String? = nil, detail: String) {
        self.verdict = verdict
        self.status = status
        self.location = location
        self.detail = detail
    }

    /// The reply's JSON, without its NUL.
    public func encoded() -> [UInt8] {
        var members: [(String, JSONValue)] = [("verdict", .string(verdict.rawValue)), ("detail", .string(detail))]
        if let status { members.append(("status", .number(String(status)))) }
        if let location { members.append(("location", .string(location))) }
        var bytes: [UInt8] = []
        JSONWriter.append(.object([("parameters", .object(members))]), to: &bytes)
        return bytes
    }

    /// Reads a reply: an answer, or the probe's error (thrown as `.refused`).
    public static func decode(_ bytes: [UInt8]) throws(ProbeProtocolError) -> ProbeAnswer {
        let object = try ProbeProtocolError.object(bytes)
        if case .string(let error)? = object.members(named: "error").first { throw .refused(error) }
        guard let parameters = object.members(named: "parameters").first, case .object = parameters else {
            throw .invalidParameter("parameters")
        }
        guard let verdict = Verdict(rawValue: try ProbeProtocolError.string("verdict", in: parameters)) else {
            throw .invalidParameter("verdict")
        }
        var answer = ProbeAnswer(verdict: verdict, detail: try ProbeProtocolError.string("detail", in: parameters))
        if let status = parameters.members(named: "status").first {
            guard case .number(let text) = status, let code = Int(text), (100...999).contains(code) else {
                throw .invalidParameter("status")
            }
            answer.status = code
        }
        if let location = parameters.members(named: "location").first {
            guard case .string(let text) = location else { throw .invalidParameter("location") }
            answer.location = text
        }
        return answer
    }

    /// The probe's error reply, for a call it will not act on.
    public static func encodedError(_ error: ProbeProtocolError) -> [UInt8] {
        var bytes: [UInt8] = []
        let name = error.varlinkError
        JSONWriter.append(
            .object([("error", .string(name)), ("parameters", .object([("reason", .string(error.description))]))]),
            to: &bytes)
        return bytes
    }
}
