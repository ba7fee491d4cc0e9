// SPDX-License-Identifier: Apache-2.0
import JSON

/// JSON encoding and decoding of Varlink messages. Each encoded message ends with the NUL byte that frames it.
public struct VarlinkCodec: Sendable {
    /// The largest call the daemon accepts from a client, NUL excluded: far above any call pathmond defines, small
    /// enough that a client cannot make the daemon buffer without bound.
    public static let maximumMessageSize = 64 * 1024

    /// The largest reply a client accepts, NUL excluded. Replies grow with the machine: ListInterfaces is about
    /// 400 bytes an interface and ListNetworks about 100 bytes a network, so 64 KiB ran out at about 200
    /// interfaces or 540 networks. 16 MiB holds 40,000 interfaces or 150,000 networks and still bounds what a
    /// client buffers for a daemon gone wrong.
    public static let maximumReplySize = 16 << 20

    public init() {}

    /// Encodes a message and appends the terminating NUL.
    public func encode<Message: Encodable>(_ message: Message) -> [UInt8] {
        // Encoding our own Codable structs of strings, integers and booleans cannot fail (only a non-finite
        // floating-point number can, and the protocol has none).
        var bytes = try! JSONValueEncoder().encode(message)
        bytes.append(0)
        return bytes
    }

    /// Encodes a reply with parameters.
    public func encodeReply<Parameters: Codable & Sendable>(_ parameters: Parameters, continues: Bool = false)
        -> [UInt8]
    {
        encode(VarlinkReply(parameters: parameters, continues: continues ? true : nil))
    }

    /// Encodes an error reply.
    public func encodeError(_ error: VarlinkError) -> [UInt8] {
        encode(VarlinkReply(parameters: error.parameters, error: error.name))
    }

    /// Decodes a message (without its NUL) as the given type.
    public func decode<Message: Decodable>(_ type: Message.Type, from frame: [UInt8]) throws(VarlinkDecodingError)
        -> Message
    {
        do {
            return try JSONValueDecoder().decode(type, from: frame)
        } catch let error as DecodingError {
            throw VarlinkDecodingError(error)
        } catch {
            throw .malformed(String(describing: error))
        }
    }

    /// Decodes a call's parameters as the method expects them; an absent "parameters" reads as `{}`.
    public func parameters<Parameters: Codable & Sendable>(
        _ type: Parameters.Type, from frame: [UInt8]
    ) throws(VarlinkDecodingError) -> Parameters? {
        try decode(VarlinkCallWithParameters<Parameters>.self, from: frame).parameters
    }
}

/// Why a message could not be decoded.
public enum VarlinkDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not JSON, or not an object.
    case malformed(String)
    /// A field is missing or has the wrong type; carries the field's path, e.g. "parameters.interface".
    case invalidField(String)

    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self = .invalidField((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            self = .invalidField(context.codingPath.map(\.stringValue).joined(separator: "."))
        case .dataCorrupted(let context):
            self = .malformed(context.debugDescription)
        @unknown default:
            self = .malformed(String(describing: error))
        }
    }

    public var description: String {
        switch self {
        case .malformed(let detail): return "not a JSON object: \(detail)"
        case .invalidField(let field): return "missing or invalid field \(field)"
        }
    }
}
