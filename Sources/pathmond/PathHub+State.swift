// SPDX-License-Identifier: Apache-2.0
import PathModel

extension PathHub {
    /// What the hub holds under its lock: the tracker, the watched interests and what the kernel watcher asked.
    struct State {
        var tracker: PathTracker
        /// Live subscribers, grouped by what they watch: one evaluation and one encoding per group.
        var interests: [Interest: WatchedInterest] = [:]
        var subscriberCount = 0
        var generation: UInt64 = 0
        /// Counts changes to the tracker, so a value derived outside the lock can tell whether it is still current.
        var trackerVersion: UInt64 = 0
        /// Whether the first kernel snapshot has been applied.
        var isReady = false
        /// The flows' route queries whose answers from the last kernel change are still to come.
        var awaiting: AwaitingQueries = []
        /// The version of the route-query set last handed to the kernel watcher, and the newest it has asked.
        var queriesHandedOver: UInt64 = 0
        /// How many watched interests ask each route query: the changes handed over come from it.
        var queryCounts = FlowQueryCounts()
        var queriesAsked: UInt64 = 0
        /// The flows by route query, and the interests of users other than root: what an update that brings only
        /// some route answers looks at (`answered`), rather than every interest.
        var asking: [RouteQuery: [WatchedInterest]] = [:]
        var ofUsers: [ObjectIdentifier: WatchedInterest] = [:]
        /// Numbers `interestsToDerive`'s passes (`WatchedInterest.derivationPass`).
        var derivationPass: UInt64 = 0
        /// The route queries the batch being applied asked; nil: unknown, every interest is looked at.
        var answered: [RouteQuery]?
        /// The route queries whose answers the batch being applied changed; nil: unknown (a snapshot).
        var changedAnswers: ChangedAnswers? = ChangedAnswers()

        mutating func add(_ box: WatchedInterest) {
            interests[box.interest] = box
            for query in box.routeQueries { asking[query, default: []].append(box) }
            if box.interest.routingUser != nil { ofUsers[ObjectIdentifier(box)] = box }
        }

        mutating func remove(_ box: WatchedInterest) {
            interests[box.interest] = nil
            for query in box.routeQueries {
                asking[query]?.removeAll { $0 === box }
                if asking[query]?.isEmpty == true { asking[query] = nil }
            }
            ofUsers[ObjectIdentifier(box)] = nil
        }

        /// An interest an update looks at, with what it last published and the query set its first value waits
        /// for, as they are under the lock.
        typealias ToDerive = (box: WatchedInterest, published: Update?, firstValueAfter: UInt64?)

        /// The interests an update must look at: those whose answers the batch brought and other users' (their
        /// interfaces are their own), when the interfaces and resolvers are as they were; otherwise all.
        /// Each interest comes once, marked with the pass's number as it is taken: a flow's two answers name it
        /// twice, and a set of boxes hashed every answer of a slice again. Listed with what they published in one
        /// array (a list of the boxes, then one of them with their values, was two arrays every update).
        mutating func interestsToDerive(inputsKept: Bool) -> [ToDerive] {
            func taken(_ box: WatchedInterest) -> ToDerive { (box, box.published, box.firstValueAfter) }
            guard inputsKept, let answered else {
                var all: [ToDerive] = []
                all.reserveCapacity(interests.count)
                for box in interests.values { all.append(taken(box)) }
                return all
            }
            derivationPass &+= 1
            let pass = derivationPass
            var boxes: [ToDerive] = []
            boxes.reserveCapacity(ofUsers.count + answered.count)
            for box in ofUsers.values {
                box.derivationPass = pass
                boxes.append(taken(box))
            }
            for query in answered {
                for box in asking[query] ?? [] where box.derivationPass != pass {
                    box.derivationPass = pass
                    boxes.append(taken(box))
                }
            }
            return boxes
        }
    }
}
