// SPDX-License-Identifier: Apache-2.0
/// What a Varlink method is on the wire, apart from its types: the part of a method-table entry that the server's
/// generic dispatch, the interface-description test and the C module's generated header read.
public protocol VarlinkMethodRule: Sendable {
    /// The fully qualified name, "interface.Method".
    var name: String { get }
    /// What "more" does.
    var streaming: VarlinkStreaming { get }
    /// Whether the method may be called with "oneway" (then nothing is sent back, not even a stream).
    var acceptsOneway: Bool { get }
    /// The errors the method itself may reply with. Every method may also get the ones any connection may
    /// (`Methods.connectionErrors`).
    var errors: [VarlinkError.Kind] { get }
    /// The largest call of this method the server reads, NUL excluded.
    var maximumCallSize: Int { get }
    /// The largest reply the method can send, NUL excluded: what a client must be ready to read.
    var maximumReplySize: Int { get }
}

extension VarlinkMethodRule {
    /// The interface part of the name: everything before the last dot.
    public var interface: String { VarlinkCall(method: name).interface }
    /// The method part of the name, after the last dot.
    public var methodName: String { VarlinkCall(method: name).methodName }

    /// Holds a call to the method's rules for "more", "oneway" and "upgrade"; throws the error the caller gets.
    public func check(_ call: VarlinkCall) throws(VarlinkError) {
        if call.upgrade == true { throw .invalidParameter(parameter: "upgrade") }
        if call.oneway == true, !acceptsOneway { throw .invalidParameter(parameter: "oneway") }
        if streaming == .required, call.more != true { throw .expectedMore }
    }
}

/// What "more" does for a method.
public enum VarlinkStreaming: Sendable, Hashable {
    /// One reply, with or without "more".
    case never
    /// With "more", replies until one without "continues"; without it, one reply.
    case optional
    /// Only with "more": a call without it gets org.varlink.service.ExpectedMore.
    case required
}

/// One entry of the method table: the rules, and the parameter and reply types that the server decodes and the
/// client library encodes, so that neither names a method by a string of its own.
public struct VarlinkMethod<Parameters: Codable & Sendable, Reply: Codable & Sendable>: VarlinkMethodRule {
    public let name: String
    public let streaming: VarlinkStreaming
    public let acceptsOneway: Bool
    public let errors: [VarlinkError.Kind]
    public let maximumCallSize: Int
    public let maximumReplySize: Int

    public init(
        _ name: String, streaming: VarlinkStreaming = .never, acceptsOneway: Bool = true,
        errors: [VarlinkError.Kind] = [], maximumCallSize: Int = VarlinkCodec.maximumMessageSize,
        maximumReplySize: Int = VarlinkCodec.maximumReplySize
    ) {
        self.name = name
        self.streaming = streaming
        self.acceptsOneway = acceptsOneway
        self.errors = errors
        self.maximumCallSize = maximumCallSize
        self.maximumReplySize = maximumReplySize
    }

    /// The call's parameters, as the server reads them. Absent parameters read as `{}` (Varlink lets a client
    /// leave out empty ones); a method that needs some then gets InvalidParameter "parameters". A field that is
    /// missing or of the wrong type is named without the "parameters." prefix, as InvalidParameter expects.
    public func decodeParameters(from frame: [UInt8], codec: VarlinkCodec = VarlinkCodec()) throws(VarlinkError)
        -> Parameters
    {
        let sent: Parameters?
        do throws(VarlinkDecodingError) {
            sent = try codec.parameters(Parameters.self, from: frame)
        } catch {
            switch error {
            case .invalidField(let field) where field.isEmpty: throw .invalidParameter(parameter: "parameters")
            case .invalidField(let field):
                let prefix = "parameters."
                throw .invalidParameter(
                    parameter: field.hasPrefix(prefix) ? String(field.dropFirst(prefix.count)) : field)
            case .malformed: throw .invalidParameter(parameter: "parameters")
            }
        }
        if let sent { return sent }
        guard let empty = try? codec.decode(Parameters.self, from: Array("{}".utf8)) else {
            throw .invalidParameter(parameter: "parameters")
        }
        return empty
    }

    /// A call of the method, NUL included, as the client library sends it.
    public func encodeCall(_ parameters: Parameters, more: Bool = false, codec: VarlinkCodec = VarlinkCodec())
        -> [UInt8]
    {
        codec.encode(VarlinkCallWithParameters(method: name, parameters: parameters, more: more ? true : nil))
    }
}
