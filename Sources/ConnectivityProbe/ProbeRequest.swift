// SPDX-License-Identifier: Apache-2.0
import JSON

/// One connectivity check, as pathmond asks it of `pathmond-probe`: GET `uri` out of `interface`, expecting
/// `response`. One Varlink call (`io.pathmond.Probe.Check`), NUL-terminated, on a connection of its own.
public struct ProbeRequest: ProbeMethod, Hashable {
    /// An http or https URL (`ConnectivityCheckSettings.isValidURI`).
    public var uri: String
    /// The interface the request must leave by (its name: the probe binds the socket to it).
    public var interface: String
    /// The text the body must start with; empty: the answer must be HTTP 204 (or a 200 with no body).
    public var response: String

    public init(uri: String, interface: String, response: String) {
        self.uri = uri
        self.interface = interface
        self.response = response
    }

    /// The Varlink method the probe serves.
    public static let method = "io.pathmond.Probe.Check"
    /// The largest call or answer either side reads: a URL of 2 KiB, a response of 1 KiB, their escapes; a portal
    /// API's answer as the probe normalized it (five members, two URLs of 255 bytes).
    public static let maximumFrame = 16_384

    /// The call's JSON, without its NUL.
    public func encoded() -> [UInt8] {
        Self.call([("uri", .string(uri)), ("interface", .string(interface)), ("response", .string(response))])
    }

    /// Reads a call, refusing anything but a well-formed `Check` whose values the probe may act on.
    public static func decode(_ bytes: [UInt8]) throws(ProbeProtocolError) -> ProbeRequest {
        guard case .check(let request) = try ProbeMethodCall.decode(bytes) else { throw .unknownMethod }
        return request
    }

    /// The parameters of a `Check` call, checked.
    init(parameters: JSONValue) throws(ProbeProtocolError) {
        self.init(
            uri: try ProbeProtocolError.string("uri", in: parameters),
            interface: try ProbeProtocolError.string("interface", in: parameters),
            response: try ProbeProtocolError.string("response", in: parameters))
        guard Self.isValidURI(uri) else { throw .invalidParameter("uri") }
        guard Self.isValidInterfaceName(interface) else { throw .invalidParameter("interface") }
        guard response.utf8.count <= 1_024 else { throw .invalidParameter("response") }
    }

    public static func decodeReply(_ bytes: [UInt8]) throws(ProbeProtocolError) -> ProbeAnswer {
        try ProbeAnswer.decode(bytes)
    }

    /// http or https, 2 KiB of visible ASCII at most: the configuration's own rule, checked again on the probe's
    /// side of the socket (the probe trusts nothing it is sent).
    public static func isValidURI(_ uri: String) -> Bool {
        let lower = uri.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        return uri.utf8.count <= 2_048 && uri.utf8.allSatisfy { (0x21...0x7e).contains($0) }
    }

    /// A Linux interface name: 1 to 15 bytes, no '/', no whitespace, not "." or ".." (dev_valid_name).
    public static func isValidInterfaceName(_ name: String) -> Bool {
        (1...15).contains(name.utf8.count) && name != "." && name != ".."
            && name.utf8.allSatisfy { $0 > 0x20 && $0 != 0x2f && $0 != 0x3a && $0 < 0x7f }
    }
}
