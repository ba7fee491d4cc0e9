// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol

/// What an update derives for each watched interest, and the bytes it sends: the hub's pure half, run outside its
/// lock on the tracker the update read.
extension PathHub {
    static func value(for interest: Interest, tracker: PathTracker) -> Published {
        var paths = PathsByParameters(tracker)
        let queries: FlowRouteQueries? = if case .flow(let flow) = interest { flow.routeQueryPair } else { nil }
        return value(for: interest, queries: queries, tracker: tracker, paths: &paths)
    }

    /// Paths already derived in one update, by parameters: a thousand flows watched with the same parameters need
    /// one path between them, not one each. The tracker's own path is the system's, and while it is also the
    /// unrestricted one (`PathEvaluator.sharesSystemPath`), WatchPath without parameters, the commonest interest,
    /// costs no evaluation of its own, and not even a hash of its parameters.
    ///
    /// The two well-known parameters are kept here, read once per update: compared with the globals, each flow's
    /// look-up copied and destroyed a global's parameters (300 instructions a flow, on every change).
    struct PathsByParameters {
        private let tracker: PathTracker
        private var sharesSystemPath: Bool?
        private var others: [PathParameters: Path] = [:]
        private let system = PathParameters.system
        private let unrestricted = PathParameters.unrestricted

        init(_ tracker: PathTracker) { self.tracker = tracker }

        subscript(parameters: PathParameters) -> Path? {
            mutating get {
                if parameters == system { return tracker.path }
                if parameters == unrestricted {
                    let shares =
                        sharesSystemPath
                        ?? PathEvaluator.sharesSystemPath(.unrestricted, interfaces: tracker.interfaces)
                    sharesSystemPath = shares
                    if shares { return tracker.path }
                }
                return others[parameters]
            }
            set { others[parameters] = newValue }
        }
    }

    /// `queries`: a flow's route queries, as its box keeps them.
    static func value(
        for interest: Interest, queries: FlowRouteQueries?, tracker: PathTracker, paths: inout PathsByParameters
    ) -> Published {
        func path(_ parameters: PathParameters) -> Path {
            if let known = paths[parameters] { return known }
            let path = tracker.evaluator.path(
                from: tracker.interfaces(forUser: parameters.routingUser), resolvers: tracker.context.resolvers,
                parameters: parameters)
            paths[parameters] = path
            return path
        }
        switch interest {
        case .path(let parameters):
            return .path(path(parameters))
        case .flow(let flow):
            return .flow(
                FlowEvaluator.status(
                    of: flow, queries: queries, interfaces: tracker.interfaces(forUser: flow.parameters.routingUser),
                    pathForParameters: path(flow.parameters),
                    decisions: tracker.state.decisions))
        }
    }

    /// The streamed replies of one update, written without Foundation: this runs once per changed interest on
    /// every change. A flow's reply depends on its status alone, and a thousand flows mostly share a handful of
    /// statuses (viable or not, with a better path or not), so each of the first few distinct statuses is written
    /// once per update and its bytes shared. Found by comparison, not hashing: hashing a status (its optional
    /// name and address array) cost more than comparing it with a few.
    struct EncodedReplies {
        private var flows: [(status: FlowStatus, reply: [UInt8])] = []
        private static let remembered = 8

        mutating func encode(_ value: Published) -> [UInt8] {
            guard case .flow(let status) = value else { return Self.reply(value) }
            // Compared in place: a copied entry was three retains and releases.
            for index in flows.indices where flows[index].status == status { return flows[index].reply }
            let reply = Self.reply(value)
            if flows.count < Self.remembered { flows.append((status, reply)) }
            return reply
        }

        static func reply(_ value: Published) -> [UInt8] {
            switch value {
            case .path(let path): StreamedReplyWriter.pathReply(path)
            case .flow(let status): StreamedReplyWriter.flowReply(WireFlowStatus(status))
            }
        }
    }
}

extension Published {
    /// The path, for a path interest.
    var path: Path? {
        if case .path(let path) = self { return path }
        return nil
    }
}
