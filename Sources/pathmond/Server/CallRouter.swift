// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel
import PathProtocol

/// What a connection does with one call: the Varlink semantics of pathmond's methods, free of sockets.
enum CallOutcome {
    /// Send these bytes (one reply or error, NUL included).
    case reply([UInt8])
    /// Send this error, then close: the peer broke the protocol and what follows cannot be trusted.
    case replyAndClose([UInt8])
    /// A oneway call: send nothing.
    case noReply
    /// Start streaming a path or a flow's status to this connection (WatchPath, WatchFlow with "more").
    case startWatching(Interest)
    /// Send the stored history entries a query selects (GetHistory), written from the shared encoding as the
    /// socket takes them; with `follows`, then every new one (GetHistory with "more").
    case history(PathHistoryQuery, follows: Bool)
    /// The reply comes later (a policy write): run `start`, which calls back once with the reply (empty for a
    /// oneway call: nothing to send, but the next call waits for it all the same).
    case deferred(start: @Sendable (_ reply: @escaping @Sendable ([UInt8]) -> Void) -> Void)
}

/// A decoded call that passed its method's rules, as a handler gets it.
struct MethodCall<Parameters: Sendable> {
    let parameters: Parameters
    /// The client asked for "more".
    let more: Bool
    let peer: PeerCredentials?
}

/// One method-table entry and what the daemon does for it.
struct MethodRoute: Sendable {
    let method: any VarlinkMethodRule
    /// Handles a call: its frame, its envelope, and the call as read (nil when it was decoded through Codable).
    let handle:
        @Sendable (_ frame: [UInt8], _ call: VarlinkCall, _ read: JSONMembers?, _ peer: PeerCredentials?)
            throws(VarlinkError) -> CallOutcome

    /// The route for `method`: its parameters are decoded and its rules checked here, the same way for every
    /// method, before `handler` runs. With `read`, the parameters of a call already read are read by it (a reader
    /// without the Decoder: `VarlinkCall+Reading.swift`); those it refuses are decoded as before, errors and all.
    init<Parameters, Reply>(
        _ method: VarlinkMethod<Parameters, Reply>,
        reading read: (@Sendable (JSONValue) throws(JSONShapeError) -> Parameters)? = nil,
        _ handler: @escaping @Sendable (MethodCall<Parameters>) throws(VarlinkError) -> CallOutcome
    ) {
        self.method = method
        handle = { frame, call, members, peer throws(VarlinkError) in
            // The framer already holds every call to the largest any method takes; this is the method's own.
            guard frame.count <= method.maximumCallSize else {
                let reason = "a call of \(method.name) over \(method.maximumCallSize) bytes"
                return .replyAndClose(VarlinkCodec().encodeError(.protocolError(reason: reason)))
            }
            // Absent or null parameters read as `{}`, as `decodeParameters` has them.
            let parameters =
                if let read, let members, let parameters = try? read(members.optional("parameters") ?? .object([])) {
                    parameters
                } else {
                    try method.decodeParameters(from: frame)
                }
            try method.check(call)
            return try handler(MethodCall(parameters: parameters, more: call.more == true, peer: peer))
        }
    }
}

/// Routes decoded calls to pathmond's methods by the method table (`Methods.all`) and encodes their replies.
struct CallRouter: Sendable {
    let hub: PathHub
    private let routes: [String: MethodRoute]
    private let codec = VarlinkCodec()

    init(hub: PathHub, policy: PolicyController, usage: UsageService? = nil, version: String) {
        self.hub = hub
        let routes = MethodHandlers(hub: hub, policy: policy, usage: usage, version: version).routes
        self.routes = Dictionary(uniqueKeysWithValues: routes.map { ($0.method.name, $0) })
        // A method in the table that the daemon does not serve, or one served outside the table, is a mistake in
        // this program, found at the first start of any test that runs the daemon.
        precondition(
            Set(self.routes.keys) == Set(Methods.all.map(\.name)), "the routes and the method table disagree")
    }

    /// Handles one framed message (without its NUL) from a peer whose credentials the kernel gave.
    func handle(_ frame: [UInt8], from peer: PeerCredentials?) -> CallOutcome {
        // Parsed once, its envelope read from the document, which the method's parameters are then read from; a
        // call this refuses is decoded as before, so that what is wrong with it is said the same way.
        let members = try? JSONReader.parse(frame).object()
        let call: VarlinkCall
        if let members, let read = try? VarlinkCall(json: members) {
            call = read
        } else {
            do {
                call = try codec.decode(VarlinkCall.self, from: frame)
            } catch {
                return .replyAndClose(codec.encodeError(.protocolError(reason: error.description)))
            }
        }
        let outcome: CallOutcome
        do {
            outcome = try route(call, frame: frame, read: members, peer: peer)
        } catch {
            outcome = .reply(codec.encodeError(error))
        }
        // A oneway call gets nothing back, not even a stream: a WatchPath with "oneway" and "more" would
        // otherwise send updates the client said it will not read.
        guard call.oneway == true else { return outcome }
        switch outcome {
        case .reply, .startWatching, .history: return .noReply
        case .replyAndClose, .noReply: return outcome
        case .deferred(let start): return .deferred { reply in start { _ in reply([]) } }
        }
    }

    private func route(_ call: VarlinkCall, frame: [UInt8], read: JSONMembers?, peer: PeerCredentials?)
        throws(VarlinkError) -> CallOutcome
    {
        if call.upgrade == true { throw .invalidParameter(parameter: "upgrade") }
        guard let route = routes[call.method] else {
            guard VarlinkInterfaces.descriptions[call.interface] != nil else {
                throw .interfaceNotFound(interface: call.interface)
            }
            throw .methodNotFound(method: call.method)
        }
        return try route.handle(frame, call, read, peer)
    }
}
