// SPDX-License-Identifier: Apache-2.0
/// A Varlink call as it arrives: `{"method": "io.pathmond.WatchPath", "parameters": {...}, "more": true}`.
/// The parameters are decoded per method from the same bytes (see `VarlinkCodec.parameters`).
public struct VarlinkCall: Codable, Sendable, Hashable {
    /// The fully qualified method name, "interface.Method".
    public var method: String
    /// The client accepts several replies (streaming).
    public var more: Bool?
    /// The client wants no reply at all.
    public var oneway: Bool?
    /// The connection switches to another protocol after the reply (pathmond does not offer any).
    public var upgrade: Bool?

    public init(method: String, more: Bool? = nil, oneway: Bool? = nil, upgrade: Bool? = nil) {
        self.method = method
        self.more = more
        self.oneway = oneway
        self.upgrade = upgrade
    }

    /// The interface part of the method name: everything before the last dot.
    public var interface: String {
        guard let dot = method.lastIndex(of: ".") else { return "" }
        return String(method[..<dot])
    }

    /// The method part of the name, after the last dot.
    public var methodName: String {
        guard let dot = method.lastIndex(of: ".") else { return method }
        return String(method[method.index(after: dot)...])
    }
}

/// A call with typed parameters, for encoding calls (the client side) and decoding parameters (the server).
public struct VarlinkCallWithParameters<Parameters: Codable & Sendable>: Codable, Sendable {
    public var method: String
    public var parameters: Parameters?
    public var more: Bool?
    public var oneway: Bool?

    public init(method: String, parameters: Parameters? = nil, more: Bool? = nil, oneway: Bool? = nil) {
        self.method = method
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
    }
}

/// A reply: parameters, and `continues` while a streamed call has more to say; or an error name.
public struct VarlinkReply<Parameters: Codable & Sendable>: Codable, Sendable {
    public var parameters: Parameters?
    public var continues: Bool?
    public var error: String?

    public init(parameters: Parameters?, continues: Bool? = nil, error: String? = nil) {
        self.parameters = parameters
        self.continues = continues
        self.error = error
    }
}

/// The first look at a reply: whether it is an error and whether more follow.
public struct VarlinkReplyHeader: Codable, Sendable, Hashable {
    public var continues: Bool?
    public var error: String?
}

/// Parameters of no interest: `{}`. Whatever a call or reply carries in their place is ignored, never refused: the
/// methods that take none have always answered such calls.
public struct NoParameters: Codable, Sendable, Hashable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
}
