// SPDX-License-Identifier: Apache-2.0
import JSON

/// One method of `io.pathmond.Probe`: the call as pathmond sends it and how its reply reads, so that one call path
/// (pathmond's `ProbeCall`) serves every method and each reply is decoded by the type that made the call.
public protocol ProbeMethod: Sendable {
    /// What a reply to this call decodes to.
    associatedtype Reply: Sendable
    /// The Varlink method's full name.
    static var method: String { get }
    /// The call's JSON, without its NUL.
    func encoded() -> [UInt8]
    /// Reads a reply to this call; the probe's own error (a call it refused) is thrown as `.refused`.
    static func decodeReply(_ bytes: [UInt8]) throws(ProbeProtocolError) -> Reply
}

/// A call as the probe reads it: which method, with its parameters checked.
public enum ProbeMethodCall: Sendable, Hashable {
    case check(ProbeRequest)
    case askPortalAPI(PortalAPIRequest)

    /// Reads a call, refusing another method or parameters the probe may not act on.
    public static func decode(_ bytes: [UInt8]) throws(ProbeProtocolError) -> ProbeMethodCall {
        let object = try ProbeProtocolError.object(bytes)
        guard case .string(let method)? = object.members(named: "method").first else { throw .unknownMethod }
        guard method == ProbeRequest.method || method == PortalAPIRequest.method else { throw .unknownMethod }
        guard let parameters = object.members(named: "parameters").first, case .object = parameters else {
            throw .invalidParameter("parameters")
        }
        return method == ProbeRequest.method
            ? .check(try ProbeRequest(parameters: parameters))
            : .askPortalAPI(try PortalAPIRequest(parameters: parameters))
    }
}

extension ProbeMethod {
    /// `{"method": …, "parameters": {…}}`: the frame every call shares.
    static func call(_ parameters: [(String, JSONValue)]) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.append(.object([("method", .string(method)), ("parameters", .object(parameters))]), to: &bytes)
        return bytes
    }
}
