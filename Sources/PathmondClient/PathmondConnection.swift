// SPDX-License-Identifier: Apache-2.0
internal import JSON
import PathModel
import PathProtocol

/// A blocking connection to pathmond for one-shot calls and a path stream; `pathctl` is built on it.
/// For an app, `NetworkPathMonitor` is the friendlier interface: asynchronous, and it reconnects.
///
/// Varlink answers calls in order and its replies name no call, so a reply left unread would be taken for the
/// answer to the next call. A connection is therefore given up once that can happen: after a call times out (its
/// reply may still arrive), after a stream (`watchPath`, `watchFlow`, `followHistory`) ends, and after a reply
/// that could not be framed. Every later call on it throws the same error again (`.timedOut`, `.disconnected`,
/// `.invalidReply`) without sending anything; make a new connection.
public final class PathmondConnection: Sendable {
    /// Where pathmond listens unless told otherwise.
    public static let defaultSocketPath = "/run/pathmond/io.pathmond"

    private let socket: VarlinkSocket
    private let codec = VarlinkCodec()

    /// Connects; throws `.daemonNotRunning` when nothing listens at `socketPath`.
    /// - Parameter replyTimeout: how long a one-shot call waits for its reply before `.timedOut`; nil waits for
    ///   ever. `watchPath` always waits for ever: a path may stay the same for days.
    public init(
        socketPath: String = PathmondConnection.defaultSocketPath, replyTimeout: Duration? = .seconds(10)
    ) throws(PathmondClientError) {
        socket = try VarlinkSocket(path: socketPath)
        socket.setReceiveTimeout(replyTimeout)
    }

    /// The process that listens on the socket (SO_PEERCRED), for a client that checks pathmond's namespaces
    /// without a call; nil when the kernel cannot say.
    package var peerProcessID: Int32? { socket.peerProcessID }

    /// io.pathmond.GetPath: the path now, for `parameters` (the system path by default).
    public func path(parameters: PathParameters = .unrestricted) throws(PathmondClientError) -> Path {
        let call = Methods.getPath.writeCall(Self.requirements(parameters))
        return try decodePath(send(call, Methods.getPath, reading: Methods.PathReply.init(json:)))
    }

    /// io.pathmond.ListInterfaces: every interface the kernel has, loopback included, by index.
    public func interfaces() throws(PathmondClientError) -> [InterfaceDetails] {
        try call(Methods.listInterfaces, NoParameters()).interfaces
    }

    /// io.pathmond.ListNetworks: remembered and attached networks.
    public func networks() throws(PathmondClientError) -> [NetworkDetails] {
        try call(Methods.listNetworks, NoParameters()).networks
    }

    /// io.pathmond.GetUsage: each network's bytes sent and received today, this cycle and the cycles before.
    public func usage() throws(PathmondClientError) -> [WireNetworkUsage] {
        try call(Methods.getUsage, NoParameters()).networks
    }

    /// io.pathmond.GetStatus: the daemon's version and the condition of its policy file.
    public func status() throws(PathmondClientError) -> DaemonStatus {
        try call(Methods.getStatus, NoParameters()).status
    }

    /// io.pathmond.SetConstrained: Low Data Mode for the network on `interface`, or the one `key` names.
    public func setConstrained(
        _ constrained: Bool, interface: String? = nil, key: String? = nil
    ) throws(PathmondClientError) -> NetworkDetails {
        let parameters = Methods.SetConstrainedParameters(interface: interface, key: key, constrained: constrained)
        return try call(Methods.setConstrained, parameters).network
    }

    /// io.pathmond.SetDataLimit: a data limit on the network on `interface`, or the one `key` names; nil clears it.
    public func setDataLimit(
        _ limit: DataLimit?, interface: String? = nil, key: String? = nil
    ) throws(PathmondClientError) -> NetworkDetails {
        let parameters = Methods.SetDataLimitParameters(
            interface: interface, key: key, limitBytes: limit?.bytes, warningPercent: limit?.warningPercent,
            cycle: limit?.cycle.description)
        return try call(Methods.setDataLimit, parameters).network
    }

    /// io.pathmond.SetExpensive: true or false pins the flag; nil leaves it to detection again.
    public func setExpensive(
        _ expensive: Bool?, interface: String? = nil, key: String? = nil
    ) throws(PathmondClientError) -> NetworkDetails {
        let parameters = Methods.SetExpensiveParameters(interface: interface, key: key, expensive: expensive)
        return try call(Methods.setExpensive, parameters).network
    }

    /// io.pathmond.SetNetworkName: names the network on `interface`, or the one `key` names; nil removes the name.
    public func setNetworkName(
        _ name: String?, interface: String? = nil, key: String? = nil
    ) throws(PathmondClientError) -> NetworkDetails {
        let parameters = Methods.SetNetworkNameParameters(interface: interface, key: key, name: name)
        return try call(Methods.setNetworkName, parameters).network
    }

    /// io.pathmond.ForgetNetwork.
    public func forgetNetwork(key: String) throws(PathmondClientError) {
        _ = try call(Methods.forgetNetwork, Methods.ForgetNetworkParameters(key: key))
    }

