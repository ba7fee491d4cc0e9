// SPDX-License-Identifier: Apache-2.0
import JSON

/// Why a call to the probe, or its reply, was not used.
public enum ProbeProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not one JSON object.
    case malformed(String)
    /// Larger than `ProbeRequest.maximumFrame`.
    case tooLarge
    /// A method `io.pathmond.Probe` does not have, or not the one asked.
    case unknownMethod
    /// A parameter missing, of another type, or not a value the probe acts on.
    case invalidParameter(String)
    /// The probe answered with an error of its own (its Varlink error name).
    case refused(String)

    public var description: String {
        switch self {
        case .malformed(let reason): "not a Varlink message: \(reason)"
        case .tooLarge: "a message larger than \(ProbeRequest.maximumFrame) bytes"
        case .unknownMethod: "not a call of \(ProbeRequest.method) or \(PortalAPIRequest.method)"
        case .invalidParameter(let name): "the parameter \"\(name)\" is missing or not allowed"
        case .refused(let name): "the probe refused the call (\(name))"
        }
    }

    /// The Varlink error the probe replies with.
    var varlinkError: String {
        switch self {
        case .unknownMethod: "org.varlink.service.MethodNotFound"
        case .invalidParameter: "org.varlink.service.InvalidParameter"
        default: "io.pathmond.Probe.InvalidCall"
        }
    }

    static func object(_ bytes: [UInt8]) throws(ProbeProtocolError) -> JSONValue {
        guard bytes.count <= ProbeRequest.maximumFrame else { throw .tooLarge }
        let value: JSONValue
        do {
            value = try JSONReader.parse(bytes, maximumDepth: 4)
        } catch {
            throw .malformed("\(error.reason) at byte \(error.offset)")
        }
        guard case .object = value else { throw .malformed("not an object") }
        return value
    }

    static func string(_ name: String, in parameters: JSONValue) throws(ProbeProtocolError) -> String {
        guard case .string(let text)? = parameters.members(named: name).first else { throw .invalidParameter(name) }
        return text
    }
}
