// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel

/// One RFC 8908 check, as pathmond asks it of `pathmond-probe` (`io.pathmond.Probe.AskPortalAPI`): GET the API URI a
/// network announced, over HTTPS, out of the interface whose network announced it. The reply is what the API said
/// (``CaptivePortalAPIStatus``, parsed in the probe) or why it said nothing (``PortalAPIFailure``).
public struct PortalAPIRequest: ProbeMethod, Hashable {
    public typealias Reply = Result<CaptivePortalAPIStatus, PortalAPIFailure>

    /// The API's https URI, as the network announced it (DHCP option 114, a router advertisement).
    public var uri: String
    /// The interface the request must leave by: the portal answers for its own network only.
    public var interface: String

    public init(uri: String, interface: String) {
        self.uri = uri
        self.interface = interface
    }

    public static let method = "io.pathmond.Probe.AskPortalAPI"
    /// The Varlink error of a request that gave no usable answer; its parameters are a ``PortalAPIFailure``.
    public static let failedError = "io.pathmond.Probe.PortalAPIFailed"

    /// Whether `uri` may be asked at all: an announced URI (visible ASCII, 255 bytes at most) over https, since RFC
    /// 8908 section 4 requires HTTPS and anything else would send the request, and trust the answer, in the clear.
    public static func isValidURI(_ uri: String) -> Bool {
        CaptivePortalHint.isValidURI(uri) && uri.lowercased().hasPrefix("https://")
    }

    public func encoded() -> [UInt8] {
        Self.call([("uri", .string(uri)), ("interface", .string(interface))])
    }

    /// The parameters of an `AskPortalAPI` call, checked again on the probe's side (it trusts nothing it is sent).
    init(parameters: JSONValue) throws(ProbeProtocolError) {
        self.init(
            uri: try ProbeProtocolError.string("uri", in: parameters),
            interface: try ProbeProtocolError.string("interface", in: parameters))
        guard Self.isValidURI(uri) else { throw .invalidParameter("uri") }
        guard ProbeRequest.isValidInterfaceName(interface) else { throw .invalidParameter("interface") }
    }

    /// The probe's reply: the answer as a normalized RFC 8908 object, or the failure as this method's error.
    public static func encodedReply(_ reply: Reply) -> [UInt8] {
        let message: JSONValue
        switch reply {
        case .success(let status):
            message = .object([("parameters", .object([("api", status.rfc8908Document)]))])
        case .failure(let failure):
            message = .object([
                ("error", .string(failedError)),
                (
                    "parameters",
                    .object([("kind", .string(failure.kind.rawValue)), ("detail", .string(failure.detail))])
                ),
            ])
        }
        var bytes: [UInt8] = []
        JSONWriter.append(message, to: &bytes)
        return bytes
    }

    /// Reads the probe's reply: the API's answer, read by the same rules as the portal's own bytes, or its failure.
    public static func decodeReply(_ bytes: [UInt8]) throws(ProbeProtocolError) -> Reply {
        let object = try ProbeProtocolError.object(bytes)
        let parameters = object.members(named: "parameters").first
        if case .string(let error)? = object.members(named: "error").first {
            guard error == failedError, let parameters else { throw .refused(error) }
            guard let kind = PortalAPIFailure.Kind(rawValue: try ProbeProtocolError.string("kind", in: parameters))
            else { throw .invalidParameter("kind") }
            return .failure(PortalAPIFailure(kind, try ProbeProtocolError.string("detail", in: parameters)))
        }
        guard let api = parameters?.members(named: "api").first else { throw .invalidParameter("api") }
        do {
            return .success(try CaptivePortalAPIStatus.parse(document: api))
        } catch {
            throw .invalidParameter("api")
        }
    }
}
