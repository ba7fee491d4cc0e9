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
        /// The tracker's path, read once (each read through the tracker's accessor cost a flow 100 instructions).
        private let systemPath: Path

        init(_ tracker: PathTracker) {
            self.tracker = tracker
            systemPath = tracker.path
        }

        /// The path for `parameters`, derived if no interest asked for it yet in this update.
        mutating func path(for parameters: PathParameters) -> Path {
            withPath(for: parameters) { $0 }
        }

        /// Runs `body` with the path for `parameters` where it is kept: a flow reads its path, and a copy of it per
        /// flow was a retain and a release of each of its lists (300 instructions a flow, on every change).
        mutating func withPath<Result>(for parameters: PathParameters, _ body: (Path) -> Result) -> Result {
            if parameters == system || (parameters == unrestricted && unrestrictedSharesSystemPath) {
                return body(systemPath)
            }
            if let known = others[parameters] { return body(known) }
            let path = tracker.evaluator.path(
                from: tracker.interfaces(forUser: parameters.routingUser), resolvers: tracker.context.resolvers,
                parameters: parameters)
            others[parameters] = path
            return body(path)
        }

        /// Whether the unrestricted path is the system's (found out once per update).
        private var unrestrictedSharesSystemPath: Bool {
            mutating get {
                if let sharesSystemPath { return sharesSystemPath }
                let shares = PathEvaluator.unrestrictedSharesSystemPath(interfaces: tracker.interfaces)
                sharesSystemPath = shares
                return shares
            }
        }
    }

    /// `queries`: a flow's route queries, as its box keeps them.
    static func value(
        for interest: Interest, queries: FlowRouteQueries?, tracker: PathTracker, paths: inout PathsByParameters
    ) -> Published {
        switch interest {
        case .path(let parameters):
            return .path(paths.path(for: parameters))
        case .flow(let flow):
            return .flow(
                paths.withPath(for: flow.parameters) { path in
                    FlowEvaluator.status(
                        of: flow, queries: queries,
                        interfaces: tracker.interfaces(forUser: flow.parameters.routingUser), pathForParameters: path,
                        decisions: tracker.state.decisions)
                })
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