    /// io.pathmond.WatchPath: calls `handler` with the path for `parameters` and then every change, until the
    /// handler returns false or the connection ends (which throws `.disconnected`).
    public func watchPath(
        parameters: PathParameters = .unrestricted, _ handler: (Path) -> Bool
    ) throws(PathmondClientError) {
        let call = Methods.watchPath.writeCall(Self.requirements(parameters), more: true)
        try stream(call, Methods.watchPath, reading: Methods.PathReply.init(json:)) {
            reply throws(PathmondClientError) in handler(try decodePath(reply))
        }
    }

    /// io.pathmond.WatchFlow: calls `handler` with the flow's status and then every change, until the handler
    /// returns false or the connection ends (which throws `.disconnected`).
    public func watchFlow(_ flow: Flow, _ handler: (FlowStatus) -> Bool) throws(PathmondClientError) {
        try stream(Methods.watchFlow, Methods.FlowParameters(flow: WireFlow(flow))) { reply in
            handler(reply.status.status)
        }
    }

    private static func requirements(_ parameters: PathParameters) -> Methods.PathParameters {
        Methods.PathParameters(requirements: parameters == .unrestricted ? nil : WirePathRequirements(parameters))
    }

    /// Calls a method of the table with "more" and hands each reply to `handler`.
    func stream<Parameters, Reply>(
        _ method: VarlinkMethod<Parameters, Reply>, _ parameters: Parameters,
        _ handler: (Reply) throws(PathmondClientError) -> Bool
    ) throws(PathmondClientError) {
        try stream(method.encodeCall(parameters, more: true, codec: codec), method, handler)
    }

    /// Sends a call with "more" already written and hands each reply to `handler` (read by `read` when given: see
    /// `receive`).
    private func stream<Parameters, Reply>(
        _ call: [UInt8], _ method: VarlinkMethod<Parameters, Reply>, reading read: ReplyReader<Reply>? = nil,
        _ handler: (Reply) throws(PathmondClientError) -> Bool
    ) throws(PathmondClientError) {
        precondition(method.streaming != .never, "\(method.name) does not stream")
        socket.setReceiveTimeout(nil)
        try socket.send(call)
        // However the stream ends, pathmond goes on with it until the connection closes.
        defer { socket.abandon(.disconnected) }
        while true {
            let (parameters, continues) = try receive(Reply.self, reading: read)
            guard try handler(parameters) else { return }
            guard continues else { throw .disconnected }
        }
    }

    /// Unblocks a `watchPath` running on another thread.
    public func close() {
        socket.shutdown()
    }

    /// Calls a method of the table and waits for its one reply.
    func call<Parameters, Reply>(_ method: VarlinkMethod<Parameters, Reply>, _ parameters: Parameters)
        throws(PathmondClientError) -> Reply
    {
        try send(method.encodeCall(parameters, codec: codec), method)
    }

    /// Sends a call already written and waits for its one reply (read by `read` when given: see `receive`).
    private func send<Parameters, Reply>(
        _ call: [UInt8], _ method: VarlinkMethod<Parameters, Reply>, reading read: ReplyReader<Reply>? = nil
    ) throws(PathmondClientError) -> Reply {
        try socket.send(call)
        return try receive(Reply.self, reading: read).parameters
    }

    /// Reads a reply's parameters without the Decoder (`JSONShapeError`).
    typealias ReplyReader<Reply> = (JSONValue) throws(JSONShapeError) -> Reply

    /// The next reply's parameters. With `read`, a reply that is not an error is read by it; one it refuses, and
    /// any error, are decoded as they are without it, so that what is wrong is said the same way.
    private func receive<Parameters: Codable & Sendable>(
        _ type: Parameters.Type, reading read: ReplyReader<Parameters>? = nil
    ) throws(PathmondClientError) -> (parameters: Parameters, continues: Bool) {
        let frame = try socket.receive()
        if let read, let document = try? JSONReader.parse(frame, maximumDepth: JSONReader.defaultMaximumDepth),
            let reply = try? document.object(), reply.optional("error") == nil,
            let parameters = reply.optional("parameters"), let value = try? read(parameters),
            let continues = try? (reply.optional("continues")?.bool() ?? false)
        {
            return (value, continues)
        }
        do {
            // The common case, a streamed update, is decoded once: a reply that is not an error and has its
            // parameters. Anything else is looked at again for the error it carries or the reason it is unreadable.
            if let reply = try? codec.decode(VarlinkReply<Parameters>.self, from: frame), reply.error == nil,
                let parameters = reply.parameters
            {
                return (parameters, reply.continues == true)
            }
            let header = try codec.decode(VarlinkReplyHeader.self, from: frame)
            if let error = header.error {
                let parameters = try? codec.decode(
                    VarlinkReply<VarlinkError.ErrorParameters>.self, from: frame
                ).parameters
                throw PathmondClientError.remote(VarlinkError(name: error, parameters: parameters))
            }
            guard try codec.decode(VarlinkReply<Parameters>.self, from: frame).parameters != nil else {
                throw PathmondClientError.invalidReply("reply without parameters")
            }
            throw PathmondClientError.invalidReply("reply could not be read")
        } catch let error as PathmondClientError {
            throw error
        } catch {
            throw .invalidReply(String(describing: error))
        }
    }

    private func decodePath(_ reply: Methods.PathReply) throws(PathmondClientError) -> Path {
        do {
            return try reply.path.path()
        } catch {
            throw .invalidReply(error.description)
        }
    }
}
